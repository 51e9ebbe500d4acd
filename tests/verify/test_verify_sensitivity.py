"""``dpaudit.verify.sensitivity``: neighbour search under each relation; DISPROVED with a re-evaluated pair, UNDECIDED with
the largest distance seen; the tolerance; argument errors."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.errors import InvalidArgument
from dpaudit.neighbors import ItemAddRemove, ItemReplace, QueryDistance, UserAddRemove, UserReplace
from dpaudit.verify import Verdict, sensitivity


def _rebuild(base: np.ndarray, change: dict) -> np.ndarray:
    if "replaced row" in change:
        out = base.copy()
        out[change["replaced row"]] = change["new"]
        return out
    if "added row" in change:
        return np.insert(base, change["added row"], change["new"], axis=0)
    return np.delete(base, change["removed row"], axis=0)


def test_verify_sensitivity_unclipped_sum_is_disproved_with_the_pair():
    data = np.linspace(0, 1, 10)
    result = sensitivity(lambda d: d.sum(), 1.0, relation=ItemReplace(), dataset=data)
    assert result.verdict is Verdict.DISPROVED
    other = _rebuild(data, result.counterexample["change"])
    assert ItemReplace().is_neighbor(data, other) and abs(other.sum() - data.sum()) > 1.0
    assert result.counterexample["D'"] == other.tolist()  # the small dataset is reported whole


@pytest.mark.parametrize("relation", [ItemReplace(), ItemAddRemove()])
def test_verify_sensitivity_clipped_sum_is_undecided_with_evidence(relation):
    result = sensitivity(lambda d: np.clip(d, 0, 1).sum(), 1.0, relation=relation, dataset=np.full(8, 0.5), budget=300)
    assert result.verdict is Verdict.UNDECIDED and result.counterexample is None
    assert result.evidence["neighbours searched"] <= 300 and result.evidence["largest distance"] <= 1.0
    assert result.evidence["largest distance"] >= 0.5  # the search reached the worst case from 0.5 (to 0 or 1)
    assert "never prove" in result.reason


def test_verify_sensitivity_wrong_bound_for_a_correct_mean_is_found():
    # the clipped mean over [0, 1] has replace-one sensitivity 1/n; claiming 1/(2n) is wrong
    data = np.zeros(10)
    result = sensitivity(lambda d: np.clip(d, 0, 1).mean(), 0.05, relation=ItemReplace(), dataset=data, domain=(0.0, 1.0))
    assert result.disproved and result.counterexample["distance"] == pytest.approx(0.1)


def test_verify_sensitivity_user_level_query_under_user_replace():
    data = np.zeros((5, 4, 2))
    per_item_mean = lambda d: np.clip(d, -1, 1).mean(axis=(0, 1))  # noqa: E731  item-level noise would assume 2/(nm)
    result = sensitivity(per_item_mean, 2 / 20, relation=UserReplace(), dataset=data, norm="inf", domain=(-1.0, 1.0))
    assert result.disproved  # one user moves m = 4 items: 4 * 1/20 from 0 to 1 > 2/20
    other = _rebuild(data, result.counterexample["change"])
    assert UserReplace().is_neighbor(data, other)
    assert np.max(np.abs(per_item_mean(other) - per_item_mean(data))) > 2 / 20
    # around the zeros one user moves the mean by 1/5, but a user at -1 replaced by one at +1 moves it by 2/5:
    # the claim is about every pair of neighbours, and the search also starts from other datasets
    assert sensitivity(per_item_mean, 1 / 5, relation=UserReplace(), dataset=data, norm="inf", domain=(-1.0, 1.0), budget=200).disproved
    assert sensitivity(per_item_mean, 2 / 5, relation=UserReplace(), dataset=data, norm="inf", domain=(-1.0, 1.0), budget=200).undecided


def test_verify_sensitivity_add_remove_count_query():
    result = sensitivity(lambda d: float(d.shape[0]), 0.5, relation=UserAddRemove(), dataset=np.zeros((3, 2)), budget=50)
    assert result.disproved and result.counterexample["distance"] == 1.0


def test_verify_sensitivity_tolerance_zero_compares_exactly():
    data = np.full(10, 0.1)
    q = lambda d: np.clip(d, 0, 1).sum() / 10  # noqa: E731  sensitivity 0.1, computed in floats
    assert sensitivity(q, 0.1, relation=ItemReplace(), dataset=data, domain=(0.0, 1.0), budget=200).undecided
    exact = sensitivity(q, 0.1, relation=ItemReplace(), dataset=data, domain=(0.0, 1.0), budget=200, tolerance=0)
    if exact.disproved:  # rounding alone: the distance exceeds 0.1 only in the last bits
        assert exact.counterexample["distance"] == pytest.approx(0.1, rel=1e-12)


def test_verify_sensitivity_rejects_bad_arguments():
    data = np.zeros(4)
    with pytest.raises(InvalidArgument, match="bound"):
        sensitivity(lambda d: d.sum(), 0.0, relation=ItemReplace(), dataset=data)
    with pytest.raises(InvalidArgument, match="relation"):
        sensitivity(lambda d: d.sum(), 1.0, relation=QueryDistance(), dataset=data)
    with pytest.raises(InvalidArgument, match="domain"):
        sensitivity(lambda d: d.sum(), 1.0, relation=ItemReplace(), dataset=data, domain=(1.0, 0.0))
    with pytest.raises(InvalidArgument, match="query"):
        sensitivity(lambda d: np.inf, 1.0, relation=ItemReplace(), dataset=data)


def test_verify_sensitivity_weakening_the_bound_is_disproved():
    q = lambda d: np.clip(d, 0, 1).sum()  # noqa: E731
    data = np.full(6, 0.5)
    assert sensitivity(q, 1.0, relation=ItemReplace(), dataset=data, domain=(0.0, 1.0), budget=200).undecided
    assert sensitivity(q, 0.99, relation=ItemReplace(), dataset=np.zeros(6), domain=(0.0, 1.0), budget=200).disproved
