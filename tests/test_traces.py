"""Traces (``sensei trace``): a trace is game K of the run, in both lanes; what a seat's view keeps; JSON
Lines; bad input; the rulebooks' worked examples as traces, as docs/traces.md shows them."""
import dataclasses
import json
import os
from typing import ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from simcore.games.sen import Drawn, Kind, Start
from simcore.registry import get_game
from simcore.rng import game_keys, root_key
from simcore.runner import simulate
from simcore.tracing import json_lines, render, trace_game, view
from strategies.base import Strategy
from strategies.registry import lineup
from tests import trace_examples

runner = CliRunner()
DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "traces.md")

# (game, players, strategies, rules): lineups of compiled strategies (compiled lane) and of numpy ones
TABLES = [
    ("sen", 3, ["threshold", "counter", "random"], {"rounds": 2}),
    ("sen", 4, ["watcher", "swapper", "gambler", "threshold"], {"rounds": 1, "ravens_not_scary": True}),
    ("senshi", 3, ["greedy", "guard", "random"], {}),
    ("senshi", 2, ["denier", "racer"], {"secret_hand": True, "open_stacks": True}),
    ("sensu", 3, ["redeemer"], {}),
    ("sensu", 2, ["planner", "focus"], {"powers": True}),
    ("sensu", 1, ["redeemer"], {}),
    ("fan-and-mallet", 2, ["closer", "strongest"], {}),
    ("fan-and-mallet", 2, ["keeper", "counter"], {"match_points": 10}),
]
N, SEED, TRACED = 6, 11, (0, 5)


def _row(games, k, players):
    rows = games.filter(games["game"] == k).sort("seat")
    assert rows.height == players
    return rows


@pytest.mark.parametrize("game,players,specs,rules", TABLES, ids=lambda x: str(x))
def test_trace_is_the_games_row_in_both_lanes(game, players, specs, rules):
    eng = get_game(game)
    agents = lineup(game, specs, players)
    lanes = [simulate(eng, agents, players=players, rules=rules, n_games=N, seed=SEED, keep_games=True,
                      compiled=c).games() for c in (True, False)]
    for k in TRACED:
        end = trace_game(eng, agents, players, rules, seed=SEED, game=k)[-1]
        assert end["event"] == "end" and end["finished"]
        for games in lanes:
            rows = _row(games, k, players)
            assert end["scores"] == rows["score"].to_list()
            # solo Sensu has no win share: no win column, an empty list in the trace
            assert end["win"] == (rows["win"].to_list() if "win" in rows.columns else [])
            assert end["turns"] == rows["turns"][0]
            assert end["timeout"] == rows["timeout"][0]


def test_a_seats_view_keeps_only_what_it_saw():
    eng = get_game("sen")
    agents = lineup("sen", ["threshold"], 3)
    events = trace_game(eng, agents, 3, {"rounds": 1}, seed=3, game=2)
    assert any(e.get("hidden") for e in events) and any(e.get("seat") == 0 for e in events)
    mine = view(events, 1)
    assert len(mine) == len(events)
    for e in mine:
        assert "hidden" not in e
        assert set(e.get("private", {})) <= {1}
        if e["event"] == "decision" and e["seat"] != 1:
            assert not {"knew", "options", "chose"} & set(e) and e["effect"]
        elif e["event"] == "decision":
            assert e["knew"] and e["options"] and e["chose"] in e["options"]
    text = render(mine, 1)
    assert "[hidden]" not in text and "[seat 0 alone sees]" not in text and "[seat 1 alone sees]" in text
    # the referee's view: every decision has its options, and the choice is one of them
    for e in events:
        if e["event"] == "decision":
            assert e["chose"] in e["options"]


def test_trace_game_takes_what_simulate_takes_and_refuses_in_one_line_what_it_refuses():
    """trace_game("sen", ...) failed with "'str' object has no attribute 'Rules'"; names, or another game's
    strategies, failed with "has no decision 'start'"; a Rules object's "false" played the variant; a view
    of seat 9 of a 4-seat table printed a trace as if nothing were wrong."""
    from simcore.errors import SenseiError
    from simcore.games.sen import SenRules
    eng = get_game("sen")
    agents = lineup("sen", ["threshold"], 4)
    by_name = trace_game("sen", agents, 4, {"rounds": 1}, seed=1, game=0)
    assert by_name == trace_game(eng, agents, 4, {"rounds": 1}, seed=1, game=0)
    assert by_name == trace_game(eng, agents, np.int64(4), {"rounds": 1}, seed=1, game=0)
    with pytest.raises(SenseiError, match="got 'threshold' for seat 0 .strategies.registry.lineup makes them"):
        trace_game(eng, ["threshold"] * 4, 4, {}, seed=1, game=0)
    with pytest.raises(SenseiError, match=r"strategy greedy \(seat 0\) is for senshi, not sen"):
        trace_game(eng, lineup("senshi", "greedy", 4), 4, {}, seed=1, game=0)
    text = trace_game(eng, agents, 4, SenRules(rounds=1, know_what_i_have="false"), seed=1, game=0)
    assert text == by_name and text[0]["rules"]["know_what_i_have"] is False
    for seat in (4, 9, -1, "1"):
        with pytest.raises(SenseiError, match=r"view: seat must be a seat of the table \(0 to 3\)"):
            view(by_name, seat)
    assert view(by_name, np.int64(3)) == view(by_name, 3)
    # the Python messages name the arguments (the command line's name its flags: the table of CLI cases below)
    with pytest.raises(SenseiError, match=r"^game must be a game index from 0 .* got -1$"):
        trace_game(eng, agents, 4, {}, seed=1, game=-1)
    with pytest.raises(SenseiError, match=r"^game must be below 9,223,372,036,854,775,807"):
        trace_game(eng, agents, 4, {}, seed=1, game=2**63)
    assert trace_game(eng, agents, 4, {"rounds": 1}, seed=np.int64(1), game=np.int64(0)) == by_name


def test_a_trace_stopped_before_the_end_has_no_win_shares():
    """trace_game(..., max_decisions=5) ended with win [0.25, 0.25, 0.25, 0.25], which reads as a four-way
    tie of a game that goes on."""
    eng = get_game("sen")
    agents = lineup("sen", ["threshold"], 4)
    end = trace_game(eng, agents, 4, {}, seed=1, game=0, max_decisions=5)[-1]
    assert end["finished"] is False and end["decisions"] == 5 and end["win"] is None
    assert len(end["scores"]) == 4
    full = trace_game(eng, agents, 4, {}, seed=1, game=0)[-1]
    assert full["finished"] is True and sum(full["win"]) == pytest.approx(1.0)


def test_cli_json_lines_end_with_the_games_row():
    args = ["sensei", "fan-and-mallet", "-s", "closer", "-s", "keeper", "--seed", "4"]
    res = runner.invoke(app, ["trace", *args[1:], "--game", "3", "--games", "5", "--json"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(x) for x in res.output.splitlines()]
    assert lines[0]["event"] == "game" and lines[0]["index"] == 3 and lines[0]["seed"] == 4
    assert any(x["event"] == "possession" for x in lines)
    end = lines[-1]
    assert end["event"] == "end" and set(end) >= {"scores", "win", "turns"}
    eng = get_game("fan-and-mallet")
    games = simulate(eng, lineup("fan-and-mallet", ["closer", "keeper"], 2), n_games=5, seed=4,
                     keep_games=True).games()
    rows = _row(games, 3, 2)
    assert end["scores"] == rows["score"].to_list() and end["win"] == rows["win"].to_list()
    assert end["turns"] == rows["turns"][0]
    # --view 1 in JSON: seat 0's decisions without what seat 0 knew
    res = runner.invoke(app, ["trace", *args[1:], "--game", "3", "--json", "--view", "1"])
    seen = [json.loads(x) for x in res.output.splitlines()]
    assert all("options" not in x for x in seen if x["event"] == "decision" and x["seat"] == 0)
    assert any("options" in x for x in seen if x["event"] == "decision" and x["seat"] == 1)
    assert seen[-1]["scores"] == end["scores"]
    # the text says the same end
    res = runner.invoke(app, ["trace", *args[1:], "--game", "3"])
    assert res.exit_code == 0 and f"turns: {end['turns']}" in res.output.splitlines()[-1]


@pytest.mark.parametrize("args,message", [
    (["sen", "--game", "10", "--games", "10"], "--game 10 is beyond --games 10"),
    (["sen", "--game", "-1"], "--game must be a game index"),
    (["sen", "-p", "3", "--view", "3"], "--view 3: no such seat"),
    (["senshi", "--view", "-1"], "--view -1: no such seat"),
    (["sen", "-p", "9"], "sen is for 2-5 players"),
    (["sen", "--rule", "penalty=x"], "penalty"),
    (["sen", "--rule", "nope=1"], "unknown rule option 'nope'"),
    (["sen", "--rule", "penalty"], "KEY=VALUE"),
    (["sensu", "-s", "nope"], "unknown strategy 'nope'"),
    (["sen", "-p", "3", "-s", "random", "-s", "threshold"], "2 strategies given for 3 seats"),
    (["sen", "--games", "0"], "--games must be a positive integer"),
    (["sen", "--seed", "-2"], "--seed must be a non-negative integer"),
    (["chess"], "chess"),
    (["sen", "--jobs", "0"], "jobs must be a positive integer"),
    (["sen", "--chunk-size", "0"], "chunk size must be an integer from 1"),
    (["sen", "--games", "x"], "Invalid value for '--games'"),
])
def test_bad_input_is_one_line_and_status_2(args, message):
    res = runner.invoke(app, ["trace", *args])
    assert res.exit_code == 2
    lines = [x for x in res.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], res.output


# ----- the rulebooks' worked examples ------------------------------------------------------------------
def _lines(events):
    return render(events).splitlines()


def test_sen_worked_examples():
    text = _lines(trace_examples.sen_penalty(False))
    assert "  caller seat 3 has 11, not the fewest (10): 11 + penalty 5 = 16" in text
    assert "  round points: 19, 16, 10, 16" in text
    text = _lines(trace_examples.sen_penalty(True))
    assert "  ravens are not scary: seat 0 alone has the most 9s (1) and does not count them: 19 - 9 = 10" in text
    assert "  round points: 10, 16, 10, 16" in text


def test_senshi_worked_examples():
    text = _lines(trace_examples.senshi_victory_1())
    assert "  the table's smallest pile is 3: seat 0 is eliminated" in text
    assert "  largest surviving pile: 6 (seat 2)" in text and "  seat 2 wins" in text
    text = _lines(trace_examples.senshi_victory_3())
    assert "  the table's smallest pile is 1: seat 3 is eliminated" in text
    assert "  tie-break, most tiles in hand (2): seats 0, 1" in text and "  seat 1 wins" in text


def test_sensu_worked_example():
    events = trace_examples.sensu_example_3()
    text = "\n".join(_lines(events))
    assert ("redeems 3 cards (the card with the most sticks + a bonus card for the pair of 2s + a bonus card for "
            "3 Gun-sen cards)") in text
    # the build in the order chosen, each card onto its fan
    assert ("Hi-ogi 2C onto seat 0's Hi-ogi fan: 4 sticks; Mai-ougi 7A onto seat 0's Mai-ougi fan: 2 sticks; "
            "Gun-sen 5A onto seat 0's Gun-sen fan: 3 sticks") in text
    assert events[-1]["scores"] == [9, 0, 0, 0] and not events[-1]["finished"]


def test_fan_and_mallet_worked_examples():
    text = _lines(trace_examples.fan_and_mallet_example_1())
    assert "  White 6, Black 8: Black has the most power" in text
    assert "  Black places 2 markers (the first possession of the game)" in text
    text = _lines(trace_examples.fan_and_mallet_hatchet())
    assert "  4. Black brown kid ghost (hatchet): power 1 + hatchet bonus 4 = 5" in text


def test_docs_show_the_worked_examples_as_printed():
    with open(DOCS) as fh:
        docs = fh.read()
    for name, text in trace_examples.texts().items():
        assert f"```\n{text}```" in docs, f"docs/traces.md does not show the current trace of {name}"


# ----- reports: example games -----------------------------------------------------------------------------
def test_report_example_games_are_traces_their_command_reprints(tmp_path):
    import html
    import re
    import shlex

    from experiments import run_experiment
    from reports import build_report

    cfg = {"title": "Examples", "question": "Which wake is best?", "game": "sen", "players": 2, "games": 20,
           "seed": 5, "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
           "sweep": {"focus.wake": [8, 12]}, "rules": {"penalty": 15}, "report": {"over": "focus.wake"}}
    res = run_experiment(cfg)
    ex = res.examples
    assert "examples" not in res.tables  # the answer's tables are unchanged
    assert ex.height == 2 and ex["cell"].to_list() == [0, 1]
    page = open(build_report(res.write(str(tmp_path)), index=False)).read()
    assert page.count('<details class="example-game">') == 2 and "Example games" in page
    # each headed by its cell's sweep values and its lineup by short labels
    assert re.findall(r"<summary>(cell \d+ \([^<]*\)): deal", page) == [
        "cell 0 (focus.wake=8, threshold wake=8 / threshold wake=10)",
        "cell 1 (focus.wake=12, threshold wake=12 / threshold wake=10)"]
    for row in ex.iter_rows(named=True):
        assert html.escape(row["command"]) in page and html.escape(row["text"]) in page
        argv = shlex.split(row["command"])
        assert argv[:2] == ["sensei", "trace"]
        out = runner.invoke(app, argv[1:])
        assert out.exit_code == 0 and out.output == row["text"]
        # the shortest of the cell's first deals; its length is the per-game table's
        assert f"turns: {row['turns']}" in row["text"].splitlines()[-1]
    assert all("--rule penalty=15" in c for c in ex["command"])


def test_sen_scoring_steps_agree_with_the_engine_under_every_variant():
    """The trace's step-by-step scoring of each round gives the points the engine added, and they sum to
    the final scores."""
    eng = get_game("sen")
    rules = {"know_what_i_have": True, "go_all_in": True, "caller_tie": "count", "ravens_not_scary": True,
             "rounds": 3}
    for specs in (["random"], ["counter", "gambler", "random"]):
        agents = lineup("sen", specs, 3)
        for k in range(8):
            events = trace_game(eng, agents, 3, rules, seed=1, game=k)
            ends = [e for e in events if e["event"] == "round_end"]
            assert len(ends) == 3
            assert not any("the steps above give" in ln for e in ends for ln in e["lines"])
            assert [sum(e["points"][p] for e in ends) for p in range(3)] == events[-1]["scores"]


def test_sen_traces_say_an_8():
    """A card named with its article reads "an 8", "a 5 (Take 2)": over some games every article is right
    (and an 8 does turn up)."""
    eng = get_game("sen")
    agents = lineup("sen", ["counter"], 4)
    text = "\n".join(render(trace_game(eng, agents, 4, {"rounds": 1}, seed=1, game=g)) for g in range(6))
    assert "an 8" in text
    assert " a 8" not in text


@pytest.mark.parametrize("game,players,specs,rules", [
    ("sen", 4, ["counter"], {"rounds": 2, "know_what_i_have": True}), ("senshi", 3, ["random"], {}),
    ("sensu", 3, ["random"], {"powers": True}), ("sensu", 1, ["random"], {}), ("fan-and-mallet", 2, ["random"], {})])
def test_effects_say_what_the_seat_does(game, players, specs, rules):
    """Every decision's public effect reads as what the seat does ("discards ...", "will take ..."), or
    names the power it resolves ("Wisdom: ..."), never as the option's command ("discard ...")."""
    eng = get_game(game)
    seen = 0
    for k in range(3):
        for e in trace_game(eng, lineup(game, specs, players), players, rules, seed=1, game=k):
            if e["event"] == "decision" and e.get("effect"):
                first = e["effect"].split()[0]
                assert first.endswith("s") or first == "will" or first.endswith(":"), e["effect"]
                assert "; discard " not in e["effect"], e["effect"]
                seen += 1
    assert seen > 20


def test_example_cells_are_spread_over_a_large_grid():
    # the first six cells of a grid are often one group (2 players, one rule setting): spread them instead
    from experiments.examples import MAX_CELLS, _spread
    assert _spread(list(range(4))) == [0, 1, 2, 3]
    picked = _spread(list(range(96)))
    assert len(picked) == MAX_CELLS and picked[0] == 0 and picked[-1] == 95 and picked == sorted(picked)
    assert max(b - a for a, b in zip(picked, picked[1:])) - min(b - a for a, b in zip(picked, picked[1:])) <= 1


@dataclasses.dataclass(frozen=True)
class _Nines(Strategy):
    """Collects 9s and says WAKE UP! once every own land it knows is a 9; uses every special; claims two
    lands (the higher slot first), rightly when it knows a pair. It reaches "go all in" within a few games."""
    name: ClassVar[str] = "nines"
    game: ClassVar[str] = "sen"

    def start(self, obs, rng):
        m = obs.own_mask()
        nines = (((obs.own == 9) & m) | ~m).all(axis=1)
        claim = obs.rules.know_what_i_have & (obs.own_slots >= 2) & (obs.own_slots <= 7) & (rng.random() < 0.5)
        out = np.where(claim, Start.CLAIM, np.where(obs.top == 9, Start.FACE_UP, Start.DRAW))
        return np.where(nines, Start.WAKE, out)

    def _worst(self, obs):
        bad = obs.own_mask() & (obs.own != 9)
        return np.where(bad.any(axis=1), bad.argmax(axis=1), 0)

    def face_up_slot(self, obs, rng):
        return self._worst(obs)

    def drawn(self, obs, rng):
        special = obs.card_kind != Kind.PLAIN
        return np.where(obs.card == 9, self._worst(obs), np.where(special, Drawn.USE, Drawn.DISCARD))

    def keep(self, obs, rng):
        return np.where(obs.offer[:, 1] == 9, 1, 0)

    def peek(self, obs, rng):
        unknown = (obs.own < 0) & obs.own_mask()
        return obs.me.copy(), np.where(unknown.any(axis=1), unknown.argmax(axis=1), 0)

    def swap(self, obs, rng):
        nxt = (obs.me + 1) % obs.players
        return obs.me.copy(), np.zeros_like(obs.me), nxt, obs.nslots[np.arange(len(obs.me)), nxt] - 1

    def claim(self, obs, rng):
        k = len(obs.me)
        a, b, v = np.zeros(k, np.int64), np.zeros(k, np.int64), np.zeros(k, np.int64)
        for i in range(k):
            a[i], b[i], v[i] = obs.own_slots[i] - 1, 0, 9
            for x in range(obs.own_slots[i]):
                for y in range(x):
                    if obs.own[i, x] >= 0 and obs.own[i, x] == obs.own[i, y]:
                        a[i], b[i], v[i] = x, y, obs.own[i, x]
        return a, b, v


def test_sen_go_all_in_replaces_the_other_counts_in_the_trace():
    """When "go all in" applies, the round's lines say so and print no caller's check or ravens reward,
    which it overrides; the points are the engine's."""
    eng = get_game("sen")
    rules = {"go_all_in": True, "ravens_not_scary": True, "rounds": 4}
    found = 0
    for k in range(12):
        agents = [_Nines(), lineup("sen", ["random:p_wake=0.0"], 1)[0]]
        for e in trace_game(eng, agents, 2, rules, seed=3025, game=k):
            if e["event"] != "round_end" or not any(ln.startswith("go all in") for ln in e["lines"]):
                continue
            found += 1
            assert not any(ln.startswith(("caller seat", "ravens are not scary", "the face-down pile is empty"))
                           for ln in e["lines"]), e["lines"]
            assert not any("the steps above give" in ln for ln in e["lines"])
    assert found >= 1


def test_sen_trace_names_the_specials_a_claim_shows_and_a_take_2_that_finds_no_card():
    """A claim's lands are shown as every other reveal shows them ("5 (Take 2)"); a Take 2 used on an
    empty face-down pile says that it finds no card."""
    eng = get_game("sen")
    text = render(trace_game(eng, lineup("sen", ["counter"], 5), 5, {"know_what_i_have": True}, seed=3, game=1))
    shown = [ln for ln in text.splitlines() if "they show" in ln]
    assert shown and any("(Take 2)" in ln or "(Peek 1)" in ln or "(Swap 2)" in ln for ln in shown)
    text = render(trace_game(eng, lineup("sen", ["random:p_wake=0.0"], 2), 2, {"know_what_i_have": True},
                             seed=1017, game=1))
    assert "Take 2 finds no card (the face-down pile is empty)" in text


def test_sen_legal_lists_each_swap_and_claim_once_and_step_takes_either_order():
    """Swap 2 and a claim name an unordered pair: ``legal`` lists each once (earlier position first), and
    ``step`` applies the other order as the same action."""
    import simcore.games.sen as K
    from simcore.compiled import FirstCallCompiles

    eng = get_game("sen")
    legal = FirstCallCompiles(K.legal)
    step = FirstCallCompiles(K.step)
    out = np.empty(K.MAX_OPTIONS, dtype=np.int64)
    for kind, want, players in ((K.Decision.SWAP, 20 * 19 // 2, 5), (K.Decision.CLAIM, 6 * 10, 2)):
        s = eng.new_batch(game_keys(root_key(1), np.arange(1)), players, eng.make_rules({"know_what_i_have": True}))
        S, R = eng.state_tuple(s), eng.rules_tuple(s)
        K.begin_batch(S, R, np.arange(1))
        S[4][0] = kind
        n = int(legal(S, R, 0, out))
        opts = out[:n].copy()
        assert n == want and len(set(opts.tolist())) == n
        a = opts[0]
        if kind == K.Decision.SWAP:
            x, y = a // K.SWAP_STRIDE, a % K.SWAP_STRIDE
            assert x < y
            b = y * K.SWAP_STRIDE + x
        else:
            ab, v = a // 10, a % 10
            assert ab // K.SLOTS < ab % K.SLOTS
            b = ((ab % K.SLOTS) * K.SLOTS + ab // K.SLOTS) * 10 + v
        assert b not in set(opts.tolist())
        dreams = []
        for o in (a, b):
            t = eng.new_batch(game_keys(root_key(1), np.arange(1)), players, eng.make_rules({"know_what_i_have": True}))
            T, RT = eng.state_tuple(t), eng.rules_tuple(t)
            K.begin_batch(T, RT, np.arange(1))
            T[4][0] = kind
            assert step(T, RT, 0, np.int64(o))
            dreams.append((t.dream.copy(), t.mem.copy(), t.up.copy()))
        assert all(np.array_equal(p, q) for p, q in zip(*dreams))


# ----- Sensu: the build told card by card ------------------------------------------------------------------
_POWER_RULES = [
    (2, ["focus"], {"powers": True, "power_copies": "ABC"}),
    (3, ["random"], {"powers": True, "power_copies": "AB", "chosen_fan": True}),
    (5, ["random", "redeemer", "planner", "focus", "random"], {"powers": True, "chosen_fan": True, "sticks": "B"}),
]


def _sensu_traces(games=range(12), seed=3):
    eng = get_game("sensu")
    for players, specs, rules in _POWER_RULES:
        agents = lineup("sensu", specs, players)
        for k in games:
            yield trace_game(eng, agents, players, rules, seed=seed, game=k)


def _builds(events):
    """Each combination's build: (seat, redeemed cards in the order chosen, the effects of its arrange and of
    the power decisions that follow it in the same turn)."""
    out = []
    for e in events:
        if e.get("event") != "decision":
            continue
        if e["decision"] == "arrange":
            red = e["chose"][len("redeem "):].split("; discard ")[0].replace(" (in this order)", "").split(", ")
            out.append((e["seat"], red, [e["effect"]]))
        elif e["decision"] in ("wisdom", "harmony", "courage"):
            assert out and out[-1][0] == e["seat"]
            out[-1][2].append(e["effect"])
    return out


def _where(card, seat):
    """Where a redeemed card went, as the build says it: its fan, the pile (with the reason), or unplaced."""
    import re
    c = re.escape(card)
    return re.compile(rf"(?:^|; |: ){c} onto seat {seat}'s [\w-]+ fan: \d+ sticks?"
                      rf"|(?:^|; |: ){c} fits no fan \([^)]*\): onto seat {seat}'s pile"
                      rf"|: (?:[^;]*, )?{c}(?:, [^;]*)? stays? unplaced")


def test_sensu_build_tells_every_redeemed_card_in_the_order_chosen():
    """Every redeemed card is told where it went (its fan, or the pile because it fits no fan), in the build's
    order, also when a power interrupts the build; the power's own card and a Courage's removals are told
    apart from the rest of the build."""
    seen = {"harmony": 0, "courage": 0, "pile": 0}
    for events in _sensu_traces():
        for seat, red, effects in _builds(events):
            text = " | ".join(effects)
            at = []
            for card in red:
                found = [m.start() for m in _where(card, seat).finditer(text)]
                assert len(found) == 1, (card, text)
                at.append(found[0])
            assert at == sorted(at), (red, text)
            seen["pile"] += "fits no fan" in text
            for eff in effects[1:]:
                if eff.startswith("Harmony:") and len(red) > 1:
                    seen["harmony"] += 1
                    # the pile top Harmony takes is told first, onto the builder's fan, before the build goes on
                    top = eff.split("pile top, ")[1].split(" (")[0]
                    assert eff.split("; ")[1].startswith(f"{top} onto seat {seat}'s"), eff
                if eff.startswith("Courage:"):
                    seen["courage"] += 1
                    # the removals name opponents only; the builder's fans only grow by its own build
                    assert f"seat {seat}'s" not in eff.split("the build goes on")[0].split("; ", 1)[1].replace(
                        f"onto seat {seat}'s", "")
    assert all(seen.values()), seen


def test_sensu_harmony_build_the_audit_found():
    """Seat 1 redeems Mai-ougi 6A, 3C, 5C: 6A sets off Harmony; its card and then 3C (onto the pile) and 5C
    (closing the fan) are each told, in that order."""
    eng = get_game("sensu")
    events = trace_game(eng, lineup("sensu", ["focus"], 2), 2, {"powers": True, "power_copies": "ABC"},
                        seed=5, game=24)
    text = render(events)
    assert ("still to place after the power: Mai-ougi 3C, Mai-ougi 5C" in text)
    assert ("-> Harmony: puts seat 0's pile top, Gun-sen 5A (3 sticks), onto a fan; Gun-sen 5A onto seat 1's "
            "Gun-sen fan: 5 sticks; the fan's second power-symbol card: Gun-sen's Courage fires with nothing to act "
            "on (no opponent's fan has a last card to remove) and is used up; the build goes on: Mai-ougi 3C fits "
            "no fan (seat 1's Mai-ougi fan would reach 11 sticks, over 10): onto seat 1's pile; Mai-ougi 5C onto "
            "seat 1's Mai-ougi fan: 10 sticks and closes it") in text


def test_sensu_power_with_nothing_to_act_on_and_the_chosen_fan_reason():
    eng = get_game("sensu")
    events = trace_game(eng, lineup("sensu", ["random"], 3), 3,
                        {"sticks": "4,3,3,3,2,2,2,1,1", "powers": True, "power_copies": "AB", "chosen_fan": True},
                        seed=9, game=1)
    text = render(events)
    assert ("redeems Mai-ougi 2A, Hi-ogi 8C (in this order); discards Gun-sen 5C, Hi-ogi 5C (the last on top); "
            "Mai-ougi 2A onto seat 0's Mai-ougi fan: 8 sticks; the fan's second power-symbol card: Mai-ougi's "
            "Harmony fires with nothing to act on (no pile top fits a fan) and is used up; Hi-ogi 8C onto seat 0's "
            "Hi-ogi fan: 10 sticks and closes it; seat 0 draws and discards Hi-ogi, Hi-ogi (closed already), then "
            "draws a new chosen fan: Gun-sen") in text
    events = trace_game(eng, lineup("sensu", ["redeemer", "planner"], 2), 2,
                        {"powers": True, "chosen_fan": True, "sticks": "C"}, seed=1, game=4)
    text = render(events)
    assert ("Mai-ougi 4A fits no fan (it would close seat 0's Mai-ougi fan before the chosen Gun-sen fan is "
            "closed): onto seat 0's pile") in text
    assert " fits no fan: " not in text and " fit no fan" not in text


def test_sensu_knew_and_options_name_public_things():
    """Opponents' hand sizes are in what a seat knew; Wisdom's pile tops are named like a turn's; solo's
    set-up and end lines have no empty lists."""
    wisdom = empty = 0
    for events in _sensu_traces(range(6)):
        for e in events:
            if e.get("event") != "decision":
                continue
            assert "; hand sizes: seat " in e["knew"]
            assert not e["knew"].startswith("hand: ;"), e["knew"]  # an empty hand is "none", as in Senshi
            empty += e["knew"].startswith("hand: none;")
            if e["decision"] == "wisdom":
                for o in e["options"][1:]:
                    wisdom += 1
                    assert o.startswith("take seat ") and o.split("'s pile top ")[1]
    assert wisdom and empty
    eng = get_game("sensu")
    text = render(trace_game(eng, lineup("sensu", ["redeemer"], 1), 1, {}, seed=2, game=0)).splitlines()
    assert "  solo: a discard pile and four columns" in text
    assert text[-1].startswith("  scores: ") and "win" not in text[-1]


# ----- Senshi: the words of the set-up and of the end ------------------------------------------------------
def test_senshi_end_line_names_the_smallest_piles_and_the_set_up_its_stacks():
    eng = get_game("senshi")
    text = render(trace_game(eng, lineup("senshi", ["greedy"], 2), 2, {}, seed=1, game=0)).splitlines()
    assert text[-1] == "  smallest piles: 3, 3; win: 0, 1; turns: 37"
    assert "  seat 0 reveals its hand: Strength 1 (1 tile); piles (S/A/H/W) 7/3/3/5, smallest 3, largest 7" in text
    text = render(trace_game(eng, lineup("senshi", ["random"], 3), 3, {"secret_hand": True}, seed=2, game=5))
    assert ("17 stacks of 3 in the middle, numbered 3 to 19 (3 tiles of each colour set aside); stacks 0 to 2 "
            "were dealt as the secret hands; seat 0 starts") in text
    assert "    stack 3 (top " in text and "stack 19 (top " in text and "stack 20 " not in text
    text = render(trace_game(eng, lineup("senshi", ["random"], 4), 4, {"secret_hand": True}, seed=2, game=5))
    assert "20 stacks of 3 in the middle, numbered 4 to 23; stacks 0 to 3" in text and "(0 tiles" not in text


def test_trace_names_the_closed_fan_cards_discarded_and_a_round_without_9s():
    """A new chosen fan comes after the closed-fan cards of types closed already are drawn and discarded (the
    trace names them); with ravens_not_scary a round in which nobody holds a 9 says so."""
    text = render(trace_game(get_game("sensu"), lineup("sensu", ["redeemer"], 4), 4, {"chosen_fan": True},
                             seed=12, game=0))
    assert "seat 3 draws and discards Hi-ogi (closed already), then draws a new chosen fan: Mai-ougi" in text
    text = render(trace_game(get_game("sen"), lineup("sen", ["threshold"], 2), 2, {"ravens_not_scary": True},
                             seed=3, game=0))
    assert "ravens are not scary: nobody holds a 9, nobody is rewarded" in text


def test_senshi_trace_says_how_the_middle_was_emptied():
    """The middle empties by a Study (its last stack) or by a Train (its last tile): the trace said "took the
    last middle stack" for both."""
    eng = get_game("senshi")
    seen = set()
    for g in (0, 1):  # (seed 1, 3 players: game 0 ends its middle by a Train, game 1 by a Study)
        lines = render(trace_game(eng, lineup("senshi", ["greedy"], 3), 3, {}, seed=1, game=g)).splitlines()
        k = next(i for i, ln in enumerate(lines) if ln == "the middle is empty")
        how = "its last tile by Train" if "takes the top" in lines[k - 1] else "its last stack by Study"
        assert lines[k - 1].startswith("  -> ") and f"emptied the middle ({how}): every player has one final turn" \
            in lines[k + 1], lines[k - 1:k + 2]
        seen.add(how)
    assert seen == {"its last tile by Train", "its last stack by Study"}


def test_json_lines_stay_json_when_a_strategy_file_prints_as_it_loads(tmp_path):
    """A print at a strategy file's import went to stdout before the JSON Lines (trace) began."""
    import json
    import subprocess
    import sys

    path = tmp_path / "loud.py"
    path.write_text("import dataclasses\nfrom strategies.sen import Threshold\nprint('hello from import')\n\n"
                    "@dataclasses.dataclass(frozen=True)\nclass Loud(Threshold):\n    pass\n")
    sensei = os.path.join(os.path.dirname(sys.executable), "sensei")
    for cmd in (["trace", "sen", "-p", "2", "-s", f"{path}:Loud", "-s", "threshold", "--game", "0", "--json"],
                ["play", "sen", "-p", "2", "-s", f"{path}:Loud", "-s", "threshold", "-n", "5", "--json"]):
        r = subprocess.run([sensei, *cmd], capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert lines and all(isinstance(json.loads(x), dict) for x in lines), r.stdout[:200]
        assert "hello from import" in r.stderr
