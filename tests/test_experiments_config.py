"""Experiment configs: the shipped questions parse, and every mistake is one line naming file and key."""
import os
import tomllib

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.config import load
from experiments.tomlwrite import dumps
from simcore.errors import SenseiError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = ["experiments/sen_wake_threshold.toml", "experiments/sen_variants.toml"]

BASE = {
    "title": "t", "question": "q", "game": "sen", "players": 3, "games": 10, "seed": 1,
    "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
    "sweep": {"focus.wake": [8, 10]},
}


def cfg(**changes):
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in BASE.items()}
    for k, v in changes.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def test_shipped_configs_expand_to_cells():
    wake = load(os.path.join(ROOT, SHIPPED[0]))
    assert wake.kind == "focus" and len(wake.cells) == 4 * 2 * 13
    assert wake.report.answer == "best" and wake.group_axes == ["players", "rules.penalty"]
    c = wake.cells[0]
    assert c.players == 2 and c.rules.penalty == 5 and c.agents[0].wake == -1 and c.agents[1].wake == 10
    var = load(os.path.join(ROOT, SHIPPED[1]))
    assert var.kind == "tournament" and var.report.answer == "effect"
    # 4 variants x (6 unordered pairs at 2 players + 12 ordered pairs at 4 players)
    assert len(var.cells) == 4 * (6 + 12)
    kwih = [c for c in var.cells if c.axes["variant"] == "know_what_i_have"]
    assert kwih and all(c.rules.know_what_i_have for c in kwih)
    assert load(os.path.join(ROOT, SHIPPED[0]), games=7).games == 7


def test_rotations_skip_repeats_but_keep_every_focus_seat():
    c = load(cfg(sweep={"focus.wake": [8, 10]})).cells
    assert c[0].rotations(True) == [(0, (0,)), (1, (1,)), (2, (2,))]
    assert c[1].rotations(True) == [(0, (0, 1, 2))]      # self-play: one game, the focus is every seat
    assert c[0].rotations(False) == [(0, (0,))]


@pytest.mark.parametrize("changes, key, expected", [
    ({"colour": "red"}, "colour", "unknown key"),
    ({"penalty": 15}, "penalty", 'a rule option of sen: it goes under [rules] (penalty = ... there), or in [sweep] '
                                 'as "rules.penalty" = [...]'),
    ({"games": "many"}, "games", "an integer from 1 to"),
    ({"games": 0}, "games", "an integer from 1 to"),
    ({"seed": -1}, "seed", "an integer >= 0"),
    ({"game": "chess"}, "game", "unknown game"),
    ({"title": None}, "title", "required"),
    ({"lineup": {"focus": "nosuch", "field": "threshold"}}, "lineup.focus", "unknown strategy"),
    ({"lineup": {"focus": "threshold"}}, "lineup.field", "required with focus"),
    ({"lineup": {"focus": "threshold", "field": "random", "seats": ["random"]}}, "lineup", "exactly one of"),
    ({"lineup": {"focus": "threshold", "field": "threshold", "rotate": "yes"}}, "lineup.rotate", "true or false"),
    ({"sweep": {"focus.wak": [1, 2]}}, "sweep.focus.wak", "unknown parameter 'wak'"),
    ({"sweep": {"focus.wake": ["low"]}}, "sweep.focus.wake", "expected an integer"),
    ({"sweep": {"focus.wake": []}}, "sweep.focus.wake", "non-empty list"),
    ({"sweep": {"focus.wake": 9}}, "sweep.focus.wake", "a list of values"),
    ({"sweep": {"colour.x": [1]}}, "sweep.colour.x", "rules.OPTION"),
    ({"players": None, "sweep": {"players": [2, 6]}}, "sweep.players", "2-5 players"),
    ({"players": 1}, "players", "2-5 players"),
    ({"rules": {"penalti": 5}}, "rules", "unknown rule option 'penalti'"),
    ({"rules": {"penalty": [5, 15]}}, "rules.penalty", "a single value"),
    ({"sweep": {"rules.penalty": [5, "x"]}}, "sweep.rules.penalty", "expected an integer"),
    ({"sweep": {"variant": {"a": {"rules.nope": True}}}}, "sweep.variant.a.rules.nope", "unknown rule option"),
    ({"sweep": {"variant": {}}}, "sweep.variant", "at least one named case"),
    ({"report": {"answer": "guess"}}, "report.answer", "one of best, effect"),
    ({"report": {"over": "rules.penalty"}}, "report.over", "one of the sweep axes"),
    ({"report": {"answer": "effect", "over": "focus.wake", "baseline": 99}}, "report.baseline", "one of the values"),
    ({"report": {"metric": "mean_score"}}, "report.goal", "max or min"),
    ({"sprt": {"h0": 0.05, "h1": 0.01}}, "sprt.h1", "greater than h0"),
    ({"sprt": {"alpha": 0.7}}, "sprt.alpha", "a number in"),
    ({"lineup": {"tournament": ["counter"]}, "sweep": {}}, "lineup.tournament", "at least two"),
    ({"lineup": {"seats": ["threshold", "random"]}, "sweep": {}, "report": {"metric": "mean_turns", "over": None}},
     None, None),
])
def test_config_mistakes_name_key_and_expectation(changes, key, expected):
    raw = cfg(**changes)
    if "report" in raw and isinstance(raw["report"], dict):
        raw["report"] = {k: v for k, v in raw["report"].items() if v is not None}
    if key is None:
        # seats lineup of 2 for 3 players: reported on the lineup
        with pytest.raises(SenseiError, match=r"lineup\.seats"):
            load(raw)
        return
    with pytest.raises(SenseiError) as err:
        load(raw)
    msg = str(err.value)
    assert msg.startswith(f"<config>: {key}"), msg
    if expected:
        assert expected in msg, msg
    assert "\n" not in msg


def test_config_file_errors_name_the_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\nquestion = "y"\ngame = "sen"\ngames = "lots"\n[lineup]\nfocus = "threshold"\nfield = "threshold"\n')
    with pytest.raises(SenseiError, match=rf"^{bad}: games: expected an integer"):
        load(str(bad))
    broken = tmp_path / "broken.toml"
    broken.write_text("title = \n")
    with pytest.raises(SenseiError, match="not valid TOML"):
        load(str(broken))
    with pytest.raises(SenseiError, match="not found"):
        load(str(tmp_path / "missing.toml"))


def test_cli_run_reports_config_mistakes_in_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('title = "x"\nquestion = "y"\ngame = "sen"\nplayers = 9\n[lineup]\nfocus = "threshold"\n'
                   'field = "threshold"\n')
    r = CliRunner().invoke(app, ["run", str(bad), "--out", str(tmp_path / "runs")])
    assert r.exit_code == 2
    lines = [ln for ln in r.output.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: players:") and "Traceback" not in r.output
    assert not (tmp_path / "runs").exists()


def test_configs_are_data_not_code():
    # a spec that looks like code is only ever a name to look up
    with pytest.raises(SenseiError, match="unknown strategy"):
        load(cfg(lineup={"focus": "__import__('os').getcwd()", "field": "threshold"}))


@pytest.mark.parametrize("path", SHIPPED)
def test_toml_writer_round_trips_configs(path):
    with open(os.path.join(ROOT, path), "rb") as fh:
        raw = tomllib.load(fh)
    assert tomllib.loads(dumps(raw)) == raw


def test_the_demo_says_its_search_plays_below_the_default_budget():
    """make demo runs the strong-play questions at a small search budget: the report's notes say so, with
    the default, so that a demo answer is not read as one under strong play."""
    from experiments.demo import _with_search_budget

    raw = _with_search_budget("experiments/search_seats.toml", 100)
    assert raw["lineup"] == {"seats": ["counter", "counter"]}
    assert raw["sweep"]["play"]["search"] == {"seat0": "ismcts:iterations=100", "seat1": "ismcts:iterations=100"}
    assert raw["report"]["notes"].endswith("This run is make demo's: its search plays 100 iterations per decision "
                                           "against a default budget of 500, so its answer is one under weaker play "
                                           "than the question asks for.\n")
    # and its title, which claims strong play and leads the report and the index page
    assert raw["title"].endswith("(ismcts in both seats), at make demo's smaller budget (100 search iterations per "
                                 "decision against 500)")
    # at the default budget or above, nothing is added
    full = _with_search_budget("experiments/search_seats.toml", 500)
    assert "This run is make demo's" not in full["report"]["notes"] and "make demo" not in full["title"]


def test_the_demo_scales_the_senshi_meta_games_fresh_deals_with_its_deals():
    """senshi_meta plays every lineup of its meta-game again on 400 fresh deals (search.confirm); make demo
    plays it at 40 deals a lineup, and scales those fresh deals alike, so that the question's honest regrets
    do not cost the demo ten times its meta-game."""
    from experiments.config import load as load_config
    from experiments.demo import QUESTIONS, SCALED_CONFIRM, _with_confirm_scaled

    with open(os.path.join(ROOT, "experiments/senshi_meta.toml"), "rb") as fh:
        own = tomllib.load(fh)
    assert own["search"]["confirm"] == 400 and own["games"] == 400
    assert SCALED_CONFIRM <= {path for path, _ in QUESTIONS}
    raw = _with_confirm_scaled(os.path.join(ROOT, "experiments/senshi_meta.toml"), 40)
    assert raw["search"]["confirm"] == 40
    assert {k: v for k, v in raw["search"].items() if k != "confirm"} == \
        {k: v for k, v in own["search"].items() if k != "confirm"}
    assert {k: v for k, v in raw.items() if k != "search"} == {k: v for k, v in own.items() if k != "search"}
    # never below the least a confirmation takes, and a config without one is left as it is
    assert _with_confirm_scaled(os.path.join(ROOT, "experiments/senshi_meta.toml"), 5)["search"]["confirm"] == 20
    assert "confirm" not in _with_confirm_scaled(os.path.join(ROOT, "experiments/senshi_elimination.toml"), 40).get(
        "search", {})
    load_config(raw)  # the scaled config is a valid one
