"""The command line through typer's CliRunner: the play contract, listings and one-line errors."""
import json
import os
import textwrap

import pytest
from typer.testing import CliRunner

from experiments.cli import app

runner = CliRunner()
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(*args):
    return runner.invoke(app, list(args))


def test_play_json_contract_sen():
    r = run("play", "sen", "--players", "4", "--strategy", "threshold:wake=10", "--games", "300", "--seed", "1", "--json")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    # the contract's fields, in order, unchanged; then the added intervals
    assert list(out)[:11] == ["game", "players", "games", "seed", "strategies", "rules", "win_share",
                              "win_share_ci95", "mean_turns", "timeouts", "metrics"]
    assert list(out)[11:] == ["mean_turns_ci95", "timeout_share", "timeout_share_ci95", "mean_score",
                              "mean_score_ci95", "ci95"]
    assert out["game"] == "sen" and out["players"] == 4 and out["games"] == 300 and out["seed"] == 1
    assert out["strategies"] == ["threshold:wake=10"] * 4
    assert out["rules"] == {"penalty": 5, "caller_tie": "zero", "target": 100, "rounds": None,
                            "ravens_not_scary": False, "go_all_in": False, "know_what_i_have": False}
    assert len(out["win_share"]) == 4 and abs(sum(out["win_share"]) - 1) < 1e-9
    for (lo, hi), w in zip(out["win_share_ci95"], out["win_share"]):
        assert lo < w < hi
    m = out["metrics"]
    for key in ["mean_rounds", "mean_round_turns", "wake_rate", "caller_success", "mean_dream_total", "mean_score"]:
        assert key in m
    assert len(m["mean_score"]) == 4
    assert out["mean_turns"] == pytest.approx(m["mean_rounds"] * m["mean_round_turns"])
    assert out["timeouts"] == 0


def test_play_json_same_for_any_jobs_and_rules_applied():
    a = json.loads(run("play", "sen", "--games", "200", "--seed", "3", "--json", "--rule", "penalty=15",
                       "--rule", "rounds=1").stdout)
    b = json.loads(run("play", "sen", "--games", "200", "--seed", "3", "--json", "--rule", "penalty=15",
                       "--rule", "rounds=1", "--jobs", "2", "--chunk-size", "50").stdout)
    assert a == b
    assert a["rules"]["penalty"] == 15 and a["metrics"]["mean_rounds"] == 1.0


def test_play_per_seat_strategies_and_table():
    r = run("play", "sen", "-p", "3", "-s", "threshold:wake=8", "-s", "random:p_wake=0.2", "-s", "threshold", "-n", "100")
    assert r.exit_code == 0, r.output
    assert "threshold:wake=8" in r.stdout and "random:p_wake=0.2" in r.stdout and "win share" in r.stdout


def test_user_strategy_file(tmp_path):
    f = tmp_path / "my_sen.py"
    f.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        import numpy as np
        from strategies.sen import Threshold
        from strategies.base import param

        @dataclasses.dataclass(frozen=True)
        class Cautious(Threshold):
            """Threshold with a lower default wake value."""
            wake: int = param(7, "wake value")
    '''))
    spec = f"{f}:Cautious:wake=8"
    r = run("play", "sen", "-s", spec, "-n", "200", "--json", "--jobs", "2", "--chunk-size", "100")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["strategies"][0] == f"{f}:Cautious:wake=8"
    ref = json.loads(run("play", "sen", "-s", "threshold:wake=8", "-n", "200", "--json").stdout)
    assert out["win_share"] == ref["win_share"] and out["metrics"] == ref["metrics"]


@pytest.mark.parametrize("args, needle", [
    (["play", "chess"], "unknown game"),
    (["play", "sen", "-s", "nosuch"], "unknown strategy"),
    (["play", "sen", "-s", "threshold:wakes=3"], "unknown parameter"),
    (["play", "sen", "-s", "threshold:wake=high"], "expected an integer"),
    # a ':' with nothing after it is a parameter list left empty, refused as 'threshold:,wake=8' is
    (["play", "sen", "-s", "threshold:"], "strategy threshold: nothing after its ':'"),
    (["play", "sen", "-s", "threshold:,wake=8"], "parameter '' is not key=value"),
    (["play", "sen", "-s", "examples/strategies/sen_threshold.py:Threshold: "],
     "strategy examples/strategies/sen_threshold.py:Threshold: nothing after"),
    (["play", "sen", "--players", "6"], "2-5 players"),
    (["play", "sen", "--players", "1"], "2-5 players"),
    (["play", "fan-and-mallet", "--players", "3"], "fan-and-mallet is for 2 players, got 3"),
    (["play", "sen", "--rule", "pennalty=3"], "unknown rule option"),
    (["play", "sen", "--rule", "penalty"], "KEY=VALUE"),
    (["play", "sen", "--rule", "go_all_in=perhaps"], "true or false"),
    (["play", "sen", "--games", "0"], "games"),
    (["play", "sen", "--games", "many"], "--games"),
    (["play", "sen", "--jobs", "0"], "jobs"),
    (["play", "sen", "--jobs", "100000"], "jobs must be at most"),
    (["play", "sensu", "--rule", "max_turns=999999999999"], "sensu.max_turns: must be at most 100,000"),  # never thousands of worker processes
    (["run", "experiments/sen_variants.toml", "--jobs", "100000"], "jobs must be at most"),
    (["run", "experiments/sen_variants.toml", "--games", "0"], "sen_variants.toml: --games: expected an integer from 1"),
    (["play", "sen", "--jobs", "100000", "--scheduler", "tcp://127.0.0.1:1"], "jobs must be at most 4,096 with a dask scheduler"),
    (["play", "sen", "--jobs", "4096", "--backend", "multiprocessing"], "jobs must be at most"),
    (["play", "sen", "-p", "3", "-s", "random", "-s", "threshold"], "2 strategies given for 3 seats"),
    (["play", "sen", "-s", "./nope.py:X"], "not found"),
    (["play", "sen", "-s", "/dev/null:X"], "strategy file '/dev/null': is not a regular file"),
    (["play", "sen", "--strategies", "tests"], "--strategies 'tests': is a folder, not a Python file"),
    (["run", "tests"], "tests: is a folder, not a config file"),
    (["run", "experiments/sen_variants.toml", "--resume", ""], "--resume needs the folder of an unfinished run"),
    (["run", "experiments/sen_variants.toml", "--out", ""], "--out needs a folder to write the run folder into"),
    (["strategies", "go"], "unknown game"),
    (["play", "sen", "--frobnicate"], "No such option"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    r = run(*args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.stderr
    assert "Traceback" not in r.output


def test_short_help_and_version():
    """``-h`` is ``--help`` for sensei and every command; ``--version`` prints the installed version and the
    sources' fingerprint (the compiled-code cache's name)."""
    from importlib.metadata import version

    from simcore.compiled import source_fingerprint

    for args in ([], ["play"], ["run"], ["check"]):
        short, long = run(*args, "-h"), run(*args, "--help")
        assert short.exit_code == 0 and short.stdout == long.stdout and "Usage: " in short.stdout
    r = run("--version")
    assert r.exit_code == 0 and r.stdout == f"sensei {version('sensei')} (engine and strategy sources {source_fingerprint()})\n"


def test_a_choice_in_other_capitals_is_that_choice():
    """As game names are read in any capitals, so are the words of a rule option or parameter with a list
    of choices: ``caller_tie=Count`` plays the games of ``caller_tie=count``; a word that is no choice in
    any capitals is still refused."""
    from simcore.options import field_value
    from strategies.sensu import Focus

    base = ["play", "sen", "-p", "3", "-n", "30", "--json"]
    upper, lower = run(*base, "--rule", "caller_tie=Count"), run(*base, "--rule", "caller_tie=count")
    assert upper.exit_code == 0 and json.loads(upper.stdout) == json.loads(lower.stdout)
    assert json.loads(upper.stdout)["rules"]["caller_tie"] == "count"
    assert field_value(Focus, "pair", "AUTO") == "auto"
    r = run(*base, "--rule", "caller_tie=Counts")
    assert r.exit_code == 2 and "expected one of zero, count, got 'Counts'" in r.stderr


def test_listings():
    r = run("games")
    assert r.exit_code == 0 and "sen" in r.stdout and "penalty=5" in r.stdout and "know_what_i_have=false" in r.stdout
    r = run("strategies", "sen")
    assert r.exit_code == 0 and "threshold:wake=10" in r.stdout and "random:p_wake=0.1" in r.stdout


def test_strategies_listing_shows_each_parameters_allowed_values(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from strategies.sen import Threshold
        from strategies.base import param

        @dataclasses.dataclass(frozen=True)
        class Peeker(Threshold):
            """Threshold that peeks while it knows little."""
            name: ClassVar[str] = "peeker"
            game: ClassVar[str] = "sen"
            max_unknown: int = param(1, "unknown lands it accepts before peeking", min=0, max=8)
            mood: str = param("calm", "how it plays", choices=("calm", "bold"))
    '''))
    r = run("strategies", "sen", "--strategies", str(f))
    assert r.exit_code == 0, r.output
    assert "- max_unknown (int, default 1, from 0 to 8): unknown lands it accepts before peeking" in r.stdout
    assert "- mood (str, default calm, one of: calm, bold): how it plays" in r.stdout
    r = run("strategies", "fan-and-mallet")
    assert r.exit_code == 0, r.output
    closer = r.stdout.split("\ncloser:")[1].split("\nkeeper:")[0]
    assert "- feed (float, default 0.7, at least 0.0): " in closer
    assert "- min_bonus (int, default 3, from 0 to 5): " in r.stdout


def test_progress_bar_on_stderr_only_after_the_delay(capsys, monkeypatch):
    from simcore.runner import _Progress

    quiet = _Progress(100, "sen 4p", enabled=True, delay=60.0)
    quiet.advance(50)
    quiet.close()
    assert capsys.readouterr().err == ""
    monkeypatch.setenv("FORCE_COLOR", "1")  # stderr as a terminal: the bar
    bar = _Progress(100, "sen 4p", enabled=True, delay=0.0)
    bar.advance(50)
    bar.advance(50)
    bar.close()
    err = capsys.readouterr().err
    assert "sen 4p" in err and "games/s" in err and "100/100" in err
    # its elapsed time counts from the run's start, not from when the bar appeared (it ran the delay behind)
    late = _Progress(100, "sen 4p", enabled=True, delay=0.0)
    late.t0 -= 100.0   # a run 100 s old
    late.advance(10)
    assert 100.0 <= late.bar.tasks[0].elapsed < 160.0, late.bar.tasks[0].elapsed
    late.close()
    from experiments.engine import CellProgress
    cells = CellProgress(4, 800, enabled=True, label="sen: 4 cells", delay=0.0)
    cells.t0 -= 100.0
    cells.update(games=200, cells=1)
    assert 100.0 <= cells.bar.tasks[0].elapsed < 160.0, cells.bar.tasks[0].elapsed
    cells.close()
    capsys.readouterr()


def test_progress_where_stderr_is_no_terminal_is_plain_lines_now_and_then(capsys, monkeypatch):
    """On a log file or a pipe rich drew its bar only once, when the run stopped: a run of hours in the
    background said nothing until its end. There the progress is a plain line after 30 s, then one a minute,
    and a last one when the run is complete."""
    from simcore.runner import ProgressLines, _Progress

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TTY_COMPATIBLE", "0")
    assert (ProgressLines.FIRST, ProgressLines.EVERY) == (30.0, 60.0)
    p = _Progress(4_000_000, "sen 4p", enabled=True, delay=0.0, first=0.0, every=0.0)
    p.advance(1_000_000)
    p.advance(3_000_000)
    p.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("sen 4p: 1,000,000 of 4,000,000 games (25.0%), ") and " games/s, " in lines[0]
    assert " elapsed, about " in lines[0] and lines[0].endswith(" left"), lines[0]
    assert lines[1].startswith("sen 4p: 4,000,000 of 4,000,000 games (100.0%), ") and lines[1].endswith(" elapsed")
    # interrupted: no last line (the one line that follows says how far it got)
    p = _Progress(100, "sen 4p", enabled=True, delay=0.0, first=0.0, every=3600.0)
    p.advance(50)
    p.close(interrupted=True)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("sen 4p: 50 of 100 games (50.0%)"), lines
    # a run shorter than the first line's wait stays quiet, to its end
    p = _Progress(100, "sen 4p", enabled=True, delay=0.0, first=60.0)
    p.advance(100)
    p.close()
    assert capsys.readouterr().err == ""
    # sensei run's cells: the same lines
    from experiments.engine import CellProgress
    monkeypatch.setattr(ProgressLines, "FIRST", 0.0)
    monkeypatch.setattr(ProgressLines, "EVERY", 3600.0)
    c = CellProgress(4, 800, enabled=True, label="sen: 4 cells", delay=0.0)
    c.update(games=200, cells=1)
    c.update(games=600, cells=3)
    c.close()
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith("sen: 4 cells: cells 1/4, 200 of 800 games (25.0%), ") and lines[0].endswith(" left")
    assert lines[1].startswith("sen: 4 cells: cells 4/4, 800 of 800 games (100.0%), ") and lines[1].endswith(
        " elapsed"), lines


def test_a_write_the_system_refuses_is_one_line(tmp_path):
    # a folder where the index page goes: the run's files are kept, and the line says how to write the report
    out = tmp_path / "runs"
    (out / "index.html").mkdir(parents=True)
    cfg = tmp_path / "small.toml"
    cfg.write_text('title = "t"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 10\n'
                   '[lineup]\nfocus = "threshold"\nfield = "threshold"\n')
    r = run("run", str(cfg), "--out", str(out), "--no-progress")
    assert r.exit_code == 1, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert len(lines) == 1 and lines[0].startswith(f"error: could not use {out / 'index.html'}: Is a directory; "
                                                   "the run's results are kept in "), r.stderr
    folder = lines[0].split("the run's results are kept in ")[1].split(";")[0]
    assert os.path.exists(os.path.join(folder, "cells.parquet"))
    (out / "index.html").rmdir()
    assert run("report", folder).exit_code == 0


def test_a_full_standard_output_is_one_line():
    import subprocess
    import sys
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-m", "experiments.cli", "play", "sen", "-n", "10", "--json"],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=300, cwd=ROOT)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert r.returncode == 1 and lines == ["error: could not write the output: No space left on device"], r.stderr


@pytest.mark.parametrize("args", [["play", "sen", "-n", "10"], ["strategies", "sen"]])
def test_a_reader_that_stops_reading_or_a_closed_output_is_one_line(args):
    """| head -c1 ended the command with status 1 and nothing said (click's and rich's own handling of a
    broken pipe, rich's for the table of play); a closed standard output (cmd >&-) lost the output with
    status 0."""
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "experiments.cli", *args]
    r, w = os.pipe()
    p = subprocess.Popen(cmd, stdout=w, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    os.close(w)
    os.close(r)  # the reader is gone before the command writes
    _, err = p.communicate(timeout=300)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert p.returncode == 1 and lines == ["error: could not write the output: Broken pipe (the reader stopped "
                                           "reading)"], (p.returncode, err)
    closed = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            timeout=300, preexec_fn=lambda: os.close(1))
    lines = [ln for ln in closed.stderr.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert closed.returncode == 1 and lines == ["error: could not write the output: the standard output is closed"], \
        closed.stderr


def test_an_environment_numba_cannot_start_with_is_one_line():
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-m", "experiments.cli", "play", "sen", "-n", "5"], capture_output=True,
                       text=True, cwd=ROOT, timeout=300, env={**os.environ, "NUMBA_NUM_THREADS": "0"})
    assert r.returncode == 2 and r.stderr.splitlines() == [
        "error: numba (sensei's compiler) cannot start with the environment's NUMBA_NUM_THREADS=0: ValueError: "
        "Number of threads specified must be > 0."], r.stderr


def test_a_terminal_width_of_0_lays_the_output_out_at_a_usable_width():
    import subprocess
    import sys
    cmd = [sys.executable, "-m", "experiments.cli", "play", "sen", "-n", "5"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300, env={**os.environ, "COLUMNS": "0"})
    assert r.returncode == 0 and "mean turns" in r.stdout and "rules: " in r.stdout, r.stdout  # (it printed one table)
    assert max(len(ln) for ln in r.stdout.splitlines()) >= 40 and len(r.stdout.splitlines()) < 40, r.stdout


SENSHI_FILE = '''
import dataclasses
from typing import ClassVar
from strategies.base import Strategy

@dataclasses.dataclass(frozen=True)
class Cautious(Strategy):
    name: ClassVar[str] = "cautious"
    game: ClassVar[str] = "senshi"
'''


def test_a_strategies_file_of_another_game_is_named_in_the_error(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(SENSHI_FILE)
    from strategies.registry import register_files
    try:
        r = run("play", "sen", "-s", "cautious", "--strategies", str(path), "--games", "10")
    finally:
        register_files([])  # (the file's strategies stay registered in this process otherwise)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "unknown strategy 'cautious' for sen" in lines[0], lines
    assert f"--strategies {path}" in lines[0] and "is a senshi strategy" in lines[0], lines


class PanicException(BaseException):
    """As pyo3 (polars' runtime) raises it: a BaseException, not an Exception."""


def _refused_thread():
    try:
        raise RuntimeError("can't start new thread")
    except RuntimeError:
        raise RuntimeError("cannot join thread before it is started")


@pytest.mark.parametrize("refusal, said", [
    (MemoryError(), "MemoryError"),
    (PanicException("could not spawn threads: ThreadPoolBuildError { kind: IOError(Os { code: 11 }) }"),
     "could not spawn threads"),
    (None, "can't start new thread"),  # raised while handling the refusal: the refusal is named
])
def test_a_refusal_of_memory_or_threads_is_one_line_with_status_1(monkeypatch, refusal, said):
    # under a tight address-space limit (ulimit -v) the system refuses memory or a thread here and there
    import experiments.cli as cli_mod

    def refused(*a, **k):
        if refusal is None:
            _refused_thread()
        raise refusal
    monkeypatch.setattr(cli_mod, "_play", refused)
    r = runner.invoke(app, ["play", "sen", "-n", "10"])
    assert r.exit_code == 1, (r.exit_code, r.output, r.exception)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: out of memory: ") and said in lines[0], r.stderr
    assert "Traceback" not in r.stderr


def test_other_errors_are_not_taken_for_memory():
    from experiments.cli import out_of_memory

    assert out_of_memory(RuntimeError("cannot join thread before it is started")) is None
    assert out_of_memory(ValueError("out of memory")) is None  # not a kind the system raises for it
    assert out_of_memory(KeyError(None)) is None
    assert out_of_memory(OSError(12, "Cannot allocate memory")) == "Cannot allocate memory"

    def raised_while_handling(exc, cause=MemoryError(), hide=False):
        try:
            try:
                raise cause
            except BaseException:
                if hide:
                    raise exc from None
                raise exc
        except BaseException as got:
            return got
    # a bug (or a SystemExit) raised while handling a refusal is that, not a refusal; nor past "from None"
    assert out_of_memory(raised_while_handling(TypeError("a bug"))) is None
    assert out_of_memory(raised_while_handling(SystemExit(3))) is None
    assert out_of_memory(raised_while_handling(RuntimeError("cleanup"), hide=True)) is None
    assert out_of_memory(raised_while_handling(RuntimeError("cleanup"))) == "MemoryError"


def test_a_system_exit_while_handling_a_refusal_of_memory_keeps_its_status(monkeypatch):
    import experiments.cli as cli_mod

    def refused(*a, **k):
        try:
            raise MemoryError()
        except MemoryError:
            raise SystemExit(3)
    monkeypatch.setattr(cli_mod, "_play", refused)
    r = runner.invoke(app, ["play", "sen", "-n", "10"])
    assert r.exit_code == 3 and "out of memory" not in r.stderr, (r.exit_code, r.stderr)
    # an allocation the system refused as an OSError (ENOMEM) is out of memory, not a failed write
    monkeypatch.setattr(cli_mod, "_play", lambda *a, **k: (_ for _ in ()).throw(OSError(12, "Cannot allocate memory")))
    r = runner.invoke(app, ["play", "sen", "-n", "10"])
    assert r.exit_code == 1 and r.stderr.startswith("error: out of memory: Cannot allocate memory"), r.stderr


def test_a_refused_games_names_the_flag_on_the_command_line_and_the_argument_in_python():
    """The override of a config's games was refused as "--games: ..." from Python too; the command line
    names its flag only while it runs (a Python call after it names the argument again)."""
    from experiments.config import load
    from simcore.errors import SenseiError
    r = run("run", "experiments/sen_variants.toml", "--games", "0")
    assert r.exit_code == 2 and "sen_variants.toml: --games: expected" in r.stderr
    with pytest.raises(SenseiError, match=r"sen_variants.toml: the games argument: expected an integer from 1"):
        load("experiments/sen_variants.toml", 0)
