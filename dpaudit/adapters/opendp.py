"""Audit an OpenDP measurement, with its claim read from the measurement's own privacy map.

Needs the ``opendp`` extra (``pip install 'dpaudit[opendp]'``).

OpenDP states privacy as a map from an input distance ``d_in`` to a privacy loss in the
measurement's output measure. The claim audited is that map at ``d_in``:

* ``MaxDivergence``: ``epsilon = map(d_in)``, pure DP;
* ``Approximate<MaxDivergence>``: ``(epsilon, delta) = map(d_in)``;
* ``SmoothedMaxDivergence`` (a privacy profile): ``epsilon = map(d_in).epsilon(delta)``;
* ``ZeroConcentratedDivergence``: converted by OpenDP's own ``make_zCDP_to_approxDP`` to a
  profile, then as above. Profiles need the ``delta`` to audit at.

A "wrong sensitivity" is a ``d_in`` smaller than the distance the query's answers really move:
``query_sensitivity`` states the real one, and the claim "map(d_in) for inputs within
``query_sensitivity``" is what is audited.

Randomness: OpenDP samples from the operating system's CSPRNG and cannot be seeded, by design, so
audits of OpenDP measurements are **not reproducible from the seed** (the ``rng`` passed to
``sample`` is not used). The bound's validity does not depend on it: trials are i.i.d. either way.
The measurement is invoked once per trial (about 60 microseconds for a scalar Laplace).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from dpaudit._extras import require_extra
from dpaudit._validation import argument_error, check_positive, check_probability
from dpaudit.errors import InvalidArgument
from dpaudit.guarantees import ApproxDP, Guarantee, PureDP
from dpaudit.neighbors.relations import QueryDistance

__all__ = ["OpenDPMeasurement", "input_distance"]

OWNER = "OpenDPMeasurement"
_NORMS = {"AbsoluteDistance": "l1", "L1Distance": "l1", "L2Distance": "l2"}
# relative slack added to a distance computed in floating point, so the claim read from the map is
# never for a smaller distance than the pair's (the same slack QueryDistance allows)
_ROUND_UP = 1e-12


def _metric_name(measurement: Any) -> str:
    return str(measurement.input_metric.type).split("<", 1)[0].split("(", 1)[0]


def _measure_name(measurement: Any) -> str:
    return str(measurement.output_measure.type)


def input_distance(measurement: Any, d0: Any, d1: Any) -> float | int:
    """The distance between ``d0`` and ``d1`` in the measurement's input metric (rounded up).

    Supports ``AbsoluteDistance``, ``L1Distance``, ``L2Distance`` and ``SymmetricDistance`` (the
    size of the multiset symmetric difference).
    """
    metric = _metric_name(measurement)
    a, b = np.asarray(d0), np.asarray(d1)
    integer = not str(measurement.input_distance_type).startswith("f")
    if metric == "SymmetricDistance":
        left, right = Counter(a.ravel().tolist()), Counter(b.ravel().tolist())
        return sum(((left - right) + (right - left)).values())
    if metric not in _NORMS:
        raise argument_error(
            "input_distance", "measurement",
            "a measurement with input metric AbsoluteDistance, L1Distance, L2Distance or SymmetricDistance", metric,
            fix="give d_in yourself: OpenDPMeasurement(measurement, d_in=...).",
        )
    if a.shape != b.shape:
        raise argument_error("input_distance", "d1", f"of the same shape as d0 {a.shape} under {metric}", d1)
    diff = np.abs(a.astype(float) - b.astype(float)).ravel()
    value = math.fsum(diff) if _NORMS[metric] == "l1" else math.sqrt(math.fsum(diff**2))
    if integer:
        return math.ceil(value)
    return value * (1 + _ROUND_UP)


@dataclass(frozen=True, eq=False)
class OpenDPMeasurement:
    """An OpenDP measurement as a dpaudit mechanism, claiming what its privacy map says at ``d_in``.

    Parameters
    ----------
    measurement : opendp.mod.Measurement
        For example ``dp.m.make_laplace(dp.atom_domain(T=float, nan=False),
        dp.absolute_distance(T=float), scale=1.0)``.
    d_in : float or int
        The input distance the claim is read at (the query's sensitivity, as told to OpenDP).
    delta : float, optional
        In [0, 1); the delta to read an epsilon at, needed for privacy profiles (zCDP and
        smoothed max divergence measurements).
    query_sensitivity : float, optional
        The distance the inputs really move, in (0, inf); default ``d_in``. Only for the
        absolute, l1 and l2 input metrics, where the claim's relation is a query distance.

    Examples
    --------
    ::

        import opendp.prelude as dp
        dp.enable_features("contrib")
        laplace = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
        dpaudit.audit(OpenDPMeasurement(laplace, d_in=1.0), 0.0, 1.0, trials=20_000).violation   # False
    """

    #: OpenDP draws from the operating system's CSPRNG: the audit's seed does not reproduce its outputs
    ignores_rng: ClassVar[bool] = True

    measurement: Any
    d_in: float | int
    delta: float | None = None
    query_sensitivity: float | None = None
    _claim: Guarantee = field(init=False, repr=False)

    def __post_init__(self) -> None:
        mod = require_extra("opendp.mod", "opendp")
        if not isinstance(self.measurement, mod.Measurement):
            raise argument_error(OWNER, "measurement", "an OpenDP Measurement", self.measurement)
        if self.delta is not None:
            object.__setattr__(self, "delta", check_probability(OWNER, "delta", self.delta))
        if self.query_sensitivity is not None:
            object.__setattr__(self, "query_sensitivity", check_positive(OWNER, "query_sensitivity", self.query_sensitivity))
        object.__setattr__(self, "_claim", self._read_claim())

    def _relation(self) -> QueryDistance | None:
        norm = _NORMS.get(_metric_name(self.measurement))
        if norm is None:
            if self.query_sensitivity is not None:
                raise argument_error(
                    OWNER, "query_sensitivity", "left unset for input metric " + _metric_name(self.measurement),
                    self.query_sensitivity,
                )
            return None
        reach = float(self.d_in) if self.query_sensitivity is None else self.query_sensitivity
        return QueryDistance(reach, norm) if reach > 0 else None

    def _read_claim(self) -> Guarantee:
        measure = _measure_name(self.measurement)
        relation = self._relation()
        try:
            if measure == "MaxDivergence":
                return PureDP(float(self.measurement.map(self.d_in)), relation)
            if measure.startswith("Approximate<MaxDivergence"):
                epsilon, delta = self.measurement.map(self.d_in)
                return ApproxDP(float(epsilon), float(delta), relation)
            if measure in ("SmoothedMaxDivergence", "ZeroConcentratedDivergence"):
                return self._profile_claim(measure, relation)
        except InvalidArgument:
            raise  # ours, already naming the argument to fix (a profile measurement without delta)
        except (TypeError, ValueError) as exc:
            raise argument_error(OWNER, "d_in", f"accepted by the measurement's privacy map ({exc})", self.d_in) from exc
        raise argument_error(
            OWNER, "measurement",
            "a measurement whose output measure is MaxDivergence, Approximate<MaxDivergence>, "
            "SmoothedMaxDivergence or ZeroConcentratedDivergence", measure,
        )

    def _profile_claim(self, measure: str, relation: QueryDistance | None) -> Guarantee:
        if self.delta is None:
            raise argument_error(OWNER, "delta", f"given for a {measure} measurement: its claim is an epsilon at a "
                                 "delta you choose", None, fix="pass delta=... (on the command line, --delta D).")
        measurement = self.measurement
        if measure == "ZeroConcentratedDivergence":
            combinators = require_extra("opendp.combinators", "opendp")
            measurement = combinators.make_zCDP_to_approxDP(measurement)
        epsilon = float(measurement.map(self.d_in).epsilon(self.delta))
        return ApproxDP(epsilon, self.delta, relation)

    def claimed_guarantee(self) -> Guarantee:
        """The privacy map's loss at ``d_in``, as a dpaudit guarantee."""
        return self._claim

    def sample(self, data: Any, size: int, *, rng: np.random.Generator) -> NDArray[Any]:
        """``size`` invocations of the measurement on ``data`` (OpenDP's own, unseedable randomness)."""
        del rng  # OpenDP cannot be seeded (see the module docstring)
        value = _as_carrier(data, str(self.measurement.input_carrier_type))
        return np.asarray([self.measurement(value) for _ in range(size)])

    def __repr__(self) -> str:
        used = "" if self.query_sensitivity is None else f", used at sensitivity {self.query_sensitivity:g}"
        return f"OpenDP measurement ({_metric_name(self.measurement)} -> {_measure_name(self.measurement)}, d_in={self.d_in:g}{used})"


def _scalar(value: Any, atom: str) -> Any:
    if atom in ("f32", "f64"):
        if not math.isfinite(float(value)):  # no DP query's data: refused before the measurement runs
            raise argument_error(OWNER, "data", "finite", value)
        return float(value)
    if atom == "bool":
        return bool(value)
    if atom[:1] in ("i", "u"):
        return int(value)
    return value


def _as_carrier(data: Any, carrier: str) -> Any:
    """numpy data as the Python value OpenDP's carrier type expects (``f64``, ``Vec<i32>``, ...)."""
    arr = np.asarray(data)
    if carrier.startswith("Vec<"):
        atom = carrier[4:-1]
        return [_scalar(v, atom) for v in arr.ravel().tolist()]
    if arr.ndim != 0:
        raise argument_error(OWNER, "data", f"a scalar for carrier type {carrier}", data)
    return _scalar(arr.item(), carrier)
