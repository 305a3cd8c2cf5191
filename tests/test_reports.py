"""HTML reports: built from run folders only, self-contained, with the answer and the reproduction recipe."""
import os
import re

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


def test_cli_run_writes_folder_report_and_index(tmp_path):
    cfg = tmp_path / "q.toml"
    cfg.write_text('title = "CLI run"\nquestion = "Who wins?"\ngame = "sen"\nplayers = 2\ngames = 500\nseed = 1\n'
                   '[lineup]\ntournament = ["random", "threshold"]\n')
    out = tmp_path / "runs"
    r = CliRunner().invoke(app, ["run", str(cfg), "--games", "15", "--out", str(out), "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "strongest: threshold" in r.output
    (run,) = [d for d in os.listdir(out) if d.startswith("q-")]
    assert os.path.isfile(out / run / "report.html") and os.path.isfile(out / "index.html")
    page = (out / run / "report.html").read_text()
    assert "Win matrix" in page and "Ratings" in page and "--games 15" in page
