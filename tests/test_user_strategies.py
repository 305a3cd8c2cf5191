"""A designer's own strategies: from a file named on the command line (`--strategies FILE.py`, recorded in
the manifest, checked on resume) and from installed packages (entry point group `sensei.strategies`);
a strategy that crashes, lacks a decision or makes an illegal move gets one line naming it (exit 2),
and `--debug` shows the traceback."""
import glob
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.experiment import run_experiment
from simcore.errors import SenseiError, StrategyError
from strategies import registry

SENSEI = os.path.join(os.path.dirname(sys.executable), "sensei")
cli = CliRunner()

MINE = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar

    import numpy as np

    from strategies.base import param
    from strategies.sen import Threshold


    @dataclasses.dataclass(frozen=True)
    class Cautious(Threshold):
        """Threshold play that wakes at 8 unless told otherwise."""
        name: ClassVar[str] = "cautious"
        game: ClassVar[str] = "sen"
        wake: int = param(8, "say WAKE UP! at this estimated total or less")


    @dataclasses.dataclass(frozen=True)
    class Crashy(Threshold):
        name: ClassVar[str] = "crashy"
        game: ClassVar[str] = "sen"

        def drawn(self, obs, rng):
            return np.asarray(obs.card) + len(obs.me) // 0


    @dataclasses.dataclass(frozen=True)
    class Cheat(Threshold):
        name: ClassVar[str] = "cheat"
        game: ClassVar[str] = "sen"

        def start(self, obs, rng):
            return np.full(len(obs.me), 1)  # always take the face-up top ...

        def face_up_slot(self, obs, rng):
            return np.full(len(obs.me), 99)  # ... into a slot nobody has


    @dataclasses.dataclass(frozen=True)
    class Forgetful(Threshold):
        name: ClassVar[str] = "forgetful"
        game: ClassVar[str] = "sen"
        face_up_slot = None  # no face-up decision at all
''')


@pytest.fixture
def mine(tmp_path):
    path = tmp_path / "mine.py"
    path.write_text(MINE)
    yield str(path)
    registry.register_files([])  # leave no file registered for the other tests


def one_error_line(r, *words):
    # a first run may say it is compiling the lineup (an information line, before any error)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (r.exit_code, r.output)
    assert "Traceback" not in r.output
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ----------------------------------------------------------------------------------- crashing strategies
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_crash_inside_a_strategy_is_one_line_naming_strategy_decision_and_error(mine, jobs):
    r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", "crashy", "-s", "threshold", "--strategies", mine, "-n", "200",
                         "--jobs", jobs, "--chunk-size", "100"])
    line = one_error_line(r, "strategy crashy:wake=10", "'drawn'", "ZeroDivisionError", "--debug")
    assert len(line) < 200


def test_debug_shows_the_traceback_of_the_strategy(mine):
    r = cli.invoke(app, ["play", "sen", "-s", "crashy", "--strategies", mine, "-n", "50", "--debug"])
    assert r.exit_code == 2
    assert "Traceback" in r.stderr and "mine.py" in r.stderr and "return np.asarray(obs.card) + len(obs.me) // 0" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("error: strategy crashy")


def test_a_file_strategy_spec_crashing_in_a_worker_is_one_line(mine):
    r = cli.invoke(app, ["play", "sen", "-s", f"{mine}:Crashy", "-n", "200", "--jobs", "2", "--chunk-size", "100"])
    one_error_line(r, "Crashy", "'drawn'", "ZeroDivisionError")


ONLY_IN_A_WORKER = textwrap.dedent('''
    import dataclasses
    import multiprocessing
    from typing import ClassVar

    from strategies.sen import Threshold

    IN_WORKER = multiprocessing.current_process().name != "MainProcess"
    if IN_WORKER and WHERE == "import":
        raise ImportError("no module named 'helpers' in the worker")


    @dataclasses.dataclass(frozen=True)
    class Picky(Threshold):
        game: ClassVar[str] = "sen"

        def __post_init__(self):
            if IN_WORKER and WHERE == "post_init":
                raise ValueError("wake is not allowed in a worker")
''')


@pytest.mark.parametrize("where, words", [("import", ["failed to load", "ImportError", "'helpers'"]),
                                          ("post_init", ["picky_post_init.py:Picky", "wake is not allowed in a worker"])])
def test_a_strategy_refused_only_in_a_worker_process_is_one_line_not_a_crash(tmp_path, where, words):
    """A strategy file that fails to import only in a worker process, or whose ``__post_init__`` raises only
    there, broke the pool and read as a crashed worker (status 1)."""
    path = tmp_path / f"picky_{where}.py"
    path.write_text(f"WHERE = {where!r}\n" + ONLY_IN_A_WORKER)
    r = cli.invoke(app, ["play", "sen", "-s", f"{path}:Picky", "-n", "4000", "--jobs", "2", "--backend", "loky",
                         "--json"])
    line = one_error_line(r, "in a worker process", *words)
    assert "worker process stopped" not in line and r.stdout == ""


@pytest.mark.parametrize("name, words", [("cheat", ["illegal", "face_up", "option 99 (the legal options there: 0, 1, 2, 3)"]),
                                         ("forgetful", ["face_up_slot"])])
def test_an_illegal_move_or_a_missing_decision_is_exit_2(mine, name, words):
    r = cli.invoke(app, ["play", "sen", "-s", name, "--strategies", mine, "-n", "100"])
    one_error_line(r, *words)


def test_the_python_api_raises_strategy_error_with_the_cause(mine):
    from simcore.runner import simulate
    registry.register_files([mine])
    with pytest.raises(StrategyError) as info:
        simulate("sen", registry.lineup("sen", ["crashy"], 2), n_games=20)
    assert isinstance(info.value, SenseiError) and isinstance(info.value.__cause__, ZeroDivisionError)


# ------------------------------------------------------------------------------- --strategies FILE.py
CONFIG = """\
title = "Own strategy"
question = "Does waking at 8 pay against the default table?"
game = "sen"
players = 3
games = 240
seed = 5
chunk_size = 60

[lineup]
focus = "{focus}"
field = "threshold"

[sweep]
"focus.wake" = [7, 9]
"""


def test_a_config_names_a_strategy_of_a_file_given_on_the_command_line(mine, tmp_path):
    cfg = tmp_path / "own.toml"
    cfg.write_text(CONFIG.format(focus="cautious"))
    out = tmp_path / "runs"
    r = cli.invoke(app, ["run", str(cfg), "--strategies", mine, "--jobs", "2", "--no-progress", "--no-report",
                         "--out", str(out)])
    assert r.exit_code == 0, r.output
    (run_dir,) = os.listdir(out)
    man = json.load(open(out / run_dir / "manifest.json"))
    digest = registry.file_sha256(mine)
    assert man["strategy_files"] == {os.path.abspath(mine): digest}
    assert man["strategies_from"] == {"cautious": f"file {os.path.abspath(mine)}"}
    assert man["fingerprint"]["strategies"] == {"cautious": f"file {os.path.abspath(mine)} sha256 {digest}"}
    assert f"--strategies {os.path.abspath(mine)}" in man["command"]

    # the same games as the shipped threshold strategy with the same parameters (a subclass: batch lane)
    import polars as pl
    own = pl.read_parquet(out / run_dir / "cells.parquet")
    ref_cfg = tmp_path / "ref.toml"
    ref_cfg.write_text(CONFIG.format(focus="threshold"))
    ref = run_experiment(str(ref_cfg), strategy_files=[])
    for col in ("focus_win_share", "focus_mean_score", "mean_turns"):
        assert own[col].to_list() == ref.cells[col].to_list(), col

    # without the file the name is unknown: one line, which says how to give one's own
    r = cli.invoke(app, ["run", str(cfg), "--no-progress", "--out", str(out)])
    one_error_line(r, "unknown strategy 'cautious'", "--strategies FILE.py")


def test_strategies_files_mistakes_are_one_line(mine, tmp_path):
    cfg = tmp_path / "own.toml"
    cfg.write_text(CONFIG.format(focus="cautious"))
    empty = tmp_path / "empty.py"
    empty.write_text("x = 1\n")
    clash = tmp_path / "clash.py"
    clash.write_text(MINE.replace('"cautious"', '"threshold"'))
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module_here\n")
    nan = tmp_path / "nan.py"  # a default that no value of its parameter can be: said when the file is given
    nan.write_text(MINE.replace('"cautious"', '"mine"').replace(
        'wake: int = param(8, "say WAKE UP! at this estimated total or less")',
        'wake: int = param(8, "say WAKE UP! at this estimated total or less")\n    foo: float = param(float("nan"), "x")'))
    for path, words in [(tmp_path / "missing.py", ["not found"]), (empty, ["no Strategy class"]),
                        (f"{mine}:Cautious", ["not found", f"--strategies takes the file alone, {mine}"]),
                        (clash, ["'threshold'", "already taken"]), (broken, ["failed to load", "ModuleNotFoundError"]),
                        ("", ["an empty one"]), (nan, ["strategy mine", "default of parameter 'foo'", "got nan"])]:
        r = cli.invoke(app, ["run", str(cfg), "--strategies", str(path), "--no-progress", "--out", str(tmp_path / "r")])
        one_error_line(r, "--strategies" if "failed" not in words[0] else "strategy file", *words)
    twin = tmp_path / "twin.py"  # another file with the same strategy names
    twin.write_text(MINE)
    r = cli.invoke(app, ["run", str(cfg), "--strategies", mine, "--strategies", str(twin), "--no-progress",
                         "--out", str(tmp_path / "r")])
    one_error_line(r, "defined twice")
    # the same file twice is the file once
    assert list(registry.register_files([mine, mine])) == [os.path.abspath(mine)]
    upper = tmp_path / "upper.py"  # a name no spec could give
    upper.write_text(MINE.replace('"cautious"', '"Cautious"'))
    for bad, words in [(upper, ["'Cautious'", "cannot be given on the command line"]),
                       (tmp_path / "chess.py", ["strategy class", "unknown game 'chess'"])]:
        if not bad.exists():
            bad.write_text(MINE.replace('game: ClassVar[str] = "sen"', 'game: ClassVar[str] = "chess"'))
        r = cli.invoke(app, ["run", str(cfg), "--strategies", str(bad), "--no-progress", "--out", str(tmp_path / "r")])
        one_error_line(r, "--strategies", str(bad), *words)


def test_a_resume_checks_the_strategy_file_is_unchanged(mine, tmp_path):
    cfg = tmp_path / "own.toml"
    cfg.write_text(CONFIG.format(focus="cautious"))
    run_dir = tmp_path / "unfinished"
    # an unfinished run folder: the state written before the first game, and no chunks yet
    with pytest.raises(KeyboardInterrupt) as info:
        _interrupted_run(str(cfg), mine, str(tmp_path / "runs"))
    run_dir = info.value.run_dir
    assert f"--strategies {os.path.abspath(mine)}" in str(info.value)

    r = cli.invoke(app, ["run", str(cfg), "--resume", run_dir, "--no-progress", "--no-report"])
    one_error_line(r, "cannot resume", "--strategies", "give it again")
    with open(mine, "a") as fh:
        fh.write("\n# changed\n")
    r = cli.invoke(app, ["run", str(cfg), "--resume", run_dir, "--strategies", mine, "--no-progress", "--no-report"])
    one_error_line(r, "cannot resume", "changed since the interrupted run")
    with open(mine, "w") as fh:
        fh.write(MINE)
    r = cli.invoke(app, ["run", str(cfg), "--resume", run_dir, "--strategies", mine, "--no-progress", "--no-report"])
    assert r.exit_code == 0, r.output
    man = json.load(open(os.path.join(run_dir, "manifest.json")))
    assert man["chunks_restored"] >= 1


def _interrupted_run(cfg, mine, out):
    """run_experiment stopped by Ctrl-C after its second finished chunk."""
    import experiments.engine as engine

    real = engine.cell_chunk
    calls = []

    def stop_after_two(*args):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    engine.cell_chunk = stop_after_two
    try:
        run_experiment(cfg, out=out, strategy_files=[mine])
    finally:
        engine.cell_chunk = real


# ---------------------------------------------------------------------------- installed packages
PLUGIN = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar

    from strategies.base import param
    from strategies.sen import Threshold


    @dataclasses.dataclass(frozen=True)
    class Careful(Threshold):
        """Threshold play from an installed package."""
        name: ClassVar[str] = "careful"
        game: ClassVar[str] = "sen"
        wake: int = param(9, "say WAKE UP! at this estimated total or less")
''')


def _plugin(root, entries):
    """An installed distribution on a folder of sys.path: a package and its dist-info with entry points."""
    (root / "sensei_demo_plugin").mkdir()
    (root / "sensei_demo_plugin" / "__init__.py").write_text(PLUGIN)
    info = root / "sensei_demo_plugin-1.2.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: sensei-demo-plugin\nVersion: 1.2\n")
    (info / "entry_points.txt").write_text("[sensei.strategies]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()))
    return str(root)


def test_a_strategy_registered_by_an_installed_package(tmp_path):
    """In a fresh process (the package found through PYTHONPATH, as after pip install): a config names
    it, and worker processes import it from the package."""
    root = tmp_path / "site"
    root.mkdir()
    path = _plugin(root, {"sen.careful": "sensei_demo_plugin:Careful"})
    env = dict(os.environ, PYTHONPATH=path + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cfg = tmp_path / "plugin.toml"
    cfg.write_text(CONFIG.format(focus="careful"))
    out = tmp_path / "runs"
    r = subprocess.run([SENSEI, "run", str(cfg), "--jobs", "2", "--no-progress", "--no-report", "--out", str(out)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    (run_dir,) = os.listdir(out)
    man = json.load(open(out / run_dir / "manifest.json"))
    assert man["strategies_from"] == {"careful": "package sensei-demo-plugin 1.2"}
    assert man["fingerprint"]["strategies"] == {"careful": "package sensei-demo-plugin 1.2"}


def test_broken_or_mismatched_entry_points_are_one_line_when_used(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(_plugin(root, {"sen.careful": "sensei_demo_plugin:Careful",
                                               "sen.broken": "sensei_demo_plugin_missing:Nope",
                                               "senshi.careful": "sensei_demo_plugin:Careful"}))
    out = play_ok("sen", "-s", "careful:wake=7", "-n", "50", "--json")
    assert json.loads(out)["strategies"] == ["careful:wake=7"] * 4
    line = one_error_line(cli.invoke(app, ["play", "sen", "-s", "broken", "-n", "10"]), "'sen.broken'",
                          "sensei-demo-plugin 1.2", "ModuleNotFoundError")
    assert "sensei_demo_plugin_missing:Nope" in line
    play_ok("sen", "-s", "threshold", "-n", "10")  # shipped names never load the installed ones
    one_error_line(cli.invoke(app, ["play", "senshi", "-s", "careful", "-n", "10"]),
                   "whose name and game are 'careful' and 'sen'")


def play_ok(*args):
    r = cli.invoke(app, ["play", *args])
    assert r.exit_code == 0, r.output
    return r.stdout


def test_installed_strategies_are_listed_with_their_package(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(_plugin(root, {"sen.careful": "sensei_demo_plugin:Careful"}))
    r = cli.invoke(app, ["strategies", "sen"])
    assert r.exit_code == 0, r.output
    assert "careful:wake=9  (from package sensei-demo-plugin 1.2)" in r.stdout
    assert "Threshold play from an installed package." in r.stdout
    assert "careful" in registry.strategy_names("sen")
    r = cli.invoke(app, ["play", "sen", "-s", "nosuch"])
    one_error_line(r, "unknown strategy", "careful")


def test_an_installed_strategy_may_not_take_a_shipped_name(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(_plugin(root, {"sen.threshold": "sensei_demo_plugin:Careful"}))
    r = cli.invoke(app, ["strategies", "sen"])  # listed as unusable, after every strategy that can be used
    assert r.exit_code == 0 and r.stdout.splitlines()[-2:] == ["threshold  (cannot be used)", "    strategy "
        "'threshold': entry point 'sen.threshold' of package sensei-demo-plugin 1.2 (group sensei.strategies) takes "
        "the name of a strategy shipped with sensei"], r.output
    assert r.stdout.startswith("random:") and "\nthreshold:wake=10\n" in r.stdout
    assert cli.invoke(app, ["play", "sen", "-n", "10"]).exit_code == 0  # the shipped one is still used


def test_a_broken_entry_point_does_not_hide_the_other_strategies_from_the_list(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(_plugin(root, {"sen.careful": "sensei_demo_plugin:Careful",
                                               "sen.broken": "sensei_demo_plugin_missing:Nope"}))
    r = cli.invoke(app, ["strategies", "sen"])
    assert r.exit_code == 0, r.output
    assert "careful:wake=9  (from package sensei-demo-plugin 1.2)" in r.stdout and "\nthreshold:wake=10\n" in r.stdout
    assert r.stdout.splitlines()[-2] == "broken  (cannot be used)"
    assert "'sen.broken'" in r.stdout.splitlines()[-1] and "ModuleNotFoundError" in r.stdout.splitlines()[-1]


EDITABLE = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar

    from strategies.base import decision
    from strategies.fan_and_mallet import RandomPlay

    from .helpers import slot


    @decision
    def _play(obs, prm, rng):
        return slot(obs)


    @dataclasses.dataclass(frozen=True)
    class Fixed(RandomPlay):
        name: ClassVar[str] = "fixed"
        play = _play
''')
PLAY_FIXED = textwrap.dedent('''
    import json
    from simcore.runner import simulate
    from strategies.registry import lineup
    from sensei_edit_demo.strats import Fixed
    r = simulate("fan-and-mallet", [Fixed(), lineup("fan-and-mallet", ["random"], 1)[0]], players=2, n_games=300, seed=0)
    print(json.dumps([float(x) for x in r.totals.sums["win"]]))
''')


def test_an_edited_strategy_of_a_package_is_compiled_again(tmp_path):
    """A compiled strategy imported from a package (as after pip install, not a file named on the
    command line) is keyed by its package's sources: after an edit of a helper in a sibling module, a
    fresh process plays the new code, never the cached machine code of the old one."""
    pkg = tmp_path / "site" / "sensei_edit_demo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "strats.py").write_text(EDITABLE)
    helper = "import numba\n\n\n@numba.njit\ndef slot(obs):\n    return {}\n"
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site") + os.pathsep + os.environ.get("PYTHONPATH", ""))

    def wins(body):
        (pkg / "helpers.py").write_text(helper.format(body))
        r = subprocess.run([sys.executable, "-c", PLAY_FIXED], capture_output=True, text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    first = wins("0")                                   # always the first card of the hand
    last = wins("obs.hand_n[obs.g, obs.me] - 1")         # always the last
    assert first != last
    assert wins("0") == first                            # and back (its module is cached)


def test_a_decision_numba_cannot_compile_is_said_to_fail_to_compile(tmp_path):
    # a loop with no way out: numba's compiler fails inside its own passes (not a typing error), which is
    # the decision's fault at compile time, not an exception it raised while playing
    path = tmp_path / "loop.py"
    path.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from simcore.games.sen import DRAW, top_value
        from strategies.base import decision
        from strategies.sen import Threshold

        @decision
        def start_loop(obs, prm, rng):
            t = 0
            if top_value(obs) > 20:
                return DRAW
            while True:
                t += 1

        @dataclasses.dataclass(frozen=True)
        class Loop(Threshold):
            """never leaves its loop"""
            name: ClassVar[str] = "loop"
            start = start_loop
    '''))
    try:
        r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{path}:Loop", "-s", "threshold", "-n", "10"])
        one_error_line(r, "decision 'start' failed to compile", "liveness info missing",
                       "a loop it cannot leave")
    finally:
        registry.register_files([])


def test_a_decision_calls_a_built_in_decision_through_its_fn(tmp_path):
    """docs/architecture.md: a compiled decision calls another, a built-in's included, through ``.fn`` taken at
    the module's level; written as a call of the decision itself, the error says how."""
    from simcore.runner import simulate
    from strategies.registry import lineup

    path = tmp_path / "reuse.py"
    path.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from strategies.base import decision
        from strategies.sen import Threshold, _threshold_start_d

        _base = _threshold_start_d.fn

        @decision
        def my_start(obs, prm, rng):
            return _base(obs, prm, rng)

        @decision
        def wrong_start(obs, prm, rng):
            return _threshold_start_d(obs, prm, rng)

        @dataclasses.dataclass(frozen=True)
        class Reuse(Threshold):
            name: ClassVar[str] = "reuse"
            start = my_start

        @dataclasses.dataclass(frozen=True)
        class Wrong(Threshold):
            name: ClassVar[str] = "wrong"
            start = wrong_start
    '''))
    try:
        registry.register_files([str(path)])
        mine = simulate("sen", lineup("sen", ["reuse"], 3), n_games=300, seed=4, keep_games=True).games()
        ref = simulate("sen", lineup("sen", ["threshold"], 3), n_games=300, seed=4, keep_games=True).games()
        assert mine.drop("strategy").equals(ref.drop("strategy")), "the same games as threshold's"
        r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{path}:Wrong", "-n", "10"])
        one_error_line(r, "_threshold_start_d is a decision (@decision)", "_threshold_start_d.fn` at the module's level")
    finally:
        registry.register_files([])


def test_a_decision_that_makes_a_new_object_is_named_with_its_line(tmp_path):
    path = tmp_path / "allocates.py"
    path.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from simcore.games.sen import DRAW
        from strategies.base import decision
        from strategies.sen import Threshold

        @decision
        def start_dict(obs, prm, rng):
            d = {"a": obs.me}
            return DRAW + d["a"] - obs.me

        @dataclasses.dataclass(frozen=True)
        class Dicty(Threshold):
            """keeps a dict"""
            name: ClassVar[str] = "dicty"
            start = start_dict
    '''))
    try:
        r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{path}:Dicty", "-s", "threshold", "-n", "10"])
        one_error_line(r, f"strategy {path}:Dicty, decision 'start' failed to compile",
                       "makes a new array, list or dict", "@decision(refcount=True)", "(allocates.py, line 11)")
        # an array made without reference counts: numba says only that it found no np.zeros for it; and a
        # decision that never returns is typed as returning None
        text = path.read_text()
        path.write_text(text.replace('d = {"a": obs.me}\n', 'd = np.zeros(3, dtype=np.int64)\n')
                        .replace('d["a"] - obs.me', 'd[0]').replace("import dataclasses", "import dataclasses\nimport numpy as np"))
        r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{path}:Dicty", "-s", "threshold", "-n", "10"])
        one_error_line(r, "decision 'start' failed to compile: No implementation of function", "zeros",
                       "a compiled decision makes a new array only when marked @decision(refcount=True)")
        path.write_text(text.replace('d = {"a": obs.me}\n', "while True:\n                pass\n"))
        r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{path}:Dicty", "-s", "threshold", "-n", "10"])
        one_error_line(r, "a compiled decision returns nothing", "or it never returns, as after a `while True`")
    finally:
        registry.register_files([])


def test_a_lineup_compiled_once_is_not_announced_again_after_a_run_that_failed(tmp_path):
    """The compiling notice is for a lineup's first compilation: a run whose strategy then raised (or that was
    interrupted) has compiled and cached it all the same, and the next run loads it without a notice."""
    path = tmp_path / f"raiser_{os.getpid()}_{time.time_ns()}.py"  # a module never compiled before
    path.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from simcore.games.sen import DRAW, top_value
        from strategies.base import decision
        from strategies.sen import Threshold

        @decision
        def start_raise(obs, prm, rng):
            if top_value(obs) >= 0:
                raise ValueError("compiled boom")
            return DRAW

        @dataclasses.dataclass(frozen=True)
        class Raiser(Threshold):
            """raises at its first decision"""
            name: ClassVar[str] = "raiser"
            start = start_raise
    '''))
    args = [SENSEI, "play", "sen", "-p", "2", "-s", f"{path}:Raiser", "-s", "threshold", "-n", "10"]
    first = subprocess.run(args, capture_output=True, text=True, timeout=600)
    again = subprocess.run(args, capture_output=True, text=True, timeout=600)
    for r in (first, again):
        assert r.returncode == 2 and "compiled boom" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert first.stderr.startswith("compiling sen ("), first.stderr
    assert "compiling" not in again.stderr and len(again.stderr.splitlines()) == 1, again.stderr


_SUBCLASS = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar
    from strategies.sen import Threshold

    @dataclasses.dataclass(frozen=True)
    class Early(Threshold):
        """{doc}"""
        name: ClassVar[str] = "early"
        wake: int = {wake}
''')

_OWN_DECISION = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar
    from simcore.games.sen import DRAW
    from strategies.base import decision
    from strategies.sen import Threshold

    @decision
    def start_draw(obs, prm, rng):
        return DRAW + {shift}

    @dataclasses.dataclass(frozen=True)
    class Drawer(Threshold):
        """always draws"""
        name: ClassVar[str] = "drawer"
        start = start_draw
''')


def test_a_file_class_with_built_in_decisions_shares_the_built_ins_compiled_module(tmp_path):
    """A class of a user's file that only inherits built-in decisions (parameter values of its own) shares
    the machine code of the built-ins beside it, whatever else its file says; a decision written in the
    file keys the module by the file's text, so an edit of it is compiled afresh."""
    from simcore import lineup as L
    from simcore.registry import get_game
    from strategies.registry import resolve

    def module_of(name, text, cls, other="counter"):
        path = tmp_path / name
        path.write_text(text)
        return L.Lineup(get_game("sen"), [resolve("sen", f"{path}:{cls}"), resolve("sen", other)]).module

    try:
        a = module_of("early_a.py", _SUBCLASS.format(doc="wakes early", wake=8), "Early")
        b = module_of("early_b.py", _SUBCLASS.format(doc="wakes early too", wake=9), "Early")
        assert a.__name__ == b.__name__
        assert str(tmp_path) not in a.__sensei_text__
        # a decision of the file's own: its module is keyed by the file's text as well as by its path
        edited = tmp_path / "drawer.py"
        before = module_of("drawer.py", _OWN_DECISION.format(shift=0), "Drawer")
        assert str(edited) in before.__sensei_text__
        edited.write_text(_OWN_DECISION.format(shift=1))
        plans = L.Lineup(get_game("sen"), [resolve("sen", f"{edited}:Drawer"), resolve("sen", "counter")]).plans
        assert L._render(get_game("sen"), plans) == before.__sensei_text__
        assert L._load(get_game("sen"), plans).__name__ != before.__name__
    finally:
        registry.register_files([])


def test_a_package_class_with_built_in_decisions_shares_the_built_ins_compiled_module(tmp_path, monkeypatch):
    """A class of an installed package (or of a test module) that only gives a built-in strategy other
    parameter values plays the built-in's own lineup module: its package's sources are not part of the key,
    as no compiled code comes from them."""
    from simcore import lineup as L
    from simcore.registry import get_game
    from strategies.registry import resolve

    pkg = tmp_path / "site" / "sensei_share_demo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "strats.py").write_text(_SUBCLASS.format(doc="wakes early", wake=8))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    import importlib

    early = importlib.import_module("sensei_share_demo.strats").Early
    try:
        sen = get_game("sen")
        ours = L.Lineup(sen, [early(), early()]).module
        theirs = L.Lineup(sen, [resolve("sen", "threshold"), resolve("sen", "threshold")]).module
        assert ours.__name__ == theirs.__name__
    finally:
        for name in ("sensei_share_demo.strats", "sensei_share_demo"):
            sys.modules.pop(name, None)


def test_trace_refuses_a_decision_that_cannot_compile_before_printing_the_game(tmp_path):
    path = tmp_path / "noret.py"
    path.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from simcore.games.sen import DRAW, top_value
        from strategies.base import decision
        from strategies.sen import Threshold

        @decision
        def start_noret(obs, prm, rng):
            if top_value(obs) < 3:
                return DRAW

        @dataclasses.dataclass(frozen=True)
        class NoRet(Threshold):
            """forgets to answer"""
            name: ClassVar[str] = "noret"
            start = start_noret
    '''))
    try:
        r = cli.invoke(app, ["trace", "sen", "-p", "2", "-s", f"{path}:NoRet", "-s", "threshold"])
        one_error_line(r, f"strategy {path}:NoRet, decision 'start'", "not an integer option")
        assert r.stdout == "", r.stdout
    finally:
        registry.register_files([])


def test_a_strategy_file_that_cannot_be_read_is_bad_input(tmp_path, monkeypatch):
    # as an unreadable config: one line, status 2 (it was status 1, as a failed write is). Root reads any
    # file whatever its mode, so the refusal is the system's answer made up here
    path = tmp_path / "locked.py"
    path.write_text("x = 1\n")

    def refused(p):
        raise PermissionError(13, "Permission denied", p)
    monkeypatch.setattr(registry, "file_sha256", refused)
    r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{path}:Locked", "-s", "threshold", "-n", "5"])
    one_error_line(r, "strategy file", "locked.py", "cannot be read: Permission denied")


def test_a_compile_that_did_not_finish_drops_its_notice_so_the_next_run_says_it_again(tmp_path, monkeypatch):
    """The notice file stands for the run's other processes; a compile interrupted mid-way (Ctrl-C, a
    killed worker) leaves nothing cached, so its notice goes and the next run says it is compiling again."""
    from simcore import lineup as L
    from strategies.registry import resolve

    path = tmp_path / f"unfinished_{os.getpid()}_{time.time_ns()}.py"  # a module never compiled before
    path.write_text(textwrap.dedent(f'''
        import dataclasses
        from typing import ClassVar
        from simcore.games.sen import DRAW
        from strategies.base import decision
        from strategies.sen import Threshold

        @decision
        def start_draw(obs, prm, rng):
            return DRAW  # {time.time_ns()}

        @dataclasses.dataclass(frozen=True)
        class Unfinished(Threshold):
            """always draws"""
            name: ClassVar[str] = "unfinished"
            start = start_draw
    '''))
    try:
        from simcore.registry import get_game

        lu = L.Lineup(get_game("sen"), [resolve("sen", f"{path}:Unfinished"), resolve("sen", "threshold")])
        marker = lu._marker("compiled")
        assert marker and not os.path.exists(marker)
        assert lu.compile_notice().startswith("compiling sen (")
        assert os.path.exists(marker + ".notice")
        assert lu.compile_notice() is None  # once per process

        def interrupted(fn, args):
            raise KeyboardInterrupt()
        monkeypatch.setattr(L, "compile_once", interrupted)
        with pytest.raises(KeyboardInterrupt):
            lu.call("play", None)
        assert not os.path.exists(marker + ".notice") and not os.path.exists(marker)
        # another process of a later run (its own set of notices said) is told again
        lu.module.__dict__["__sensei_noticed__"].clear()
        assert lu.compile_notice().startswith("compiling sen (")
        # while a fresh notice of another process stands, this one keeps quiet
        lu.module.__dict__["__sensei_noticed__"].clear()
        assert lu.compile_notice() is None
        # a notice older than a run can last is of a run that did not finish: said again
        old = time.time() - L.NOTICE_FRESH - 60
        os.utime(marker + ".notice", (old, old))
        lu.module.__dict__["__sensei_noticed__"].clear()
        assert lu.compile_notice().startswith("compiling sen (")
        lu.drop_notice()
        assert not os.path.exists(marker + ".notice")
    finally:
        registry.register_files([])


BROKEN = textwrap.dedent('''
    import dataclasses
    import os
    from typing import ClassVar

    import numpy as np

    from strategies.base import param
    from strategies.sen import Threshold


    class Unprintable(Exception):
        def __str__(self):
            raise RuntimeError("no text")


    class NoArray:
        def __array__(self, *args, **kwargs):
            raise RuntimeError("no array")


    @dataclasses.dataclass(frozen=True)
    class Based(Threshold):
        def start(self, obs, rng):
            raise BaseException("weird")


    @dataclasses.dataclass(frozen=True)
    class Closed(Threshold):
        def start(self, obs, rng):
            raise GeneratorExit


    @dataclasses.dataclass(frozen=True)
    class Mute(Threshold):
        def start(self, obs, rng):
            raise Unprintable()


    @dataclasses.dataclass(frozen=True)
    class Arrayless(Threshold):
        def start(self, obs, rng):
            return NoArray()


    @dataclasses.dataclass(frozen=True)
    class Propped(Threshold):
        @property
        def start(self):
            raise RuntimeError("prop")


    @dataclasses.dataclass(frozen=True)
    class Unhashable(Threshold):
        def __hash__(self):
            raise RuntimeError("hash")


    @dataclasses.dataclass(frozen=True)
    class Unchunked(Threshold):
        chunk_games: ClassVar = -5


    @dataclasses.dataclass(frozen=True)
    class Textchunked(Threshold):
        chunk_games: ClassVar = "10"


    @dataclasses.dataclass(frozen=True)
    class Numbered(Threshold):
        name: ClassVar = 5


    @dataclasses.dataclass(frozen=True)
    class Valueless(Threshold):
        def compiled_values(self):
            pass


    @dataclasses.dataclass(frozen=True)
    class Misspecced(Threshold):
        def spec(self):
            return 42


    @dataclasses.dataclass(frozen=True)
    class Commas(Threshold):
        extra: str = param("a,b=c", "a text parameter whose value no spec can hold")


    @dataclasses.dataclass(frozen=True)
    class Listed(Threshold):
        extra: list = dataclasses.field(default_factory=list)


    @dataclasses.dataclass(frozen=True)
    class Quitter(Threshold):
        def start(self, obs, rng):
            os._exit(0)


    @dataclasses.dataclass(frozen=True)
    class Shadowing(Threshold):
        played: int = param(3, "a parameter with the name of Strategy.played")


    @dataclasses.dataclass(frozen=True)
    class Huge(Threshold):
        def compiled_values(self):
            return {"wake": 2 ** 70}


    @dataclasses.dataclass(frozen=True)
    class NotANumber(Threshold):
        def compiled_values(self):
            return {"wake": float("nan")}


    @dataclasses.dataclass(frozen=True)
    class ShadowingParams(Threshold):
        params: int = param(3, "a parameter with the name of Strategy.params")
''')


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    yield str(path)
    registry.register_files([])


@pytest.mark.parametrize("cls, words", [
    ("Based", ["'start'", "BaseException: weird"]),
    ("Closed", ["'start'", "GeneratorExit"]),
    ("Mute", ["'start'", "Unprintable: (its message could not be printed: its Unprintable.__str__ failed)"]),
    ("Arrayless", ["illegal start", "RuntimeError: no array"]),
    ("Propped", ["broken.py' failed at line", "(in start): RuntimeError: prop"]),
    ("Unhashable", ["broken.py' failed at line", "(in __hash__): RuntimeError: hash"]),
    # class variables and overrides a run trips on later (a negative chunk_games played no chunk and failed
    # with a traceback; a spec() that is no text broke the table and --json's contract)
    ("Unchunked", ["broken.py:Unchunked: chunk_games must be None or a whole number from 1", "not -5"]),
    ("Textchunked", ["broken.py:Textchunked: chunk_games must be", "not '10'"]),
    ("Numbered", ["broken.py:Numbered: its name must be text", "not int 5"]),
    ("Valueless", ["broken.py:Valueless: compiled_values() must return a dict", "not NoneType"]),
    ("Misspecced", ["broken.py:Misspecced: its spec() must return its spec as text, not int 42"]),
    # its spec, name:extra=a,b=c, read back as a parameter b
    ("Commas", ["broken.py:Commas: parameter extra's value 'a,b=c' cannot be written in a spec"]),
    # a default_factory's value went unchecked to the worker processes, whose failure read as a crash
    ("Listed", ["broken.py:Listed: the default of parameter 'extra' does not fit it: unsupported option type"]),
    # a parameter hiding one of Strategy's methods: "TypeError: 'int' object is not callable", a traceback
    ("Shadowing", ["broken.py:Shadowing: parameter 'played' has the name of Strategy's own played"]),
    ("ShadowingParams", ["broken.py:ShadowingParams: parameter 'params' has the name of Strategy's own params"]),
    # values numba would wrap or compare false: both played as never saying WAKE UP!, labelled wake=10
    ("Huge", ["broken.py:Huge: compiled_values()['wake'] = 1180591620717411303424 does not fit in 64 bits"]),
    ("NotANumber", ["broken.py:NotANumber: compiled_values()['wake'] = nan is not a finite number"]),
])
def test_a_strategy_broken_in_any_way_is_one_line(broken, cls, words):
    """Any exception of a user's file, raised in a decision or elsewhere in its class, whatever its kind or its
    message, is one line with exit status 2 (once a traceback: BaseException, a __str__ that raises, an
    answer whose __array__ raises, a property or __hash__ that raises)."""
    r = cli.invoke(app, ["play", "sen", "-p", "2", "-s", f"{broken}:{cls}", "-s", "threshold", "-n", "20"])
    one_error_line(r, *words)


def test_a_strategy_file_that_raises_a_base_exception_on_import_is_one_line(tmp_path):
    path = tmp_path / "based.py"
    path.write_text("raise BaseException('at import')\n")
    r = cli.invoke(app, ["strategies", "sen", "--strategies", str(path)])
    one_error_line(r, "failed to load: BaseException: at import")
    registry.register_files([])


def test_a_strategy_file_that_raises_keyboard_interrupt_on_import_is_its_error_not_a_ctrl_c(tmp_path):
    """The file is imported in the command's main thread, where a Ctrl-C raises KeyboardInterrupt too: one
    that no Ctrl-C preceded ended `sensei play` and `sensei run` as 'interrupted' (exit 130). The command line
    notes every Ctrl-C and SIGTERM that arrives, so this one is the file's error (exit 2, one line)."""
    path = tmp_path / "stops.py"
    path.write_text("raise KeyboardInterrupt\n")
    cfg = tmp_path / "c.toml"
    cfg.write_text('title = "t"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 10\nseed = 1\n'
                   '[lineup]\nfocus = "threshold"\nfield = "threshold"\n')
    for args in (["play", "sen", "-p", "2", "-s", f"{path}:X", "-s", "threshold", "-n", "10", "--json"],
                 ["run", str(cfg), "--strategies", str(path), "--no-progress", "--out", str(tmp_path / "runs")]):
        r = subprocess.run([SENSEI, *args], capture_output=True, text=True, cwd=tmp_path, timeout=600)
        assert (r.returncode, r.stdout, r.stderr) == (2, "", (
            f"error: strategy file {str(path)!r} failed to load: it raised KeyboardInterrupt (no Ctrl-C reached this "
            "thread: a strategy cannot stop a run)\n")), (args[0], r.returncode, r.stdout, r.stderr)
    assert not (tmp_path / "runs").exists()


def test_a_strategy_that_ends_the_process_is_exit_2_with_one_line(broken, tmp_path):
    """os._exit in a strategy ends the process past every handler: status 0 and no output read as a run
    that finished (sensei check printed its header alone); the command line says so and exits with 2."""
    r = subprocess.run([SENSEI, "play", "sen", "-p", "2", "-s", f"{broken}:Quitter", "-s", "threshold", "-n", "20",
                        "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    lines = [ln for ln in r.stderr.splitlines() if not ln.startswith("compiling ")]
    assert r.returncode == 2 and r.stdout == "" and len(lines) == 1, (r.returncode, r.stdout, r.stderr)
    assert lines[0].startswith("error: strategy file ") and "ended the process with os._exit(0)" in lines[0]
    assert "(in start)" in lines[0]


def test_a_registered_file_whose_class_name_is_no_text_is_one_line(tmp_path):
    path = tmp_path / "named.py"
    path.write_text(textwrap.dedent('''
        import dataclasses
        from typing import ClassVar
        from strategies.sen import Threshold

        @dataclasses.dataclass(frozen=True)
        class Odd(Threshold):
            name: ClassVar = 5
    '''))
    try:
        r = cli.invoke(app, ["strategies", "sen", "--strategies", str(path)])
        one_error_line(r, "named.py", "strategy class Odd: its name must be text", "not int 5")
    finally:
        registry.register_files([])


def test_a_strategy_file_whose_path_is_not_utf8_loads(tmp_path):
    # a byte that is no UTF-8 in a folder's name gave a traceback (the module's name was made from the path)
    folder = os.path.join(str(tmp_path), os.fsdecode(b"odd\xff"))
    os.mkdir(folder)
    path = os.path.join(folder, "t.py")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "examples", "strategies", "sen_threshold.py"), encoding="utf-8") as src, \
            open(path, "w", encoding="utf-8") as dst:
        dst.write(src.read())
    r = cli.invoke(app, ["play", "sen", "-p", "2", "-n", "3", "-s", f"{path}:Threshold", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 3


def test_a_sensu_strategy_cannot_write_the_rules_tables_it_is_shown(tmp_path):
    # obs.sticks and obs.power were the game's own tables: a write rewrote the rules for every seat (every
    # game then stopped at the turn limit, with status 0)
    path = tmp_path / "writes.py"
    path.write_text(textwrap.dedent('''
        import dataclasses
        from simcore.games.sensu import arrange_by
        from strategies.sensu import Redeemer

        @dataclasses.dataclass(frozen=True)
        class Writes(Redeemer):
            def arrange(self, obs, rng):
                obs.sticks[:] = 4
                return arrange_by(obs)
    '''))
    r = cli.invoke(app, ["play", "sensu", "-p", "2", "-n", "3", "-s", f"{path}:Writes", "-s", "redeemer"])
    one_error_line(r, "failed in its decision 'arrange'", "ValueError: assignment destination is read-only")


FAILS_LATER = textwrap.dedent('''
    import dataclasses
    from typing import ClassVar

    import numpy as np

    from simcore.games.sen import Drawn, Kind, Start
    from strategies.base import Strategy, param

    CALLS = [0]


    @dataclasses.dataclass(frozen=True)
    class Later(Strategy):
        name: ClassVar[str] = "later"
        game: ClassVar[str] = "sen"
        wake: int = param(8, "wake at this known total or less")

        def start(self, obs, rng):
            CALLS[0] += 1
            if CALLS[0] > 400:
                raise RuntimeError("a state it never met before")
            known = ((obs.own >= 0) | ~obs.own_mask()).all(axis=1)
            total = np.where(obs.own_mask() & (obs.own >= 0), obs.own, 0).sum(axis=1)
            return np.where(known & (total <= self.wake), Start.WAKE, Start.DRAW)

        def face_up_slot(self, obs, rng):
            return np.zeros(len(obs.me), dtype=np.int64)

        def drawn(self, obs, rng):
            return np.full(len(obs.me), Drawn.DISCARD)

        def peek(self, obs, rng):
            return obs.me.copy(), np.zeros(len(obs.me), dtype=np.int64)
''')


def test_a_strategy_that_fails_part_way_keeps_the_finished_chunks_and_says_how_to_resume(tmp_path):
    """As after Ctrl-C: the line says how many chunks are kept and the command that goes on (with the strategy
    files unchanged); before, it said nothing of the chunks a long run had finished."""
    path = tmp_path / "later.py"
    path.write_text(FAILS_LATER)
    cfg = tmp_path / "later.toml"
    cfg.write_text(CONFIG.format(focus="later").replace("games = 240", "games = 2000").replace("chunk_size = 60",
                                                                                             "chunk_size = 20"))
    out = tmp_path / "runs"
    r = cli.invoke(app, ["run", str(cfg), "--strategies", str(path), "--jobs", "1", "--no-progress", "--no-report",
                         "--out", str(out)])
    line = one_error_line(r, "failed in its decision 'start'", "RuntimeError: a state it never met before",
                          "finished chunk", "resume with: sensei run", "--resume", "(with the strategy files unchanged)")
    (run_dir,) = list(out.iterdir())
    assert str(run_dir) in line and any(f.suffix == ".npz" for f in (run_dir / "parts").iterdir())


def test_a_class_name_typo_or_a_name_defined_in_two_files_says_where(tmp_path):
    r = cli.invoke(app, ["play", "sen", "-s", "examples/strategies/sen_threshold.py:threshold", "-n", "10"])
    one_error_line(r, "has no Strategy subclass 'threshold': did you mean 'Threshold'?")
    r = cli.invoke(app, ["play", "sen", "-s", "examples/strategies/sen_threshold.py:Foo", "-n", "10"])
    one_error_line(r, "has no Strategy subclass 'Foo' (its Strategy subclasses: Threshold)")
    for f in ("a", "b"):
        (tmp_path / f"{f}.py").write_text(MINE)
    try:
        r = cli.invoke(app, ["play", "sen", "-s", "cautious", "--strategies", str(tmp_path / "a.py"),
                             "--strategies", str(tmp_path / "b.py"), "-n", "10"])
        one_error_line(r, "strategy name 'cautious' for sen is defined twice (class Cautious of a.py has it too)")
    finally:
        registry.register_files([])


def test_lineup_takes_a_spec_or_an_object_alone_for_every_seat():
    """`lineup("sen", "threshold:wake=8", 3)` split the string into 16 one-letter specs ("16 strategies given
    for 3 seats"), and an object alone failed with a TypeError: one spec alone is every seat, as in a list."""
    from strategies.sen import Threshold

    assert registry.lineup("sen", "threshold:wake=8", 3) == [Threshold(wake=8)] * 3
    assert registry.lineup("sen", Threshold(wake=3), 2) == [Threshold(wake=3)] * 2
    assert registry.lineup("sen", ("threshold", "random"), 2)[0] == Threshold()
    with pytest.raises(SenseiError, match="unknown strategy 'nosuch'"):
        registry.lineup("sen", "nosuch", 2)


def test_a_first_runs_speed_leaves_its_compiling_out(tmp_path):
    """The readable header of a first run of a lineup says how long compiling took and gives the games'
    speed without it (with it, a first run of 2,000 games read as a few hundred games a second); a run
    that loads the lineup from the cache says nothing of compiling."""
    import re

    path = tmp_path / f"timed_{os.getpid()}_{time.time_ns()}.py"  # a module never compiled before
    path.write_text(textwrap.dedent(f'''
        import dataclasses
        from typing import ClassVar
        from simcore.games.sen import DRAW, FACE_UP, top_value
        from strategies.base import decision
        from strategies.sen import Threshold

        @decision
        def start_low(obs, prm, rng):
            return FACE_UP if 0 <= top_value(obs) <= {time.time_ns() % 3 + 2} else DRAW

        @dataclasses.dataclass(frozen=True)
        class Timed(Threshold):
            """takes a low face-up card"""
            name: ClassVar[str] = "timed"
            start = start_low
    '''))
    args = [SENSEI, "play", "sen", "-p", "2", "-s", f"{path}:Timed", "-n", "2000", "--no-progress"]
    env = {**os.environ, "COLUMNS": "200"}
    first = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    again = subprocess.run(args, capture_output=True, text=True, timeout=600, env=env)
    assert first.returncode == 0 and again.returncode == 0, first.stderr + again.stderr
    m = re.search(r"2,000 games, seed 0 \(([\d.]+) s, compiling ([\d.]+) s; ([\d,]+) games/s\)", first.stdout)
    assert m, first.stdout.splitlines()[0]
    total, compiling, speed = float(m[1]), float(m[2]), int(m[3].replace(",", ""))
    assert 0.5 <= compiling <= total and speed > 2000 / total
    head = again.stdout.splitlines()[0]
    assert "compiling" not in head and re.search(r"\([\d.]+ s, [\d,]+ games/s\)$", head), head
    # sensei run leaves a first run's compiling out of its speed too (it counted it, and said so nowhere)
    path.write_text(path.read_text().replace("<=", "< 1 +"))   # another module, never compiled before
    cfg = tmp_path / "timed.toml"
    cfg.write_text('title = "timed"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 2000\nseed = 0\n'
                   '[lineup]\nfocus = "timed"\nfield = "threshold"\n[report]\nanswer = "summary"\n')
    for n in (1, 2):
        r = subprocess.run([SENSEI, "run", str(cfg), "--strategies", str(path), "--no-progress", "--no-report",
                            "--out", str(tmp_path / "runs")], capture_output=True, text=True, timeout=600, env=env)
        assert r.returncode == 0, r.stderr
        found = glob.glob(str(tmp_path / "runs" / "timed-*" / "manifest.json"))
        man = json.load(open(max(found, key=os.path.getmtime)))
        speed = man["games_played"] / (man["seconds_playing"] - man["seconds_compiling"])
        assert man["games_per_second"] == pytest.approx(speed, rel=0.01)
        line = next(ln for ln in r.stdout.splitlines() if " games played in " in ln)
        if n == 1:
            assert 0.5 <= man["seconds_compiling"] <= man["seconds_playing"], man
            assert re.search(r"4,000 games played in [\d.]+ s \(compiling [\d.]+ s; [\d,]+ games/s\)$", line), line
        else:
            assert man["seconds_compiling"] < 0.05 and re.search(r"played in [\d.]+ s \([\d,]+ games/s\)$", line), line
