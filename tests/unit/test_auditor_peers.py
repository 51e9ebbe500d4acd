"""Cross-check against jax_privacy's auditor (optional extra ``[peers]``; skipped without it).

At one fixed threshold both tools compute the same Clopper-Pearson bound from the same counts:
``ln(TPR_lo - delta) - ln(FPR_hi)`` with each limit at alpha / 2.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dpaudit.auditor.stats import epsilon_lower_bound_from_counts

# imported at collection: jax's import touches numpy's global random state, which the suite's
# fixture forbids inside a test; its import-time warnings are not ours to fail on
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    auditing = pytest.importorskip("jax_privacy.auditing", reason="needs the optional [peers] extra (pip install -e '.[peers]')")


@pytest.mark.parametrize(("delta", "threshold"), [(0.0, 1.0), (1e-3, 2.5), (0.0, 4.0)])
def test_single_threshold_bounds_agree_with_jax_privacy(rng, delta, threshold):
    held_in, held_out = rng.laplace(1.0, 1.0, 20_000), rng.laplace(0.0, 1.0, 20_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = auditing.CanaryScoreAuditor(held_in, held_out).epsilon_clopper_pearson(
            0.05, delta=delta, one_sided=True, threshold_strategy=auditing.Explicit(threshold)
        )
    ours = epsilon_lower_bound_from_counts(int(np.sum(held_in >= threshold)), int(np.sum(held_out >= threshold)), 20_000, delta, 0.05)
    assert ours == pytest.approx(float(theirs), rel=1e-8, abs=1e-12)
