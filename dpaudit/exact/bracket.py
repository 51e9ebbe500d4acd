"""The other side of an audit: the declared profile of the audited pair, attached to the result.

:func:`dpaudit.audit` calls :func:`attach_bracket` once, after estimating its lower bound. When the
mechanism declares its structure (``privacy_profile(d0, d1)``, the
:class:`~dpaudit.interfaces.StructuredMechanism` protocol) the result gains ``epsilon_upper`` (certified
on this pair at the claimed delta), the certified lower end when the profile is the pair's exact
law, the profile's curve for plots, and the two-sided verdict
(:func:`dpaudit.auditor.result.bracket_verdict`). Without structure (a plain callable, an adapter,
a mechanism that cannot compute this pair) the result says why, and keeps its lower bound only.
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from dpaudit.auditor.result import AuditResult, bracket_verdict
from dpaudit.errors import InvalidArgument
from dpaudit.exact.profile import EXACT, EpsilonBracket, PrivacyProfile, ProfileUnavailable

__all__ = ["CURVE_POINTS", "attach_bracket", "case_bracket", "declared_profile", "profile_curve"]

#: Points of the profile curve carried by a result (for plots).
CURVE_POINTS = 48


def declared_profile(mechanism: Any, d0: Any, d1: Any) -> tuple[PrivacyProfile | None, str]:
    """``(profile, "")`` from the mechanism's ``privacy_profile``, or ``(None, why not)``."""
    method = getattr(mechanism, "privacy_profile", None)
    if method is None or not callable(method):
        kind = "a plain callable" if not hasattr(mechanism, "claimed_guarantee") else type(mechanism).__name__
        return None, f"{kind} declares no structure (no privacy_profile)"
    try:
        profile = method(d0, d1)
    except (ProfileUnavailable, InvalidArgument, ArithmeticError) as exc:
        return None, f"profile not computed: {exc}"
    if not isinstance(profile, PrivacyProfile):
        return None, f"privacy_profile returned {type(profile).__name__}, not a PrivacyProfile"
    return profile, ""


def profile_curve(profile: PrivacyProfile, top: float, points: int = CURVE_POINTS) -> tuple[tuple[float, float, float], ...]:
    """``(epsilon, delta_lo, delta_hi)`` on ``points`` epsilons in ``[0, top]``."""
    eps, lo, hi = profile.curve(np.linspace(0.0, top, points))
    return tuple((float(e), float(a), float(b)) for e, a, b in zip(eps, lo, hi, strict=True))


def attach_bracket(result: AuditResult, mechanism: Any, d0: Any, d1: Any, *, float_bits: bool = False) -> AuditResult:
    """``result`` with the declared profile's bracket and the two-sided verdict (see the module docstring)."""
    started = time.perf_counter()
    if float_bits:
        note = ("not computed: with float_bits the audit reads the outputs' IEEE-754 bits, which a profile of "
                "the law over the reals does not describe")
        return dataclasses.replace(result, profile_note=note)
    profile, note = declared_profile(mechanism, d0, d1)
    if profile is None:
        return dataclasses.replace(result, profile_note=note,
                                   bracket_verdict=bracket_verdict(result.epsilon_lower_bound, result.violation,
                                                                   result.claimed_epsilon, None, None))
    bracket = profile.epsilon(result.delta)
    upper = bracket.upper
    computed_lower = bracket.lower if bracket.kind == EXACT else None
    finite = [x for x in (upper, result.claimed_epsilon, result.epsilon_lower_bound, computed_lower or 0.0) if math.isfinite(x)]
    top = max(1e-3, 1.5 * max(finite, default=1.0))
    verdict = bracket_verdict(result.epsilon_lower_bound, result.violation, result.claimed_epsilon, upper, computed_lower)
    return dataclasses.replace(
        result,
        epsilon_upper=upper,
        epsilon_computed_lower=computed_lower,
        profile_kind=bracket.kind,
        profile_description=profile.description,
        profile_curve=profile_curve(profile, top),
        bracket_verdict=verdict,
        total_seconds=result.total_seconds + time.perf_counter() - started,
    )


def case_bracket(case: Any) -> tuple[EpsilonBracket | None, str]:
    """The certified bracket of an :class:`~dpaudit.auditor.AuditCase`'s pair at the delta its audit uses.

    No sampling: the claim's delta (the case's, else the mechanism's, else 0), the pair's profile, and
    its epsilon there; ``(None, why)`` without structure or for an audit of floating-point bits.
    """
    if case.attack_options.float_bits:
        return None, "audited bit by bit (float_bits): the profile of the law over the reals does not apply"
    delta = case.delta
    if delta is None:
        claim = case.mechanism.claimed_guarantee()
        delta = getattr(claim, "delta", 0.0)
    profile, note = declared_profile(case.mechanism, case.d0, case.d1)
    if profile is None:
        return None, note
    return profile.epsilon(delta), profile.description
