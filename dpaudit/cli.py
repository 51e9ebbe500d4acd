"""Command-line interface: ``dpaudit demo | audit | audit-scores | report | prove | bounds``.

Each sub-command imports its machinery lazily so that ``dpaudit --help`` stays fast.

Exit status of ``audit``, ``audit-scores`` and ``report``: 0 when the claim was not refuted, 1 when
it was (by the audit's lower bound, a violation, or by computation: the certified epsilon of the
pair from the mechanism's declared profile exceeds the claim, :attr:`AuditResult.claim_refuted`),
2 on bad input (one line on stderr naming what is wrong, never a traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import shlex
import sys
from collections.abc import Iterator, Sequence
from concurrent.futures import Executor
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["EXIT_BAD_INPUT", "EXIT_OK", "EXIT_VIOLATION", "add_audit_options", "build_parser", "main", "trials_option"]

EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT = 0, 1, 2
#: The command line's budget for ``--trials auto`` (``audit()``'s own default has no time limit).
DEFAULT_MAX_TRIALS = 10_000_000
DEFAULT_MAX_SECONDS = 300.0
_BUDGET_OPTIONS = ("max_trials", "max_time", "max_stages", "first_trials")

_EXAMPLES = {
    "demo": "example:\n  dpaudit demo --only laplace,lyu --scale 0.1",
    "audit": (
        "examples:\n"
        "  dpaudit audit \"lyu alg. 4\"                       # a catalogue entry, its own pair and claim\n"
        "  dpaudit audit mymod:noisy_mean --d0 d0.npy --d1 d1.npy --epsilon 1\n"
        "  dpaudit audit mymod:make_mechanism --pair user-replace --shape 100x10 --low 0 --high 1 --json\n"
        "\nexit status: 0 claim not refuted, 1 refuted (violation, or exact epsilon on the pair above the claim), 2 bad input"
    ),
    "report": (
        "example:\n"
        "  dpaudit report mymod:noisy_mean --d0 d0.npy --d1 d1.npy --epsilon 1 --output report.html\n"
        "\nexit status: 0 claim not refuted, 1 refuted (violation, or exact epsilon on the pair above the claim), 2 bad input"
    ),
    "audit-scores": (
        "example:\n"
        "  dpaudit audit-scores scores_d0.npy scores_d1.csv --epsilon 1 --delta 1e-5\n"
        "\nexit status: 0 no violation found, 1 violation, 2 bad input"
    ),
    "prove": "example:\n  dpaudit prove --only levy",
    "bounds": "example:\n  dpaudit bounds | head -20",
}


def trials_option(text: str) -> int | str:
    """``--trials``: a whole number (``100000``, ``100_000``, ``1e5``), or ``auto``."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        return _count(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 100 or auto; got {text!r}") from None


def _number(text: str) -> float:
    """A number option, refusing a nonzero number that float64 reads as 0, subnormal or infinite.

    ``--delta 1e-400`` would otherwise be audited as delta 0, another claim than the one given.
    ``0``, ``inf`` and ``nan`` pass as written (the option's own check judges them).
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
    try:
        exact = Fraction(text.strip())
    except ValueError:  # inf, nan, or a spelling Fraction does not take (float read it as written)
        return value
    if exact == 0:
        return value
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is beyond float64's range (it would be read as {value})")
    if abs(value) < sys.float_info.min:
        raise argparse.ArgumentTypeError(f"{text!r} is below float64's normal range (it would be read as {value!r}); "
                                         f"give 0 or a number of magnitude >= {sys.float_info.min!r}")
    return value


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: ``dpaudit audit: error: ... (see dpaudit audit --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def add_audit_options(parser: argparse.ArgumentParser) -> argparse._ArgumentGroup:
    """The options shared by ``audit`` and ``report``; returns the run-options group to extend."""
    parser.add_argument(
        "target", metavar="TARGET",
        help="a catalogue entry's name (see `dpaudit demo`), or module:callable naming a dpaudit mechanism, "
        "a callable fn(data, rng, size=None), a diffprivlib mechanism, an OpenDP measurement, or a "
        "factory with no arguments returning one. Loading it runs the module's code: name only code you "
        "trust. A module in the current directory is loaded from its file; it never hides an installed package",
    )
    data = parser.add_argument_group("the neighbouring pair (a catalogue entry has its own)")
    data.add_argument("--d0", metavar="FILE",
                      help="first dataset: .npy, .csv (numbers) or .json. Text numbers are read as float64: a .csv "
                      "integer beyond 2**53 is refused, and so is a pair whose difference that rounding changes by more "
                      "than 2**-26 of it (9007199254740993.0 vs ...994.0: 1 apart, read 2 apart)")
    data.add_argument("--d1", metavar="FILE", help="second dataset, a neighbour of the first")
    data.add_argument(
        "--pair", metavar="NAME",
        help="a named worst-case pair instead of files: item-replace, item-add-remove, user-replace, "
        "user-add-remove, query-l1, query-l2, query-linf (a plain callable that declares no neighbor_relation is "
        "checked under the named pair's relation)",
    )
    data.add_argument("--shape", metavar="N[xM...]", help="--pair's dataset shape (default 100, 100x10 or scalar)")
    data.add_argument("--low", type=_number, metavar="X", help="--pair's data domain, lower end (default -1)")
    data.add_argument("--high", type=_number, metavar="X", help="--pair's data domain, upper end (default 1)")
    claim = parser.add_argument_group("the claim (default: the mechanism's claimed_guarantee())")
    claim.add_argument("--epsilon", type=_number, help="claimed epsilon, >= 0 (required for a plain callable)")
    claim.add_argument("--delta", type=_number, help="claimed delta, in [0, 1) (default: the claim's, else 0)")
    claim.add_argument("--query-sensitivity", type=_number, metavar="X",
                       help="for a diffprivlib mechanism or an OpenDP measurement: the distance the query's answers "
                       "really move, when it is not the sensitivity the mechanism was told (the claim is then audited "
                       "at this distance)")
    run = parser.add_argument_group("the audit")
    run.add_argument("--trials", type=trials_option, metavar="N|auto",
                     help="trials per dataset, >= 100 (1e6 is fine), or auto: stages from 100000 trials growing sqrt(10)-fold, "
                     "stopping once a violation is established or out of reach, or at the budget (default: a "
                     "catalogue entry's own count, else auto)")
    run.add_argument("--max-trials", type=_count, metavar="N",
                     help=f"--trials auto: at most N trials per dataset (default {DEFAULT_MAX_TRIALS})")
    run.add_argument("--max-time", type=_number, metavar="SECONDS",
                     help=f"--trials auto: no stage that cannot finish within SECONDS of the start (default "
                     f"{DEFAULT_MAX_SECONDS:g}; the first stage always finishes). A stop on time depends on the "
                     "machine's speed: the output says so and prints the command that redoes the same stages")
    run.add_argument("--max-stages", type=int, metavar="K", help="--trials auto: at most K stages")
    run.add_argument("--first-trials", type=_count, metavar="N",
                     help="--trials auto: trials of the first stage (default 100000; smaller for a slow mechanism)")
    run.add_argument("--confidence", type=_number, default=0.95, help="confidence level, in (0, 1) (default 0.95)")
    run.add_argument("--seed", type=int, default=0, help="root seed, >= 0 (default 0)")
    run.add_argument("--workers", type=int, default=1, help="processes drawing trials; results do not depend on it (default 1)")
    run.add_argument("--scheduler", metavar="ADDRESS", help="draw trials on this Dask cluster instead (tcp://host:port)")
    run.add_argument("--checkpoint", metavar="FILE", help="record finished blocks in this SQLite file; rerun to resume")
    run.add_argument("--block-size", type=_count, metavar="N",
                     help="trials per random-stream block, >= 1 (part of the seed; default: the mechanism's, else "
                     "chosen from the output size); a checkpoint records progress block by block")
    run.add_argument("--float-bits", action="store_true",
                     help="also attack the IEEE-754 bits of floating-point outputs (catches naive float samplers; "
                     "numpy's laplace and normal leak there too)")
    run.add_argument("--spot-check", type=_count, metavar="N",
                     help="draw N more trials per dataset one call each (and N/2 calls of two rows) and test that "
                     "rows of one call are independent, as the bound assumes (default: 200 for a plain callable "
                     "about to be reported as a violation, none otherwise; 0: no check)")
    run.add_argument("--candidates", type=int, metavar="K",
                     help="evaluate the K best events on fresh trials, paying for each (default 1)")
    run.add_argument("--selection-fraction", type=_number, metavar="F",
                     help="fraction of the trials spent choosing the attack, in (0, 1) (default 0.1 scalar, 0.3 other)")
    run.add_argument("--json", action="store_true", help="print the result as JSON (it carries schema_version)")
    run.add_argument("--no-progress", action="store_true", help="hide the progress bar (shown only on a terminal)")
    return run


def _count(text: str) -> int:
    """A count on the command line: ``100000``, ``100_000`` or ``1e5`` (a whole number)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number such as 100000 or 1e5, got {text!r}") from None
    if not (math.isfinite(value) and value.is_integer()):
        raise argparse.ArgumentTypeError(f"expected a whole number such as 100000 or 1e5, got {text!r}")
    return int(value)


def build_parser() -> argparse.ArgumentParser:
    """The ``dpaudit`` command line: its subcommands (demo, audit, prove, bounds, ...) and options."""
    parser = _Parser(prog="dpaudit", description="Audit and verify differential-privacy implementations.")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="audit the built-in catalogue and print the verdict table")
    demo.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    demo.add_argument("--scale", type=_number, default=1.0, help="multiply every entry's trial count (default 1)")
    demo.add_argument("--json", action="store_true", help="print JSON instead of a table")
    demo.add_argument("--only", default=None, help="comma-separated substrings; run only the entries whose names contain one")

    aud = sub.add_parser("audit", help="audit a mechanism on a neighbouring pair; exit 1 on a violation",
                         description="Audit a mechanism on two neighbouring datasets and print the evidence.")
    add_audit_options(aud)

    scores = sub.add_parser("audit-scores", help="bound epsilon from your own attack's scores on d0 and d1; exit 1 on a violation",
                            description="Lower-bound epsilon from attack scores of outputs on d0 and on d1 (one score, or one "
                            "row of scores, per independent run): the event is chosen on a selection split, the bound "
                            "computed on the rest.")
    scores.add_argument("scores_d0", metavar="FILE0", help="scores of outputs on d0: .npy, .csv or .json")
    scores.add_argument("scores_d1", metavar="FILE1", help="scores of outputs on d1")
    scores.add_argument("--epsilon", type=_number, help="claimed epsilon, >= 0 (without it, only the bound is printed)")
    scores.add_argument("--delta", type=_number, default=0.0, help="claimed delta, in [0, 1) (default 0)")
    scores.add_argument("--confidence", type=_number, default=0.95, help="confidence level, in (0, 1) (default 0.95)")
    scores.add_argument("--seed", type=int, default=0, help="seed of the random split, >= 0 (default 0)")
    scores.add_argument("--candidates", type=int, default=1, metavar="K", help="events evaluated, each paid for (default 1)")
    scores.add_argument("--selection-fraction", type=_number, metavar="F", help="fraction choosing the event, in (0, 1)")
    scores.add_argument("--json", action="store_true", help="print the result as JSON (it carries schema_version)")

    rep = sub.add_parser("report", help="audit as `audit` does and write a self-contained HTML report",
                         description="Audit as `dpaudit audit` does and write one HTML file (verdict, claim, "
                         "evidence, privacy-region plot, the command that reproduces it).")
    add_audit_options(rep)
    rep.add_argument("--output", metavar="FILE", default="dpaudit-report.html",
                     help="where to write (default dpaudit-report.html); checked before the audit, never one of its inputs")
    rep.add_argument("--force", action="store_true", help="overwrite --output if it exists")

    prove = sub.add_parser("prove", help="run the lemma checks (built-in and/or your own) and print the table")
    prove.add_argument("--only", default=None, help="substring filter on check names")
    prove.add_argument("--path", action="append", default=[], metavar="DIR",
                       help="also run your own checks (modules under DIR defining CHECK or CHECKS); repeatable")
    prove.add_argument("--no-builtin", action="store_true", help="skip the built-in checks of the four papers")
    prove.add_argument("--premises", action="store_true", help="list every premise taken on trust, once")
    prove.add_argument("--claims", action="store_true",
                       help="print what the kernel decided for every check (always done for the checks under --path)")
    prove.add_argument("--timeout", type=_number, default=None, metavar="SECONDS", help="per-check time limit (default 120)")

    sub.add_parser("bounds", help="print the comparison table of the four papers' rates")

    for name, command in sub.choices.items():  # every sub-command's --help ends with an example
        command.formatter_class = argparse.RawDescriptionHelpFormatter
        command.epilog = command.epilog or _EXAMPLES.get(name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``dpaudit`` with ``argv`` (default: the process's arguments); return the exit status."""
    try:
        return _dispatch(argv)
    except BrokenPipeError:  # e.g. `dpaudit bounds | head`: the reader left, which is not an error
        sys.stderr.close()
        return 0


def _dispatch(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        from dpaudit.catalogue import run_demo

        return run_demo(seed=args.seed, scale=args.scale, as_json=args.json, only=args.only)
    if args.command in ("audit", "report", "audit-scores"):
        return _audit_command(args)
    if args.command == "prove":
        from dpaudit.verify.runner import main as prove_main

        return prove_main(_prove_argv(args))
    if args.command == "bounds":
        from dpaudit.bounds.table import main as bounds_main

        return bounds_main()
    return 2  # pragma: no cover - argparse rejects unknown commands


def _prove_argv(args: argparse.Namespace) -> list[str]:
    """The ``dpaudit prove`` options, passed on to :func:`dpaudit.verify.runner.main`."""
    argv = ["--only", args.only] if args.only else []
    for path in args.path:
        argv += ["--path", path]
    argv += ["--no-builtin"] * args.no_builtin + ["--premises"] * args.premises + ["--claims"] * args.claims
    return argv + (["--timeout", str(args.timeout)] if args.timeout is not None else [])


@contextlib.contextmanager
def _open_executor(args: argparse.Namespace, mechanism: Any) -> Iterator[Executor | None]:
    """The executor the audit draws trials on: none (serial), a process pool of ``--workers``, or Dask."""
    if args.workers <= 1 and args.scheduler is None:
        yield None
        return
    import pickle

    from dpaudit._cli_inputs import CommandLineError
    from dpaudit.auditor.executors import make_executor

    if args.workers > 1:
        try:
            pickle.dumps(mechanism)
        except Exception as exc:
            raise CommandLineError(
                f"--workers {args.workers} needs a mechanism that can be sent to other processes (a module-level "
                f"function or a picklable object); this one cannot ({type(exc).__name__}: {exc}); use --workers 1"
            ) from exc
    with make_executor(workers=args.workers if args.workers > 1 else None, scheduler=args.scheduler) as executor:
        yield executor


def _show_progress(args: argparse.Namespace) -> bool:
    return not (args.json or args.no_progress) and sys.stdout.isatty() and sys.stderr.isatty()


def _audit_command(args: argparse.Namespace) -> int:
    from dpaudit._cli_inputs import _one_line

    try:
        return _run_audit(args)
    except BrokenPipeError:  # handled by main(): the reader left
        raise
    except KeyboardInterrupt:
        print(f"dpaudit {args.command}: interrupted", file=sys.stderr)
        return 130  # the shell's convention for SIGINT
    except SystemExit as exc:  # user code tried to end the process: the exit status stays ours
        print(f"dpaudit {args.command}: error: user code raised SystemExit({exc.code!r})", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as exc:  # one line, never a traceback
        from dpaudit._cli_inputs import CommandLineError
        from dpaudit.errors import DPAuditError

        kind = "" if isinstance(exc, CommandLineError) else (
            f"{type(exc).__name__}: " if not isinstance(exc, DPAuditError) else ""
        )
        print(f"dpaudit {args.command}: error: {kind}{_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b) if a.exists() and b.exists() else a.resolve() == b.resolve()
    except OSError:
        return False


def _check_output(args: argparse.Namespace, mechanism: Any = None) -> None:
    """``report --output``: refused before the audit when it cannot or must not be written.

    Never the target's own source file (symlinks followed), even with ``--force``; called once before
    the target is loaded (its file in the current directory) and once after (``mechanism``'s files).
    """
    from dpaudit._cli_inputs import CommandLineError, target_source_files

    out = Path(args.output)
    if out.is_dir():
        raise CommandLineError(f"--output {args.output!r} is a folder")
    folder = out.parent
    if not folder.is_dir():
        raise CommandLineError(f"--output {args.output!r}: the folder {str(folder)!r} does not exist")
    for option, value, what in (("--d0", args.d0, "input"), ("--d1", args.d1, "input"),
                                ("--checkpoint", args.checkpoint, "file")):
        if value is not None and _same_file(out, Path(value)):
            raise CommandLineError(f"--output {args.output!r} is the {option} {what}")
    for source in target_source_files(args.target, mechanism):
        if _same_file(out, source):
            raise CommandLineError(f"--output {args.output!r} is the source file of TARGET {args.target!r} "
                                   f"({str(source)!r}); --force never overwrites it: choose another --output")
    if out.exists() and not args.force:
        raise CommandLineError(f"--output {args.output!r} exists; pass --force to overwrite it")
    if not os.access(folder, os.W_OK):
        raise CommandLineError(f"--output {args.output!r}: the folder {str(folder)!r} is not writable")


def _print_result(args: argparse.Namespace, result: Any, note: str) -> None:
    try:
        if args.json:
            print(result.to_json(), flush=True)
        elif args.command == "audit":
            command = f"\n  command           : {reproduce_command(args, result)}" if result.stages else ""
            print(f"{result.to_text()}\n  pair              : {note}{command}", flush=True)
    except BrokenPipeError:  # `| head` left early: the verdict still decides the exit status
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run_audit(args: argparse.Namespace) -> int:
    from dpaudit._cli_inputs import CommandLineError, prepare_case

    if args.command == "audit-scores":
        return _run_scores(args)
    if args.command == "report":
        _check_output(args)
    case = prepare_case(args)
    if args.command == "report":
        _check_output(args, case.mechanism)  # again, now that the target's files are known
    args.resolved_trials = case.trials
    with _open_executor(args, case.mechanism) as executor:
        if getattr(case.mechanism, "ignores_rng", False) and not args.json:  # said once the inputs are accepted
            print(f"dpaudit {args.command}: note: {case.mechanism!r} is invoked once per trial and draws from its own "
                  "random source: the audit is much slower than a vectorised numpy mechanism's (tens of times; "
                  "--trials 1e4 is quicker) and --seed does not reproduce it", file=sys.stderr)
        execution = case.execution_options.replace(executor=executor, progress=_show_progress(args),
                                                    checkpoint=args.checkpoint, **_execution_options(args))
        result = case.audit(seed=args.seed, confidence=args.confidence, attack=case.attack_options.replace(**_attack_options(args)),
                            execution=execution, **_schedule(args))
    if args.command == "report":
        from dpaudit.report import write_report

        try:
            path = write_report(result, args.output, target=case.name, pair=case.note,
                                command=reproduce_command(args, result), overwrite=args.force)
        except OSError as exc:  # e.g. the file appeared during the audit, or the disk is full: keep the result
            _print_result(args, result, case.note)
            raise CommandLineError(f"--output {args.output!r} could not be written ({type(exc).__name__}: {exc}); "
                                   f"the audit's result: {result.verdict}") from exc
        if not args.json:
            print(f"dpaudit report: wrote {path} ({result.verdict})", file=sys.stderr)
    _print_result(args, result, case.note)
    return EXIT_VIOLATION if result.claim_refuted else EXIT_OK


def _run_scores(args: argparse.Namespace) -> int:
    from dpaudit._cli_inputs import load_dataset
    from dpaudit.auditor.scores import audit_scores

    result = audit_scores(load_dataset(args.scores_d0, "FILE0"), load_dataset(args.scores_d1, "FILE1"), epsilon=args.epsilon,
                          delta=args.delta, confidence=args.confidence, candidates=args.candidates,
                          selection_fraction=args.selection_fraction, seed=args.seed)
    print(result.to_json() if args.json else result.to_text(), flush=True)
    return EXIT_VIOLATION if result.violation else EXIT_OK


def _execution_options(args: argparse.Namespace) -> dict[str, Any]:
    """Execution options that change the draws (``--block-size``), when given."""
    return {} if args.block_size is None else {"block_size": args.block_size}


def _schedule(args: argparse.Namespace) -> dict[str, Any]:
    """``trials=AdaptiveTrials(...)``, the budget of ``--trials auto``; nothing for a fixed count."""
    from dpaudit.auditor.options import AdaptiveTrials

    if getattr(args, "resolved_trials", None) != "auto":
        return {}
    budget: dict[str, Any] = {
        "max_trials": DEFAULT_MAX_TRIALS if args.max_trials is None else args.max_trials,
        "max_seconds": DEFAULT_MAX_SECONDS if args.max_time is None else args.max_time,
    }
    if args.max_stages is not None:
        budget["max_stages"] = args.max_stages
    if args.first_trials is not None:
        budget["first_trials"] = args.first_trials
    return {"trials": AdaptiveTrials(**budget)}


def _attack_options(args: argparse.Namespace) -> dict[str, Any]:
    """The attack options given on the command line; the others keep the entry's or audit()'s defaults."""
    options: dict[str, Any] = {"float_bits": True} if args.float_bits else {}
    for name in ("spot_check", "candidates", "selection_fraction"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    return options


def reproduce_command(args: argparse.Namespace, result: Any) -> str:
    """The ``dpaudit report`` command that redoes this audit, with every setting explicit."""
    words = ["dpaudit", args.command, args.target]
    if args.d0 is not None:
        words += ["--d0", args.d0, "--d1", args.d1]
    if args.pair is not None:
        words += ["--pair", args.pair]
        for option, value in (("--shape", args.shape), ("--low", args.low), ("--high", args.high)):
            if value is not None:
                words += [option, str(value)]
    if math.isfinite(result.claimed_epsilon):
        words += ["--epsilon", repr(result.claimed_epsilon)]
    words += ["--delta", repr(result.delta)]
    if getattr(result, "stages", ()):  # an adaptive audit: the same stages, whatever the machine's speed
        words += ["--trials", "auto", "--max-trials", str(result.max_trials), "--max-stages", str(len(result.stages))]
        if args.first_trials is not None:
            words += ["--first-trials", str(args.first_trials)]
    else:
        words += ["--trials", str(result.trials)]
    words += ["--confidence", repr(args.confidence), "--seed", str(args.seed)]
    if args.block_size is not None:
        words += ["--block-size", str(args.block_size)]
    if getattr(args, "query_sensitivity", None) is not None:
        words += ["--query-sensitivity", repr(args.query_sensitivity)]
    for name, value in _attack_options(args).items():
        words += [f"--{name.replace('_', '-')}"] + ([] if value is True else [repr(value)])
    if args.command == "report":
        words += ["--output", args.output]
    return shlex.join(words)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
