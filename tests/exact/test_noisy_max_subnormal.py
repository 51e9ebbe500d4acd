"""A subnormal noise scale: the value-release profile computes (it divided by ``scale / 16``, which is 0)."""

import pytest

from dpaudit.exact import noisy_max_value_profile


@pytest.mark.parametrize("with_index", [False, True])
@pytest.mark.parametrize("scale", [2e-323, 5e-324])
def test_a_subnormal_scale_gives_the_rescaled_pairs_bracket(scale, with_index):
    """``[s, 0]`` vs ``[0, 0]`` at scale ``s`` is the pair ``[1, 0]`` vs ``[0, 0]`` at scale 1, rescaled: the brackets overlap."""
    tiny = noisy_max_value_profile([scale, 0.0], [0.0, 0.0], scale, with_index=with_index).epsilon(1e-3)
    unit = noisy_max_value_profile([1.0, 0.0], [0.0, 0.0], 1.0, with_index=with_index).epsilon(1e-3)
    assert tiny.lower <= unit.upper and unit.lower <= tiny.upper, (tiny, unit)
