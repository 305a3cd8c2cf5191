"""Hostile input: random and malformed configs and `run`/`report` arguments either run or exit 2 with one
line naming the problem, never a traceback; output stays inside --out; configs never execute code.

`tests/test_properties.py` fuzzes `play` arguments and game invariants; this file covers experiments.
Every run is kept tiny (`--games 2`, at most a few cells and SPRT looks).
"""
import json
import math
import os
import tempfile

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.control import currently_in_test_context
from typer.testing import CliRunner

from experiments.cli import app
from experiments.experiment import new_run_folder, run_experiment

runner = CliRunner()
def fast(n: int):
    """Derandomized, so that the suite gives the same verdict every time; SENSEI_FUZZ=K explores K times as
    many random examples (e.g. before a release)."""
    scale = int(os.environ.get("SENSEI_FUZZ", "0") or 0)
    return settings(max_examples=n * max(scale, 1), deadline=None, database=None, derandomize=not scale,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check(r, args, name_in_error: str | None = None):
    """Exit 0, or exit 2 with exactly one line `error: ...` on stderr; never a traceback."""
    assert "Traceback" not in r.output, (args, r.output)
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
    if r.exit_code != 0:
        assert r.exit_code == 2, (args, r.exit_code, r.output)
        lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and lines[0].startswith("error: ") and len(lines[0]) > 12, (args, r.stderr)
        if name_in_error is not None:
            assert name_in_error in lines[0], (name_in_error, lines[0])
        rest = lines[0].replace(name_in_error or "\0", "FILE")
        _event("exit 2: " + rest[7:].split(":")[0 if not rest[7:].startswith("FILE") else 1].strip()[:40])
    else:
        _event("exit 0: ran")
    return r.exit_code


def _event(text: str) -> None:
    """What the examples did, shown with --hypothesis-show-statistics."""
    if currently_in_test_context():
        event(text)


# ------------------------------------------------------------------------------------- configs as data
def toml_value(v) -> str:
    """TOML for any value hypothesis makes (inline tables; nan and inf as TOML spells them)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")) if not math.isfinite(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # \\uXXXX escapes; a lone surrogate makes invalid TOML, which is a case too
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(x)}" for k, x in v.items()) + " }"


def toml_text(raw: dict) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in raw.items())


BASES = [
    {"title": "t", "question": "q", "game": "sen", "players": 3, "seed": 1,
     "lineup": {"focus": "threshold", "field": "threshold:wake=10"}, "sweep": {"focus.wake": [6, 12]}},
    {"title": "t", "question": "q", "game": "sen", "lineup": {"seats": ["counter", "watcher", "gambler"]},
     "players": 3, "rules": {"penalty": 15}},
    {"title": "t", "question": "q", "game": "sen", "lineup": {"tournament": ["counter", "swapper"]},
     "sweep": {"players": [2, 3], "variant": {"base": {}, "all_in": {"rules.go_all_in": True}}},
     "report": {"answer": "effect", "over": "variant", "baseline": "base"}},
    {"title": "t", "question": "q", "game": "sen", "players": 2, "lineup": {"focus": "threshold:wake=16",
     "field": "random"}, "sprt": {"h0": 0.0, "h1": 0.3, "max_games": 8}},
    {"title": "t", "question": "q", "game": "sensu", "lineup": {"seats": "random"}},
    {"title": "t", "question": "q", "game": "fan-and-mallet", "players": [2],
     "lineup": {"focus": "closer", "field": "random"}, "report": {"per_game": True}},
    {"title": "t", "question": "q", "game": "senshi", "lineup": {"focus": "greedy", "field": "random"}},
]
PATHS = ["title", "question", "game", "players", "games", "seed", "chunk_size", "rules", "rules.penalty",
         "rules.nope", "rules.go_all_in", "lineup", "lineup.focus", "lineup.field", "lineup.seats",
         "lineup.tournament", "lineup.rotate", "lineup.extra", "sweep", "sweep.players", "sweep.focus.wake",
         "sweep.field", "sweep.strategy.wake", "sweep.rules.penalty", "sweep.seat0.wake", "sweep.variant",
         "sprt", "sprt.h0", "sprt.h1", "sprt.alpha", "sprt.max_games", "report", "report.answer", "report.over",
         "report.metric", "report.goal", "report.baseline", "report.per_game", "report.notes", "run",
         "run.backend", "run.scheduler", "unknown", "title.nested"]
SPECS = ["threshold", "threshold:wake=7", "threshold:wake=-3", "threshold:wake=99999999999999999999",
         "threshold:wake=abc", "threshold:wake=1e308", "threshold:nope=1", "random:p_wake=2", "random:p_wake=nan",
         "counter:claim_gain=inf", "gambler:edge=-1e9", "greedy", "closer:feed=0", "nosuch", "", ":", "a:b:c",
         "./evil.py:Evil", "evil.py:Evil", "/tmp/evil.py:Evil", "sub/evil.py:Evil", "~/evil.py:Evil"]
SCALARS = st.one_of(
    st.integers(-3, 12), st.sampled_from([0, 1, 2 ** 31, 2 ** 63 - 1, -(2 ** 63), 10 ** 18]),
    st.floats(allow_nan=True, allow_infinity=True), st.booleans(), st.text(max_size=8), st.sampled_from(SPECS),
    st.sampled_from(["sen", "senshi", "sensu", "fan-and-mallet", "chess", "best", "effect", "ratings", "sprt",
                     "summary", "win_share", "mean_score", "mean_turns", "max", "min", "focus.wake", "players",
                     "variant", "base", "loky", "threading", "spark"]))
JUNK = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                    max_leaves=6)


def mutate(raw: dict, path: str, value) -> None:
    """Set (or, for value None, delete) a key path; a sweep key keeps its dot as one TOML key."""
    head, _, tail = path.partition(".")
    if head == "sweep" and tail:
        keys = ["sweep", tail]
    else:
        keys = path.split(".")
    node = raw
    for k in keys[:-1]:
        if not isinstance(node.get(k), dict):
            node[k] = {}
        node = node[k]
    if value is None:
        node.pop(keys[-1], None)
    else:
        node[keys[-1]] = value


def keep_it_small(raw: dict) -> None:
    """Hostile but finite: the SPRT looks at most 8 deals, [run] never waits for a far scheduler or
    starts a cluster (those are tested in test_resume.py), sweeps stay small."""
    sprt = raw.get("sprt")
    if isinstance(sprt, dict):
        mg = sprt.get("max_games")
        if isinstance(mg, int) and not isinstance(mg, bool) and mg > 8:
            sprt["max_games"] = 8
        if "max_games" not in sprt:
            sprt["max_games"] = 8
    run = raw.get("run")
    if isinstance(run, dict):
        if isinstance(run.get("scheduler"), str):
            run["scheduler"] = "bogus://" + run["scheduler"]
        if run.get("backend") == "dask" and "scheduler" not in run:
            run["backend"] = "loky"


@fast(70)
@given(base=st.sampled_from(range(len(BASES))),
       changes=st.lists(st.tuples(st.sampled_from(PATHS), st.one_of(st.none(), JUNK)), max_size=3))
def test_hostile_configs_run_or_fail_in_one_line_naming_the_file(base, changes):
    raw = json.loads(json.dumps(BASES[base]))
    for path, value in changes:
        mutate(raw, path, value)
    keep_it_small(raw)
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "hostile.toml")
        with open(cfg, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(toml_text(raw))
        out = os.path.join(d, "runs")
        args = ["run", cfg, "--games", "2", "--no-progress", "--no-report", "--out", out]
        code = check(runner.invoke(app, args), raw, name_in_error=cfg)
        made = os.listdir(out) if os.path.isdir(out) else []
        if code == 0:  # one complete run folder, inside --out
            assert len(made) == 1 and os.path.isfile(os.path.join(out, made[0], "manifest.json"))
        else:  # a mistake found before anything ran leaves nothing behind
            assert made == [], made
        assert sorted(os.listdir(d)) == sorted(["hostile.toml"] + (["runs"] if os.path.isdir(out) else []))


VALID_TEXT = toml_text(BASES[0])


@fast(60)
@given(st.one_of(
    st.text(max_size=60),
    st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
    st.tuples(st.integers(0, len(VALID_TEXT)), st.integers(0, 8), st.text(max_size=4)).map(
        lambda t: VALID_TEXT[:t[0]] + t[2] + VALID_TEXT[t[0] + t[1]:]),
    st.sampled_from(["[", "[[lineup]]", "title = ", "a = 1\na = 2", "x = [1, 2", '"""', "[sweep]\n[sweep]",
                     "\x00", "\ufeff" + VALID_TEXT, VALID_TEXT + "\n[lineup]\nfocus = 'x'", "= 1"]),
))
def test_invalid_or_mangled_toml_fails_in_one_line(text):
    with tempfile.TemporaryDirectory() as d:
        cfg = os.path.join(d, "mangled.toml")
        with open(cfg, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        out = os.path.join(d, "runs")
        check(runner.invoke(app, ["run", cfg, "--games", "2", "--no-progress", "--no-report", "--out", out]), text,
              name_in_error=cfg)


# ----------------------------------------------------------------------------------- command lines
GOOD = "\n".join(['title = "t"', 'question = "q"', 'game = "sen"', "players = 2",
                  '[lineup]', 'focus = "threshold"', 'field = "random"']) + "\n"


def _arg_tokens(root: str):
    """A command line: maybe a positional path, then options with (hostile) values, maybe a stray token."""
    paths = [os.path.join(root, p) for p in ("good.toml", "missing.toml", "folder", "binary.toml", "runs",
                                              "runs/incomplete", "runs/complete", "runs/junk")]
    paths += ["", "-", "..", "/dev/null", "../../x", "\x00", "runs/../../escape", "runs"]
    values = st.one_of(st.sampled_from(paths), st.sampled_from(
        ["0", "-1", "1", "2", "1.5", "x", "-" + "9" * 25, "loky", "threading", "multiprocessing", "spark", "dask",
         "bogus://host", "", "nan"]), st.text(max_size=5))
    flags = st.sampled_from(["--games", "-n", "--jobs", "-j", "--out", "-o", "--resume", "--backend", "--scheduler",
                             "--bogus"])
    switches = st.sampled_from(["--progress", "--no-progress", "--report", "--no-report", "--help", "-x"])
    option = st.one_of(st.tuples(flags, values).map(list), switches.map(lambda s: [s]))
    return st.tuples(st.one_of(st.none(), st.sampled_from(paths), values), st.lists(option, max_size=3),
                     st.one_of(st.none(), values)).map(
        lambda t: ([t[0]] if t[0] is not None else []) + sum(t[1], []) + ([t[2]] if t[2] is not None else []))


@pytest.fixture(scope="module")
def arg_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("args")
    (root / "good.toml").write_text(GOOD)
    (root / "folder").mkdir()
    (root / "binary.toml").write_bytes(b"\xff\xfe\x00garbage\x80")
    runs = root / "runs"
    complete = run_experiment(str(root / "good.toml"), games=2, out=str(runs)).run_dir
    os.rename(complete, runs / "complete")
    (runs / "incomplete").mkdir()
    (runs / "incomplete" / "config.toml").write_text(GOOD)
    (runs / "junk").mkdir()
    for name in ("manifest.json", "summary.json", "cells.parquet"):
        (runs / "junk" / name).write_bytes(b"{not json or parquet")
    return str(root)


@fast(70)
@given(data=st.data())
def test_hostile_run_and_report_arguments(arg_root, data):
    command = data.draw(st.sampled_from(["run", "report"]))
    tokens = data.draw(_arg_tokens(arg_root))
    # tiny and local: two games (the last --games wins), never more than two worker processes
    args = [command] + tokens + (["--games", "2", "--no-progress"] if command == "run" else [])
    before = set(os.listdir(arg_root))
    cwd = os.getcwd()
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "a", "b"))
        os.chdir(os.path.join(d, "a", "b"))  # relative paths (runs/, ../../x) land in a scratch folder
        try:
            r = runner.invoke(app, args)
        finally:
            os.chdir(cwd)
        code = r.exit_code
        assert "Traceback" not in r.output, (args, r.output)
        assert r.exception is None or isinstance(r.exception, SystemExit), (args, repr(r.exception))
        assert code in (0, 2), (args, code, r.output)
        if code == 2:
            lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
            assert len(lines) == 1 and lines[0].startswith("error: "), (args, r.stderr)
        event(f"{command}: exit {code}" + (": " + r.stderr.replace(arg_root, "ROOT")[7:30] if code else ""))
    assert set(os.listdir(arg_root)) - before <= {"runs"}, (args, set(os.listdir(arg_root)) - before)


def test_report_on_incomplete_and_damaged_folders_is_one_line(arg_root):
    runs = os.path.join(arg_root, "runs")
    for name, words in [("incomplete", ["incomplete run"]), ("junk", ["unreadable"]), ("nothing", ["not a run"])]:
        r = runner.invoke(app, ["report", os.path.join(runs, name)])
        check(r, name)
        assert r.exit_code == 2 and all(w in r.stderr for w in words), (name, r.stderr)
    r = runner.invoke(app, ["report", os.path.join(runs, "complete")])
    assert r.exit_code == 0, r.output
    index = open(os.path.join(runs, "index.html"), encoding="utf-8").read()
    assert "complete" in index and "incomplete" not in index and "junk" not in index


# --------------------------------------------------------------------------- paths stay inside --out
def test_run_folder_names_never_leave_out(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "a" / "runs"
    res = run_experiment({"title": "t", "question": "q", "game": "sen", "players": 2,
                          "lineup": {"focus": "threshold", "field": "random"}}, games=2)
    for name in ["../escape", "../../outside/x", "/tmp/abs", str(outside / "x"), "..", ".", "", "a/../../b",
                 "..\\..\\win", "\x00nul", "~/home", "-rf", "x" * 300]:
        path = res.write(str(out), name=name or None)
        assert os.path.dirname(os.path.realpath(path)) == os.path.realpath(out), (name, path)
        assert os.path.isfile(os.path.join(path, "manifest.json"))
    assert sorted(os.listdir(tmp_path)) == ["a", "outside"] and os.listdir(outside) == []
    assert os.listdir(tmp_path / "a") == ["runs"]

    # config files with hostile names: the run folder is named after them, inside --out
    for fname in ["..toml", "...toml", "-x.toml", "a b;$(touch pwned).toml", ".hidden.toml"]:
        cfg = tmp_path / fname
        cfg.write_text(GOOD)
        r = runner.invoke(app, ["run", str(cfg), "--games", "2", "--no-progress", "--no-report", "--out", str(out)])
        assert r.exit_code == 0, (fname, r.output)
        path = r.stdout.split("run folder: ")[1].split()[0]
        assert os.path.dirname(os.path.realpath(path)) == os.path.realpath(out)
        cfg.unlink()
    assert not (tmp_path / "pwned").exists() and not os.path.exists("pwned")


def test_symbolic_links_never_lead_outside(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "runs"
    out.mkdir()
    # an entry of the chosen name, a link to elsewhere (or dangling), is never reused
    os.symlink(outside, out / "cfg-STAMP")
    os.symlink(tmp_path / "nowhere", out / "cfg-STAMP-2")
    path = new_run_folder(str(out), "cfg", stamp="STAMP")
    assert path == str(out / "cfg-STAMP-3") and os.path.isdir(path) and not os.path.islink(path)
    assert os.listdir(outside) == [] and not (tmp_path / "nowhere").exists()

    # an unfinished run whose parts/ or resume.json was replaced by a link is refused
    cfg = tmp_path / "good.toml"
    cfg.write_text(GOOD)
    for victim in ("parts", "resume.json"):
        run_dir = tmp_path / f"unfinished-{victim}"
        run_dir.mkdir()
        (run_dir / "resume.json").write_text(json.dumps({"fingerprint": {}}))
        if victim == "resume.json":
            (run_dir / "resume.json").unlink()
            os.symlink(outside / "state.json", run_dir / "resume.json")
        else:
            os.symlink(outside, run_dir / "parts")
        r = runner.invoke(app, ["run", str(cfg), "--resume", str(run_dir), "--games", "2", "--no-progress"])
        check(r, victim, name_in_error="symbolic link")
        assert r.exit_code == 2
    assert os.listdir(outside) == []


# ------------------------------------------------------------------------------ configs never run code
EVIL = """
import pathlib
pathlib.Path(__file__).with_name("pwned").write_text("code from a config ran")
from strategies.base import Strategy
class Evil(Strategy):
    pass
"""


@pytest.mark.parametrize("where", ["focus", "field", "seats", "tournament", "sweep"])
@pytest.mark.parametrize("spec", ["./evil.py:Evil", "evil.py:Evil", "{dir}/evil.py:Evil", "sub/../evil.py:Evil",
                                  " ./evil.py:Evil:x=1", "EVIL.PY:Evil"])
def test_configs_never_load_python_files(tmp_path, monkeypatch, where, spec):
    (tmp_path / "evil.py").write_text(EVIL)
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path)
    spec = spec.format(dir=tmp_path)
    lineup = {"focus": "threshold", "field": "random"}
    sweep = {}
    if where in ("focus", "field"):
        lineup[where] = spec
    elif where == "seats":
        lineup = {"seats": ["threshold", spec]}
    elif where == "tournament":
        lineup = {"tournament": ["threshold", spec]}
    else:
        sweep = {"focus": ["threshold", spec]}
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "lineup": lineup, "sweep": sweep}
    cfg = tmp_path / "c.toml"
    cfg.write_text(toml_text(raw))
    r = runner.invoke(app, ["run", str(cfg), "--games", "2", "--no-progress", "--no-report", "--out", "runs"])
    check(r, raw, name_in_error="never load a Python file")
    assert r.exit_code == 2
    assert not (tmp_path / "pwned").exists()
    assert not (tmp_path / "runs").exists()


# ---------------------------------------------------------------------------------------- memory advice
def _advice(raw: dict) -> str:
    import re as _re

    from experiments.config import load
    from experiments.engine import check_memory
    from simcore.errors import SenseiError
    with pytest.raises(SenseiError) as err:
        check_memory(load(raw))
    return _re.search(r"; (lower \S+)(?: \(at most about ([\d,]+) )?", str(err.value)).groups()


PER_GAME = {"title": "t", "question": "q", "game": "sen", "players": 2, "seed": 1,
            "lineup": {"focus": "threshold", "field": "threshold"}, "sweep": {"focus.wake": [8, 10]},
            "report": {"answer": "best", "over": "focus.wake", "per_game": True}}


def test_the_memory_advice_gives_the_largest_run_that_fits_whatever_was_asked(monkeypatch):
    """'at most about N deals per cell fit' is the largest N that fits (N passes, N + 1 does not), the same
    whether 2,000,000 or 100,000,000 games were asked for (it used to move with the request, down to 0)."""
    import simcore.runner as runner_mod
    from experiments.config import load
    from experiments.engine import check_memory
    from simcore.errors import SenseiError
    monkeypatch.setattr(runner_mod, "memory_budget", lambda: 1 << 30)
    figures = set()
    for games in (2_000_000, 20_000_000, 100_000_000):
        key, fit = _advice({**PER_GAME, "games": games})
        assert key == "lower games"
        figures.add(int(fit.replace(",", "")))
    (fit,) = figures
    check_memory(load({**PER_GAME, "games": fit}))
    with pytest.raises(SenseiError):
        check_memory(load({**PER_GAME, "games": fit + 1}))


def test_the_memory_advice_names_search_confirm_when_it_is_the_value_to_lower(monkeypatch):
    import simcore.runner as runner_mod
    monkeypatch.setattr(runner_mod, "memory_budget", lambda: 1 << 30)
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20, "seed": 1,
           "lineup": {"focus": "threshold", "field": "threshold"},
           "search": {"focus.wake": [8, 10], "confirm": 1_000_000_000},
           "report": {"answer": "best_response", "per_game": True}}
    key, fit = _advice(raw)
    assert key == "lower search.confirm" and int(fit.replace(",", "")) > 1000


RAISES_INTERRUPT = """
import dataclasses
from typing import ClassVar
from strategies.base import Strategy

@dataclasses.dataclass(frozen=True)
class Stops(Strategy):
    game: ClassVar[str] = "sen"
    def start(self, obs, rng):
        raise KeyboardInterrupt
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_strategy_raising_keyboard_interrupt_is_its_error_not_a_ctrl_c(tmp_path, jobs):
    """Chunks play in the runner's threads or in worker processes, where no Ctrl-C is ever raised: a
    KeyboardInterrupt there is the strategy's own (exit 2, one line naming it), not 'interrupted' (130)."""
    path = tmp_path / "stops.py"
    path.write_text(RAISES_INTERRUPT)
    args = ["play", "sen", "-s", f"{path}:Stops", "--games", "20", "--chunk-size", "5", "--jobs", jobs]
    r = runner.invoke(app, args)
    assert check(r, args) == 2
    assert "Stops" in r.stderr and "raised KeyboardInterrupt in its decision 'start'" in r.stderr, r.stderr
