"""A self-contained HTML report of one audit, for a reviewer: ``dpaudit report``.

One file, no external resources (inline CSS, the plot as a base64 PNG), so it opens offline and can
be attached to a review. It holds the verdict and what it means, the claim, the evidence (event,
counts, both intervals, trials, seed), the privacy-region plot
(:func:`dpaudit.plotting.plot_privacy_region`) and the command that reproduces it.
"""

from __future__ import annotations

import base64
import datetime
import html
import platform
from pathlib import Path
from typing import Any

from dpaudit._text import counted
from dpaudit.auditor.result import AuditResult

__all__ = ["render_html", "write_report"]

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
.verdict { padding: 0.8em 1em; border-radius: 6px; font-size: 1.15em; margin: 1em 0; }
.violation { background: #fde0dd; border: 2px solid #de2d26; }
.ok { background: #deebf7; border: 2px solid #08519c; }
table { border-collapse: collapse; margin: 0.5em 0 1.2em; }
th, td { text-align: left; padding: 0.25em 0.9em 0.25em 0; vertical-align: top; }
th { font-weight: 600; color: #444; }
code, pre { font-family: ui-monospace, monospace; font-size: 0.92em; }
pre { background: #f4f4f4; padding: 0.7em; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
img { max-width: 100%; }
.muted { color: #666; font-size: 0.9em; }
"""


def _meaning(result: AuditResult) -> str:
    level = f"{100 * result.confidence:g}%"
    if result.violation:
        return (
            f"With confidence {level}, the mechanism's epsilon at delta = {result.delta:g} is at least "
            f"{result.epsilon_lower_bound:.4f}, more than the claimed {result.claimed_epsilon:g}: the "
            f"implementation does not keep its claim on this pair. A correct mechanism is flagged at "
            f"most {100 * (1 - result.confidence):g}% of the time."
        )
    return (
        f"The audit found no evidence against the claim on this pair with {result.trials} trials per "
        f"dataset (a {level} lower bound of {result.epsilon_lower_bound:.4f} against the claimed "
        f"{result.claimed_epsilon:g}). This is not a proof of privacy: a leak on another pair, or one "
        "too small for this many trials, would go unseen."
    )


def _rows(pairs: list[tuple[str, Any]]) -> str:
    return "\n".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in pairs)


def _interval(bounds: tuple[float, float]) -> str:
    return f"[{bounds[0]:.6g}, {bounds[1]:.6g}]"


def render_html(
    result: AuditResult,
    *,
    target: str | None = None,
    pair: str | None = None,
    command: str | None = None,
    png: bytes | None = None,
) -> str:
    """The report as one HTML string.

    Parameters
    ----------
    result : AuditResult
        The audit.
    target, pair : str, optional
        What was audited and where the pair came from, as shown to the reader.
    command : str, optional
        The command that reproduces the audit.
    png : bytes, optional
        The privacy-region plot; drawn with :func:`dpaudit.plotting.plot_privacy_region` when
        omitted (needs the ``plots`` extra, matplotlib).
    """
    if png is None:
        from dpaudit.plotting import figure_png, plot_privacy_region

        png = figure_png(plot_privacy_region(result))
    ev = result.evidence
    claim = [
        ("epsilon", f"{result.claimed_epsilon:g}"),
        ("delta", f"{result.delta:g}"),
        ("confidence", f"{result.confidence:g}"),
    ]
    evidence = [
        ("attack", ev.attack),
        ("event E", ev.event),
        ("numerator dataset", f"{ev.numerator} (P[E | {ev.numerator}] is bounded from below)"),
        ("counts", f"{ev.count_numerator} vs {ev.count_denominator} of {ev.n} fresh trials per dataset"),
        ("P[E | numerator]", _interval(ev.p_numerator_interval)),
        ("P[E | denominator]", _interval(ev.p_denominator_interval)),
        ("epsilon lower bound", f"ln((P_num_lo - delta) / P_den_hi) = {result.epsilon_lower_bound:.6g}"),
        ("trials", f"{result.trials} per dataset: {result.selection_trials} to choose the attack, "
                   f"{result.estimation_trials} to estimate ({counted(result.candidates_evaluated, 'candidate')} paid for)"),
        ("outputs", result.output_kind),
        ("seed entropy", f"{result.seed_entropy} (block size {result.block_size})"),
        ("time", f"{result.total_seconds:.2f} s"),
    ]
    if result.gdp_mu_lower_bound is not None:
        evidence.append(("GDP estimate", f"mu >= {result.gdp_mu_lower_bound:.4f} (assumes a Gaussian trade-off curve; not the verdict)"))
    evidence.extend(result.bracket_rows())  # the certified other side, when the mechanism declares its structure
    evidence.extend(("note", note) for note in result.notes)
    audited = [("mechanism", result.mechanism)]
    if target is not None:
        audited.insert(0, ("target", target))
    if pair is not None:
        audited.append(("pair", pair))
    image = base64.b64encode(png).decode("ascii")
    css_class = "violation" if result.claim_refuted else "ok"
    from dpaudit import __version__

    made = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    reproduce = (
        f"<h2>Reproduce</h2>\n<pre>{html.escape(command)}</pre>\n"
        "<p class=\"muted\">Run it in the directory the report was made in; the same seed gives the "
        "same result whatever the number of workers.</p>"
    ) if command else ""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>dpaudit report: {html.escape(result.verdict)} ({html.escape(target or result.mechanism)})</title>
<style>{_STYLE}</style>
</head>
<body>
<h1>dpaudit report</h1>
<p class="muted">{html.escape(target or result.mechanism)}</p>
<div class="verdict {css_class}" id="verdict"><strong>{html.escape(result.verdict)}</strong>:
epsilon &ge; {result.epsilon_lower_bound:.4f} against the claimed {result.claimed_epsilon:g} (delta = {result.delta:g});
two-sided: {html.escape(result.bracket_verdict)}.</div>
<p>{html.escape(_meaning(result))}</p>
<h2>What was audited</h2>
<table>{_rows(audited)}</table>
<h2>The claim</h2>
<table>{_rows(claim)}</table>
<h2>The evidence</h2>
<table>{_rows(evidence)}</table>
<h2>Privacy region</h2>
<p>The attack is a test "which dataset produced this output?". Its false- and true-positive rates, with their
confidence box, against the region every test of a mechanism with the claimed (epsilon, delta) must stay in
(Kairouz, Oh and Viswanath 2015, Theorem 2.1). A box wholly outside the region is a violation.</p>
<img alt="privacy-region plot: the attack's rates and confidence box against the claimed region" src="data:image/png;base64,{image}">
{reproduce}
<p class="muted">dpaudit {html.escape(__version__)}, Python {html.escape(platform.python_version())}, {made}.
JSON schema version {result.schema_version}.</p>
</body>
</html>
"""


def write_report(result: AuditResult, path: str | Path, *, overwrite: bool = True, **kwargs: Any) -> Path:
    """Write :func:`render_html` to ``path`` (UTF-8) and return the path.

    With ``overwrite=False`` an existing file is left alone (``FileExistsError``); the file is
    created exclusively, so one made by someone else in the meantime is never replaced.
    """
    out = Path(path)
    text = render_html(result, **kwargs)  # rendered first: a failure here leaves no partial file
    with out.open("w" if overwrite else "x", encoding="utf-8") as fh:
        fh.write(text)
    return out
