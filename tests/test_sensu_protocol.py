"""Sensu's decision protocol: ``legal`` lists exactly what ``step`` accepts, ``step`` refuses every other option
without changing anything, the invariants hold at every decision point, the strategies only ever take legal
options, and an illegal answer is a one-line error naming the strategy, the decision and the option, in both
lanes and on the command line."""
from __future__ import annotations

import copy
import os
import textwrap

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from simcore.errors import IllegalAction
from simcore.game import Seats
from simcore.games.sensu import (COURAGE_BITS, DECISIONS, MAX_OPTIONS, ORDER_BITS, PASS, PLAY, SLOTS, Decision,
                                 Sensu)
from simcore.rng import game_keys, root_key
from strategies.registry import lineup

from tests.sensu_test_strategies import BadArrange, BadCourage, BadDiscard, NoPlace, Plain

ENG = Sensu()

CONFIGS = [
    (4, {}),
    (2, {"powers": True}),
    (3, {"powers": True, "chosen_fan": True}),
    (5, {"powers": True, "power_copies": "ABC"}),
    (1, {}),
]


def arrays(st):
    return {k: v.copy() for k, v in vars(st).items() if isinstance(v, np.ndarray)}


def same(a, b):
    return all(np.array_equal(v, b[k]) for k, v in a.items())


def candidates(st, g, rng):
    """Options to try at game g's decision: every small code, codes near the edges of each kind's encoding,
    and random ones (most of them illegal)."""
    P = st.players
    kind = st.kind[g]
    out = set(range(-3, 80)) | {PASS, PLAY - 1, PLAY, PLAY + 63, PLAY + 64, 1 << 62, -(1 << 62), MAX_OPTIONS}
    if kind == Decision.ARRANGE:
        out |= {int(c) for c in rng.integers(0, 1 << (ORDER_BITS * SLOTS + 1), 300)}
        legal = ENG.legal_options(st, g)
        for c in legal[:20]:  # legal orders with one position changed, dropped or added
            for j in range(SLOTS):
                for d in range(8):
                    out.add(int(c) & ~(7 << (ORDER_BITS * j)) | (d << (ORDER_BITS * j)))
    if kind == Decision.COURAGE:
        out |= set(range(1 << (COURAGE_BITS * P + 1)))
    out |= {int(c) for c in rng.integers(-(1 << 40), 1 << 40, 50)}
    return sorted(out)


@pytest.mark.parametrize("players,rules", CONFIGS)
def test_step_accepts_exactly_the_legal_options(players, rules):
    """Random play over legal options, one decision at a time: at each decision every option outside
    ``legal`` is refused and leaves the state as it was, every legal option is accepted (tried on copies),
    and the invariants hold after every step."""
    R = ENG.make_rules({**rules, "max_turns": 120})  # random play is long: some games end at the limit
    st = ENG.new_state(game_keys(root_key(3), np.arange(6)), players, R)
    rng = np.random.default_rng(players)
    seen = set()
    steps = 0
    while not st.done.all() and steps < 2000:
        for g in np.flatnonzero(~st.done):
            if st.turns[g] >= ENG.turn_limit(R):
                st.done[g] = st.timeout[g] = True
                continue
            legal = set(int(x) for x in ENG.legal_options(st, g))
            assert legal, f"no option at {Decision(int(st.kind[g])).name}"
            seen.add(int(st.kind[g]))
            before = arrays(st)
            for opt in candidates(st, g, rng):
                if opt in legal:
                    continue
                assert not ENG.step_one(st, g, opt), (Decision(int(st.kind[g])).name, opt)
            assert same(before, arrays(st)), Decision(int(st.kind[g])).name  # the refusals changed nothing
            for opt in sorted(legal)[:: max(1, len(legal) // 12)]:
                trial = copy.deepcopy(st)
                assert ENG.step_one(trial, g, opt), (Decision(int(st.kind[g])).name, opt)
            assert ENG.step_one(st, g, int(rng.choice(sorted(legal))))
            ENG.check(st)
        steps += 1
    assert st.done.all()
    if players == 1:
        assert seen == {Decision.SOLO_TURN, Decision.PLACE, Decision.ARRANGE}
    else:
        assert {Decision.TURN, Decision.DISCARD, Decision.ARRANGE} <= seen
        if rules.get("powers"):
            assert {Decision.WISDOM, Decision.HARMONY, Decision.COURAGE} & seen


@pytest.mark.parametrize("players,rules", CONFIGS)
@pytest.mark.parametrize("specs", [["random"], ["planner", "redeemer", "focus", "random", "planner"]])
def test_every_decision_of_the_built_in_strategies_is_legal(players, rules, specs):
    """The batch lane step by step: every option a built-in strategy takes is among ``legal``'s, and the
    invariants hold at every decision point, mid-turn included."""
    specs = (specs * players)[:players]
    agents = lineup("sensu", specs, players)
    R = ENG.make_rules(rules)
    keys = game_keys(root_key(8), np.arange(40))
    st = ENG.new_batch(keys, players, R)
    seats = Seats(agents, keys)
    lu = seats.lineup_for(ENG)
    S, Rt = ENG.state_tuple(st), ENG.rules_tuple(st)
    lu.call("begin_batch", S, Rt, np.arange(len(keys), dtype=np.int64))
    kinds = set()
    while True:
        idx = np.flatnonzero(~st.done & (st.turns < ENG.turn_limit(R)))
        if not len(idx):
            break
        opts = ENG.decide(st, idx, seats, lu)
        for g, o in zip(idx, opts):
            assert o in ENG.legal_options(st, g), (specs[st.current[g]], DECISIONS[st.kind[g]], o)
            kinds.add(int(st.kind[g]))
        assert lu.call("step_batch", S, Rt, idx, opts) == -1
        ENG.check(st)
    assert Decision.ARRANGE in kinds


# ----- illegal answers ------------------------------------------------------------------------------
# (the lineups below are made of the test strategies of tests/sensu_test_strategies.py only: they share one
# compiled lineup module with test_sensu_compiled.py's)
@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("agent,players,rules,kind", [
    (BadArrange(), 3, {}, "arrange"), (BadArrange(), 1, {}, "arrange"), (BadDiscard(), 4, {}, "discard"),
    (BadCourage(), 3, {"powers": True}, "courage")])
def test_an_illegal_answer_is_a_one_line_error(agent, players, rules, kind, compiled):
    agents = [Plain()] * (players - 1) + [agent]
    with pytest.raises(IllegalAction) as exc:
        ENG.play(np.arange(400), players, ENG.make_rules(rules), agents, root_key(1), compiled=compiled)
    msg = str(exc.value)
    assert "\n" not in msg and agent.name in msg and f"illegal {kind}" in msg and "option" in msg, msg
    assert f"seat {players - 1}" in msg


@pytest.mark.parametrize("compiled", [True, False])
def test_a_missing_decision_is_named(compiled):
    with pytest.raises(IllegalAction, match="noplace.* has no decision 'place'"):
        ENG.play(np.arange(20), 1, ENG.make_rules(), [NoPlace()], root_key(1), compiled=compiled)


def test_an_illegal_answer_on_the_command_line(tmp_path):
    """A strategy from the user's own file (numpy form) that names no place: exit 2 and one line."""
    path = os.path.join(tmp_path, "bad_sensu.py")
    with open(path, "w") as fh:
        fh.write(textwrap.dedent('''
            import dataclasses
            from typing import ClassVar

            import numpy as np

            from strategies.base import Strategy

            @dataclasses.dataclass(frozen=True)
            class Lost(Strategy):
                game: ClassVar[str] = "sensu"

                def solo_turn(self, obs, rng):
                    return np.zeros(len(obs), dtype=np.int64)  # draw

                def place(self, obs, rng):
                    return np.full(len(obs), 5)  # the places are 0 (the pile) to 4 (the last column)
        '''))
    r = CliRunner().invoke(app, ["play", "sensu", "--players", "1", "--strategy", f"{path}:Lost", "--games", "20"])
    assert r.exit_code in (2, 3), r.output  # 3: the command line's status for a strategy's illegal action
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("compiling")]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Lost" in lines[0], r.stderr
    assert "illegal place: option 5" in lines[0], r.stderr
