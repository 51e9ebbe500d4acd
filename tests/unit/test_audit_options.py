"""``audit()``'s option objects: each field round-trips, conflicts are refused, and the old keywords
give the identical result for the same seed."""

from __future__ import annotations

import dataclasses
from concurrent.futures import ThreadPoolExecutor

import pytest

import dpaudit
from dpaudit import AdaptiveTrials, AttackOptions, ExecutionOptions
from dpaudit.auditor.cases import AuditCase
from dpaudit.auditor.options import resolve_options
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms import LaplaceMechanism

EXECUTOR = ThreadPoolExecutor(max_workers=1)
#: one non-default value per field
VALUES = {
    AttackOptions: {"selection_fraction": 0.25, "candidates": 3, "float_bits": True, "spot_check": 50},
    ExecutionOptions: {"block_size": 512, "batch_size": 2048, "executor": EXECUTOR, "progress": True,
                       "checkpoint": "audit.sqlite", "memory_limit": 1 << 30},
    AdaptiveTrials: {"first_trials": 1000, "max_trials": 50_000, "max_seconds": 30.0, "max_stages": 2},
}
FIELDS = [(cls, name, value) for cls, values in VALUES.items() for name, value in values.items()]


def _resolved(cls, trials, **keywords):
    planned, attack, execution = resolve_options("audit", trials, None, None, keywords)
    return {AttackOptions: attack, ExecutionOptions: execution, AdaptiveTrials: planned}[cls]


def test_every_field_has_a_value_here():
    assert {cls: set(values) for cls, values in VALUES.items()} == \
        {cls: {f.name for f in dataclasses.fields(cls)} for cls in VALUES}


@pytest.mark.parametrize(("cls", "name", "value"), FIELDS, ids=[f"{c.__name__}.{n}" for c, n, _ in FIELDS])
def test_each_option_round_trips(cls, name, value):
    obj = cls(**{name: value})
    assert getattr(obj, name) == value
    # the keyword lands in the same object
    assert _resolved(cls, "auto", **{name: value}) == obj
    # replace, and back to the default
    assert cls().replace(**{name: value}) == obj
    assert obj.replace(**{name: getattr(cls(), name)}) == cls()
    # the repr names the changed field and rebuilds the object (an executor has no literal repr)
    assert repr(obj) == f"{cls.__name__}({name}={value!r})"
    if name != "executor":
        assert eval(repr(obj), {cls.__name__: cls}) == obj
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, name, value)


@pytest.mark.parametrize(("cls", "name", "value"), FIELDS, ids=[f"{c.__name__}.{n}" for c, n, _ in FIELDS])
def test_a_keyword_given_both_ways_is_refused(cls, name, value):
    objects = {AttackOptions: {"attack": AttackOptions()}, ExecutionOptions: {"execution": ExecutionOptions()},
               AdaptiveTrials: {"trials": AdaptiveTrials()}}[cls]
    with pytest.raises(InvalidArgument, match=rf"`audit`: `{name}` must be given once: as a keyword or in "):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, **objects, **{name: value})


@pytest.mark.parametrize(("cls", "field", "value", "message"), [
    (AttackOptions, "candidates", 0, "`AttackOptions`: `candidates` must be"),
    (AttackOptions, "selection_fraction", 1.0, "`AttackOptions`: `selection_fraction` must be in (0, 1)"),
    (AttackOptions, "float_bits", 1, "`AttackOptions`: `float_bits` must be True or False"),
    (AttackOptions, "spot_check", -1, "`AttackOptions`: `spot_check` must be"),
    (ExecutionOptions, "block_size", 0, "`ExecutionOptions`: `block_size` must be"),
    (ExecutionOptions, "executor", object(), "`ExecutionOptions`: `executor` must be a concurrent.futures.Executor"),
    (ExecutionOptions, "checkpoint", "", "`ExecutionOptions`: `checkpoint` must be a path"),
    (ExecutionOptions, "memory_limit", 0, "`ExecutionOptions`: `memory_limit` must be"),
    (AdaptiveTrials, "first_trials", 99, "`AdaptiveTrials`: `first_trials` must be"),
    (AdaptiveTrials, "max_seconds", 0.0, "`AdaptiveTrials`: `max_seconds` must be"),
    (AdaptiveTrials, "max_stages", 0, "`AdaptiveTrials`: `max_stages` must be"),
])
def test_objects_refuse_bad_fields_when_built(cls, field, value, message):
    with pytest.raises(InvalidArgument) as info:
        cls(**{field: value})
    assert message in str(info.value)
    with pytest.raises(InvalidArgument) as info:  # and replace checks again
        cls().replace(**{field: value})
    assert message in str(info.value)
    # the same value as a keyword of audit() is refused naming audit
    with pytest.raises(InvalidArgument, match=rf"`audit`: `{field}` must be"):
        _resolved(cls, "auto", **{field: value})


def test_conversions_and_unknown_names():
    assert AdaptiveTrials(max_trials=1e6, max_seconds=float("inf")) == AdaptiveTrials(max_trials=1_000_000)
    assert resolve_options("audit", "auto", None, None, {})[0] == AdaptiveTrials()
    assert resolve_options("audit", 1e4, None, None, {})[0] == 10_000
    with pytest.raises(InvalidArgument, match="did you mean 'candidates'"):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, candidate=2)
    with pytest.raises(InvalidArgument, match="`AttackOptions`: `candidate` must be one of"):
        AttackOptions().replace(candidate=2)
    with pytest.raises(InvalidArgument, match="`audit`: `attack` must be an AttackOptions"):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, attack={"candidates": 2})
    with pytest.raises(InvalidArgument, match="`audit`: `max_trials` must be left out with a fixed trial count"):
        dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, trials=1000, max_trials=10_000)


def test_old_keywords_and_objects_give_the_identical_result():
    mech = LaplaceMechanism(epsilon=1.0)
    old = dpaudit.audit(mech, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=7, selection_fraction=0.2, candidates=2,
                        float_bits=True, spot_check=20, block_size=2048, batch_size=4096, executor=EXECUTOR)
    new = dpaudit.audit(mech, 0.0, 1.0, epsilon=1.0, trials=20_000, seed=7,
                        attack=AttackOptions(selection_fraction=0.2, candidates=2, float_bits=True, spot_check=20),
                        execution=ExecutionOptions(block_size=2048, batch_size=4096, executor=EXECUTOR))
    assert old.evidence == new.evidence and old.epsilon_lower_bound == new.epsilon_lower_bound
    assert (old.selection_trials, old.candidates_evaluated, old.block_size) == (new.selection_trials, 2, 2048)
    # and every option took effect: the split, the candidates, the bits attack, the spot check, the blocks
    assert (new.selection_trials, new.candidates_evaluated, new.block_size) == (4000, 2, 2048)
    assert new.violation and new.evidence.attack.startswith(("float bits", "grid"))  # numpy's Laplace leaks in its bits
    assert old.notes == new.notes and sum("spot check on d" in note for note in new.notes) == 2
    adaptive_old = dpaudit.audit(mech, 0.0, 1.0, epsilon=0.8, trials="auto", seed=7, first_trials=1000, max_trials=30_000,
                                 max_stages=3)
    adaptive_new = dpaudit.audit(mech, 0.0, 1.0, epsilon=0.8, seed=7,
                                 trials=AdaptiveTrials(first_trials=1000, max_trials=30_000, max_stages=3))
    untimed = [[dataclasses.replace(st, seconds=0.0) for st in r.stages] for r in (adaptive_old, adaptive_new)]
    assert untimed[0] and untimed[0] == untimed[1]
    assert adaptive_old.evidence == adaptive_new.evidence and adaptive_old.reproduce == adaptive_new.reproduce
    # the reproduce line is itself a valid call
    again = eval(f"dict({adaptive_new.reproduce})", {"AdaptiveTrials": AdaptiveTrials, "ExecutionOptions": ExecutionOptions})
    assert dpaudit.audit(mech, 0.0, 1.0, epsilon=0.8, **again).evidence == adaptive_new.evidence


def test_a_case_merges_its_options_with_the_callers():
    case = AuditCase("laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1.0, None, 2000, broken=False,
                     options={"float_bits": True, "candidates": 2, "block_size": 1024})
    assert case.attack_options == AttackOptions(float_bits=True, candidates=2)
    assert case.execution_options == ExecutionOptions(block_size=1024)
    # a field overrides the same field; the case's other options stay
    assert case.audit(seed=0, candidates=1).evidence == \
        dpaudit.audit(case.mechanism, 0.0, 1.0, epsilon=1.0, trials=2000, seed=0,
                      attack=AttackOptions(float_bits=True), execution=ExecutionOptions(block_size=1024)).evidence
    # an object sets the fields it changes and keeps the case's others (a bit-level case stays bit-level)
    assert case.audit(seed=0, attack=AttackOptions(candidates=3)).evidence == \
        dpaudit.audit(case.mechanism, 0.0, 1.0, epsilon=1.0, trials=2000, seed=0,
                      attack=AttackOptions(float_bits=True, candidates=3), execution=ExecutionOptions(block_size=1024)).evidence
    assert case.audit(seed=0, execution=ExecutionOptions(batch_size=4096)).evidence == \
        dpaudit.audit(case.mechanism, 0.0, 1.0, epsilon=1.0, trials=2000, seed=0, attack=AttackOptions(float_bits=True, candidates=2),
                      execution=ExecutionOptions(block_size=1024, batch_size=4096)).evidence
    # a keyword sets a field back to its default
    assert case.audit(seed=0, float_bits=False).evidence == \
        dpaudit.audit(case.mechanism, 0.0, 1.0, epsilon=1.0, trials=2000, seed=0, candidates=2, block_size=1024).evidence
    with pytest.raises(InvalidArgument, match=r"`AuditCase\.audit`: `attack` must be an AttackOptions"):
        case.audit(seed=0, attack={"candidates": 1})


def test_a_case_refuses_one_field_given_twice_in_its_options():
    """A red team's finding: the object's ``candidates=2`` was silently dropped for the keyword's 3."""
    case = AuditCase("laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1.0, None, 2000, broken=False,
                     options={"attack": AttackOptions(candidates=2), "candidates": 3})
    with pytest.raises(InvalidArgument, match="candidates"):
        case.audit(seed=0)


@pytest.mark.parametrize("scale", [0, -1, float("nan"), float("inf"), "2", True])
def test_a_case_refuses_a_scale_that_is_not_a_positive_real(scale):
    case = AuditCase("laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1.0, None, 2000, broken=False)
    with pytest.raises(InvalidArgument, match="scale"):
        case.audit(seed=0, scale=scale)


def test_a_case_refuses_a_scale_that_has_no_effect():
    fixed = AuditCase("laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1.0, None, 2000, broken=False)
    with pytest.raises(InvalidArgument, match="scale"):
        fixed.audit(seed=0, scale=0.2, trials=20_000)
    staged = AuditCase("laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1.0, None, AdaptiveTrials(max_trials=10**5), broken=False)
    with pytest.raises(InvalidArgument, match="scale"):
        staged.audit(seed=0, scale=2)


@pytest.mark.parametrize("trials", [AdaptiveTrials, "fixed"])
def test_trial_counts_beyond_any_index_are_refused_up_front(trials):
    """A red team's finding: ``max_trials=10**30`` crashed with an OverflowError deep in the sampler."""
    with pytest.raises(InvalidArgument, match="trials"):
        if trials == "fixed":
            dpaudit.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, trials=10**30, seed=0)
        else:
            AdaptiveTrials(first_trials=2000, max_trials=10**30)


def test_the_reproduce_line_carries_the_attack_options_and_the_confidence():
    """A red team's finding: pasting ``reproduce`` dropped ``float_bits`` and turned a violation into none."""
    mech = LaplaceMechanism(1.0)
    result = dpaudit.audit(mech, 0.0, 1.0, epsilon=1.0, seed=5, confidence=0.9,
                           trials=AdaptiveTrials(first_trials=2000, max_trials=20000, max_stages=2),
                           attack=AttackOptions(float_bits=True, candidates=2))
    assert "attack=AttackOptions(" in result.reproduce and "confidence=0.9" in result.reproduce
    again = eval(f"dict({result.reproduce})", {"AdaptiveTrials": AdaptiveTrials, "AttackOptions": AttackOptions,
                                              "ExecutionOptions": ExecutionOptions})
    pasted = dpaudit.audit(mech, 0.0, 1.0, epsilon=1.0, **again)
    assert (pasted.epsilon_lower_bound, pasted.violation) == (result.epsilon_lower_bound, result.violation)
