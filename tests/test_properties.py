"""Property-based tests: hostile command lines never give a traceback, and every game keeps its
invariants under random rule options."""
import dataclasses
import typing

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiments.cli import app
from simcore.errors import SenseiError
from simcore.registry import game_names, get_game
from simcore.rng import root_key
from strategies.registry import lineup, strategies_for
from tests.lanes import cheap

runner = CliRunner()

GARBAGE = st.sampled_from(["", "-", "--", "=", "x=", "=1", "none", "nan", "inf", "-1", "0", "1e9", "9" * 30,
                           "true", "maybe", "ü", "../../etc/passwd", "a:b:c", "random:", ":", ",", "k=v,k=v",
                           "threshold:wake=", "threshold:wake=1.5", "random:p_wake=2", "1,2,3", "0,6", "A", "Z"])
TOKENS = st.one_of(
    GARBAGE,
    st.sampled_from(["sen", "senshi", "sensu", "fan-and-mallet", "chess"]),
    st.sampled_from(["--players", "-p", "--strategy", "-s", "--rule", "-r", "--seed", "--jobs", "--json",
                     "--chunk-size", "--backend", "--bogus", "--progress"]),
    st.builds(lambda k, v: f"{k}={v}", st.sampled_from(["penalty", "rounds", "target", "caller_tie", "open_stacks",
                                                         "sticks", "powers", "max_turns", "start_positions",
                                                         "match_points", "go_all_in", "secret_hand", "nope"]),
              GARBAGE),
    st.integers(-3, 8).map(str),
    st.text(max_size=6),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(TOKENS, max_size=8))
def test_hostile_play_arguments_run_or_fail_in_one_line(tokens):
    args = ["play"] + tokens + ["--games", "3"]
    r = runner.invoke(app, args)
    assert "Traceback" not in r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    if r.exit_code != 0:
        assert r.exit_code == 2, (args, r.exit_code, r.output)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, r.stderr)


def option_values(rules_cls, garbage: bool = True):
    """A hypothesis strategy of dicts of rule option strings: valid values and (with ``garbage``) some
    invalid ones."""
    hints = typing.get_type_hints(rules_cls)
    fields = {}
    for f in dataclasses.fields(rules_cls):
        if not f.init:
            continue
        meta = f.metadata
        tp = hints[f.name]
        cands = [str(f.default).lower() if f.default is not None else "none"]
        if meta.get("choices"):
            cands += [str(c) for c in meta["choices"]]
        if tp is bool:
            cands += ["true", "false"]
        lo = meta.get("min")
        if lo is not None:
            cands += [str(int(lo)), str(int(lo) + 1), str(int(lo) + 7)]
        fields[f.name] = st.one_of(st.sampled_from(cands), GARBAGE) if garbage else st.sampled_from(cands)
    return st.fixed_dictionaries({}, optional=fields)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_invariants_hold_under_random_rule_options(data):
    name = data.draw(st.sampled_from(game_names()))
    eng = get_game(name)
    # valid values only (with invalid ones mixed in, most examples were refused and few played an option)
    values = data.draw(option_values(eng.Rules, garbage=False))
    try:
        rules = eng.make_rules(values)
    except SenseiError:
        return  # a combination the rules refuse (rounds with a target, say), with a message: fine
    players = data.draw(st.integers(eng.min_players, eng.max_players))
    try:
        eng.validate(players, rules)
    except SenseiError:
        return
    strat = data.draw(st.sampled_from([cheap(s) for s in strategies_for(name)]))
    agents = lineup(name, [strat], players)
    out = eng.play(np.arange(4), players, rules, agents, root_key(data.draw(st.integers(0, 10 ** 6))), check=True)
    assert out["turns"].shape == (4,)
    if out["win"].shape[1]:
        total = out["win"].sum(1)
        assert np.all(np.where(out["timeout"], total == 0, np.isclose(total, 1.0)))


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_rule_options_with_bad_values_are_refused_with_a_message(data):
    """Valid and invalid rule option values mixed: each dict is made into rules or refused with a SenseiError,
    never another exception."""
    eng = get_game(data.draw(st.sampled_from(game_names())))
    try:
        rules = eng.make_rules(data.draw(option_values(eng.Rules)))
    except SenseiError:
        return
    assert isinstance(rules, eng.Rules)
