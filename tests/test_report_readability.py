"""Reports a designer can read: strategies by short labels (one labeller for plots, sentences, tables and
the play table), categories in the config's order, score histograms that stay within the scores played,
whole-number ticks for whole-number data, legends beside the data, and a report that leads with its
answer (headline, compact table, first plot) with the sentences of every value folded under it."""
import os
import re

import matplotlib
import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from markupsafe import escape
from hypothesis import strategies as st

from experiments import run_experiment
from reports import build_report, plots
from strategies.registry import spec_labels, split_spec


# ------------------------------------------------------------------------------------------ labels
def test_labels_name_and_the_parameters_that_differ_in_config_order():
    specs = ["greedy", "guard:margin=0,min_gain=2,late=4", "guard:margin=1,min_gain=2,late=4",
             "guard:margin=1,min_gain=2,late=8", "counter:w_min=1.0,a_hand=0.5", "counter:w_min=1.0,a_hand=0.5"]
    labels = spec_labels(specs)
    assert list(labels) == list(dict.fromkeys(specs))  # config order kept
    assert labels == {"greedy": "greedy", "guard:margin=0,min_gain=2,late=4": "guard margin=0 late=4",
                      "guard:margin=1,min_gain=2,late=4": "guard margin=1 late=4",
                      "guard:margin=1,min_gain=2,late=8": "guard margin=1 late=8",
                      "counter:w_min=1.0,a_hand=0.5": "counter"}
    # the swapper variants of the issue: one later parameter tells them apart
    long = "swapper:take_margin=0.5,claim_gain=3.0,margin=3.0,sure=4.0,cap=14.0,kept_value=3.0,swap_min="
    assert list(spec_labels([long + "2.0", long + "3.0"]).values()) == ["swapper swap_min=2.0", "swapper swap_min=3.0"]
    # with defaults, a strategy whose specs agree shows what it changes
    assert spec_labels(["threshold:wake=8", "counter:wake=9.0"], {"threshold": {"wake": "10"}}) == \
        {"threshold:wake=8": "threshold wake=8", "counter:wake=9.0": "counter"}
    assert split_spec("./mine.py:Cautious:wake=9") == ("./mine.py:Cautious", [("wake", "9")])


_name = st.sampled_from(["guard", "racer", "counter"])
_params = st.lists(st.tuples(st.sampled_from(["margin", "late", "w_min"]), st.integers(0, 3)), max_size=3,
                   unique_by=lambda t: t[0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(_name, _params), min_size=1, max_size=6))
def test_labels_tell_every_spec_apart_and_show_only_what_differs(items):
    specs = [name + (":" + ",".join(f"{k}={v}" for k, v in ps) if ps else "") for name, ps in items]
    labels = spec_labels(specs)
    shown = list(labels.values())
    assert len(set(shown)) == len(shown)  # different specs never read the same
    for spec, text in labels.items():
        name, pairs = split_spec(spec)
        if text == spec:
            continue  # the fallback for labels that would collide
        words = text.split(" ")
        assert words[0] == name
        same = [dict(split_spec(s)[1]) for s in labels if split_spec(s)[0] == name]
        for word in words[1:]:
            k, v = word.split("=")
            assert (k, v) in pairs and any(p.get(k) != v for p in same)  # only parameters that differ


# ------------------------------------------------------------------------------------------- plots
@pytest.fixture
def drawn(monkeypatch):
    """The matplotlib figures the plots draw (kept open for inspection)."""
    figs = []

    def keep(fig):
        figs.append(fig)
        plots.integer_ticks(fig)
        fig.canvas.draw()
        return "png"

    monkeypatch.setattr(plots, "_encode", keep)
    yield figs
    for f in figs:
        matplotlib.pyplot.close(f)


def _cells(values, groups=("2", "3")):
    rows = []
    for gi, g in enumerate(groups):
        for i, v in enumerate(values):
            rows.append({"cell": len(rows), "players": int(g), "over": v, "y": 0.2 + 0.01 * i + 0.05 * gi,
                         "lo": 0.15 + 0.01 * i, "hi": 0.3 + 0.01 * i, "fair_share": 1 / int(g)})
    return pl.DataFrame(rows)


def _overlap(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_strategy_categories_keep_the_config_order_as_points_with_error_bars(drawn):
    specs = ["racer:min_gain=2", "guard:margin=0,late=4", "denier:threat=2", "guard:margin=1,late=8"]
    with plots.use_labels(spec_labels(specs)):
        assert plots.sweep_lines(_cells(specs), "over", ["players"], "y", "lo", "hi", "win share", True) is not None
    (fig,) = drawn
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["racer", "guard margin=0 late=4", "denier",
                                                           "guard margin=1 late=8"]
    data_lines = [ln for ln in ax.lines if len(ln.get_xdata()) > 1 and ln.get_linestyle() not in ("None", ":")]
    assert data_lines == []  # categories are not joined by lines
    renderer = fig.canvas.get_renderer()
    legend = ax.get_legend()
    assert legend is not None and not _overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer))
    for tick, t in zip(ax.get_xticks(), ax.get_xticklabels()):  # slanted labels end under their tick
        box = t.get_window_extent(renderer)
        x = ax.transData.transform((tick, 0))[0]
        assert t.get_rotation() > 0 and abs(box.x1 - x) < 12 and box.y1 <= ax.get_window_extent(renderer).y0


def test_integer_parameters_get_whole_number_ticks(drawn):
    plots.sweep_lines(_cells([2, 3, 4, 5]), "over", ["players"], "y", "lo", "hi", "win share")
    ax = drawn[0].axes[0]
    ticks = [x for x in ax.get_xticks() if ax.get_xlim()[0] <= x <= ax.get_xlim()[1]]
    assert ticks and all(float(x).is_integer() for x in ticks)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-30, 200), st.integers(1, 50)), min_size=1, max_size=40, unique_by=lambda t: t[0]))
def test_score_histogram_never_reaches_below_the_lowest_score(pairs):
    scores = np.array([p[0] for p in pairs], dtype=float)
    counts = np.array([p[1] for p in pairs], dtype=float)
    left, share, width = plots.score_histogram(scores, counts)
    assert left.min() == scores.min() and left.max() <= scores.max()
    assert width >= 1 and float(width).is_integer()
    assert np.isclose((share * width).sum(), 1.0)


def test_score_plot_starts_at_the_lowest_score(drawn):
    scores = pl.DataFrame({"cell": [0] * 4 + [1] * 3, "who": ["focus"] * 7, "score": [0, 1, 2, 7, 3, 4, 5],
                           "count": [5, 9, 4, 1, 2, 6, 2]})
    cells = pl.DataFrame({"cell": [0, 1], "players": [2, 3]})
    plots.score_distribution(scores, cells, ["players"], "focus")
    ax = drawn[0].axes[0]
    assert ax.get_xlim()[0] >= 0
    assert min(ln.get_xdata().min() for ln in ax.lines) >= 0
    assert ax.get_ylabel() != "density"  # a histogram, not a kernel density


# ------------------------------------------------------------------------------------------ reports
CFG = {"title": "Readable report", "question": "Which wake is best, and where?", "game": "sen", "games": 12,
       "seed": 7, "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
       "sweep": {"players": [2, 3], "rules.penalty": [5, 15], "focus.wake": [8, 12]},
       "report": {"over": "focus.wake"}}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    res = run_experiment(CFG)
    run_dir = res.write(str(tmp_path_factory.mktemp("runs")))
    with open(build_report(run_dir), encoding="utf-8") as fh:
        page = fh.read()
    with open(os.path.join(os.path.dirname(run_dir), "index.html"), encoding="utf-8") as fh:
        index = fh.read()
    return res, page, index


def test_report_leads_with_headline_table_and_plot_then_folds_the_sentences(report):
    res, page, _ = report
    assert 2 <= len(res.headline) <= 3 and len(res.answer) == 8  # 4 groups: the best wake, then the lowest mean score
    answer = page[page.index('<section id="answer">'):page.index('<section id="plots">')]
    first_img = answer.index("<img")
    heads = [m.start() for m in re.finditer('class="headline-sentence"', answer)]
    assert len(heads) == len(res.headline) and max(heads) < answer.index('id="answer-table"') < first_img
    fold = answer.index('<details id="every-sentence">')
    assert first_img < fold
    folded = answer[fold:answer.index("</details>", fold)]
    assert re.findall(r'<li class="answer-sentence">(.*?)</li>', folded) == res.answer
    table = answer[answer.index('id="answer-table"'):first_img]
    assert table.count("<tr>") == 1 + 4 and "best wake" in table and "[" in table  # a row per group, intervals


def test_report_names_strategies_by_label_with_the_full_spec_one_click_away(report):
    res, page, _ = report
    assert 'id="spec-' in page or "id='spec-" in page
    assert "threshold wake=10" in page and "threshold:wake=10" in page  # the label, and the full spec in its table
    assert "href='#spec-" in page


def test_index_shows_question_and_the_whole_answer(report):
    res, _, index = report
    assert "Which wake is best, and where?" in index and "Readable report" in index
    for sentence in res.answer + res.headline:
        assert str(escape(sentence)) in index
    assert "(+" not in index  # nothing cut


def test_error_bars_never_get_negative_lengths():
    """A point estimate outside its (bootstrap) interval, or a missing interval, still draws."""
    from reports.plots import error_lengths

    below, above = error_lengths([0.5, 0.2, 0.4], [0.55, 0.1, float("nan")], [0.7, 0.3, float("nan")])
    assert below[0] == 0.0 and below[2] == 0.0 and (below >= 0).all() and (above >= 0).all()
    assert abs(below[1] - 0.1) < 1e-12 and abs(above[0] - 0.2) < 1e-12 and above[2] == 0.0


def _round_robin(players, variants, strategies=("counter", "watcher", "swapper")):
    rows = []
    for p in players:
        for v in variants:
            for a in strategies:
                for b in strategies:
                    if a != b:
                        rows.append({"cell": len(rows), "players": p, "variant": v, "a": a, "b": b,
                                     "focus_win_share": 0.4, "field_win_share": 0.6})
    return pl.DataFrame(rows)


def test_every_group_of_a_round_robin_gets_its_win_matrix(drawn):
    # two player counts times four variants: eight win matrices, none dropped
    cells = _round_robin([2, 4], ["base", "ravens", "all_in", "know"])
    figs = plots.win_matrices(cells, ["players", "variant"], ["counter", "watcher", "swapper"])
    assert [f.title for f in figs] == [f"Win matrix: {p}p, variant {v}" for p in (2, 4)
                                       for v in ("base", "ravens", "all_in", "know")]
    assert not any("not shown" in f.caption for f in figs)


def test_groups_beyond_a_figure_cap_are_named_in_the_caption(drawn, monkeypatch):
    monkeypatch.setattr(plots, "MAX_GROUP_FIGURES", 3)
    cells = _round_robin([2], ["v1", "v2", "v3", "v4", "v5"])
    figs = plots.win_matrices(cells, ["players", "variant"], ["counter", "watcher", "swapper"])
    assert len(figs) == 3
    assert "; only the first 3 groups are drawn, 2 more are not: 2p, variant v4; 2p, variant v5 (" in figs[-1].caption
    assert plots.first_groups(["a", "b"], 6) == (["a", "b"], "")


def test_distribution_figures_of_many_groups_over_two_axes_draw_every_group_in_panels(drawn):
    # Sensu's balance question: 4 player counts times 4 variants, 16 groups; one line each in one panel
    # would leave 6 groups out (and the rest unreadable): one panel per player count, a colour per variant
    variants = ["base", "powers", "chosen_fan", "both"]
    cells = pl.DataFrame([{"cell": 4 * i + j, "players": p, "variant": v, "timeouts": 0}
                          for i, p in enumerate([2, 3, 4, 5]) for j, v in enumerate(variants)])
    turns = pl.DataFrame({"cell": [c for c in range(16) for _ in range(3)],
                          "turns": [t + c for c in range(16) for t in (40, 50, 60)], "count": [5] * 48})
    scores = pl.DataFrame({"cell": [c for c in range(16) for _ in range(2)], "who": ["all"] * 32,
                           "score": [s for _ in range(16) for s in (10, 20)], "count": [3] * 32})
    for fig in (plots.turns_distribution(turns, cells, ["players", "variant"]),
                plots.score_distribution(scores, cells, ["players", "variant"], "all")):
        shown = drawn[-1]
        panels = [ax for ax in shown.axes if ax.get_visible() and ax.get_title()]
        assert [ax.get_title() for ax in panels] == ["2 players", "3 players", "4 players", "5 players"]
        for ax in panels:
            assert [line.get_label() for line in ax.get_lines()] == [f"variant {v}" for v in variants]
        assert "only the first" not in fig.caption
        assert fig.caption.endswith("one panel per player count, one colour per variant")
        # one legend for the figure, and the axis labels once
        assert sum(ax.get_legend() is not None for ax in shown.axes) == 1
        assert all(ax.get_ylabel() == "" for ax in panels) and shown.get_supylabel()
    # few groups stay in one panel
    fig = plots.turns_distribution(turns.filter(pl.col("cell") < 4), cells.filter(pl.col("cell") < 4),
                                   ["players", "variant"])
    assert len(drawn[-1].axes) == 1 and "panel" not in fig.caption

# ------------------------------------------------------------------------------------ lists of values
def test_a_list_of_values_that_hold_commas_reads_as_that_many_values():
    from experiments.answers.balance import _headline
    from experiments.answers.common import describe_group, join_values

    # Fan & Mallet's start_positions are pairs of houses: "0,2, 0,3" would read as four numbers
    assert join_values(["0,2", "0,3"]) == "0,2; 0,3"
    assert join_values([7, 10, 13]) == "7, 10, 13"  # plain values as before
    assert join_values(["margin=1, late=8", "margin=2, late=8"]) == "margin=1, late=8; margin=2, late=8"
    assert describe_group(["rules.start_positions"], ("0,6",)) == "start_positions 0,6"  # one value as before
    assert describe_group(["players", "variant"], (2, "base")) == "2 players, variant base"
    assert describe_group(["rules.start_positions", "seat0"], ("0,6", "closer")) == "start_positions 0,6; seat0 closer"
    # the balance headline lists the groups clearly off the fair share
    heads = [(f"start_positions {v}", 0.6, 0.55, 0.65, 2, True, 1, 0, 3) for v in ("0,2", "0,3")]
    assert "clearly off it with start_positions 0,2 and 0,3." in _headline(heads, "pairing", [])[0]


# ------------------------------------------------------------------------------------------ game length
def test_games_stopped_at_the_turn_limit_do_not_squeeze_the_game_length_figure(drawn):
    # two cells of games of 40 to 60 turns; three games of cell 1 stopped at the limit of 1,000 turns
    lengths = list(range(40, 61))
    turns = pl.DataFrame({"cell": [0] * len(lengths) + [1] * (len(lengths) + 1),
                          "turns": lengths + lengths + [1000], "count": [2] * len(lengths) + [2] * len(lengths) + [3]})
    cells = pl.DataFrame({"cell": [0, 1], "players": [2, 3], "timeouts": [0, 3]})
    finished, stopped, limit = plots.finished_turns(turns, cells)
    assert stopped == 3 and limit == (1000, 1000) and finished["turns"].max() == 60
    assert int(finished["count"].sum()) == int(turns["count"].sum()) - 3
    fig = plots.turns_distribution(turns, cells, ["players"])
    ax = drawn[0].axes[0]
    assert ax.get_xlim()[1] < 100  # the finished games fill the axis
    assert "3 of the 87 games (3.4%) stopped at the turn limit (1,000 turns), not shown" in fig.caption
    # the games of a cell not drawn (another figure's) are not counted
    more = pl.concat([turns, pl.DataFrame({"cell": [2], "turns": [50], "count": [100]})])
    assert "3 of the 87 games" in plots.turns_distribution(more, cells, ["players"]).caption
    # no game stopped: every game drawn, the caption as before
    fig = plots.turns_distribution(turns.filter(pl.col("turns") < 1000), cells.with_columns(pl.lit(0).alias("timeouts")),
                                   ["players"])
    assert fig.caption == "distribution of the number of turns per game, cells of each group pooled"


def test_a_long_thin_tail_of_finished_games_does_not_squeeze_the_game_length_figure(drawn):
    # 1,000 games of 40 to 59 turns and 2 that finished at 700 turns (no game stopped at the limit)
    lengths = list(range(40, 60))
    turns = pl.DataFrame({"cell": [0] * (len(lengths) + 1), "turns": lengths + [700], "count": [50] * len(lengths) + [2]})
    cells = pl.DataFrame({"cell": [0], "players": [2], "timeouts": [0]})
    fig = plots.turns_distribution(turns, cells, ["players"])
    right = drawn[-1].axes[0].get_xlim()[1]
    assert 59 <= right < 70, right
    assert fig.caption.endswith(f"; the axis ends at {right:,.0f} turns: 2 of the 1,002 games drawn (0.2%) were "
                                "longer, up to 700 turns")
    # without such a tail the axis is matplotlib's own and the caption says nothing of it
    fig = plots.turns_distribution(turns.filter(pl.col("turns") < 100), cells, ["players"])
    assert "axis ends" not in fig.caption and drawn[-1].axes[0].get_xlim()[1] >= 59


def test_a_turn_limit_in_a_bin_of_several_turns_is_said_as_that_bin(drawn):
    # games that span more than the histogram's bins of one turn are kept in bins of 2, 4 ... turns: the games
    # stopped at the limit lie in the last bin, whose first and last turns the caption gives
    turns = pl.DataFrame({"cell": [0] * 3, "turns": [100, 4096, 98304], "width": [32] * 3, "count": [5, 3, 2]})
    cells = pl.DataFrame({"cell": [0], "players": [2], "timeouts": [2]})
    finished, stopped, limit = plots.finished_turns(turns, cells)
    assert stopped == 2 and limit == (98304, 98335) and finished["turns"].to_list() == [100, 4096]
    fig = plots.turns_distribution(turns, cells, ["players"])
    assert "2 of the 10 games (20.0%) stopped at the turn limit (between 98,304 and 98,335 turns), not shown" in \
        fig.caption


def test_stopped_games_are_taken_off_the_longest_end_of_their_cell():
    # a cell whose stopped games share the longest value with finished ones only loses the stopped ones
    turns = pl.DataFrame({"cell": [0, 0, 0], "turns": [10, 20, 30], "count": [1, 1, 4]})
    finished, stopped, limit = plots.finished_turns(turns, pl.DataFrame({"cell": [0], "timeouts": [3]}))
    assert finished.rows() == [(0, 10, 1), (0, 20, 1), (0, 30, 1)] and stopped == 3 and limit == (30, 30)
    finished, stopped, _ = plots.finished_turns(turns, pl.DataFrame({"cell": [0], "timeouts": [5]}))
    assert finished.rows() == [(0, 10, 1)] and stopped == 5


# ------------------------------------------------------------------------------------ crowded labels
def _categories(names, width=5.5):
    fig, ax = matplotlib.pyplot.subplots(figsize=(width, 4))
    ax.errorbar(range(len(names)), np.zeros(len(names)), yerr=1.0, fmt="o")
    ax.set_xticks(range(len(names)), names)
    plots.rotate_labels(ax)
    fig.tight_layout()
    return fig, ax


def _neighbours_overlap(fig, ax) -> bool:
    """Whether two neighbouring x labels overlap: the room between their ticks is less than a label's
    extent across it (its length when level, its height over the sine of its slant otherwise)."""
    got = plots._crowding(ax, "x", fig.canvas.get_renderer())
    return got is not None and got[2] > got[1]


def test_crowded_category_labels_are_stood_upright_or_shrunk_until_they_do_not_overlap():
    names = [f"guard margin={m} late={l}" for m in range(4) for l in (4, 6, 8, 10, 12)]
    fig, ax = _categories(names)
    fig.draw_without_rendering()
    assert _neighbours_overlap(fig, ax)  # slanted at 35 degrees, 20 long labels in 5.5 inches overlap
    assert plots.fit_tick_labels(fig)
    assert not _neighbours_overlap(fig, ax)
    assert ax.get_xticklabels()[0].get_rotation() > 35  # steeper than before
    # so many that standing them upright is not enough: a smaller font, never below the minimum
    fig2, ax2 = _categories([f"s{i} long label" for i in range(40)], width=4)
    before = ax2.get_xticklabels()[0].get_fontsize()
    assert plots.fit_tick_labels(fig2)
    assert ax2.get_xticklabels()[0].get_rotation() == 90
    assert plots.MIN_LABEL_SIZE <= ax2.get_xticklabels()[0].get_fontsize() < before
    # a few short labels are left as they are
    fig3, ax3 = _categories(["greedy", "guard", "racer"])
    assert not plots.fit_tick_labels(fig3)
    assert ax3.get_xticklabels()[0].get_rotation() == 35
    for f in (fig, fig2, fig3):
        matplotlib.pyplot.close(f)


def test_a_figure_of_one_colour_per_group_names_the_groups_it_cannot_colour(drawn):
    turns = pl.DataFrame({"cell": [c for c in range(12) for _ in range(3)], "turns": [40, 50, 60] * 12,
                          "count": [1, 2, 1] * 12})
    cells = pl.DataFrame({"cell": list(range(12)), "players": [2] * 12, "variant": [f"v{c}" for c in range(12)],
                          "timeouts": [0] * 12})
    fig = plots.turns_distribution(turns, cells, ["variant"])
    assert len(drawn[0].axes[0].get_legend().get_texts()) == plots.MAX_HUES
    assert "2 more are not: variant v10; variant v11" in fig.caption


def test_share_bars_stay_within_0_and_100():
    est = pl.DataFrame({"lo": [-0.05, 0.2, None], "hi": [0.3, 1.08, None]})
    lo, hi = plots.share_bounds("seat0_win_share", est, 100)
    assert lo[:2].tolist() == [0.0, 20.0] and hi[:2].tolist() == [30.0, 100.0] and np.isnan(lo[2])
    lo, hi = plots.share_bounds("mean_score", est, 1)  # not a share: as computed
    assert lo[0] == -0.05 and hi[1] == 1.08


@pytest.fixture
def settled(monkeypatch):
    """The figures a plotting function draws, each after its last touches, as (figure, overlapping texts)."""
    got = []

    def keep(fig):
        plots.settle(fig)
        got.append((fig, plots.overlapping_texts(fig)))
        return ""

    monkeypatch.setattr(plots, "_encode", keep)
    yield got
    for fig, _ in got:
        matplotlib.pyplot.close(fig)


def test_panels_labels_do_not_run_into_one_another(settled):
    """Paired differences where every group has a reference of its own (the best value of its group) name
    each group's reference in the caption, where it ran into the next panel under the axis; a meta-game's
    payoff panels keep their colour bars' labels clear of the next panel."""
    from experiments.answers.equilibrium import _heatmaps

    rows = []
    for players in (2, 3, 4, 5):
        for penalty in (5, 15):
            for metric in ("win_share", "mean_score"):
                best = 10 + players + penalty // 5 + (metric == "mean_score")
                rows += [{"players": players, "rules.penalty": penalty, "metric": metric, "over": "focus.wake",
                          "value": w, "versus": best, "diff": -0.01 * abs(w - best), "lo": -0.02, "hi": 0.0,
                          "p_value": 0.5, "rho": 0.5, "deals": 800} for w in range(-1, 20, 2) if w != best]
    fig = plots.paired_plot(pl.DataFrame(rows), ["players", "rules.penalty"])
    # each group's reference is in the caption (under the panel it ran into the next one's)
    assert "Each group's reference for win share: 2p, penalty 5 13; 2p, penalty 15 15; " in fig.caption
    assert "5p, penalty 15 18." in fig.caption and fig.caption.count("Each group's reference for") == 2
    names = ["random", "greedy", "guard:late=8,margin=2", "racer", "denier", "counter"]
    meta = [{"players": p, "lineup": f"{a} / {b}", "strategy": a, "against": b, "win_share": 1 / p,
             "lo": 0.0, "hi": 1.0, "deals": 40} for p in (2, 3, 4) for a in names for b in names]
    _heatmaps(pl.DataFrame(meta), ["players"])
    assert len(settled) == 2
    for fig, overlaps in settled:
        assert len(fig.axes) >= 2 and overlaps == [], overlaps
    paired = settled[0][0]
    assert [ax.get_xlabel() for ax in paired.axes] == ["wake (each minus its group's reference)"] * 2
    # many strategies and groups: panels at most 9 inches wide, three a row (a page shows them whole)
    names = [f"wake={w}" for w in range(20)]
    meta = [{"players": p, "lineup": f"{a} / {b}", "strategy": a, "against": b, "win_share": 1 / p,
             "lo": 0.0, "hi": 1.0, "deals": 40} for p in range(2, 8) for a in names for b in names]
    _heatmaps(pl.DataFrame(meta), ["players"])
    fig, overlaps = settled[-1]
    assert fig.get_size_inches()[0] <= 27 and len([ax for ax in fig.axes if ax.get_label() != "<colorbar>"]) == 6
    assert overlaps == []


def test_overlapping_texts_counts_only_what_is_drawn():
    """A twin's shared axis and panels turned off or hidden draw no labels: nothing of theirs overlaps."""
    fig, ax = matplotlib.pyplot.subplots()
    ax.twinx()
    assert plots.overlapping_texts(fig) == []
    fig2, axs = matplotlib.pyplot.subplots(1, 3, figsize=(3, 2))
    axs[1].axis("off")
    axs[2].set_visible(False)
    assert plots.overlapping_texts(fig2) == []
    fig3, axs = matplotlib.pyplot.subplots(1, 2, figsize=(4, 2))  # the right panel's labels run into the left's
    axs[0].set_title("left panel's long title")
    axs[1].set_yticks([0.0, 1.0], ["a very long category label", "another very long label"])
    assert plots.overlapping_texts(fig3)
    for f in (fig, fig2, fig3):
        matplotlib.pyplot.close(f)


def test_a_long_tail_within_the_99_5th_percentile_puts_the_turns_on_a_log_scale(drawn):
    """sen_wake_equilibrium's extreme settings play games up to 2,700 turns where the median is 26: a
    linear axis squeezed every other game into its first bins."""
    lengths = np.unique(np.geomspace(5, 2000, 80).astype(int))
    turns = pl.DataFrame({"cell": [0] * len(lengths), "turns": lengths, "count": [10] * len(lengths)})
    cells = pl.DataFrame({"cell": [0], "players": [2], "timeouts": [0]})
    fig = plots.turns_distribution(turns, cells, ["players"])
    ax = drawn[-1].axes[0]
    assert ax.get_xscale() == "log" and "turns on a log scale (a long tail: the 99.5th percentile" in fig.caption
    assert ax.get_xlim()[1] >= 2000  # every game drawn
    # games of ordinary lengths keep the linear axis
    plain = pl.DataFrame({"cell": [0] * 21, "turns": list(range(40, 61)), "count": [5] * 21})
    assert "log scale" not in plots.turns_distribution(plain, cells, ["players"]).caption
    assert drawn[-1].axes[0].get_xscale() == "linear"


def test_shares_and_differences_of_shares_are_drawn_in_percent_as_the_sentences_give_them(drawn):
    from experiments.answers.common import in_percent
    assert in_percent("equilibrium_stakes") and in_percent("seat_advantage") and in_percent("first_winner_won")
    assert not in_percent("mean_turns") and not in_percent("mean_score")
    # a design's paired differences of its objective (equilibrium stakes: a difference of shares)
    paired = pl.DataFrame({"metric": ["equilibrium_stakes"] * 2, "over": ["rules.penalty"] * 2, "value": [0, 5],
                           "versus": [20, 20], "diff": [-0.092, -0.053], "lo": [-0.102, -0.061],
                           "hi": [-0.081, -0.045]})
    plots.paired_plot(paired, [])
    ax = drawn[-1].axes[0]
    assert ax.get_title() == "equilibrium stakes difference (percentage points)" and ax.get_ylim()[0] < -9
    # a win share over a swept parameter, and the seats' win shares
    cells = pl.DataFrame({"wake": [8, 10], "focus_win_share": [0.24, 0.26], "focus_win_lo": [0.22, 0.24],
                          "focus_win_hi": [0.26, 0.28], "fair_share": [0.25, 0.25]})
    plots.sweep_lines(cells, "wake", [], "focus_win_share", "focus_win_lo", "focus_win_hi", "win share", True)
    ax = drawn[-1].axes[0]
    assert ax.get_ylabel() == "win share (%)" and 20 < ax.get_ylim()[1] < 30
    seats = pl.DataFrame({"cell": [0, 0], "seat": [0, 1], "games": [100, 100], "win_share": [0.55, 0.45]})
    plots.seat_shares(seats, pl.DataFrame({"cell": [0], "players": [2]}), [])
    ax = drawn[-1].axes[0]
    assert ax.get_ylabel() == "win share of the seat (%)" and ax.get_ylim()[1] > 50


def test_the_seat_balance_line_is_the_average_seats_share_where_games_stop_without_a_winner(drawn):
    # Sensu's chosen_fan: a tenth of the games stop at the turn limit, so the average seat wins 45%, not 50%
    seats = pl.DataFrame({"cell": [0, 0], "seat": [0, 1], "games": [100, 100], "win_share": [0.47, 0.43]})
    fig = plots.seat_shares(seats, pl.DataFrame({"cell": [0], "players": [2]}), [])
    ax = drawn[-1].axes[0]
    (line,) = [c for c in ax.collections if c.get_linestyle() and c.get_linestyle()[0][1]]
    assert np.allclose(line.get_segments()[0][:, 1], 45.0)
    assert fig.caption.endswith("dotted: the fair share (1/P of the games that have a winner)")
    assert "with its Wilson 95% interval over the seat's games" in fig.caption
    # a point per seat with its interval, not bars from 0 that hid effects of a point or two
    assert not ax.patches and len(ax.containers) == 2


def test_a_seat_balance_of_more_groups_than_a_row_holds_draws_a_row_per_value_of_one_axis(drawn):
    # fan_and_mallet_design: 3 heuristics x 12 start positions; one row of bars drew 24 of the 36 groups
    n = plots.MAX_GROUP_FIGURES + 6
    cells = pl.DataFrame({"cell": range(n), "players": [2] * n, "seat0": [f"s{i % 3}" for i in range(n)],
                          "start": [i // 3 for i in range(n)]})
    seats = pl.DataFrame({"cell": [c for c in range(n) for _ in (0, 1)], "seat": [0, 1] * n,
                          "games": [100] * (2 * n), "win_share": [0.52, 0.48] * n})
    fig = plots.seat_shares(seats, cells, ["seat0", "start"])
    axs = [ax for ax in drawn[-1].axes if ax.get_visible()]
    assert [ax.get_title() for ax in axs] == ["seat0 s0", "seat0 s1", "seat0 s2"]
    assert all(len(ax.get_xticklabels()) == n // 3 for ax in axs)  # every group drawn
    assert "one row per seat0, along it the start" in fig.caption and "are not" not in fig.caption
    assert not any(ax.get_ylabel() for ax in axs) and drawn[-1]._supylabel.get_text() == "win share of the seat (%)"


def test_heatmap_cells_round_as_the_sentences_do(drawn):
    from experiments.answers.common import fmt_metric
    # 0.2015 x 100 is 20.150000000000002 in binary: matplotlib's ".1f" reads 20.2, the sentences 20.1
    assert fmt_metric("win_share", 0.2015) == "20.1%"
    assert list(plots.annotations(np.array([[0.2015 * 100, np.nan], [50.0, 38.15]]), 1).ravel()) == \
        ["20.1", "", "50.0", "38.1"]
    cells = pl.DataFrame({"wake": [8, 10], "players": [2, 2], "focus_win_share": [0.2015, 0.5]})
    plots.sweep_heatmap(cells, "wake", ["players"], "focus_win_share", "win share", True)
    texts = [t.get_text() for t in drawn[-1].axes[0].texts]
    assert texts == ["20.1", "50.0"]


def test_the_longest_games_bin_is_as_wide_as_the_others(drawn):
    # Fan & Mallet: the commonest length is often the longest (a game lasts at most 60 turns with 2 players);
    # its bin was drawn as a line of no width
    turns = pl.DataFrame({"cell": [0] * 4, "turns": [57, 58, 59, 60], "count": [10, 20, 30, 40]})
    cells = pl.DataFrame({"cell": [0], "players": [2], "timeouts": [0]})
    plots.turns_distribution(turns, cells, ["players"])
    (line,) = drawn[-1].axes[0].get_lines()
    x, y = line.get_data()
    assert list(x) == [57, 58, 59, 60, 61] and y[-2] == y[-1] == pytest.approx(0.4)


def test_panels_in_one_row_keep_their_labels_clear_of_the_ticks(drawn):
    variants = ["base", "ravens", "all_in", "know"]
    cells = pl.DataFrame([{"cell": 4 * i + j, "players": p, "variant": v, "timeouts": 0}
                          for i, p in enumerate([2, 4]) for j, v in enumerate(variants)])
    turns = pl.DataFrame({"cell": list(range(8)), "turns": [50] * 8, "count": [3] * 8})
    plots.turns_distribution(turns, cells, ["players", "variant"])
    fig = drawn[-1]
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["2 players", "4 players"]
    assert all(ax.get_xlabel() == "turns per game (all players)" for ax in panels)
    assert panels[0].get_ylabel() == "share of games per turn" and not fig.get_supylabel()


def test_the_metrics_figure_says_what_each_name_means(drawn):
    est = pl.DataFrame({"scope": ["all"] * 4, "figure": ["tie_share", "mean_bonus_umbrella", "mean_bonus_bucket",
                                                         "mean_rounds"],
                        "value": [0.1, 1.5, 1.2, 7.0], "lo": [0.09, 1.4, 1.1, 6.9], "hi": [0.11, 1.6, 1.3, 7.1]})
    words = {"tie_share": "{} of possessions are tied", "mean_bonus_*": "the mean bonus power of a kid ghost",
             "mean_rounds": "{} rounds a game"}
    fig = plots.metric_families(est, words)
    # each sentence's template with its figure written X (X% for a share)
    assert fig.caption.endswith("; tie_share: X% of possessions are tied; mean_bonus_*: the mean bonus power of a "
                                "kid ghost; mean_rounds: X rounds a game"), fig.caption
    assert plots.metric_families(est).caption.endswith("with 95% intervals over deals")


def test_a_run_without_groups_draws_no_legend_or_title_named_all(drawn):
    paired = pl.DataFrame({"metric": ["win_share"] * 2, "over": ["focus.wake"] * 2, "value": [8, 12],
                           "versus": [10, 10], "diff": [-0.01, 0.02], "lo": [-0.03, 0.0], "hi": [0.01, 0.04]})
    plots.paired_plot(paired, [])
    ax = drawn[-1].axes[0]
    assert ax.get_legend() is None and ax.get_title() == "win share difference (percentage points)"
    fig, ax = matplotlib.pyplot.subplots()
    ax.plot([0, 1], [0, 1], label="2p")
    assert plots.legend_outside(ax) is not None
    matplotlib.pyplot.close(fig)


def test_risk_points_that_hide_one_another_are_named_in_the_caption(drawn):
    # senshi_elimination: guard margin=3 and margin=4 play almost the same games; one point covered the other
    rows = []
    for g, P in (("2 players", 2), ("4 players", 4)):
        for case, ev, win in (("a", 0.30, 0.40), ("b", 0.3001, 0.4001), ("c", 0.50, 0.20)):
            for fig_name, v in (("eliminated_share", ev), ("win_share", win)):
                rows.append({"scope": "cell", "cell": len(rows) // 2, "group": g, "case": case, "players": P,
                             "figure": fig_name, "value": v, "lo": v - 0.01, "hi": v + 0.01})
    fig = plots.risk_tradeoff(pl.DataFrame(rows), "eliminated_share")
    assert fig.caption.endswith("; a and b lie on the same spot (2 players and 4 players), the last drawn covering "
                                "the others (their figures are in the tables)")
    far = pl.DataFrame(rows).with_columns(pl.when(pl.col("case") == "b").then(pl.col("value") + 0.05)
                                          .otherwise(pl.col("value")).alias("value"))
    assert "same spot" not in plots.risk_tradeoff(far, "eliminated_share").caption


def test_a_risk_point_far_from_the_others_is_shown_at_the_panels_edge(drawn):
    # senshi_elimination, 2 players: greedy at 71% eliminated and 10% won squeezed the nine others into a box
    # of 20-27% by 46-52%, where their intervals hid one another
    others = [("a", 0.20, 0.52), ("b", 0.22, 0.50), ("c", 0.24, 0.48), ("d", 0.27, 0.46)]
    rows = []
    for case, ev, win in others + [("greedy", 0.71, 0.10)]:
        for fig_name, v in (("eliminated_share", ev), ("win_share", win)):
            rows.append({"scope": "cell", "cell": len(rows) // 2, "group": "2 players", "case": case, "players": 2,
                         "figure": fig_name, "value": v, "lo": v - 0.01, "hi": v + 0.01})
    fig = plots.risk_tradeoff(pl.DataFrame(rows), "eliminated_share")
    ax = drawn[-1].axes[0]
    assert ax.get_xlim()[1] < 30 and ax.get_ylim()[0] > 40  # the others fill the panel
    assert any(t.get_text() == "greedy: 71.0%, 10.0%" for t in ax.texts)
    assert ("; greedy lies off its panel (2 players: 71.0%, 10.0%), shown by an arrow at its edge, so that the "
            "others can be told apart") in fig.caption
    # points spread alike: all drawn
    spread = [r for r in rows if r["case"] != "greedy"]
    fig = plots.risk_tradeoff(pl.DataFrame(spread), "eliminated_share")
    assert "off its panel" not in fig.caption and not drawn[-1].axes[0].texts


def test_no_risk_point_is_called_far_where_the_others_lie_on_one_value():
    # three cases that never met the event lie at x = 0: a span of 0 made a point at 0.3% "far", and the
    # caption said it lay off its panel while the panel drew it
    import numpy as np

    xs, ys = np.array([0.0, 0.0, 0.0, 0.3]), np.array([50.0, 51.0, 49.0, 50.5])
    sub = pl.DataFrame({"lo": [0.0, 0.0, 0.0, 0.001], "hi": [0.004, 0.004, 0.004, 0.009],
                        "y_lo": [0.47, 0.48, 0.46, 0.475], "y_hi": [0.53, 0.54, 0.52, 0.535]})
    assert plots._far_point(sub, xs, ys) is None
