"""The shipped Senshi questions: senshi_elimination.toml (the risk answer) and senshi_seats.toml (the
turn_order answer) validate, run at a tiny size, answer with intervals and build their reports; their figures
agree with a direct simulation of the same deals and with the engine's own metrics."""
import os
import re

import numpy as np
import polars as pl
import pytest
from markupsafe import escape

from experiments import load_config, run_experiment
from simcore.stats import linearised as _linearised
from reports import build_report
from simcore.errors import SenseiError
from simcore.runner import simulate
from simcore.stats import deal_share_interval, wilson
from strategies.registry import resolve

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ELIMINATION = os.path.join(ROOT, "experiments", "senshi_elimination.toml")
SEATS = os.path.join(ROOT, "experiments", "senshi_seats.toml")
CI = r"\d+\.\d% \[\d+\.\d%, \d+\.\d%\]"          # a share with its interval
DIFF = r"[-+]\d+\.\d% \[[-+]\d+\.\d%, [-+]\d+\.\d%\]"  # a paired difference with its interval
GAMES = 10


def _est(res, cell, figure, seat=None):
    est = res.tables["estimates"].filter((pl.col("cell") == cell) & (pl.col("figure") == figure))
    if seat is not None:
        est = est.filter(pl.col("seat") == seat)
    (row,) = est.iter_rows(named=True)
    return row


def _cell(cfg, **axes):
    (cell,) = [c for c in cfg.cells if all(c.axes[k] == v for k, v in axes.items())]
    return cell


# ------------------------------------------------------------------------------- elimination (risk)
def test_elimination_config_studies_every_heuristic_and_the_guard_margins():
    cfg = load_config(ELIMINATION)
    assert cfg.game == "senshi" and cfg.kind == "focus" and cfg.rotate
    rep = cfg.report
    assert (rep.answer, rep.over, rep.event, rep.baseline, rep.per_game) == ("risk", "focus", "eliminated", "guard", True)
    assert {c.players for c in cfg.cells} == {2, 3, 4}
    assert {c.agents[1].spec() for c in cfg.cells} == {resolve("senshi", "counter").spec()}
    assert {c.agents[0].name for c in cfg.cells} == {"greedy", "guard", "racer", "denier", "counter"}
    margins = {c.agents[0].margin for c in cfg.cells if c.agents[0].name == "guard"}
    assert margins == {0, 1, 2, 3, 4}
    # every focus sits in every seat (P rotations), except counter against counter (one game, read from every seat)
    for c in cfg.cells:
        rot = c.rotations(True)
        assert len(rot) == (1 if c.agents[0].name == "counter" else c.players)
        assert sorted(s for _, seats in rot for s in seats) == list(range(c.players))


@pytest.fixture(scope="module")
def elimination():
    return run_experiment(ELIMINATION, games=GAMES, jobs=2)


def test_elimination_answers_with_intervals_and_paired_differences(elimination, tmp_path):
    cfg = elimination.config
    ans = elimination.answer
    heads = [s for s in ans if re.match(r"\d players against counter in every other seat: ", s)]
    assert [h[0] for h in heads] == ["2", "3", "4"]
    for h in heads:
        # each leader against the next by its estimate, on the same deals: the next one minus the leader, as
        # every answer's "next" (so the next is eliminated more often, +, and wins less, -)
        assert re.search(f"least often eliminated: .+, {CI} \\(next .+: (\\+\\d+\\.\\d% \\[.+\\] on the same deals"
                         f"(, not clearly apart)?|the same on every deal)\\); most wins: .+, ", h), h
        wins = h.split("; most wins: ")[1].split("; most wins when not")[0]
        if wins.startswith("no challenger"):
            # the field's own table leads (the fair share by symmetry): the one named is the best challenger
            assert re.match(r"no challenger wins more than the field itself \(counter in every seat: \d+\.\d%, "
                            r"the fair share\) \(best challenger .+: (-\d+\.\d%|\+0\.0%) \[", wins), wins
        else:
            assert not wins.startswith("counter"), wins
            # the leader's share against the field's own seat's (the fair share): said where it is not clearly above
            lo, fair = re.search(r", \d+\.\d% \[(\d+\.\d)%, \d+\.\d%\] \(fair share (\d+\.\d)%", wins).groups()
            said = "the share of the field's own seat: not clearly above it" in wins
            assert said == (float(lo) <= float(fair)) or abs(float(lo) - float(fair)) < 0.06, wins
            assert re.search(r"\(next .+: (-\d+\.\d%|\+0\.0%) \[|\(next .+: the same on every deal\)", wins), wins
        # and so is the leader in wins when not eliminated (a ratio: its difference linearised deal by deal)
        cond = h.split("; most wins when not eliminated: ")[1]
        assert re.search(r"\(next .+: ((-\d+\.\d%|\+0\.0%) \[.+\] on the same deals(, not clearly apart)?|the "
                         r"same on every deal)\)$", cond), cond
    values = [s for s in ans if s not in heads]
    assert len(values) == len(cfg.cells)
    for s in values:
        # (counter against counter wins its fair share by symmetry, stated without an interval)
        own = s.startswith("counter (")  # counter against counter holds every seat: counts of seats
        wins = r"\d+\.\d% \(the fair share by symmetry: the same strategy in every seat\)" if own else CI
        played = r"\d+ seats \(\d+ games, every seat its own\)" if own else r"\d+ games"
        unit = "seats" if own else "games"
        assert re.search(f"eliminated in {CI} of its {played}, wins {wins}, and wins {CI} of the \\d+ {unit} it "
                         "was not eliminated in", s), s
        # strategies by short label: the baseline guard is "guard margin=0 late=4", its variants name theirs
        if s.startswith("guard margin=0 late=4 ("):
            assert "vs guard" not in s
        else:
            assert re.search(f"; vs guard margin=0 late=4 on the same deals: eliminated {DIFF}, win share {DIFF}", s), s
    page = open(build_report(elimination.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert "Risk against reward" in page and "Paired differences" in page and "Estimates" in page
    assert all(str(escape(s)) in page for s in ans)


def test_elimination_figures_equal_a_direct_simulation_of_the_same_deals(elimination):
    cfg = elimination.config
    cell = _cell(cfg, players=3, focus="racer")
    P = 3
    wins = elim = 0.0
    per_deal = np.zeros(GAMES)
    for r in range(P):   # rotation r: racer in seat r, counter elsewhere, the same deals
        agents = [resolve("senshi", "counter")] * P
        agents[r] = resolve("senshi", "racer")
        sim = simulate("senshi", agents, rules={}, n_games=GAMES, seed=cfg.seed, per_game=("eliminated",))
        wins += sim.totals.sums["win"][r]
        elim += sim.totals.sums["eliminated"][r]
        per_deal += sim.per_game()["eliminated"][:, r] / P
        # the engine's own metric, seat by seat
        assert sim.summary()["metrics"]["elimination_rate"][r] == pytest.approx(sim.totals.sums["eliminated"][r] / GAMES)
    n = GAMES * P
    e = _est(elimination, cell.index, "eliminated_share")
    # the rotations of a deal share its cards: the interval is over deals, not over the P x deals games
    assert e["value"] == pytest.approx(elim / n) and (e["lo"], e["hi"]) == pytest.approx(
        deal_share_interval(elim / n, per_deal))
    assert (e["lo"], e["hi"]) != pytest.approx(tuple(map(float, wilson(elim, n))))
    assert _est(elimination, cell.index, "win_share")["value"] == pytest.approx(wins / n)
    # a winner is never eliminated: the wins among the games it survived are all its wins
    assert _est(elimination, cell.index, "win_share_if_not_eliminated")["value"] == pytest.approx(wins / (n - elim))
    row = elimination.cells.filter(pl.col("cell") == cell.index).row(0, named=True)
    assert row["focus_win_share"] == pytest.approx(wins / n)


def test_counter_against_counter_is_the_fair_reference(elimination):
    cfg = elimination.config
    for P in (2, 3, 4):
        cell = _cell(cfg, players=P, focus="counter")
        assert _est(elimination, cell.index, "win_share")["value"] == pytest.approx(1 / P)
        sim = simulate("senshi", [resolve("senshi", "counter")] * P, n_games=GAMES, seed=cfg.seed)
        rate = np.mean(sim.summary()["metrics"]["elimination_rate"])
        assert _est(elimination, cell.index, "eliminated_share")["value"] == pytest.approx(rate)


def test_paired_differences_are_the_differences_of_the_same_deals(elimination):
    cfg = elimination.config
    paired = elimination.paired
    for P, focus in ((2, "greedy"), (4, "guard:margin=2")):
        cell, base = _cell(cfg, players=P, focus=focus), _cell(cfg, players=P, focus="guard")
        for figure in ("eliminated_share", "win_share", "win_share_if_not_eliminated"):
            (d,) = paired.filter((pl.col("players") == P) & (pl.col("value") == focus) & (pl.col("metric") == figure)
                                 ).iter_rows(named=True)
            assert d["versus"] == "guard" and d["deals"] == GAMES
            a, b = _est(elimination, cell.index, figure)["value"], _est(elimination, base.index, figure)["value"]
            assert d["diff"] == pytest.approx(a - b)
            assert d["lo"] <= d["diff"] <= d["hi"] or np.isnan(d["lo"])


def test_linearised_ratio_pseudo_values():
    x = np.array([1.0, 0.0, 2.0, 3.0])
    y = np.array([2.0, 1.0, 3.0, 3.0])
    z = _linearised(x, y)
    assert z.mean() == pytest.approx(x.sum() / y.sum())
    assert np.allclose(_linearised(0.5 * y, y), 0.5)
    assert _linearised(x, np.zeros(4)) is None


# ------------------------------------------------------------------------------- seats (turn_order)
def test_seats_config_plays_counter_everywhere_under_each_variant():
    cfg = load_config(SEATS)
    assert cfg.game == "senshi" and cfg.kind == "seats"
    assert (cfg.report.answer, cfg.report.over, cfg.report.baseline, cfg.report.event) == \
        ("turn_order", "variant", "base", "eliminated")
    assert {c.players for c in cfg.cells} == {2, 3, 4}
    assert {(c.rules.open_stacks, c.rules.secret_hand) for c in cfg.cells} == \
        {(False, False), (True, False), (False, True), (True, True)}
    assert all({a.name for a in c.agents} == {"counter"} for c in cfg.cells)


@pytest.fixture(scope="module")
def seats():
    return run_experiment(SEATS, games=16, jobs=2)


def test_seats_answer_every_seat_with_intervals(seats, tmp_path):
    ans = seats.answer
    assert len(ans) == 3 * 5
    for P in (2, 3, 4):
        (head,) = [s for s in ans if s.startswith(f"{P} players, counter in every seat, variant base: ")]
        assert re.search(f"seat 0 \\(the first player\\) wins {CI} against the fair", head)
        # each change with the share it leads to, and where that share stands against the fair share
        to = f" \\((a clear change|not clearly a change); to {CI}, (clearly above|clearly below|not clearly off) the fair \\d+\\.\\d%\\)"
        assert re.search(f"changes on the same deals with open_stacks {DIFF}{to}, secret_hand {DIFF}{to}, "
                         f"both {DIFF}{to} \\(clear or not with Holm's correction over the 3 changes\\)", head)
        for v in ("base", "open_stacks", "secret_hand", "both"):
            (s,) = [s for s in ans if s.startswith(f"{P} players, variant {v}: ")]
            assert len(re.findall(f"seat \\d {CI}", s)) == 2 * P   # win share and elimination, every seat
            assert "chi-square test of equal seats p = " in s
            assert (len(re.findall(f"seat \\d {DIFF}", s)) == 2 * P) == (v != "base")
    page = open(build_report(seats.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert "<b>Seats.</b>" in page and "<b>Paired differences by seat.</b>" in page
    assert all(str(escape(s)) in page for s in ans)


def test_seat_figures_equal_a_direct_simulation(seats):
    cfg = seats.config
    cell = _cell(cfg, players=4, variant="open_stacks")
    sim = simulate("senshi", [resolve("senshi", "counter")] * 4, rules={"open_stacks": True}, n_games=16, seed=cfg.seed)
    m = sim.summary()["metrics"]
    for s in range(4):
        assert _est(seats, cell.index, "win_share", s)["value"] == pytest.approx(sim.totals.sums["win"][s] / 16)
        assert _est(seats, cell.index, "eliminated_share", s)["value"] == pytest.approx(m["elimination_rate"][s])
    # paired: open_stacks minus base, seat by seat, equals the difference of the shares (same deals)
    base = _cell(cfg, players=4, variant="base")
    d = seats.paired.filter((pl.col("players") == 4) & (pl.col("value") == "open_stacks")
                            & (pl.col("metric") == "eliminated_share") & (pl.col("seat") == 3)).row(0, named=True)
    assert d["diff"] == pytest.approx(_est(seats, cell.index, "eliminated_share", 3)["value"]
                                      - _est(seats, base.index, "eliminated_share", 3)["value"])


# ------------------------------------------------------------------------------------ config mistakes
BASE = {"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 4,
        "lineup": {"focus": "guard", "field": "greedy"}, "sweep": {"focus.margin": [0, 1]},
        "report": {"answer": "risk", "per_game": True, "event": "eliminated"}}


def test_per_game_left_out_is_what_the_answer_needs():
    raw = {**BASE, "report": {"answer": "risk", "event": "eliminated"}}
    assert load_config(raw).report.per_game is True


@pytest.mark.parametrize("report, lineup, message", [
    ({"event": None}, None, "report.event: missing .required for answer = "),
    ({"event": "winning_pile"}, None, r"report.event: expected a per-seat 0/1 outcome column of senshi \(one of "
                                      r"eliminated \(elimination_rate\)"),
    ({"answer": "balance"}, None, "report.event: expected nothing unless"),
    ({"per_game": False}, None, "report.per_game: expected true"),
    ({}, {"seats": ["guard", "greedy"]}, "lineup: expected a focus lineup for answer = 'risk'"),
    ({"answer": "turn_order"}, {"tournament": ["guard", "greedy"]}, "lineup: expected a focus or seats lineup"),
    ({"baseline": 7}, None, "report.baseline: expected one of the values of focus.margin"),
])
def test_config_mistakes_are_named(report, lineup, message):
    raw = {**BASE, "report": {**BASE["report"], **report}, "lineup": lineup or BASE["lineup"]}
    raw["report"] = {k: v for k, v in raw["report"].items() if v is not None}
    if lineup:   # a sweep that suits any lineup
        raw["sweep"] = {"rules.open_stacks": [False, True]}
    with pytest.raises(SenseiError, match=message):
        load_config(raw)


def test_an_event_that_is_not_zero_or_one_is_refused_before_anything_runs():
    """max_pile is the numerator of a per-seat mean (mean_largest_pile), not of a rate: refused by the
    config check, for every answer kind that takes an event."""
    raw = {**BASE, "report": {**BASE["report"], "event": "max_pile"}}
    with pytest.raises(SenseiError, match="report.event: expected a per-seat 0/1 outcome column of senshi "
                                          r"\(one of eliminated \(elimination_rate\)\), got 'max_pile'"):
        load_config(raw)
    pop = {"title": "t", "question": "q", "game": "senshi", "players": 2,
           "lineup": {"population": ["greedy", "racer"]}, "report": {"event": "max_pile"}}
    with pytest.raises(SenseiError, match="got 'max_pile'"):
        load_config(pop)


def test_seat_answers_need_two_players_in_every_cell():
    raw = {"title": "t", "question": "q", "game": "sensu", "players": [1, 2], "lineup": {"seats": ["planner"]},
           "sweep": {"rules.sticks": ["A", "B"]}, "report": {"answer": "turn_order", "per_game": True}}
    with pytest.raises(SenseiError, match="players: expected at least 2 players in every cell"):
        load_config(raw)
    raw["players"] = [2, 3]
    assert load_config(raw).report.event is None   # the event is optional for turn_order


def test_risk_says_which_values_play_alike_on_every_deal():
    """guard's margins 3 and 4 give the same games (eliminated, wins) on every deal: the answer says so
    rather than leave two identical lines for the reader to compare; a value that differs does not."""
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 30, "seed": 3,
                          "lineup": {"focus": "guard", "field": "counter"},
                          "sweep": {"focus": ["guard:margin=3", "guard:margin=4", "greedy"]},
                          "report": {"answer": "risk", "event": "eliminated", "over": "focus"}})
    by = {s.split(" (")[0]: s for s in res.answer if "of its" in s}
    m4 = next(v for k, v in by.items() if "margin=4" in k)
    m3 = next(v for k, v in by.items() if "margin=3" in k)
    g = next(v for k, v in by.items() if k.startswith("greedy"))
    assert "on every deal)" in m4 and "guard margin=3" in m4.split("the same as ")[1], m4
    assert "the same as" not in m3 and "the same as" not in g
    same = res.cells.sort("cell").filter(pl.col("focus").str.contains("margin=")).select(
        ["mean.eliminated", "focus_win_share", "mean_turns"])
    assert same.row(0) == same.row(1)


def test_a_value_alike_with_the_baseline_says_so_and_gives_no_zero_differences():
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 30, "seed": 3,
                          "lineup": {"focus": "guard", "field": "counter"},
                          "sweep": {"focus": ["guard:margin=3", "guard:margin=4", "greedy"]},
                          "report": {"answer": "risk", "event": "eliminated", "over": "focus",
                                     "baseline": "guard:margin=4"}})
    m3 = next(s for s in res.answer if s.startswith("guard margin=3") and "of its" in s)
    assert m3.endswith("(the same as guard margin=4 on every deal)"), m3
    assert "vs guard margin=4" not in m3
    g = next(s for s in res.answer if s.startswith("greedy") and "of its" in s)
    assert "vs guard margin=4 on the same deals" in g
    assert res.paired.filter(pl.col("value").cast(pl.String).str.contains("margin=3")).height == 3  # kept, all 0


def test_where_the_field_itself_leads_in_wins_the_best_challenger_is_named():
    # 4 players, 400 deals: counter in every seat wins its fair 25.0% by symmetry and leads; "most wins: counter
    # (the field itself)" named the table, not a challenger
    from experiments.config import read_toml

    raw = read_toml(ELIMINATION)
    raw["sweep"]["players"] = [4]
    res = run_experiment(raw, games=400)
    (head,) = res.headline
    assert re.search(r"; most wins: no challenger wins more than the field itself \(counter in every seat: 25\.0%, "
                     r"the fair share\) \(best challenger guard margin=1 late=8: -0\.\d% \[-\d\.\d%, \+\d\.\d%\] on the "
                     r"same deals, not clearly apart\); most wins when not eliminated", head), head


def test_risk_gives_the_verdict_of_its_third_figure_too():
    """A clear change of the win share when not eliminated was summed up by the other two figures alone ("not
    clearly more or less often eliminated, no clear change in wins"): each figure's verdict is said."""
    import re
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 30, "seed": 3,
                          "lineup": {"focus": "guard", "field": "counter"},
                          "sweep": {"focus": ["guard:margin=3", "greedy"]},
                          "report": {"answer": "risk", "event": "eliminated", "over": "focus",
                                     "baseline": "guard:margin=3"}})
    g = next(s for s in res.answer if s.startswith("greedy") and "of its" in s)
    d = res.paired.filter(pl.col("value").cast(pl.String) == "greedy")
    cond = d.filter(pl.col("metric").str.contains("win_share_if_not")).row(0, named=True)
    word = ("wins more when not eliminated" if cond["lo"] > 0 else "wins less when not eliminated" if cond["hi"] < 0
            else "no clear change in wins when not eliminated")
    assert re.search(r"\((less often|more often|not clearly more or less often) eliminated, (wins more|wins less|no "
                     r"clear change in wins), " + word + r"\)$", g), g


def test_risk_names_a_swept_parameters_values_with_the_parameter():
    """A sweep of guard's margin read "least often eliminated: 1, ...", "0: eliminated in ...": a bare number,
    where best says "best margin", turn_order "margin 1" and the docs' labels name the parameter."""
    raw = {"title": "t", "question": "q", "game": "senshi", "players": 3, "games": 40, "seed": 24,
           "lineup": {"focus": "guard", "field": "counter"}, "sweep": {"focus.margin": [0, 1, 2]},
           "report": {"answer": "risk", "over": "focus.margin", "event": "eliminated", "baseline": 0}}
    ans = run_experiment(raw).answer
    assert re.match(r"against counter in every other seat: least often eliminated: margin \d, .* \(next margin \d: ",
                    ans[0]), ans[0]
    assert "; most wins: margin " in ans[0] and "; most wins when not eliminated: margin " in ans[0]
    assert [a.split(":")[0] for a in ans[1:4]] == ["margin 0", "margin 1", "margin 2"]
    assert "; vs margin 0 on the same deals: " in ans[2]
