"""Canonical sympy symbols for the bounds layer, each created once with its assumptions.

Every module of :mod:`dpaudit.bounds` imports its symbols from here, so that ``n`` in one paper's
theorem is the same sympy object as ``n`` in another's and expressions can be compared, added
and substituted across papers (convention 11 of ``docs/conventions.md``).

Each symbol is declared together with its *domain* (the values the mathematics allows), a
*typical range* (where the numerical cross-checks draw their random points) and, for the rate
variables, a *direction*: ``+1`` for quantities that grow (n, m, d), ``-1`` for quantities that
shrink (epsilon, delta). Validation (:func:`dpaudit.bounds.evaluate`) and random test points are
derived from that single declaration (convention 6 of ``docs/conventions.md``).

Naming across papers
--------------------
The four papers use clashing letters. The canonical names here, and what each paper calls them:

======================  ==================================================================
canonical               paper usage
======================  ==================================================================
``L``                   l2-Lipschitz constant. Levy et al. 2021 and Ghazi et al. 2023 call it G;
                        Lowy, Liu, Asi 2024 call it L.
``G``                   l1-Lipschitz constant (``||grad f||_inf <= G``) of Ghazi, Kumar, Liu,
                        Manurangsi 2025 only (a different quantity from ``L``).
``R``                   l2 *diameter* of the constraint set (all papers in the l2 setting).
``D``                   radius of the l_inf ball ``[-D, D]^d`` of Ghazi et al. 2025 (not a diameter).
``beta``                smoothness. Levy et al. call it H. Ghazi et al. 2023 use the letter beta for a
                        failure probability; that is ``gamma`` here.
``gamma``               failure probability (Levy's gamma, Ghazi 2023's beta).
``sigma_sg``            sub-Gaussian parameter of the gradients (Levy et al.'s sigma).
``sigma``               standard deviation of Gaussian noise.
``eta``                 step size; ``lam`` regulariser; ``Delta`` sensitivity; ``tau`` concentration
                        radius (or, in Ghazi et al. 2025, inverse radius: see that module).
======================  ==================================================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import sympy as sp

from dpaudit.errors import UnknownName

__all__ = [
    "RATE_VARIABLES",
    "SYMBOLS",
    "B",
    "C",
    "D",
    "Delta",
    "G",
    "J",
    "K",
    "L",
    "R",
    "SymbolInfo",
    "T",
    "beta",
    "c",
    "d",
    "delta",
    "epsilon",
    "eta",
    "gamma",
    "k",
    "lam",
    "m",
    "mu",
    "mu_gdp",
    "n",
    "p",
    "q",
    "sigma",
    "sigma_sg",
    "symbol_info",
    "tau",
    "x",
    "zeta",
]


@dataclass(frozen=True)
class SymbolInfo:
    """One canonical symbol and its declared domain.

    Parameters
    ----------
    symbol : sympy.Symbol
        The symbol (created with its sympy assumptions).
    description : str
        What it stands for.
    low, high : float
        Domain end points.
    low_closed, high_closed : bool
        Whether the end points belong to the domain.
    typical : tuple of float
        Range from which numerical cross-checks draw random points (inside the domain).
    log_scale : bool
        Draw random points log-uniformly (True) or uniformly (False).
    integer : bool
        Whether values must be integers.
    direction : int
        ``+1`` if the quantity grows in rate statements (n, m, d), ``-1`` if it shrinks
        (epsilon, delta), ``0`` if it is a constant for rate purposes.
    """

    symbol: sp.Symbol
    description: str
    low: float
    high: float
    low_closed: bool
    high_closed: bool
    typical: tuple[float, float]
    log_scale: bool = True
    integer: bool = False
    direction: int = 0

    @property
    def name(self) -> str:
        """The symbol's name."""
        return self.symbol.name

    def constraint_text(self) -> str:
        """The domain in words, as used in error messages (e.g. ``"in (0, 1)"``)."""
        if self.integer:
            lo = math.ceil(self.low) if self.low_closed else math.floor(self.low) + 1
            return f"an integer >= {lo}"
        left = "[" if self.low_closed else "("
        right = "]" if self.high_closed else ")"
        hi = "inf" if math.isinf(self.high) else f"{self.high:g}"
        return f"in {left}{self.low:g}, {hi}{right}"

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in the domain (integrality included)."""
        if math.isnan(value):
            return False
        ok_low = value >= self.low if self.low_closed else value > self.low
        ok_high = value <= self.high if self.high_closed else value < self.high
        if self.integer and value != math.floor(value):
            return False
        return ok_low and ok_high


_INF = math.inf
_REGISTRY: dict[str, SymbolInfo] = {}


def _declare(
    name: str,
    description: str,
    domain: tuple[float, float, bool, bool],
    typical: tuple[float, float],
    *,
    log_scale: bool = True,
    integer: bool = False,
    direction: int = 0,
) -> sp.Symbol:
    assumptions: dict[str, bool] = {"positive": True}
    if integer:
        assumptions["integer"] = True
    symbol = sp.Symbol(name, **assumptions)
    low, high, low_closed, high_closed = domain
    _REGISTRY[name] = SymbolInfo(symbol, description, low, high, low_closed, high_closed, typical,
                                 log_scale, integer, direction)
    return symbol


_POS = (0.0, _INF, False, False)
_NONNEG = (0.0, _INF, True, False)
_PROB = (0.0, 1.0, False, False)

# --- sizes (rate variables that grow) ----------------------------------------------------------
n = _declare("n", "number of users", (1.0, _INF, True, False), (2.0, 1e8), integer=True, direction=1)
m = _declare("m", "items (samples) per user", (1.0, _INF, True, False), (1.0, 1e6), integer=True, direction=1)
d = _declare("d", "dimension", (1.0, _INF, True, False), (1.0, 1e6), integer=True, direction=1)
# --- privacy (rate variables that shrink) ------------------------------------------------------
epsilon = _declare("epsilon", "privacy parameter epsilon", _POS, (1e-3, 10.0), direction=-1)
delta = _declare("delta", "privacy parameter delta", _PROB, (1e-12, 0.5), direction=-1)
# --- problem constants -------------------------------------------------------------------------
L = _declare("L", "l2-Lipschitz constant of the loss", _POS, (1e-2, 1e2))
G = _declare("G", "l1-Lipschitz constant (||grad||_inf <= G), Ghazi et al. 2025", _POS, (1e-2, 1e2))
R = _declare("R", "l2 diameter of the constraint set", _POS, (1e-2, 1e2))
D = _declare("D", "radius of the l_inf-ball constraint set [-D, D]^d, Ghazi et al. 2025", _POS, (1e-2, 1e2))
beta = _declare("beta", "smoothness constant (Levy et al.'s H)", _POS, (1e-2, 1e4))
mu = _declare("mu", "strong-convexity constant", _POS, (1e-3, 1e2))
sigma_sg = _declare("sigma_sg", "sub-Gaussian parameter of the gradients (Levy et al.'s sigma)", _POS, (1e-2, 1e2))
# --- algorithm parameters ----------------------------------------------------------------------
T = _declare("T", "number of steps / rounds / queries", (1.0, _INF, True, False), (1.0, 1e4), integer=True)
K = _declare("K", "minibatch size", (1.0, _INF, True, False), (1.0, 1e6), integer=True)
B = _declare("B", "batch size (Ghazi et al. 2025) or range bound (Levy et al.)", _POS, (1.0, 1e5))
C = _declare("C", "number of groups (Lowy, Liu, Asi Alg 1)", _POS, (1.0, 1e5))
eta = _declare("eta", "step size", _POS, (1e-6, 1.0))
lam = _declare("lam", "regularisation coefficient lambda", _POS, (1e-6, 1e2))
tau = _declare("tau", "concentration radius (inverse radius in Ghazi et al. 2025)", _POS, (1e-3, 1e2))
sigma = _declare("sigma", "standard deviation of Gaussian noise", _POS, (1e-3, 1e3))
Delta = _declare("Delta", "sensitivity", _POS, (1e-3, 1e2))
gamma = _declare("gamma", "failure probability (Ghazi et al. 2023's beta)", _PROB, (1e-12, 0.3))
zeta = _declare("zeta", "failure probability of a coupling / good event", _PROB, (1e-12, 0.3))
q = _declare("q", "phase-size exponent (Lowy, Liu, Asi)", _POS, (1e-2, 1.0), log_scale=False)
p = _declare("p", "step-size / regulariser exponent (Lowy, Liu, Asi)", _POS, (1.0, 10.0), log_scale=False)
J = _declare("J", "exponent with m <= n^J (Lowy, Liu, Asi Thm B.1)", _POS, (0.01, 5.0), log_scale=False)
c = _declare("c", "unspecified absolute constant hidden in an O(.)", _POS, (0.1, 10.0))
mu_gdp = _declare("mu_gdp", "Gaussian-DP parameter mu", _POS, (1e-2, 10.0))
k = _declare("k", "integer index (phase, round)", (1.0, _INF, True, False), (1.0, 30.0), integer=True,
             log_scale=False)
# a real variable without sign assumptions (densities, privacy-loss functions)
x = sp.Symbol("x", real=True)
_REGISTRY["x"] = SymbolInfo(x, "real argument of a density or privacy-loss function", -_INF, _INF, False, False,
                            (-10.0, 10.0), log_scale=False)

SYMBOLS: Mapping[str, SymbolInfo] = MappingProxyType(_REGISTRY)
"""Every canonical symbol by name, with its declared domain."""

RATE_VARIABLES: tuple[sp.Symbol, ...] = (n, m, d, epsilon)
"""The variables in which rates are reported (n, m, d grow; epsilon shrinks)."""


def symbol_info(symbol: sp.Symbol | str) -> SymbolInfo:
    """The :class:`SymbolInfo` of a canonical symbol (by object or name).

    Raises
    ------
    KeyError
        If the symbol is not one of the canonical symbols.
    """
    name = symbol if isinstance(symbol, str) else symbol.name
    info = _REGISTRY.get(name)
    if info is None or (not isinstance(symbol, str) and info.symbol != symbol):
        raise UnknownName(f"{name!r} is not a canonical dpaudit.bounds symbol")
    return info
