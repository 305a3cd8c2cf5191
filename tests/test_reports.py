"""HTML reports: built from run folders only, self-contained, with the answer and the reproduction recipe."""
import os
import re

import polars as pl
import pytest
from typer.testing import CliRunner

from experiments import run_experiment
from experiments.cli import app
from reports import ReportError, build_report

CFG = {"title": "Report test", "question": "Which wake is best?", "game": "sen", "players": 2, "games": 20,
       "seed": 3, "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
       "sweep": {"focus.wake": [8, 12], "rules.penalty": [5, 15]}, "report": {"over": "focus.wake"}}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    res = run_experiment(CFG)
    return res.write(str(tmp_path_factory.mktemp("runs"))), res


def test_report_is_self_contained_and_states_the_answer(run_dir):
    path, res = run_dir
    page_path = build_report(path)
    page = open(page_path, encoding="utf-8").read()
    assert "Which wake is best?" in page
    for sentence in res.answer:
        assert sentence.replace("±", "±") in page
    assert len(re.findall(r'<img src="data:image/png;base64,', page)) >= 5
    assert not re.search(r'(src|href)="(https?:)?//', page)        # nothing fetched from the network
    assert "seed 3" in page and 'focus.wake' in page and "sensei run" in page
    index = open(os.path.join(os.path.dirname(path), "index.html"), encoding="utf-8").read()
    assert os.path.basename(path) + "/report.html" in index and "Report test" in index


def test_report_says_what_its_columns_mean(run_dir, tmp_path):
    # the Balance table's game metrics (Sen's wake_rate read 100% where a seat never wakes: any seat's call
    # counts) and a tournament's a and b columns went undefined
    path, _ = run_dir
    page = open(build_report(path), encoding="utf-8").read()
    balance = page[page.index('<section id="balance">'):page.index('<section id="tables">')]
    assert ("wake_rate: share of rounds ended by a WAKE UP!, whoever called it (the rest ended by the empty pile)"
            in balance and "caller_success: share of called rounds in which the caller had the fewest ravens" in balance)
    # the first-seat advantage is taken against the average seat's share (1/P of the games with a winner), as
    # the table computes it; the caption said "the fair share 1/P", which its table contradicts where games time out
    caption = " ".join(balance.split())
    assert "minus the average seat's (1/P of the games that have a winner" in caption
    assert "minus the fair share" not in caption
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 6, "seed": 3,
                          "lineup": {"tournament": ["counter", "swapper"]}})
    page = open(build_report(res.write(str(tmp_path))), encoding="utf-8").read()
    assert "a: the entrant, b: the strategy it plays against" in page
    # a self-play cell's win share is exact (the fair share by symmetry): no interval of zero width
    res = run_experiment({**CFG, "games": 6, "sweep": {"focus.wake": [10, 12]}})
    page = open(build_report(res.write(str(tmp_path / "self"))), encoding="utf-8").read()
    cells = page[page.index("<h3>Cells"):page.index("</table>", page.index("<h3>Cells"))]
    assert "wins its fair share by symmetry: its win share is exact, without an interval" in cells
    rows = [re.findall(r"<td>(.*?)</td>", r) for r in re.findall(r"<tr>(.*?)</tr>", cells)]
    head = re.findall(r"<th>(.*?)</th>", cells)
    lo = head.index("focus_win_lo")
    assert [r[lo] == "" for r in rows if r] == [True, False]  # wake 10 against wake 10, then wake 12
    from reports.html import BALANCE_METRICS
    from simcore.registry import get_game
    assert all(m.meaning for m in get_game("sen").ratio_metrics if "metric." + m.name in BALANCE_METRICS)


def test_report_reads_files_only(run_dir, monkeypatch):
    path, _ = run_dir
    import simcore.runner
    monkeypatch.setattr(simcore.runner, "play_chunk", lambda *a, **k: pytest.fail("a report played games"))
    assert os.path.isfile(build_report(path, index=False))


def test_report_errors(tmp_path):
    with pytest.raises(ReportError, match="not a run folder"):
        build_report(str(tmp_path / "nothing"))
    r = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert r.exit_code == 2 and r.output.strip().startswith("error: ") and len(r.output.strip().splitlines()) == 1
    assert "not a run folder (no manifest.json)" in r.output and "incomplete" not in r.output


@pytest.mark.parametrize("key, value, words", [
    ("seed", float("nan"), "damaged: seed is NaN, not a whole number"),  # it blamed config.toml
    ("cells", "two", 'damaged: cells is "two", not a whole number'),
    ("game", "chess", "damaged: game 'chess' is no game sensei knows"),
    ("fingerprint", [], "damaged: fingerprint is [], not an object"),
])
def test_a_damaged_manifest_is_named_as_such(run_dir, tmp_path, key, value, words):
    import json
    import shutil

    path, _ = run_dir
    copy = str(tmp_path / "copy")
    shutil.copytree(path, copy)
    m = json.load(open(os.path.join(copy, "manifest.json")))
    m[key] = value
    with open(os.path.join(copy, "manifest.json"), "w") as fh:
        json.dump(m, fh)
    with pytest.raises(ReportError, match=re.escape(words)):
        build_report(copy, index=False)


def test_a_run_folder_whose_path_is_not_utf8_gets_its_report(run_dir, tmp_path):
    # polars could not open its tables by such a path, and the page naming it could not be written
    import shutil

    path, _ = run_dir
    copy = os.path.join(str(tmp_path), os.fsdecode(b"out\xff"), os.path.basename(path))
    shutil.copytree(path, copy)
    page = open(build_report(copy), "rb").read().decode("utf-8")
    assert "Which wake is best?" in page
    from experiments.experiment import load_tables
    assert load_tables(copy)["cells"].height == 4


def test_load_run_gives_back_what_the_run_answered_its_tables_and_how_to_rerun_it(run_dir, tmp_path):
    """A saved run's answer, headline and config were in summary.json and config.toml only (load_tables gave
    the tables): load_run reads them all back, checked as a report reads them."""
    import json
    import shutil

    from experiments import load_run
    from simcore.errors import SenseiError
    path, res = run_dir
    back = load_run(path)
    assert back.answer == res.answer and back.headline == json.loads(json.dumps(res.headline, default=str))
    assert back.title == "Report test" and back.question == "Which wake is best?" and back.game == "sen"
    assert back.summary == json.loads(json.dumps(res.summary(), default=str))
    assert back.config_text == res.manifest["config_text"] and back.seed == 3
    assert back.manifest == json.load(open(os.path.join(path, "manifest.json")))
    # (a config given as a dict reruns from its copy in the folder)
    assert back.command == f"sensei run {path}/config.toml"
    assert back.size_note == res.size_note
    assert set(back.tables) == set(res.tables) | {"examples"}
    for name, df in res.tables.items():
        assert back.tables[name].equals(df), name
    assert back.cells.equals(res.cells) and back.seats.equals(res.seats)
    with pytest.raises(AttributeError, match="this run has no race table"):
        back.race
    copy = str(tmp_path / "copy")
    shutil.copytree(path, copy)
    os.unlink(os.path.join(copy, "seats.parquet"))
    with pytest.raises(SenseiError, match=r"seats.parquet is missing \(every finished run writes it"):
        load_run(copy)
    with pytest.raises(SenseiError, match="not a run folder"):
        load_run(str(tmp_path / "nothing"))
    with pytest.raises(SenseiError, match="load_run: expected a run folder's path, got 5"):
        load_run(5)


def test_report_on_an_out_folder_names_the_newest_run_inside(run_dir):
    path, _ = run_dir
    r = CliRunner().invoke(app, ["report", os.path.dirname(path)])
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1, r.output
    assert "not a run folder" in r.output and f"the newest {path}" in r.output, r.output


def test_cli_run_writes_folder_report_and_index(tmp_path):
    cfg = tmp_path / "q.toml"
    cfg.write_text('title = "CLI run"\nquestion = "Who wins?"\ngame = "sen"\nplayers = 2\ngames = 500\nseed = 1\n'
                   '[lineup]\ntournament = ["random", "threshold"]\n')
    out = tmp_path / "runs"
    r = CliRunner().invoke(app, ["run", str(cfg), "--games", "15", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "highest rated strategy: threshold" in r.output
    (run,) = [d for d in os.listdir(out) if d.startswith("q-")]
    assert os.path.isfile(out / run / "report.html") and os.path.isfile(out / "index.html")
    page = (out / run / "report.html").read_text()
    assert "Win matrix" in page and "Ratings" in page and "--games 15" in page
    assert "95% intervals clustered over deals" in page  # the run kept its per-deal values


def test_ratings_caption_says_how_the_intervals_were_made():
    import polars as pl

    from reports.html import ratings_caption
    assert "clustered over deals" in ratings_caption(pl.DataFrame({"interval": ["clustered over deals"] * 2}))
    assert "Wald 95% intervals over games" in ratings_caption(pl.DataFrame({"interval": ["Wald over games"]}))
    # a run folder written before the column was kept: Wald intervals
    assert "Wald 95% intervals over games" in ratings_caption(pl.DataFrame({"elo": [0.0]}))


@pytest.mark.parametrize("name,damage,words", [
    ("manifest.json", lambda m: {}, ["damaged run folder", "UndefinedError"]),
    ("manifest.json", lambda m: {**m, "games_total": None}, None),  # the report does not need it; the index does
    ("summary.json", lambda s: {}, ["damaged run folder", "KeyError: 'axes'"]),
    ("summary.json", lambda s: {**s, "axes": 5}, ["damaged run folder", "TypeError"]),
    ("summary.json", lambda s: [], ["damaged: a JSON object is expected, not list"]),
])
def test_a_damaged_run_folder_is_one_line_and_stays_out_of_the_index(run_dir, tmp_path, name, damage, words):
    """Files that parse but lack what a finished run writes: `sensei report` says so in one line, and the
    index of the folder beside it leaves the damaged run out instead of failing for every run there."""
    import json
    import shutil

    path, _ = run_dir
    out = tmp_path / "runs"
    bad = out / "damaged"
    shutil.copytree(path, bad)
    shutil.copytree(path, out / "good")
    with open(bad / name, encoding="utf-8") as fh:
        data = json.load(fh)
    (bad / name).write_text(json.dumps(damage(data)))
    r = CliRunner().invoke(app, ["report", str(bad)])
    lines = r.output.strip().splitlines()
    if words is None:
        assert r.exit_code == 0, r.output
    else:
        assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), r.output
        for w in words:
            assert w in lines[0], (w, lines[0])
    assert os.path.isfile(build_report(str(out / "good")))  # the index is built beside the damaged run
    index = open(out / "index.html", encoding="utf-8").read()
    assert "good/report.html" in index


def test_ratings_cells_show_whole_elo_points_alike():
    from reports.html import _cell, _units

    units = _units(["strategy", "elo", "elo_lo", "elo_hi", "win_share"])
    assert [_cell(v, c, units[c]) for c, v in (("elo", -937.053), ("elo_lo", -1077.2), ("elo_hi", 12.5))] == \
        ["-937", "-1,077", "12"]
    assert _cell(0.25, "win_share", units["win_share"]) == "25.00%"


@pytest.mark.parametrize("table", ["turns", "seats", "cells", "examples"])
def test_report_on_a_run_folder_missing_a_table_names_it(run_dir, tmp_path, table):
    """A finished run writes every table: one deleted is named in one line (exit 2), never a polars error
    about a column, nor a report that silently leaves out its figures."""
    import shutil
    path, _ = run_dir
    copy = tmp_path / "run"
    shutil.copytree(path, copy)
    for name in ("report.html",):
        if (copy / name).exists():
            (copy / name).unlink()
    (copy / f"{table}.parquet").unlink()
    r = CliRunner().invoke(app, ["report", str(copy)])
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert lines[0].startswith("error: ") and f"{table}.parquet is missing" in lines[0], lines
    assert "ColumnNotFound" not in lines[0] and not (copy / "report.html").exists()


@pytest.mark.parametrize("edit", ["value", "seed", "games", "toml"])
def test_report_refuses_a_config_copy_that_is_not_the_runs(run_dir, tmp_path, edit):
    """The report shows config.toml as the exact configuration: a copy edited after the run (another value,
    another seed, or no longer TOML) is refused in one line (exit 2), not shown beside the other run's
    tables. A comment added changes nothing."""
    import shutil
    import tomllib
    path, _ = run_dir
    copy = tmp_path / "run"
    shutil.copytree(path, copy)
    cfg = copy / "config.toml"
    text = cfg.read_text(encoding="utf-8")
    cfg.write_text("# a note of the designer's\n" + text, encoding="utf-8")
    assert CliRunner().invoke(app, ["report", str(copy)]).exit_code == 0
    raw = tomllib.loads(text)
    if edit == "value":
        changed = text.replace(raw["title"], raw["title"] + " (edited)")
    elif edit == "seed":
        changed = f"seed = {raw.get('seed', 0) + 1}\n" + "\n".join(ln for ln in text.splitlines()
                                                                  if not ln.startswith("seed"))
    elif edit == "games":  # (the digest leaves games out, which --games may override: shown as it stood)
        changed = f"games = {raw['games'] + 10}\n" + "\n".join(ln for ln in text.splitlines()
                                                               if not ln.startswith("games"))
    else:
        changed = text + "\n[[[\n"
    assert changed != text
    cfg.write_text(changed, encoding="utf-8")
    r = CliRunner().invoke(app, ["report", str(copy)])
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert lines[0].startswith("error: ") and "config.toml" in lines[0] and "not the config this run" in lines[0], lines


def test_balance_tests_a_groups_cells_together():
    """A group's seat balance p is its cells' chi-square tests taken together (the smallest p times the
    number tested, at most 1), not the smallest p alone, which rejects far more often than 5% among many
    balanced cells; a group with no cell tested shows none."""
    import polars as pl

    from reports.html import _balance
    cells = pl.DataFrame({"games": [100] * 5, "seat0_win_share": [.5, .4, .6, .5, .5],
                          "seat_advantage": [0., -.1, .1, 0., 0.], "seat_spread": [.1, .2, .2, .1, .1],
                          "mean_turns": [10., 11., 12., 12., 12.], "timeouts": [0] * 5,
                          "seat_balance_p": [0.02, 0.5, None, 0.3, 0.4], "players": [2, 2, 3, 4, 4]})
    page = _balance(cells, ["players"])[0]
    rows = re.findall(r"<tr><td>(\dp)</td>(.*?)</tr>", page)
    last = {g: re.findall(r"<td>(.*?)</td>", r)[-2:] for g, r in rows}
    assert last == {"2p": ["0.04", "2"], "3p": ["", "0"], "4p": ["0.6", "2"]}, last  # and how many cells it tests


def test_report_requires_the_tables_its_manifest_lists(run_dir, tmp_path):
    """manifest.json lists the tables the run wrote (the answer's own among them): one deleted is named in
    one line; a run folder made before the list was kept is read as before (its optional tables may lack)."""
    import json
    import shutil
    path, res = run_dir
    man = json.load(open(os.path.join(path, "manifest.json"), encoding="utf-8"))
    assert set(man["tables"]) == set(res.tables) | {"examples"}
    copy = tmp_path / "run"
    shutil.copytree(path, copy)
    (copy / "examples.parquet").unlink()
    r = CliRunner().invoke(app, ["report", str(copy)])
    assert r.exit_code == 2 and "examples.parquet is missing (the run wrote it, manifest.json says" in r.stderr
    del man["tables"]
    (copy / "manifest.json").write_text(json.dumps(man), encoding="utf-8")
    assert CliRunner().invoke(app, ["report", str(copy)]).exit_code == 0


@pytest.mark.parametrize("answer", ["effect", "balance", "summary"])
def test_a_rule_value_of_none_is_shown_as_none_and_reported(tmp_path, answer):
    """A sweep over a rule option with the value none (Fan & Mallet's match_points) names it "none" in the
    sentences and builds its report; the plots' group labels used to be null, which failed the report."""
    cfg = {"title": "none", "question": "Does a match change the start?", "game": "fan-and-mallet", "games": 12,
           "seed": 5, "lineup": {"seats": ["counter", "counter"]},
           "sweep": {"rules.match_points": ["none", 3]}, "report": {"answer": answer}}
    if answer == "effect":
        cfg["report"].update(over="rules.match_points", baseline="none")
    res = run_experiment(cfg)
    text = " ".join(res.answer)
    assert "match_points none" in text and "None" not in text, text
    page = open(build_report(res.write(str(tmp_path)), index=False), encoding="utf-8").read()
    assert "match_points none" in page


def test_a_match_is_named_a_match():
    """With match_points one simulated game is a match: its length and shares say so."""
    cfg = {"title": "m", "question": "q", "game": "fan-and-mallet", "games": 12, "seed": 5,
           "lineup": {"seats": ["counter", "counter"]}, "sweep": {"rules.match_points": ["none", 3]},
           "report": {"answer": "effect", "over": "rules.match_points", "baseline": "none"}}
    text = " ".join(run_experiment(cfg).answer)
    assert "match_points none: game length" in text and "match_points 3: match length" in text
    assert "length (a match against a game)" in text
    cfg["report"] = {"answer": "balance", "over": "rules.match_points", "per_game": True}
    cfg["sweep"] = {"rules.match_points": [3, 5]}
    assert "% of matches over the 2 match_points" in " ".join(run_experiment(cfg).answer)


def test_the_strategies_table_says_what_each_strategy_plays():
    # a designer read Fan & Mallet's `strongest` as the strongest player: it is a naive reference policy
    from reports.html import _spec_table, _what_it_plays

    assert _what_it_plays("fan-and-mallet", "strongest").startswith("Reference policy strongest (deterministic)")
    assert _what_it_plays("sen", "threshold:wake=8").startswith("Reference policy: wake when the own estimate")
    assert _what_it_plays("sen", "nosuch.py:Mine") == "" and _what_it_plays(None, "threshold") == ""
    table = pl.DataFrame({"label": ["strongest"], "full spec": ["strongest"]})
    assert "<th>what it plays</th>" in _spec_table(table, "fan-and-mallet")
    # the whole first sentence: Sen's callers go on past "WAKE UP!" to say when they call
    assert _what_it_plays("sen", "watcher").endswith("or is below every opponent's by margin and at most cap.")
    # a long one (Senshi's denier) shows its first words, the rest one click away, nothing cut off
    from reports.html import _plays_cell
    text = _what_it_plays("senshi", "denier")
    cell = _plays_cell(text)
    assert len(text) > 320 and cell.startswith("<details><summary>Deny the opponents")
    import html as _html
    head, rest = re.match(r"<details><summary>(.*) \.\.\.</summary>(.*)</details>$", cell).groups()
    assert _html.unescape(head) + " " + _html.unescape(rest) == text
    # the description wraps (left-aligned), and a long spec breaks between its parameters
    page = _spec_table(pl.DataFrame({"label": ["guard"], "full spec": ["guard:margin=0,min_gain=2,late=8"]}), "senshi")
    assert "<td class='plays'>" in page and "guard:margin=0,<wbr>min_gain=2,<wbr>late=8" in page


def test_index_folds_the_earlier_runs_of_a_question_under_its_newest(run_dir, tmp_path):
    """Repeated runs of one question (the same game, run folder stem and title; its question may be reworded
    between runs) make one entry: the newest run with its answer, the earlier ones folded under it with their
    links, and an earlier answer that differs shown."""
    import json
    import shutil

    from reports import build_index

    path, _ = run_dir
    build_report(path, index=False)  # the copies hold a report whatever ran before (the links go to reports)
    out = tmp_path / "runs"
    old, new, same = "report_test-20260101-000000", "report_test-20260301-000000", "report_test-20260201-000000-2"
    other, named = "report_test-20260215-000000", "another-20260216-000000"
    for name, started, changes in [
            (old, "2026-01-01T00:00:00+00:00", {"headline": ["an older answer"], "question": "an older wording"}),
            (new, "2026-03-01T00:00:00+00:00", {}), (same, "2026-02-01T00:00:00+00:00", {}),
            (other, "2026-02-15T00:00:00+00:00", {"title": "Another question"}),  # the same config, a new title
            (named, "2026-02-16T00:00:00+00:00", {})]:  # another config of the same title
        shutil.copytree(path, out / name)
        man = json.loads((out / name / "manifest.json").read_text())
        (out / name / "manifest.json").write_text(json.dumps({**man, "started": started}))
        summ = json.loads((out / name / "summary.json").read_text())
        (out / name / "summary.json").write_text(json.dumps({**summ, **changes}))
    index = open(build_index(str(out)), encoding="utf-8").read()
    assert "5 run(s) of 3 question(s)" in index
    rows = re.findall(r'<tr class="run">\s*<td><a href="([\w-]+)/report.html">', index)
    assert rows == [new, named, other]  # the newest question first, each by its newest run
    folded = index[index.index('<details class="earlier-runs">'):]
    folded = folded[:folded.index("</details>")]
    assert "2 earlier run(s) of this question" in folded
    assert folded.index(f'href="{same}/report.html"') < folded.index(f'href="{old}/report.html"')
    assert "an older answer" in folded and folded.count("the same answer") == 1
    assert index.count('<details class="earlier-runs">') == 1  # the other questions ran once
    # an earlier run whose headline is the same but whose answer in full differs says so
    summ = json.loads((out / same / "summary.json").read_text())
    (out / same / "summary.json").write_text(json.dumps({**summ, "answer": summ["answer"] + ["one more"]}))
    index = open(build_index(str(out)), encoding="utf-8").read()
    assert "the same answer" not in index and "the same headline; the answer in full differs" in index
    # a run played with fewer deals than its config asks says so in the index too, as in its report
    assert "This run was played with games = " not in index
    man = json.loads((out / new / "manifest.json").read_text())
    (out / new / "config.toml").write_text((out / new / "config.toml").read_text().replace("games =", "games = 10000 #"))
    (out / new / "manifest.json").write_text(json.dumps({**man, "games_override": 100}))
    index = open(build_index(str(out)), encoding="utf-8").read()
    assert index.count("This run was played with games = 100 (given for this run), where its config asks for games = 10000:") == 1

def test_a_report_explains_the_words_its_answer_uses():
    from reports.html import answer_terms

    terms = dict(answer_terms(["symmetric equilibrium: wake=8 (a weak fixed point; the race's test, corrected for "
                               "picking among 22 settings; Nash (linear program) of the meta-game; regrets below 0"]))
    assert list(terms) == ["fixed point", "weak fixed point", "the race", "corrected for picking among N settings",
                           "meta-game", "Nash", "regret"]
    assert "its own best response" in terms["fixed point"]
    # a regret on the deals that found the mix flatters it (a 2-player Senshi meta-game read counter's regret
    # -1.2% [-2.7%, +0.1%] against a racer mix where counter wins 50.8% of 160,000 games against racer)
    assert "Measured on the deals that found the mix, it flatters the mix" in terms["regret"]
    assert "fresh deals (search.confirm)" in terms["regret"]
    # a word inside another is not that word: "below" holds no Elo
    assert answer_terms(["the fair share lies below it"]) == []
    assert [t for t, _ in answer_terms(["highest rated swapper (Elo +89 ± 10 vs counter)"])] == ["Elo, Bradley-Terry"]
    # a paired interval and a test of the seats, as best and turn_order write them
    assert [t for t, _ in answer_terms(["next 16: -1.5%, paired 95% CI [-3.6%, +0.6%]; chi-square test of equal "
                                        "seats p = 0.57"])] == ["paired difference", "chi-square test"]
    # the focus and the field, which tables and figures name ("% of the focus's games")
    assert [t for t, _ in answer_terms(["most wins: guard (focus win share 51.7%) against the field counter"])] \
        == ["focus, field"]


def test_a_search_members_own_name_links_to_the_row_of_the_configs_label():
    """A family's member wake=10 is the config's field threshold (threshold:wake=10): the tables name it
    wake=10 (its path, its regrets) and the Strategies table had only "threshold", so wake=10 linked nowhere."""
    from reports.html import strategy_index

    labels = {"threshold:wake=8": "wake=8", "threshold:wake=10": "threshold", "threshold": "threshold"}
    members = {"threshold:wake=8": "wake=8", "threshold:wake=10": "wake=10"}
    index, table = strategy_index(labels, members)
    assert index["wake=10"] == ("wake=10", 1) and index["threshold"] == ("threshold", 1)
    assert table.rows() == [("wake=8", "threshold:wake=8"), ("threshold (also wake=10)", "threshold:wake=10")]
    # without a search's names, as before
    assert strategy_index(labels)[1]["label"].to_list() == ["wake=8", "threshold"]


def test_distribution_figures_keep_a_searchs_rule_settings_apart():
    """sen_penalty_design drew the games of every penalty as one series "all" (28 to 172 turns); the options
    a named case sets are told apart by the case's own axis and add nothing."""
    import polars as pl

    from reports.html import _searched_rules

    design = pl.DataFrame({"cell": range(4), "rules.penalty": [0, 0, 20, 20], "focus.wake": [8, 10, 8, 10]})
    assert _searched_rules(design, [], []) == ["rules.penalty"]
    cases = pl.DataFrame({"cell": range(4), "players": [2, 2, 4, 4], "variant": ["base", "ravens"] * 2,
                          "rules.ravens_not_scary": [False, True] * 2})
    assert _searched_rules(cases, ["players", "variant"], []) == []


def test_a_run_with_fewer_deals_than_its_config_says_so_at_its_answer(tmp_path):
    """make demo plays its slow questions with --games well below their configs' own (senshi_meta: 40 where
    the config asks 400): the report said so only in its Reproduce section, while its intervals were some
    3.2 times as wide."""
    from reports.html import run_size_note
    text = 'title = "t"\ngames = 400\n'
    assert run_size_note(text, {"games_override": 40}) == (
        "This run was played with games = 40 (given for this run), where its config asks for games = 400: its "
        "intervals are about 3.2 "
        "times as wide as a run of the config as written would give, and a figure not clearly different from "
        "another here may be told apart there.")
    for m in ({"games_override": 400}, {"games_override": 800}, {"games_override": None}, {}):
        assert run_size_note(text, m) is None
    assert run_size_note("games = [", {"games_override": 40}) is None
    # a config without games asks for the default 1,000; with [sprt], games is the deals between looks
    # (a size given for the run, by --games or run_experiment's games argument, is named by neither: it said
    # "--games" to a Python session, and "asks for games = 1000" of a config that sets no games)
    assert "where its config asks for games = 1000 (the default: it sets none): " in run_size_note(
        'title = "t"\n', {"games_override": 100})
    assert run_size_note(text + "[sprt]\nh1 = 0.05\n", {"games_override": 40}) is None
    res = run_experiment(CFG, games=10)
    page = open(build_report(res.write(str(tmp_path))), encoding="utf-8").read()
    assert "played with games = 10 (given for this run), where its config asks for games = 20:" in page
    # and the Python API gives it (it was only in the report and sensei run's output)
    assert res.size_note.startswith("This run was played with games = 10 (given for this run), where its config asks "
                                    "for games = 20: ")
    assert run_experiment(CFG).size_note is None
    # and sensei run says it where it prints the answer, before it (it said so only in the report)
    cfg = tmp_path / "small.toml"
    cfg.write_text('title = "Report test"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 20\nseed = 3\n'
                   '[lineup]\nfocus = "threshold"\nfield = "threshold:wake=10"\n[sweep]\n"focus.wake" = [8, 12]\n')
    for extra, said in ((["--games", "10"], True), ([], False)):
        r = CliRunner().invoke(app, ["run", str(cfg), "--no-progress", "--no-report", "--out", str(tmp_path / "cli")] + extra)
        assert r.exit_code == 0, r.output
        lines = r.output.splitlines()
        k = next(i for i, line in enumerate(lines) if line.startswith("Report test: "))  # after the grid's lines
        assert lines[k + 1].startswith("  This run was played with games = 10 (given for this run), where its config "
                                       "asks for games = 20") == said


IDLE = """
import dataclasses
from typing import ClassVar
from strategies.base import param
from strategies.sen import Threshold


@dataclasses.dataclass(frozen=True)
class Idle(Threshold):
    name: ClassVar[str] = "idle"
    unused: int = param(1, "a parameter that changes nothing", min=0)
"""


def _answer_table(page: str) -> list[dict]:
    sec = page[page.index('id="answer-table"'):]
    table = sec[:sec.index("</table>")]
    head = re.findall(r"<th>(.*?)</th>", table)
    return [dict(zip(head, re.findall(r"<td>(.*?)</td>", r))) for r in re.findall(r"<tr>(.*?)</tr>", table)
            if "<td>" in r]


def test_best_names_no_best_where_every_value_plays_the_same_games(tmp_path):
    """A parameter that changes nothing: every value gives the same win share on every deal. The answer said
    "best unused: 1" and its table "+0.0 [+0.0, +0.0]"; it now says that none is best, and so does the table."""
    path = tmp_path / "idle.py"
    path.write_text(IDLE)
    cfg = {"title": "t", "question": "q", "game": "sen", "games": 12, "seed": 1,
           "lineup": {"focus": "idle", "field": "threshold"},
           "sweep": {"focus.unused": [1, 2, 3], "players": [2, 3, 4, 5]},
           "report": {"answer": "best", "over": "focus.unused"}}
    from strategies.registry import register_files
    try:
        res = run_experiment(cfg, strategy_files=[str(path)])
    finally:
        register_files([])  # (a file registered in this process would be named by the next runs' commands)
    assert res.answer[0].startswith("no best unused for 2 players: every value gives the same win share on every "
                                    "deal, 50.0%"), res.answer
    assert res.headline == ["Every value of unused gives the same win share on every deal in every group: none is "
                            "best."]
    rows = _answer_table(open(build_report(res.write(str(tmp_path / "runs")), index=False), encoding="utf-8").read())
    assert len(rows) == 4 and all(r["best unused"] == "none: every value the same" for r in rows), rows
    assert all(r["next minus best (same deals) %"] == "the same on every deal" for r in rows), rows


def test_best_gives_the_fair_share_by_symmetry_in_its_table_without_an_interval(tmp_path):
    """The sentence gives the field's own value's share without an interval; the answer table gave it
    "33.3 [33.3, 33.3]", which reads as a certainty measured."""
    cfg = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 40, "seed": 5,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"}, "sweep": {"focus.wake": [7, 10]}}
    res = run_experiment(cfg)
    assert res.answer[0].startswith("best wake: 10, win share 33.3% (the fair share by symmetry")
    assert res.answer[0].endswith(", clearly worse)")  # a clear lead is said, as an unclear one is
    rows = _answer_table(open(build_report(res.write(str(tmp_path / "runs")), index=False), encoding="utf-8").read())
    assert rows[0]["win share %"] == "33.3 (by symmetry)", rows


def test_a_value_that_means_something_of_its_own_is_named_on_the_plot(tmp_path):
    """threshold's wake -1 never calls: on a numeric axis it read as a wake like the others. Its word is kept
    in the summary from the parameter (param(names=...)) and written beside its tick and in the caption."""
    cfg = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 6, "seed": 5,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"}, "sweep": {"focus.wake": [-1, 7, 10]}}
    res = run_experiment(cfg)
    assert res.summary()["value_names"] == {"-1": "never"}
    page = open(build_report(res.write(str(tmp_path / "runs")), index=False), encoding="utf-8").read()
    caps = re.findall(r"<figcaption>(.*?)</figcaption>", page, re.S)
    assert caps[0].endswith("; dotted lines: fair share 1/P; wake -1: never"), caps[0]
    # and in the answer table, as best or next value
    two = run_experiment({**cfg, "sweep": {"focus.wake": [-1, 10]}})
    page = open(build_report(two.write(str(tmp_path / "two")), index=False), encoding="utf-8").read()
    lead = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", re.findall(r"<table.*?</table>", page, re.S)[0]))
    assert " -1 (never) " in lead and " 10 " in lead, lead
    # a parameter without such words, or another axis, has none
    other = run_experiment({**cfg, "lineup": {"focus": "threshold:wake=8", "field": "threshold"},
                            "sweep": {"rules.penalty": [5, 15]}})
    assert other.summary()["value_names"] == {}
