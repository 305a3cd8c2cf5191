"""The headline sentences that lead a report answer every part of the question the answer computes: the
effect answer gives the baseline's own figures and the strongest strategy of each value, the best answer
the value with the lowest mean score beside the best by its metric, the balance answer the game's metrics
in words; differences of shares are in % like every other sentence, and no change reads -0.0."""
import re
from types import SimpleNamespace

import pytest

from experiments import run_experiment
from experiments.answers import balance, best, effect
from simcore.registry import game_names, get_game


def _paired(value, metric, diff, lo, hi, players):
    return {"players": players, "metric": metric, "value": value, "diff": diff, "lo": lo, "hi": hi}


def test_effect_headline_gives_the_baseline_the_strongest_and_shares_in_percent():
    rep = SimpleNamespace(over="variant", baseline="base")
    rows = [_paired("v1", "mean_turns", -0.01, -0.2, 0.1, 2), _paired("v1", "mean_turns", -0.04, -0.3, 0.2, 4),
            _paired("v1", "seat_advantage", -0.020, -0.05, -0.001, 2),
            _paired("v1", "seat_advantage", -0.018, -0.06, 0.02, 4)]
    levels = [{"turns": 48.14, "adv": 0.003, "adv_lo": -0.03, "adv_hi": 0.04, "fair": 0.5},
              {"turns": 56.93, "adv": -0.020, "adv_lo": -0.035, "adv_hi": -0.005, "fair": 0.25}]
    strongest = {"base": [("2 players", "swapper", "gambler", True), ("4 players", "gambler", "swapper", False)],
                 "v1": [("2 players", "gambler", "swapper", True), ("4 players", "gambler", "swapper", True)]}
    head = effect.headline(rep, rows, str, levels, strongest)
    assert head == [
        "variant base (the baseline): game length 48.1 to 56.9 turns, first-seat advantage -2.0% to +0.3% "
        "(clearly off 0 in 1 of the 2 groups); highest rated swapper (2 players; gambler next, intervals overlapping), "
        "gambler (4 players; swapper next, intervals not overlapping).",
        "variant v1 against base, on the same deals: game length -0.0 turns (not clear in either group), "
        "first-seat advantage -2.0% to -1.8% (clear in 1 of the 2 groups); highest rated gambler (2 players and "
        "4 players; swapper next, intervals overlapping)."]
    assert not any("points" in h for h in head)
    # changes on both sides of 0 that print as 0 read +0.0, not -0.0 to +0.0
    assert effect._span("mean_turns", [-0.01, 0.02], " turns") == "+0.0 turns"
    assert effect._span("mean_turns", [-0.3, 0.2], " turns") == "-0.3 to +0.2 turns"
    assert effect._span("mean_turns", [-0.3, 0.3], " turns") == "-0.3 to +0.3 turns"


def test_effect_headline_counts_the_games_stopped_at_the_turn_limit():
    """A few games cut at the turn limit can make a change of game length: the headline says how many, for
    each value that has some (Sensu's chosen_fan: 2 of 80 games stopped, +47.7 turns in that group)."""
    rep = SimpleNamespace(over="variant", baseline="base")
    rows = [_paired("v1", "mean_turns", 25.0, 15.0, 80.0, 2), _paired("v2", "mean_turns", 1.0, -1.0, 3.0, 2)]
    head = effect.headline(rep, rows, str, [], {}, {"base": [0, 320], "v1": [2, 320], "v2": [0, 320]})
    assert head[0].startswith("variant v1 against base, on the same deals (2 of 320 games stopped at the turn "
                              "limit: their turns count up to it in the game length): game length +25.0")
    assert "stopped" not in head[1]


def test_effect_headline_names_where_a_values_own_first_seat_advantage_is_clearly_off_0():
    # sensu_balance: variant both, 5 players, first-seat advantage +1.3% [+0.07%, +2.61%] (read as "+1.3% ±
    # 1.3%"): its change against base is unclear, its level is not, and neither said so
    rep = SimpleNamespace(over="variant", baseline="base")
    rows = [_paired("both", "seat_advantage", 0.006, -0.011, 0.023, 5),
            _paired("both", "seat_advantage", -0.01, -0.03, 0.01, 2)]
    levels = [{"turns": 98.6, "adv": 0.008, "adv_lo": -0.005, "adv_hi": 0.02, "fair": 0.2}] * 2
    head = effect.headline(rep, rows, str, levels, {}, {}, {"both": ["5 players"]})
    assert head[1].endswith("(not clear in either group), its own first-seat advantage clearly off 0 by its own interval "
                            "in 1 of 2 groups (5 players).")
    # from 4 groups on, as the counts of changes do: how many would seem so by chance alone (sensu_balance has 4)
    head = effect.headline(rep, rows, str, levels * 2, {}, {}, {"both": ["5 players"]})
    assert head[1].endswith("its own first-seat advantage clearly off 0 by its own interval in 1 of 4 groups "
                            "(5 players; about 0.2 would by chance alone, each at 95%).")
    # a small edge in every one of several groups, none clear alone: the headline says both
    three = [{"turns": 98.6, "adv": a, "adv_lo": -0.005, "adv_hi": 0.02, "fair": 0.2} for a in (0.008, 0.01, 0.013)]
    assert "(not clearly off 0 in any of the 3 groups; above 0 in every group)" in effect.headline(rep, rows, str, three)[0]
    assert "every group" not in effect.headline(rep, rows, str, three[:2])[0]  # two groups: no claim
    assert "its own" not in effect.headline(rep, rows, str, levels, {}, {}, {})[1]


def test_effect_group_sentence_says_where_a_first_seat_advantage_is_clearly_off_0():
    # Fan & Mallet, counter in both seats: White wins some 54% from start positions 0,3
    res = run_experiment({"title": "t", "question": "q", "game": "fan-and-mallet", "players": 2, "games": 3000,
                          "seed": 3, "lineup": {"seats": ["counter", "counter"], "rotate": False},
                          "sweep": {"variant": {"base": {}, "near": {"rules.start_positions": "0,3"}}},
                          "report": {"answer": "effect", "over": "variant", "baseline": "base"}})
    seen = 0
    for value, text in zip(("base", "near"), res.answer):
        m = re.search(r"first-seat advantage [+-][\d.]+% (?:± [\d.]+%|\[[^]]+\])( \(clearly above 0\))?(;|$)", text)
        cell = res.cells.filter(res.cells["variant"] == value).row(0, named=True)
        assert m is not None and bool(m.group(1)) == (cell["seat_advantage_lo"] > 0), text
        seen += bool(m.group(1))
    assert seen  # the case the sentence flags was played
    # its games are all some 58.6 turns long: the half-width gets the decimal it needs, never "± 0.0"
    assert all(re.search(r"game length 58\.\d\d turns ± 0\.0[1-9];", text) for text in res.answer), res.answer
    from experiments.answers.common import turns_pm
    assert turns_pm(53.71, 53.3, 54.1) == "53.7 turns ± 0.4" and turns_pm(58.644, 58.595, 58.692) == "58.64 turns ± 0.05"


def test_effect_strongest_cannot_tell_an_overlap_with_the_reference():
    import polars as pl

    r = pl.DataFrame({"strategy": ["b", "a"], "reference": ["a", "a"], "elo": [40.0, 0.0],
                      "elo_lo": [10.0, None], "elo_hi": [70.0, None]})
    top, nxt, overlap = effect.strongest_of(r)
    assert (top["strategy"], nxt["strategy"], overlap) == ("b", "a", None)
    assert effect._strongest_text([("", "b", "a", None)]) == "highest rated b (a next)"


def test_effect_answer_with_ratings_leads_with_the_baseline_and_the_strongest():
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20, "seed": 3,
                          "lineup": {"tournament": ["counter", "swapper", "gambler"]},
                          "sweep": {"variant": {"base": {}, "claims": {"rules.know_what_i_have": True}}},
                          "report": {"answer": "effect", "over": "variant", "baseline": "base"}})
    assert len(res.headline) == 2
    base, claims = res.headline
    top = res.ratings.filter(res.ratings["variant"] == "base").sort("elo", descending=True)["strategy"][0]
    assert re.match(r"variant base \(the baseline\): game length \d+\.\d turns, first-seat advantage [+-]\d+\.\d% "
                    r"\((not )?clearly off 0\); highest rated " + top + r" \(", base)
    assert claims.startswith("variant claims against base, on the same deals: game length ")
    assert "; highest rated " in claims and "points" not in claims
    assert "of 1 group" not in base + claims  # one group: "(clear)" or "(not clear)", not "in 0 of 1 group"
    assert effect._how_often("clear", 0, 1) == "not clear" and effect._how_often("clear", 2, 3) == "clear in 2 of the 3 groups"
    # from 4 groups on, what chance alone would give (each group's interval at 95%, uncorrected)
    assert effect._how_often("clear", 2, 8) == "clear in 2 of the 8 groups; about 0.4 would by chance alone, each at 95%"
    # none of them is said as none ("clear in 0 of 8 groups" reads as a claim), all of them as all
    assert effect._how_often("clear", 0, 8) == "not clear in any of the 8 groups"
    assert effect._how_often("clear", 4, 4) == "clear in all 4 groups"
    assert effect._how_often("clearly off 0", 0, 2) == "not clearly off 0 in either group"
    assert effect._how_often("clear", 2, 2) == "clear in both groups"


def test_best_headline_adds_the_lowest_mean_score():
    rep = SimpleNamespace(over="focus.wake", goal="max")
    picks = [(f"{p} players", str(w), c) for p, w, c in ((2, 14, False), (3, 18, True), (4, 12, False), (5, 11, False))]
    d = {"diff": 1.5, "lo": 0.5, "hi": 2.5}
    lows = [{"desc": f"{p} players", "value": str(w), "x": 80.0, "lo": 78.0, "hi": 82.0, "best": b, "next": "10",
             "d": d, "clear": c} for p, w, b, c in ((2, 14, True, True), (3, 2, False, False), (4, 12, True, True),
                                                     (5, 7, False, False))]
    head = best.headline(rep, "win share", picks, lows, ["s"] * 4)
    assert len(head) == 3 and head[0].startswith("The wake with the highest win share ranges from 11 to 18")
    assert head[2] == ("The wake with the lowest mean score ranges from 2 to 14 over the 4 groups: 14 (2 players), "
                       "2 (3 players), 12 (4 players), 7 (5 players). It is clearly below the next value on the same "
                       "deals in 2 of the 4 groups, and is also the wake with the highest win share in 2 of the 4 groups.")
    # few groups: the answer's own sentences, then the mean score
    one = best.headline(rep, "win share", picks[:1], lows[:1], ["best wake: 14, ..."])
    assert one == ["best wake: 14, ...", "The wake with the lowest mean score is 14, mean score 80.00 ± 2.00 "
                   "(next 10: +1.50, paired 95% CI [+0.50, +2.50], clearly worse); it is also the wake with the highest win "
                   "share."]
    # without a mean score (another metric, or no focus): as before
    assert best.headline(rep, "win share", picks[:2], [], ["a", "b"]) is None


def test_best_headline_names_the_highest_mean_score_where_higher_is_better():
    # Fan & Mallet, Senshi and Sensu count a higher score as better (Game.score_better); Sen the lower
    from simcore.registry import get_game
    assert get_game("sen").score_better == "min"
    assert {get_game(g).score_better for g in ("senshi", "sensu", "fan-and-mallet")} == {"max"}
    rep = SimpleNamespace(over="focus.keep", goal="max")
    d = {"diff": -1.5, "lo": -2.5, "hi": -0.5}
    lows = [{"desc": "", "value": "0.5", "x": 30.0, "lo": 29.0, "hi": 31.0, "best": False, "next": "0.1", "d": d,
             "clear": True}]
    head = best.headline(rep, "win share", [("", "0.1", False)], lows, ["best keep: 0.1, ..."], low_is_good=False)
    assert head[1].startswith("The keep with the highest mean score is 0.5, mean score 30.00 ± 1.00 (next 0.1: -1.50")
    many = best.headline(rep, "win share", [(f"{p} players", "0.1", False) for p in range(2, 6)],
                         [{**lows[0], "desc": f"{p} players"} for p in range(2, 6)], ["s"] * 4, low_is_good=False)
    assert many[2].startswith("The keep with the highest mean score is") is False  # four groups: a range
    assert "highest mean score ranges from" in many[2] and "It is clearly above the next value" in many[2]


def test_best_answer_in_a_game_whose_higher_scores_win_names_the_highest_mean_score():
    res = run_experiment({"title": "t", "question": "q", "game": "fan-and-mallet", "players": 2, "games": 20,
                          "seed": 5, "lineup": {"focus": "closer", "field": "random"},
                          "sweep": {"focus.feed": [0.0, 0.7, 2.0]}})
    high = res.cells.sort("focus_mean_score", descending=True).row(0, named=True)
    assert res.headline[1].startswith(f"The feed with the highest mean score is {high['focus.feed']}, mean score "
                                      f"{high['focus_mean_score']:.2f} ± "), res.headline


def test_best_answer_of_a_focus_names_the_lowest_mean_score():
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 20, "seed": 5,
                          "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
                          "sweep": {"focus.wake": [7, 10, 12]}})
    low = res.cells.sort("focus_mean_score").row(0, named=True)
    assert res.headline[0] == res.answer[0]
    assert res.headline[1].startswith(f"The wake with the lowest mean score is {low['focus.wake']}, mean score "
                                      f"{low['focus_mean_score']:.2f} ± ")


@pytest.mark.parametrize("game", game_names())
def test_metric_words_name_the_games_metrics(game):
    eng = get_game(game)
    names = {m.name for m in eng.ratio_metrics}
    for key, words in eng.metric_words.items():
        if key.endswith("*"):
            assert any(n.startswith(key[:-1]) for n in names), key
            assert "{}" not in words
        else:
            assert key in names and words.count("{}") == 1, key


def test_balance_headline_says_the_metrics_in_words():
    heads = [("start 0,6", 0.52, 0.49, 0.55, 2, False, 0, 0, 15), ("start 0,3", 0.57, 0.54, 0.60, 2, True, 2, 0, 15)]
    out = balance._headline(heads, "pairing", "over every cell (2 cells): 4.8% ± 0.3% of possessions are tied",
                            ["the mean bonus power ranges from 0.55 ± 0.04 (hatchet) to 2.97 ± 0.04 (bucket)"])
    assert out[2] == "Over every cell (2 cells): 4.8% ± 0.3% of possessions are tied."
    assert out[3] == "Over every cell, the mean bonus power ranges from 0.55 ± 0.04 (hatchet) to 2.97 ± 0.04 (bucket)."


def test_a_share_and_its_advantage_round_alike():
    # 0.5925 is 59.249999...% as a float, and its advantage over 50% 9.250000...1%: both stand for a half
    from experiments.answers.common import ci_text, fmt_metric
    assert fmt_metric("win_share", 0.5925) == "59.2%"
    assert fmt_metric("seat_advantage", 0.5925 - 0.5, True) == "+9.2%"
    assert ci_text(0.5925, 0.55, 0.63) == "59.2% [55.0%, 63.0%]"
    assert fmt_metric("win_share", -1e-12, True) == "+0.0%"


def test_an_interval_bound_below_zero_keeps_its_sign():
    """A difference or an interval's bound just below zero reads -0.0: a first-seat advantage of +0.04%
    [-0.04%, +0.12%] read "+0.0% [+0.0%, +0.1%]", as if above 0, and a difference of -0.04% read "+0.0%", as
    if a gain; an estimate that is no difference reads 0.0, never -0.0."""
    from experiments.answers.common import dci_text, fmt_metric, pm_metric, span
    assert fmt_metric("seat_advantage", -0.0004, True) == "-0.0%"
    assert fmt_metric("seat_advantage", 0.0004, True) == "+0.0%"
    assert fmt_metric("win_share", -0.0004) == "0.0%" and fmt_metric("seat_advantage", -1e-13, True) == "+0.0%"
    assert span("seat_advantage", -0.0004, 0.0012, True) == "[-0.0%, +0.1%]"
    assert span("mean_turns", -0.3, -0.01, True) == "[-0.3, -0.0]"
    assert span("win_share", -1e-12, 0.3) == "[0.0%, 30.0%]"  # a float's last bits are no sign
    assert pm_metric("seat_advantage", 0.001, -0.0004, 0.008, True, bounds=(-0.5, 0.5)) == "+0.1% [-0.0%, +0.8%]"
    assert dci_text({"diff": 0.0004, "lo": -0.0004, "hi": 0.0012}) == "+0.0% [-0.0%, +0.1%]"


def test_effect_reads_a_self_play_focus_as_its_fair_share_by_symmetry():
    # with 3 or 5 players a deal's focus value is float32(1/P), never exactly 1/P: it must not read as off it
    from experiments import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "games": 30, "seed": 3,
                          "lineup": {"focus": "threshold", "field": "threshold"},
                          "sweep": {"players": [3, 5], "rules.penalty": [5, 15]},
                          "report": {"answer": "effect", "over": "rules.penalty", "baseline": 5}})
    assert "focus win share 20.0% to 33.3% (not clearly off its fair share in either group)" in res.headline[0]
    assert res.answer[0].endswith("focus win share 33.3% (the fair share by symmetry: the same strategy in every "
                                  "seat)")


def test_effect_over_the_focus_names_its_baseline_as_written():
    """A strategy axis is a column of the tables by the strategies' full specs: a baseline written as the
    config writes it ("threshold") is that spec, not a value that matches nothing (the answer was empty,
    exit status 0); so for risk's baseline over the focus."""
    from experiments import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 20, "seed": 3,
                          "lineup": {"focus": "counter", "field": "threshold"},
                          "sweep": {"focus": ["threshold", "counter", "gambler"]},
                          "report": {"answer": "effect", "over": "focus", "baseline": "threshold"}})
    assert [s.split(":")[0] for s in res.answer] == ["focus threshold", "focus counter", "focus gambler"]
    assert all(s.count(" vs threshold") == 3 for s in res.answer[1:]), res.answer
    assert res.headline[1].startswith("focus counter against threshold, on the same deals")
    risk = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 3, "games": 20, "seed": 2,
                           "lineup": {"focus": "greedy", "field": "greedy"}, "sweep": {"focus": ["greedy", "random"]},
                           "report": {"answer": "risk", "event": "eliminated", "over": "focus", "per_game": True,
                                      "baseline": "random"}})
    line = next(s for s in risk.answer if s.startswith("greedy: "))
    assert "; vs random on the same deals: eliminated " in line, risk.answer


def test_risk_reads_a_self_play_focus_win_share_as_its_fair_share():
    from experiments import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 3, "games": 20, "seed": 2,
                          "lineup": {"focus": "greedy", "field": "greedy"}, "sweep": {"focus": ["greedy", "random"]},
                          "report": {"answer": "risk", "event": "eliminated", "over": "focus", "per_game": True}})
    line = next(s for s in res.answer if s.startswith("greedy: "))
    assert "wins 33.3% (the fair share by symmetry: the same strategy in every seat), and wins " in line
    assert "{" not in line


def test_turn_order_of_a_rotated_lineup_takes_its_intervals_and_test_over_deals():
    from experiments import run_experiment
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 4,
           "lineup": {"seats": ["threshold", "counter", "swapper"]}, "sweep": {"rules.penalty": [5, 15]},
           "report": {"answer": "turn_order", "over": "rules.penalty", "per_game": True}}
    rotated = run_experiment(raw).answer
    assert any("Hotelling's T² test over deals of equal seats p = " in s for s in rotated)
    once = run_experiment({**raw, "lineup": {**raw["lineup"], "rotate": False}}).answer
    assert any("chi-square test of equal seats p = " in s for s in once)
    assert not any("Hotelling" in s for s in once)


def test_turn_order_names_the_lineup_of_a_value_that_changes_it():
    """A named case that puts another strategy in every seat says so where the headline reports its change
    ("with guard (guard in every seat)"); the baseline's lineup leads the sentence."""
    from experiments import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 3, "games": 20, "seed": 9,
                          "lineup": {"seats": ["counter"]},
                          "sweep": {"play": {"counter": {"seat0": "counter"}, "guard": {"seat0": "guard"}}},
                          "report": {"answer": "turn_order", "over": "play", "baseline": "counter"}})
    head = res.answer[0]
    assert head.startswith("counter in every seat, play counter: seat 0"), head
    assert "changes on the same deals with guard (guard in every seat) " in head, head


def test_senshi_names_its_score_the_smallest_pile():
    from experiments import run_experiment
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 3, "games": 12,
                          "lineup": {"focus": "guard", "field": "greedy"}, "report": {"answer": "summary"}})
    assert ", mean score (smallest pile) " in res.answer[0], res.answer[0]
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 12,
                          "lineup": {"focus": "threshold", "field": "threshold"}, "report": {"answer": "summary"}})
    assert ", mean score " in res.answer[0] and "(smallest pile)" not in res.answer[0]


def test_balance_headline_names_the_groups_off_the_fair_share_with_their_axis_once():
    heads = [("start_positions 0,3", 0.55, 0.54, 0.56, 0.5, True, 2, 0, 15),
             ("start_positions 0,6", 0.50, 0.49, 0.51, 0.5, False, 0, 0, 15),
             ("start_positions 0,9", 0.46, 0.45, 0.47, 0.5, True, 0, 2, 15)]
    out = balance._headline(heads, "pairing")
    assert out[0].endswith("clearly off it with start_positions 0,3 and 0,9."), out[0]


def test_an_interval_whose_bounds_would_print_alike_gets_the_decimals_to_tell_them_apart():
    # Sen's go_all_in with 4 players changed the game length by -0.02 [-0.04, +0.01]: it read +0.0 [-0.0, +0.0]
    from experiments.answers.common import fine_decimals, fmt_metric, span
    d = fine_decimals("mean_turns", -0.04, 0.01)
    assert d == 2 and f"{fmt_metric('mean_turns', -0.02, True, decimals=d)} {span('mean_turns', -0.04, 0.01, True, d)}" \
        == "-0.02 [-0.04, +0.01]"
    assert span("seat_advantage", -0.0001, 0.0003, True, fine_decimals("seat_advantage", -0.0001, 0.0003)) == \
        "[-0.01%, +0.03%]"
    assert fine_decimals("seat_advantage", -0.0002, 0.0008) is None  # [-0.0%, +0.1%] tells them apart already
    assert fine_decimals("mean_turns", 1.2, 2.5) is None and fine_decimals("mean_turns", 0.0, 0.0) is None


def test_a_bound_next_to_the_figure_a_sentence_judges_it_against_does_not_print_as_it():
    # fan_and_mallet_design: counter at start 0,0, 51.6% with a lower bound of 50.0499%, "misses the target"
    # of 50% while its interval read [50.0%, 53.1%]
    from experiments.answers.common import ci_text, span
    assert ci_text(0.516, 0.500499, 0.531, refs=(0.5,)) == "51.6% [50.05%, 53.10%]"
    assert ci_text(0.516, 0.500499, 0.531) == "51.6% [50.0%, 53.1%]"           # no reference: as ever
    assert span("win_share", 0.503, 0.531, refs=(0.5,)) == "[50.3%, 53.1%]"     # told apart already
    assert span("win_share", 0.5, 0.531, refs=(0.5,)) == "[50.0%, 53.1%]"       # the reference itself
    assert span("win_share", 1 / 3 + 0.00004, 0.4, refs=(1 / 3,)) == "[33.34%, 40.00%]"
    assert span("win_share", 0.49, 0.5 - 1e-15, refs=(0.5, None)) == "[49.0%, 50.0%]"  # rounding noise


def test_effect_headline_shows_a_small_change_as_such():
    from experiments.answers.effect import headline

    class Rep:
        over, baseline = "variant", "base"

    row = {"value": "x", "metric": "mean_turns", "diff": -0.02, "lo": -0.04, "hi": -0.01}
    assert headline(Rep, [row], str) == ["variant x against base, on the same deals: game length -0.02 turns (clear)."]
    big = {**row, "diff": 1.22, "lo": 1.0, "hi": 1.5}
    assert headline(Rep, [big], str)[0].endswith("game length +1.2 turns (clear).")


def test_a_completion_short_of_every_game_never_reads_100_percent():
    from experiments.answers.common import short_of_whole
    assert short_of_whole(1 - 2 / 4000) == "99.95%" and short_of_whole(1 - 16 / 4000) == "99.6%"
    assert short_of_whole(1.0) == "100.0%" and short_of_whole(1 - 1 / 10_000_000) == "100.000%"


def test_the_highest_rated_that_loses_head_to_head_says_so():
    """sen_variants, 2 players: swapper is rated highest over every pairing, but gambler beats it head to head
    (swapper wins 46.8% [44.9%, 48.6%] of their games): the answer says so."""
    import polars as pl

    cells = pl.DataFrame({"players": [2, 2, 2, 4], "a": ["counter", "swapper", "counter", "swapper"],
                          "b": ["swapper", "gambler", "gambler", "gambler"],
                          "focus_win_share": [0.33, 0.468, 0.45, 0.2], "focus_win_lo": [0.31, 0.449, 0.43, 0.18],
                          "focus_win_hi": [0.35, 0.486, 0.47, 0.22], "timeouts": [0, 0, 0, 0]})
    assert effect.head_to_head_losses(cells, "swapper") == [("gambler", 0.468, 0.449, 0.486)]
    assert effect.head_to_head_losses(cells, "gambler") == []  # it beats both (the 4-player cell is no duel)
    # gambler beats counter too: it clearly beats every other strategy head to head, and the answer names it
    assert effect._beaten_text(cells, "swapper", str) == (
        "; but head to head it loses to gambler (winning 46.8% [44.9%, 48.6%]): the rating over every pairing is "
        "not a head-to-head order; gambler clearly beats every other strategy head to head")
    # where counter beats gambler, no strategy beats every other
    cycle = cells.with_columns(pl.Series("focus_win_share", [0.33, 0.468, 0.55, 0.2]),
                               pl.Series("focus_win_lo", [0.31, 0.449, 0.53, 0.18]),
                               pl.Series("focus_win_hi", [0.35, 0.486, 0.57, 0.22]))
    assert effect._beaten_text(cycle, "swapper", str).endswith("the rating over every pairing is not a head-to-head "
                                                              "order")
    # as b: counter beats swapper here from the other side
    flipped = cells.with_columns(pl.Series("focus_win_share", [0.6, 0.468, 0.45, 0.2]),
                                 pl.Series("focus_win_lo", [0.55, 0.449, 0.43, 0.18]),
                                 pl.Series("focus_win_hi", [0.65, 0.486, 0.47, 0.22]))
    assert [o for o, *_ in effect.head_to_head_losses(flipped, "swapper")] == ["counter", "gambler"]


def test_turn_order_names_another_seat_that_changes_more_than_seat_0():
    """senshi_seats with 4 players: seat 0 gains 2.8% with secret_hand, the last seat loses 4.7%; the group's
    sentence spoke of seat 0 alone."""
    from experiments.answers.turn_order import _other_seat_text

    def d(x, lo, hi, p=0.01):
        return {"diff": x, "lo": lo, "hi": hi, "p_value": p}
    figs = {"secret_hand": {"win_share": [(0.305, 0.291, 0.319), (0.266, 0.253, 0.28), (0.239, 0.226, 0.252),
                                          (0.19, 0.178, 0.203)]}}
    diffs = {"secret_hand": {"win_share": [d(0.028, 0.008, 0.048), d(0.014, -0.005, 0.033, 0.15),
                                           d(0.005, -0.014, 0.023, 0.6), d(-0.047, -0.065, -0.028, 1e-5)]}}
    clear0 = {"secret_hand": True}
    assert _other_seat_text(diffs, figs, "variant", 4, clear0) == (
        "; the largest clear change of any seat: seat 3 (the last) -4.7% [-6.5%, -2.8%] with secret_hand "
        "(to 19.0% [17.8%, 20.3%]) (clear with Holm's correction over the 3 changes of the other seats)")
    # a change no larger than seat 0's, or not clear, is not named
    diffs["secret_hand"]["win_share"][3] = d(-0.02, -0.04, -0.001)
    assert _other_seat_text(diffs, figs, "variant", 4, clear0) == ""
    diffs["secret_hand"]["win_share"][3] = d(-0.047, -0.09, 0.001, 0.06)
    assert _other_seat_text(diffs, figs, "variant", 4, clear0) == ""
    # its interval alone off 0, but not with Holm's correction over the other seats' changes (p 0.04 of 3)
    diffs["secret_hand"]["win_share"][3] = d(-0.047, -0.078, -0.002, 0.04)
    assert _other_seat_text(diffs, figs, "variant", 4, clear0) == ""
    # seat 0's own change not clear (Holm over the values): any clear larger change of another seat is named
    diffs["secret_hand"]["win_share"][3] = d(-0.02, -0.035, -0.005, 1e-4)
    assert _other_seat_text(diffs, figs, "variant", 4, {"secret_hand": False}).startswith(
        "; the largest clear change of any seat: seat 3 (the last) -2.0% [-3.5%, -0.5%]")


def test_turn_order_holm_turns_a_change_clear_alone_into_not_clearly_one():
    """Seat 0's changes under several values are judged with Holm's correction over them: +3.0% [+0.2%,
    +5.8%] (p 0.04) is not clearly a change among two, where alone it would be."""
    from experiments.answers.turn_order import clear_changes
    alone = {"diff": 0.03, "lo": 0.002, "hi": 0.058, "p_value": 0.04}
    assert clear_changes([alone]) == [True]
    assert clear_changes([alone, {"diff": 0.01, "lo": -0.02, "hi": 0.04, "p_value": 0.5}]) == [False, False]
    assert clear_changes([alone, {"diff": 0.05, "lo": 0.03, "hi": 0.07, "p_value": 0.001}]) == [True, True]


def test_turn_order_says_where_each_values_share_stands_against_the_fair_share():
    """search_seats_sen: with search, seat 0's share changes by +5.5% [+0.6%, +10.4%] to 56.0% [49.1%, 62.7%]:
    a clear change to a share that is not clearly off the fair 50%; the sentence says both."""
    from experiments.answers.turn_order import _against_fair

    f = {"fair": 0.5, "adv": (0.06, None, None), "win_share": [(0.56, 0.491, 0.627), (0.44, 0.373, 0.509)]}
    assert _against_fair(f, 2) == "not clearly off the fair 50.0%"
    f["win_share"][0] = (0.56, 0.52, 0.6)
    assert _against_fair(f, 2) == "clearly above the fair 50.0%"
    # games without a winner: the deal-by-deal advantage over the average seat decides
    f = {"fair": 0.45, "adv": (-0.03, -0.05, -0.01), "win_share": [(0.42, 0.40, 0.44), (0.48, 0.46, 0.5)]}
    assert _against_fair(f, 2) == "clearly below the fair 45.0%"


def test_the_headline_says_when_a_rival_beats_every_other_strategy_head_to_head():
    """sen_variants: the headline read "highest rated swapper (2 players; gambler next, intervals overlapping)"
    while gambler clearly beats every other strategy head to head, which only the full answer said."""
    text = effect._strongest_text([("2 players", "swapper", "gambler", True, "gambler"),
                                   ("4 players", "gambler", "swapper", False, None)])
    import polars as pl

    assert text == ("highest rated swapper (2 players; gambler next, intervals overlapping; but gambler clearly "
                    "beats every other strategy head to head), gambler (4 players; swapper next, intervals not "
                    "overlapping)")
    cells = pl.DataFrame({"players": [2, 2, 2], "a": ["counter", "swapper", "counter"],
                          "b": ["swapper", "gambler", "gambler"], "focus_win_share": [0.33, 0.468, 0.45],
                          "focus_win_lo": [0.31, 0.449, 0.43], "focus_win_hi": [0.35, 0.486, 0.47],
                          "timeouts": [0, 0, 0]})
    assert effect.head_to_head_winner(cells, "swapper") == "gambler"
    assert effect.head_to_head_winner(cells, "gambler") is None


def test_best_headline_says_where_the_field_s_own_value_is_not_clearly_worse_than_the_best():
    # sen_wake_threshold: the default wake 10 is not clearly worse than the best value in 4 of the 8 groups,
    # which the headline's "ranges from -1 to 18" left out
    rep = SimpleNamespace(over="focus.wake", goal="max")
    picks = [("2 players", "18", False, {"own": "10", "clear": True}), ("3 players", "-1", True, {"own": "10", "clear": False}),
             ("4 players", "10", False, {"own": "10", "best": True}), ("5 players", "8", False, None)]
    head = best.headline(rep, "win share", picks)
    assert head[1].endswith(" Against playing the field's own value, 10, as the other seats do, the best is clearly "
                            "better (corrected for its being picked as the best) in 1 of the 3 groups; 10 is itself "
                            "the best in 1 (4 players); 10 is not clearly worse than the best in 1 (3 players).")
    assert "field's own" not in best.headline(rep, "win share", [p[:3] for p in picks])[1]


def test_best_answer_compares_the_best_with_the_field_s_own_value_in_its_headline():
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": [2, 3, 4, 5], "games": 60, "seed": 5,
                          "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
                          "sweep": {"focus.wake": [6, 10, 14]}, "report": {"answer": "best"}})
    m = re.search(r"the best is clearly better \(corrected for its being picked as the best\) in (\d+) of the 4 "
                  r"groups", res.headline[1])
    assert m is not None, res.headline
    # each group's count agrees with its own sentence: clear where the field's own 10 is neither best nor unclear
    clear = sum(1 for text in res.answer[:4] if re.search(r"(next|the field's own) 10: [+-][\d.]+%, paired 95% CI "
                                                          r"\[[^]]+\], clearly different, also corrected for picking "
                                                          r"the best of 3", text))
    assert int(m.group(1)) == clear, (res.headline, res.answer[:4])


def test_the_best_against_the_fields_own_value_is_corrected_for_picking_the_best():
    """The own value is fixed in advance, the best is picked among the others: among equal values the
    largest of K - 1 differences from the own one reads clear far more often than 5% of the time
    (sen_wake_threshold called the best clearly better in 4 of 8 groups, one of them at 4 players, penalty 5,
    wake 12 against 10 -1.3% [-2.4%, -0.2%], where sen_wake_equilibrium's corrected race did not)."""
    d = {"diff": -0.013, "lo": -0.024, "hi": -0.002, "p_value": 0.02}
    assert best._clear_of_own(d, 2) and best._own_words(d, 2) == ""
    assert not best._clear_of_own(d, 13)
    assert best._own_words(d, 13) == ", not clearly different once corrected for picking the best of 13 (Bonferroni)"
    d = {"diff": -0.03, "lo": -0.04, "hi": -0.02, "p_value": 1e-5}
    assert best._clear_of_own(d, 13) and best._own_words(d, 13) == (", clearly different, also corrected for "
                                                                    "picking the best of 13")
    d = {"diff": -0.003, "lo": -0.01, "hi": 0.004, "p_value": 0.4}
    assert not best._clear_of_own(d, 13) and best._own_words(d, 13) == ", not clearly different"
    assert not best._clear_of_own({**d, "p_value": None}, 13)


def test_effect_headline_gives_the_mean_of_the_baselines_first_seat_advantages_over_its_groups():
    """Sensu's base rules: +0.8% to +1.3% over 2-5 players, clear in none of the groups on its own, while their
    mean is clearly above 0; its interval is over deals, of each deal number's average over the groups."""
    import numpy as np

    from simcore.stats import values_ci
    rng = np.random.default_rng(1)
    vecs = [rng.normal(0.01, 0.2, 500) for _ in range(4)]
    levels = []
    for v in vecs:
        m, lo, hi = values_ci(v)
        levels.append({"turns": 50.0, "adv": m, "adv_lo": lo, "adv_hi": hi, "fair": 0.25, "adv_deals": v})
    mean, lo, hi = values_ci(np.mean(vecs, axis=0))
    rep = SimpleNamespace(over="variant", baseline="base")
    head = effect.headline(rep, [_paired("v1", "mean_turns", 1.0, 0.5, 1.5, 2)], str, levels)
    side = "clearly above 0" if lo > 0 else "not clearly off 0"
    assert f"; their mean {100 * mean:+.1f}% ± {100 * (hi - lo) / 2:.1f}%, {side})" in head[0]
    # one group, or groups of different numbers of deals: no mean
    assert "their mean" not in effect.headline(rep, [_paired("v1", "mean_turns", 1.0, 0.5, 1.5, 2)], str,
                                               levels[:1])[0]
    levels[1] = {**levels[1], "adv_deals": vecs[1][:100]}
    assert "their mean" not in effect.headline(rep, [_paired("v1", "mean_turns", 1.0, 0.5, 1.5, 2)], str, levels)[0]
    # alike on every deal: no interval of zero width ("+50.0% ± 0.0%, clearly above 0")
    same = [{**x, "adv_deals": np.full(500, 0.5)} for x in levels[:2]]
    assert "their mean" not in effect.headline(rep, [_paired("v1", "mean_turns", 1.0, 0.5, 1.5, 2)], str, same)[0]


def test_a_next_value_that_plays_the_same_games_is_said_to_be_the_same_not_a_zero_difference():
    # Senshi's guard at margins 4 and 8 against counter: "next 8: +0.00, paired 95% CI [+0.00, +0.00]"
    rep = SimpleNamespace(over="focus.margin", goal="max")
    same = {"diff": 0.0, "lo": 0.0, "hi": 0.0, "p_value": 1.0, "n": 100, "rho": 1.0}
    low = {"desc": "2 players", "value": "4", "x": 3.18, "lo": 3.0, "hi": 3.36, "next": "8", "d": same,
           "clear": False, "best": False}
    text = best._score_sentence(rep, "win share", "highest", [low], False, "2 players", "mean score")
    assert text == ("The margin with the highest mean score for 2 players is 4, mean score 3.18 ± 0.18 (next 8: the "
                    "same on every deal)."), text
    low["d"] = {**same, "diff": 0.01, "lo": -0.02, "hi": 0.04}
    assert "(next 8: +0.01, paired 95% CI [-0.02, +0.04], not clearly different)" in best._score_sentence(
        rep, "win share", "highest", [low], False, "2 players", "mean score")


def test_sprt_says_what_its_interval_adds_to_the_verdict():
    """wake 12 against wake 10, 4 players: the test prefers +0.0% to +2.0%, while the share's interval lies
    wholly above the fair one. The verdict read "not better"; it now says which advantage is nearer, and the
    interval's own word is added (where a preference for +2.0% has an interval reaching the fair share too)."""
    import polars as pl

    from experiments import run_experiment
    from experiments.answers.sprt import answer_sprt
    from experiments.config import load
    cfg = {"title": "t", "question": "q", "game": "sen", "players": 4, "games": 400, "seed": 1,
           "lineup": {"focus": "threshold:wake=12", "field": "threshold"},
           "sprt": {"h0": 0.0, "h1": 0.02, "max_games": 40000}, "report": {"answer": "sprt"}}
    res = run_experiment(cfg)
    cells = res.tables["cells"]
    assert res.tables["sprt"]["decision"][0] == "H0" and cells["focus_win_lo"][0] > cells["fair_share"][0]
    text = res.answer[0]
    assert text.startswith("threshold wake=12 against threshold wake=10: closer to +0.0% than to +2.0%: the test "
                           "prefers an advantage of +0.0% over the fair share to one of +2.0%"), text
    assert text.endswith("; the interval lies wholly above the fair share: an advantage, nearer +0.0% than +2.0%)")
    low = cells.with_columns(pl.lit(0.24).alias("focus_win_lo"))
    h1 = answer_sprt(load(cfg), res.tables["sprt"].with_columns(pl.lit("H1").alias("decision")), low)[0]
    assert ": better: the test prefers an advantage of +2.0%" in h1
    assert h1.endswith("; the interval reaches the fair share: the test's preference, not a bound)")
    assert "wholly above" not in answer_sprt(load(cfg), res.tables["sprt"], low)[0]
    # a preference for +0.0% with an interval wholly below the fair share reads as about fair without its word
    below = cells.with_columns(pl.lit(0.20).alias("focus_win_lo"), pl.lit(0.24).alias("focus_win_hi"))
    assert answer_sprt(load(cfg), res.tables["sprt"], below)[0].endswith(
        "; the interval lies wholly below the fair share: a disadvantage)")
    undecided = res.tables["sprt"].with_columns(pl.lit("continue").alias("decision"))
    assert answer_sprt(load(cfg), undecided, below)[0].endswith("wholly below the fair share: a disadvantage)")
    assert answer_sprt(load(cfg), undecided, cells)[0].endswith("; the interval lies wholly above the fair share)")


def test_best_headline_counts_the_groups_with_a_best_in_words_that_fit_two():
    """Two groups with a best and two where every value plays alike: "in either group" / "in both groups", not
    "in any of the 2 groups" / "in all 2 groups"; the groups without a best are said apart."""
    class Rep:
        over, goal = "focus.wake", "max"

    picks = [("2 players", "14", False), ("3 players", "18", False)]
    head = best.headline(Rep, "win share", picks, [], ["a", "b", "c", "d"], same=["4 players", "5 players"])
    assert head[1].startswith("It is not clearly ahead of the next value (the runner-up by that figure) on the same "
                              "deals in either group (the table"), head
    assert head[2] == ("In 2 of the 4 groups every value gives the same win share on every deal: none is best there "
                       "(4 players, 5 players).")
    both = best.headline(Rep, "win share", [(d, w, True) for d, w, _ in picks], [], ["a"] * 4, same=["4 players"] * 2)
    assert " on the same deals in both groups, which does not make it clearly ahead" in both[1], both
    one = best.headline(Rep, "win share", picks[:1], [], ["a"] * 4, same=["x", "y", "z"])
    assert "on the same deals in the one group with a best (the table" in one[1], one


def test_a_value_with_a_word_of_its_own_keeps_its_place_among_numbers():
    """threshold's wake -1 reads "-1 (never)" in the sentences: it still sorts as -1 ("ranges from -1 (never)
    to 18") and shares its brackets with its group."""
    assert best._num("-1 (never)") == (0, -1.0) and min(["18", "-1 (never)", "2"], key=best._num) == "-1 (never)"
    assert best._in_group("-1 (never)", "2 players, penalty 15") == "-1 (never; 2 players, penalty 15)"
    assert best._in_group("18", "2 players") == "18 (2 players)"


def test_balance_names_its_values_and_how_its_deals_were_played():
    """"over the 2 penaltys" and, for one strategy in every seat (each deal played once), "each lineup played
    in every seat order"."""
    from experiments import run_experiment
    from experiments.answers.balance import _plural

    assert [_plural(w) for w in ("penalty", "pairing", "start_positions", "day", "players")] == [
        "penalties", "pairings", "start_positions", "days", "players"]
    base = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 6, "seed": 2,
            "sweep": {"rules.penalty": [5, 15]}, "report": {"answer": "balance", "over": "rules.penalty"}}
    focus = run_experiment({**base, "lineup": {"focus": "gambler", "field": "threshold"}}).answer[0]
    assert "over the 2 penalties (each lineup played in every seat order)" in focus, focus
    alone = run_experiment({**base, "lineup": {"seats": ["threshold"]}}).answer[0]
    assert "over the 2 penalties (each deal played once)" in alone, alone


def test_best_headline_pairs_player_counts_by_deal_number():
    """Game lengths compared across player counts (over = players, or a named case that sets players) are
    paired by deal number: a deal of another player count is another deal, not "the same deals"."""
    class Rep:
        over, goal = "size", "min"

    picks = [(f"variant {v}", "two", True) for v in "abcd"]
    head = best.headline(Rep, "mean turns per game", picks, [], ["a"] * 4, across=True)
    assert "(the runner-up by that figure) paired by deal number in all 4 groups" in head[1], head
    assert "same deals" not in " ".join(head)
    assert "on the same deals in all 4 groups" in best.headline(Rep, "mean turns per game", picks, [], ["a"] * 4)[1]


def test_turn_order_says_a_value_that_changes_nothing_is_the_same_on_every_deal():
    """Senshi's open_stacks change nothing for greedy (which never looks at what is under a top), nor does
    Sen's "I know what I have" for threshold: turn_order read "+0.0% [+0.0%, +0.0%] (not clearly a change)"
    and counted such a value in Holm's correction of the others, where effect and risk say "the same on every
    deal"."""
    res = run_experiment({"title": "t", "question": "q", "game": "senshi", "games": 40, "seed": 72,
                          "sweep": {"players": [2], "variant": {"base": {}, "open": {"rules.open_stacks": True}}},
                          "lineup": {"seats": ["greedy"]},
                          "report": {"answer": "turn_order", "over": "variant", "baseline": "base",
                                     "event": "eliminated"}})
    head = res.answer[0]
    assert head.endswith("seat 0's win share changes on the same deals with open the same on every deal"), head
    assert "[+0.0%, +0.0%]" not in " ".join(res.answer), res.answer
    assert any(t.endswith("every seat the same as under base on every deal (win share and eliminated)")
               for t in res.answer), res.answer
    # a value that changes the games is tested, and the correction counts only such values
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "games": 40, "seed": 9,
                          "sweep": {"players": [2], "variant": {"base": {}, "kwih": {"rules.know_what_i_have": True},
                                                                "harsh": {"rules.penalty": 15}}},
                          "lineup": {"seats": ["threshold"]},
                          "report": {"answer": "turn_order", "over": "variant", "baseline": "base"}})
    head = res.answer[0]
    assert "with kwih the same on every deal, harsh " in head, head
    assert "a clear change" in head or "not clearly a change" in head, head
    assert "Holm's correction" not in head, head


def test_turn_order_of_different_strategies_says_that_their_strengths_mix_with_the_seats():
    """threshold against random, rotated: threshold wins from either seat, so seat 0's 50.1% [49.7%, 50.5%]
    said little of the seat, and nothing said so."""
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 40, "seed": 81,
           "lineup": {"seats": ["threshold", "random"]}, "sweep": {"rules.penalty": [5, 15]},
           "report": {"answer": "turn_order", "over": "rules.penalty"}}
    note = "with different strategies rotated through the seats, a seat's share mixes their strengths"
    assert note in run_experiment(raw).answer[0]
    assert note not in run_experiment({**raw, "lineup": {"seats": ["threshold"]}}).answer[0]


def test_entrants_that_play_alike_share_a_rating_and_the_top():
    """counter's claim_gain plays only with "I know what I have": two counters rated "counter claim_gain=3.0 >
    counter claim_gain=6.0" (an Elo of -9e-15 with an interval of no width read as clearly apart), or one of
    them "highest rated", by the order the config listed them."""
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 40, "seed": 44,
           "lineup": {"tournament": ["random", "counter", "counter:claim_gain=6.0"]}, "report": {"answer": "ratings"}}
    text = run_experiment(raw).answer[0]
    assert text.startswith("highest rated strategies: counter claim_gain=3.0 and counter claim_gain=6.0, the same "
                           "rating, Elo "), text
    assert " = " in text and "=: the same rating (they win alike against every entrant)" in text, text
    text = run_experiment({**raw, "lineup": {"tournament": ["counter", "counter:claim_gain=6.0", "watcher"]}}).answer[0]
    assert "counter claim_gain=3.0 = counter claim_gain=6.0" in text and " > counter claim_gain=6.0" not in text, text
    eff = run_experiment({**raw, "sweep": {"variant": {"base": {}, "harsh": {"rules.penalty": 15}}},
                          "report": {"answer": "effect", "over": "variant", "baseline": "base"}})
    assert all("highest rated counter claim_gain=3.0 and counter claim_gain=6.0, the same rating" in t
               for t in eff.answer if t.startswith("variant ")), eff.answer


def test_best_and_risk_name_the_same_value_whatever_the_order_values_are_listed_in():
    """wake 40 and 50 both call at once in Sen: best named whichever the config listed first, and with 50
    first said that a value beyond the range (10 to 50) may do better; risk named guard margin=25 or 30
    (alike) as least often eliminated by their order, and "base" where every variant plays the same games."""
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 60, "seed": 61,
           "lineup": {"focus": "threshold", "field": "threshold"},
           "report": {"answer": "best", "over": "focus.wake", "metric": "mean_turns", "goal": "min"}}
    texts = [run_experiment({**raw, "sweep": {"focus.wake": grid}}).answer[0]
             for grid in ([10, 20, 40, 50], [10, 20, 50, 40])]
    assert texts[0] == texts[1] and texts[0].startswith("best wake: 40, ") and "next 50: the same on every deal" in \
        texts[0], texts
    assert "edge" not in texts[0], texts
    raw = {"title": "t", "question": "q", "game": "senshi", "players": 4, "games": 60, "seed": 22,
           "lineup": {"focus": "greedy", "field": "greedy"},
           "report": {"answer": "risk", "event": "eliminated", "over": "focus", "baseline": "greedy"}}
    texts = [run_experiment({**raw, "sweep": {"focus": grid}}).answer[0] for grid in
             (["greedy", "guard:margin=25", "guard:margin=30"], ["greedy", "guard:margin=30", "guard:margin=25"])]
    assert texts[0] == texts[1], texts
    same = run_experiment({"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 60, "seed": 22,
                           "lineup": {"focus": "greedy", "field": "greedy"},
                           "sweep": {"variant": {"base": {}, "open": {"rules.open_stacks": True}}},
                           "report": {"answer": "risk", "event": "eliminated", "over": "variant", "baseline": "base"}})
    assert same.answer[0].startswith("against greedy in every other seat: every variant gives the same games on every "
                                     "deal: eliminated in "), same.answer[0]


def test_summary_measures_no_first_seat_advantage_where_no_game_had_a_winner():
    """Sensu stopped at 25 turns: every 2-player game ends without a winner, and the summary read "first-seat
    advantage +0.0% [+0.0%, +1.3%]", a measured, tight "no advantage"."""
    res = run_experiment({"title": "t", "question": "q", "game": "sensu", "players": 2, "games": 30, "seed": 131,
                          "rules": {"max_turns": 25}, "lineup": {"seats": ["planner"]},
                          "report": {"answer": "summary"}})
    assert res.cells["timeouts"][0] == res.cells["games"][0]
    assert res.answer[0].endswith("no first-seat advantage to measure: no game had a winner"), res.answer[0]
    eff = run_experiment({"title": "t", "question": "q", "game": "sensu", "players": 2, "games": 30, "seed": 131,
                          "lineup": {"seats": ["planner"]}, "sweep": {"rules.max_turns": [25, 200]},
                          "report": {"answer": "effect", "over": "rules.max_turns", "baseline": 200}})
    short = next(t for t in eff.answer if t.startswith("max_turns 25: "))
    assert "no first-seat advantage to measure: no game had a winner" in short and "first-seat advantage +" not in \
        short and "first-seat advantage -" not in short, short


def test_effect_says_a_value_plays_as_another_value_on_every_deal():
    """harsh and harsh with "I know what I have" play the same games for threshold: two sentences of the same
    figures read as two findings; with the baseline it says so figure by figure already."""
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 5,
                          "lineup": {"focus": "threshold", "field": "random"},
                          "sweep": {"variant": {"base": {}, "harsh": {"rules.penalty": 15},
                                                "harsh_kwih": {"rules.penalty": 15, "rules.know_what_i_have": True}}},
                          "report": {"answer": "effect", "over": "variant", "baseline": "base"}})
    twin = next(t for t in res.answer if t.startswith("variant harsh_kwih:"))
    assert twin.endswith("; the same as harsh on every deal"), twin
    assert not next(t for t in res.answer if t.startswith("variant harsh:")).endswith("on every deal")


def test_summary_gives_a_strategy_in_several_seats_its_share_a_seat_and_together():
    """counter in two of three seats against random: "counter 49.9%, random 0.2%" read as counter winning
    half of the games, where its two seats won 99.8% of them."""
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 5,
                          "lineup": {"seats": ["counter", "random", "counter"]}, "report": {"answer": "summary"}})
    text = res.answer[0]
    import re as _re
    m = _re.search(r"counter (\d+\.\d)% a seat \(2 seats, together (\d+\.\d)% of the games\), random (\d+\.\d)%", text)
    assert m, text
    seat, together, rnd = (float(x) for x in m.groups())
    assert abs(2 * seat - together) <= 0.11 and abs(together + rnd - 100.0) <= 0.11, text


def test_equilibrium_headline_says_where_fresh_deals_find_the_mix_exploitable():
    """A meta-game's mix that a member beats on the fresh deals (its regret above 0 with Bonferroni's
    correction) is no answer to "which mix can nobody exploit?": the headline says so with the figure, as
    the answer does; a gain that is no clear one (the correction's interval reaches 0) leaves it alone."""
    from experiments.answers.equilibrium import _headline

    mix = ("2 players: Nash (linear program) of the meta-game of 6 strategies (21 lineups, 60 deals each): counter "
           "47.1% [0.0%, 100.0%], racer 17.6% [0.0%, 100.0%]; regret against it (what a member outside it gains, the "
           "closest first) greedy -40.2% [-43.5%, -37.5%]; on 400 fresh deals (numbered from 60: none of them helped "
           "find it; 14,400 games), each member's regret against it, the largest first: guard:late=8 +7.5% [+5.7%, "
           "+9.3%], counter -0.8% [-2.3%, +0.9%]")
    beaten = mix + (" (guard:late=8 gains against it on deals it was not found on: its regret stays above 0 with "
                    "Bonferroni's correction for picking it among the 6 members)")
    unclear = mix + (" (guard:late=8's interval alone lies above 0, but not with Bonferroni's correction for picking "
                     "it among the 6 members: no clear gain)")
    other = "2 players: guard tuned first: margin=0, late=8 (best response to tables of each other member)"
    heads = _headline([other, beaten, unclear, other])
    assert heads[0].endswith("counter 47.1% [0.0%, 100.0%], racer 17.6% [0.0%, 100.0%] (guard:late=8 gains +7.5% "
                             "[+5.7%, +9.3%] against it on fresh deals: a member can exploit it; see the answer in full)")
    assert heads[1].endswith("racer 17.6% [0.0%, 100.0%]")


def test_a_p_value_just_off_a_level_does_not_print_as_that_level():
    """Two significant digits, unless they would print a p-value as 0.05, 0.01 or 0.001 that it is not: a
    chi-square p of 0.0499 beside an interval that clears the fair share read as "p = 0.05"."""
    from experiments.answers.common import p_text

    assert [p_text(p) for p in (0.0499, 0.04996, 0.0501, 0.00999, 0.05, 0.01, 3.9e-05, 0.69, 0.0029)] == \
        ["0.0499", "0.04996", "0.0501", "0.00999", "0.05", "0.01", "3.9e-05", "0.69", "0.0029"]
