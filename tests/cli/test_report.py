"""The HTML report and the privacy-region plot, in process; and the report in a headless browser."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
from report_html import parse_report  # tests/cli/report_html.py

import dpaudit
from dpaudit.mechanisms import LaplaceMechanism, faulty
from dpaudit.plotting import figure_png, plot_privacy_region, privacy_region_bounds
from dpaudit.report import render_html, write_report


@pytest.fixture(scope="module")
def correct_result():
    return dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=20_000, seed=0)


@pytest.fixture(scope="module")
def leaky_result():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dpaudit.UnsoundMechanismWarning)
        mechanism = faulty.HistogramWrongScale(0.1)
    return dpaudit.audit(mechanism, [5.0, 5.0], [6.0, 5.0], trials=20_000, seed=0)


def test_region_bounds_match_the_two_inequalities_of_a_test():
    """Independent check: sample (x, y) points and test them against the DP definition directly.

    A test with false-positive rate x and true-positive rate y is allowed by (eps, delta)-DP iff
    y <= e^eps x + delta and 1 - x <= e^eps (1 - y) + delta, and the same with the roles of the two
    datasets swapped (x <= e^eps y + delta, 1 - y <= e^eps (1 - x) + delta) [DR14, Def 2.4 applied to
    the event and its complement].
    """
    rng = np.random.default_rng(5)
    for eps, delta in [(0.5, 0.0), (1.0, 1e-2), (2.0, 0.1)]:
        x, y = rng.uniform(size=20_000), rng.uniform(size=20_000)
        grow = math.exp(eps)
        allowed = (
            (y <= grow * x + delta) & (1 - x <= grow * (1 - y) + delta)
            & (x <= grow * y + delta) & (1 - y <= grow * (1 - x) + delta)
        )
        lower, upper = privacy_region_bounds(eps, delta, x)
        inside = (y >= lower) & (y <= upper)
        assert np.array_equal(allowed, inside), (eps, delta, int(np.sum(allowed != inside)))


def test_a_violation_box_lies_outside_the_claimed_region(leaky_result, correct_result):
    """The plot and the verdict agree: the box's corner (x_hi, y_lo) is above the region iff flagged."""
    for result in (leaky_result, correct_result):
        ev = result.evidence
        _, upper = privacy_region_bounds(result.claimed_epsilon, result.delta, np.array([ev.p_denominator_interval[1]]))
        assert bool(ev.p_numerator_interval[0] > upper[0]) == result.violation


def test_the_plot_draws_the_evidence_box_without_pyplot(correct_result):
    pyplot = sys.modules.get("matplotlib.pyplot")
    open_figures = None if pyplot is None else pyplot.get_fignums()
    fig = plot_privacy_region(correct_result)
    if pyplot is None:  # no global figure state was touched
        assert "matplotlib.pyplot" not in sys.modules
    else:
        assert pyplot.get_fignums() == open_figures
    full, zoom = fig.axes
    ev = correct_result.evidence
    box = full.patches[0]  # the evidence box is the first patch drawn
    assert box.get_x() == pytest.approx(ev.p_denominator_interval[0])
    assert box.get_x() + box.get_width() == pytest.approx(ev.p_denominator_interval[1])
    assert box.get_y() == pytest.approx(ev.p_numerator_interval[0])
    assert box.get_y() + box.get_height() == pytest.approx(ev.p_numerator_interval[1])
    x_lo, x_hi = zoom.get_xlim()
    assert x_lo <= ev.p_denominator_interval[0] and ev.p_denominator_interval[1] <= x_hi
    labels = [text.get_text() for text in fig.legends[0].get_texts()]
    assert any(label.startswith("claimed region: (1, 0)-DP") for label in labels)
    assert any("GDP curve (estimate" in label for label in labels)
    assert figure_png(fig).startswith(b"\x89PNG")


def test_the_report_says_what_a_verdict_means(correct_result, leaky_result):
    ok = parse_report(render_html(correct_result, target="Laplace", pair="0 vs 1", command="dpaudit report Laplace"))
    assert ok.verdict.startswith("no violation found")
    assert "not a proof of privacy" in ok.text and "dpaudit report Laplace" in ok.text
    bad = parse_report(render_html(leaky_result))
    assert bad.verdict.startswith("VIOLATION")
    assert f"at least {leaky_result.epsilon_lower_bound:.4f}, more than the claimed 0.1" in bad.text
    for page, result in ((ok, correct_result), (bad, leaky_result)):
        ev = result.evidence
        for shown in (ev.event, str(ev.count_numerator), str(ev.count_denominator), str(result.trials),
                      str(result.seed_entropy), f"{ev.p_numerator_interval[0]:.6g}", f"{ev.p_denominator_interval[1]:.6g}"):
            assert shown in page.text
        [png] = page.images
        assert png.startswith(b"\x89PNG") and page.external_resources == []


def test_the_report_escapes_what_it_shows(correct_result):
    page = render_html(correct_result, target="<script>alert(1)</script>", command="dpaudit report 'a&b'")
    assert "<script>" not in page and "&lt;script&gt;" in page
    parse_report(page)


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no headless browser here; `make test-browser` installs Debian's "
                    "chromium (the report is still parsed with the standard library in the other tests)")
def test_the_report_opens_in_a_headless_browser(tmp_path, leaky_result):
    from matplotlib.image import imread

    path = write_report(leaky_result, tmp_path / "report.html", target="histogram", command="dpaudit report x")
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
            f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([*base, "--dump-dom", path.as_uri()], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'id="verdict"' in dom.stdout and "VIOLATION" in dom.stdout
    shot = tmp_path / "shot.png"
    subprocess.run([*base, "--window-size=1200,2400", f"--screenshot={shot}", path.as_uri()],
                   capture_output=True, timeout=120, check=True)
    pixels = (imread(shot)[..., :3] * 255).round()
    # the plot's shaded region, #9ecae1 at alpha 0.45 on white, appears only if the PNG was decoded
    region = np.all(np.abs(pixels - np.array([211, 231, 241])) <= 3, axis=-1)
    assert region.sum() > 2000, int(region.sum())
