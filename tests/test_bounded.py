"""Work bounded for any input: tasks are made as workers free up (never a list of them), absurd sizes get
one line and exit 2, huge runs start with flat memory under an address-space limit and stop at Ctrl-C
with one line; Ctrl-C lost inside compiled code still stops the run."""
import glob
import itertools
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
import types

import numpy as np
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.config import load
from experiments.engine import ChunkStore, check_memory, play_cells
from experiments.experiment import RunInterrupted, run_experiment
from simcore import runner as R
from simcore.errors import SenseiError

SENSEI = os.path.join(os.path.dirname(sys.executable), "sensei")
cli = CliRunner()


def one_error_line(r, *words):
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (r.exit_code, r.output)
    assert "Traceback" not in r.output
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ------------------------------------------------------------------------------------------ lazy tasks
def test_chunks_are_made_one_at_a_time():
    gen = R.chunks(10 ** 15, 7, start=3)
    assert isinstance(gen, types.GeneratorType)
    assert list(itertools.islice(gen, 3)) == [(3, 10), (10, 17), (17, 24)]
    assert list(R.chunks(10, 4)) == [(0, 4), (4, 8), (8, 10)] and R.n_chunks(10, 4) == 3


def _task(x):
    return x * 2


class Enough(Exception):
    pass


@pytest.mark.parametrize("jobs, backend", [(1, None), (2, "threading"), (2, "loky")])
def test_run_chunks_pulls_tasks_only_as_they_are_needed(jobs, backend):
    """An endless stream of tasks: only a window of them is ever made ahead of the results."""
    pulled = []

    def tasks():
        for i in itertools.count():
            pulled.append(i)
            yield _task, (i,)

    got = []

    def on_result(i, res):
        assert res == 2 * i
        got.append(res)
        if len(got) == 300:
            raise Enough

    with pytest.raises(Enough):
        R.run_chunks(tasks(), jobs, on_result, backend)
    assert len(pulled) <= 300 + R.WINDOW * jobs + 2, len(pulled)


def _gated_task(i, ran, gate):
    ran.append(i)
    if i < 5:
        time.sleep(0.002 * (i % 3))  # later tasks often finish first
        return i
    if i == 5:
        raise Enough(i)
    gate.wait(10)  # tasks behind the error wait until the run has stopped
    return i


def test_threads_hand_results_in_task_order_and_drop_queued_tasks_after_an_error():
    """The kept thread pool of the threading backend: results in task order whatever finishes first;
    an error in a task reaches the caller, and the tasks queued behind it are not run."""
    import threading

    ran, got, gate = [], [], threading.Event()
    with pytest.raises(Enough):
        R.run_chunks(((_gated_task, (i, ran, gate)) for i in range(400)), 2,
                     lambda i, res: got.append((i, res)), "threading")
    gate.set()
    time.sleep(0.2)  # the tasks already running when the error surfaced (one per thread) finish
    assert got == [(i, i) for i in range(5)]
    assert sorted(ran)[:6] == list(range(6)) and len(ran) <= 6 + 2, ran
    # the pool is kept and serves the next run
    assert R._thread_pool(2) is R._thread_pool(2)
    out = []
    R.run_chunks(((_task, (i,)) for i in range(50)), 2, lambda i, res: out.append(res), "threading")
    assert out == [2 * i for i in range(50)]


def _nested_run(i):
    out = []
    R.run_chunks(((_task, (k,)) for k in range(4)), 2, lambda j, res: out.append(res), "threading")
    return i, out


def test_a_threaded_run_inside_a_threaded_chunk_plays_in_its_own_thread():
    """A run started from a chunk of the kept pool (every pool thread may be busy with such chunks) plays
    in that thread instead of waiting for the pool."""
    got = []
    R.run_chunks(((_nested_run, (i,)) for i in range(6)), 2, lambda i, res: got.append(res), "threading")
    assert got == [(i, [0, 2, 4, 6]) for i in range(6)]


def _marked_task(i, folder):
    with open(os.path.join(folder, f"{i}.started"), "w"):
        pass
    if i < 5:
        time.sleep(0.02 * (i % 3))  # later tasks often finish first
        return i
    if i == 5:
        raise Enough(i)
    time.sleep(0.5)
    return i


def test_worker_processes_hand_results_in_task_order_and_stop_after_an_error(tmp_path):
    """The worker processes of the loky backend: results in task order whatever finishes first, as soon
    as they are there; an error in a task reaches the caller, the workers are stopped (at most two tasks
    per worker were ever handed to them), and the next run gets new workers."""
    got = []
    with pytest.raises(Enough):
        R.run_chunks(((_marked_task, (i, str(tmp_path))) for i in range(400)), 2,
                     lambda i, res: got.append((i, res)), "loky")
    assert got == [(i, i) for i in range(5)]
    time.sleep(0.7)  # a task behind the error would have finished by now
    started = sorted(int(f.split(".")[0]) for f in os.listdir(tmp_path))
    assert started[:6] == list(range(6)) and len(started) <= 6 + 2 * 2, started
    out = []
    R.run_chunks(((_task, (i,)) for i in range(50)), 2, lambda i, res: out.append(res), "loky")
    assert out == [2 * i for i in range(50)]


def _ends_its_process(i):
    if i == 3:
        os._exit(3)
    time.sleep(0.05)
    return i


@pytest.mark.parametrize("backend", ["loky", "multiprocessing"])
def test_a_worker_process_that_dies_is_a_one_line_error_and_the_next_run_gets_new_workers(backend):
    """(joblib's multiprocessing pool waited for ever on a dead worker's task; the backend now drives
    Python's executor, which fails the run at once.)"""
    from simcore.errors import WorkerDied
    got = []
    with pytest.raises(WorkerDied, match=r"a worker process stopped while playing \(exit codes: EXIT\(3\)\)"):
        R.run_chunks(((_ends_its_process, (i,)) for i in range(40)), 2, lambda i, res: got.append(res), backend)
    assert got == list(range(len(got))) and len(got) <= 3
    out = []
    R.run_chunks(((_task, (i,)) for i in range(20)), 2, lambda i, res: out.append(res), backend)
    assert out == [2 * i for i in range(20)]


DYING = """
import dataclasses, os
from typing import ClassVar
import numpy as np
from strategies.base import Strategy

@dataclasses.dataclass(frozen=True)
class Dies(Strategy):
    game: ClassVar[str] = "sen"
    def start(self, obs, rng):
        os._exit(3)
"""


def test_the_command_line_says_in_one_line_that_a_worker_died(tmp_path):
    path = tmp_path / "dies.py"
    path.write_text(DYING)
    proc = subprocess.run([SENSEI, "play", "sen", "--strategy", f"{path}:Dies", "--games", "20000", "--jobs", "2"],
                          capture_output=True, text=True, timeout=300)
    lines = [ln for ln in proc.stderr.strip().splitlines() if not ln.startswith("compiling ")]
    assert proc.returncode == 1 and len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: a worker process stopped while playing (exit codes: EXIT(3)"), lines


DYING_LATER = """
import dataclasses, os
from typing import ClassVar
import numpy as np
from simcore.games.sen import Drawn, Start
from strategies.base import Strategy

@dataclasses.dataclass(frozen=True)
class DiesLater(Strategy):
    name: ClassVar[str] = "dies-later"
    game: ClassVar[str] = "sen"
    def start(self, obs, rng):
        if os.path.exists(os.environ["SENSEI_TEST_FLAG"]):
            os._exit(3)
        return np.full(obs.me.shape[0], Start.DRAW)
    def drawn(self, obs, rng):
        return np.full(obs.me.shape[0], Drawn.DISCARD)
"""


@pytest.mark.parametrize("backend", ["loky", "multiprocessing"])
def test_a_run_whose_worker_dies_keeps_its_finished_chunks_and_says_how_to_resume(tmp_path, backend):
    files = tmp_path / "dies.py"
    files.write_text(DYING_LATER)
    cfg = tmp_path / "c.toml"
    cfg.write_text('title = "t"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 400000\nchunk_size = 2048\n'
                   '[lineup]\nfocus = "dies-later"\nfield = "threshold"\n[report]\nanswer = "summary"\n')
    flag, out = tmp_path / "flag", tmp_path / "runs"
    proc = subprocess.Popen([SENSEI, "run", str(cfg), "--strategies", str(files), "--no-progress", "--no-report",
                             "--out", str(out), "--jobs", "2", "--backend", backend], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "SENSEI_TEST_FLAG": str(flag)})
    t0 = time.monotonic()
    while len(glob.glob(str(out / "*" / "parts" / "*.npz"))) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < 240, "no finished chunks after 240 s"
        time.sleep(0.02)
    flag.touch()
    _, err = proc.communicate(timeout=240)
    # the notice of a first compilation (a cold cache) is a line of its own, not part of the error
    lines = [ln for ln in err.strip().splitlines() if not ln.startswith("compiling ")]
    assert proc.returncode == 1 and len(lines) == 1, err
    assert lines[0].startswith("error: a worker process stopped while playing (exit codes: EXIT(3)"), lines
    kept = len(glob.glob(str(out / "*" / "parts" / "*.npz")))
    assert f"; {kept} finished chunks kept in " in lines[0] and "resume with: sensei run " in lines[0], lines


def _nested_process_run(i):
    out = []
    R.run_chunks(((_task, (k,)) for k in range(4)), 2, lambda j, res: out.append(res), "loky")
    return i, out, os.getpid()


def test_a_run_inside_a_worker_process_plays_in_that_process():
    """A run started from a chunk on a worker process plays there (no pool of processes per worker)."""
    got = []
    R.run_chunks(((_nested_process_run, (i,)) for i in range(6)), 2, lambda i, res: got.append(res), "loky")
    assert [g[:2] for g in got] == [(i, [0, 2, 4, 6]) for i in range(6)]
    assert os.getpid() not in {g[2] for g in got}


def test_results_do_not_depend_on_a_tiny_chunk_size():
    from strategies.registry import lineup
    agents = lineup("sen", ["threshold"], 3)
    a = R.simulate("sen", agents, n_games=40, seed=5).summary()
    b = R.simulate("sen", agents, n_games=40, seed=5, chunk_size=1, jobs=2, backend="threading").summary()
    assert a == b


@pytest.mark.parametrize("backend", ["loky", "multiprocessing"])
def test_every_process_backend_plays_many_chunks_with_the_same_results(backend):
    from strategies.registry import lineup
    agents = lineup("sen", ["threshold"], 3)
    a = R.simulate("sen", agents, n_games=40, seed=5).summary()
    b = R.simulate("sen", agents, n_games=40, seed=5, chunk_size=7, jobs=2, backend=backend).summary()
    assert a == b


# ------------------------------------------------------------------------------------------ absurd sizes
@pytest.mark.parametrize("args, words", [
    (["--chunk-size", "0"], ["chunk size", "from 1 to"]),
    (["--chunk-size", "-3"], ["chunk size"]),
    (["--chunk-size", str(10 ** 12)], ["chunk size", f"{R.MAX_CHUNK:,}"]),
    (["--games", str(2 ** 63)], ["games", "at most"]),
    (["--games", str(10 ** 40)], ["games", "at most"]),
])
def test_play_refuses_absurd_sizes_in_one_line(args, words):
    one_error_line(cli.invoke(app, ["play", "sen", *args]), *words)


def _config(tmp_path, extra="", games=100, answer=""):
    text = (f'title = "t"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = {games}\n{extra}\n'
            '[lineup]\nfocus = "threshold"\nfield = "random"\n'
            '[sweep]\n"focus.wake" = [6, 12]\n' + (f'[report]\nanswer = "{answer}"\n' if answer else ""))
    path = tmp_path / "big.toml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("extra, override, words", [
    ("chunk_size = 0", None, ["chunk_size", "from 1 to"]),
    (f"chunk_size = {10 ** 9}", None, ["chunk_size"]),
    ("", str(2 ** 63), ["--games"]),
])
def test_run_refuses_absurd_sizes_in_one_line(tmp_path, extra, override, words):
    args = ["run", _config(tmp_path, extra), "--no-progress", "--out", str(tmp_path / "runs")]
    one_error_line(cli.invoke(app, args + (["--games", override] if override else [])), *words)
    assert not (tmp_path / "runs").exists() or not os.listdir(tmp_path / "runs")


def test_a_grid_too_large_to_hold_is_refused_before_it_is_made(tmp_path):
    axes = "".join(f'"rules.penalty" = [{", ".join(map(str, range(1, 11)))}]\n' for _ in range(1))
    text = ('title = "t"\nquestion = "q"\ngame = "sen"\n[lineup]\nfocus = "threshold"\nfield = "random"\n'
            '[sweep]\nplayers = [2, 3, 4, 5]\n' + axes
            + '"focus.wake" = [' + ", ".join(map(str, range(2, 30))) + "]\n"
            + '"field.p_wake" = [' + ", ".join(f"0.{i:03d}" for i in range(1, 999)) + "]\n"
            + '[report]\nover = "focus.wake"\n')
    path = tmp_path / "huge.toml"
    path.write_text(text)
    one_error_line(cli.invoke(app, ["run", str(path), "--out", str(tmp_path / "runs")]), "sweep", "10,000 cells")


def test_paired_vectors_that_would_not_fit_are_refused_before_anything_runs(tmp_path):
    # answer "best" keeps 4 float32 per deal and cell for its paired comparisons: 2**63 deals cannot fit
    r = cli.invoke(app, ["run", _config(tmp_path, games=R.MAX_GAMES), "--out", str(tmp_path / "runs")])
    one_error_line(r, "per-deal values", "lower games")
    assert not (tmp_path / "runs").exists() or not os.listdir(tmp_path / "runs")
    check_memory(load(_config(tmp_path, games=100_000)))  # a normal run passes
    rows = tmp_path / "rows.toml"
    rows.write_text(open(_config(tmp_path, games=10 ** 13, answer="summary")).read() + "per_game = true\n")
    with pytest.raises(SenseiError, match="one row per game"):
        check_memory(load(str(rows)))


def test_keep_games_that_would_not_fit_is_refused():
    from strategies.registry import lineup
    with pytest.raises(SenseiError, match="one row per game"):
        R.simulate("sen", lineup("sen", ["threshold"], 4), n_games=10 ** 14, keep_games=True)


# ------------------------------------------------------------------------------- Ctrl-C at any moment
def test_ctrl_c_inside_a_compiled_call_is_an_interrupt_not_a_system_error(tmp_path, monkeypatch):
    """Ctrl-C landing as numba hands back a result surfaces as SystemError ("returned a result with an
    exception set") caused by the KeyboardInterrupt: the run stops with RunInterrupted, chunks kept."""
    import experiments.engine as engine

    real = engine.cell_chunk
    calls = []

    def flaky(*args):
        calls.append(1)
        if len(calls) == 4:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt as exc:
                raise SystemError("CPUDispatcher(<function _greedy>) returned a result with an exception set") from exc
        return real(*args)

    monkeypatch.setattr(engine, "cell_chunk", flaky)
    with pytest.raises(RunInterrupted) as info:
        run_experiment(_config(tmp_path, "chunk_size = 25"), out=str(tmp_path / "runs"), jobs=1)
    assert info.value.done == 3 and "--resume" in str(info.value)


def test_a_ctrl_c_swallowed_inside_a_chunk_still_stops_the_run():
    """A KeyboardInterrupt cleared by code that calls back into Python (numba, llvmlite) never reaches the
    runner; the signal is remembered and the run stops after that chunk."""
    def swallowing(i):
        if i == 2:
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                pass  # as a C extension's callback would drop it
        return i

    got = []
    # as in a terminal: a process started in the background by a shell without job control inherits
    # Ctrl-C ignored, and then no run is interrupted by it
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            R.run_chunks(((swallowing, (i,)) for i in range(100)), 1, lambda i, r: got.append(r))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert got == [0, 1]


def _ctrl_c_default():
    """SIGINT at its default disposition in the child, as in a terminal: a suite started as a background job
    of a shell (which ignores SIGINT there) would hand its commands an ignored Ctrl-C, which they keep, by
    design, as a background job's."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _limited(gib):
    def pre():
        _ctrl_c_default()
        limit = gib << 30
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return pre


def _interrupt(proc):
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the command and its workers
    out, err = proc.communicate(timeout=60)
    # the notice of a first compilation (a cold cache) is a line of its own, not part of the interruption
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err and "MemoryError" not in err and "Fatal" not in err, err
    return out, lines


def test_a_huge_play_starts_with_flat_memory_and_stops_at_ctrl_c():
    """10**13 games under a 2 GiB address-space limit per process: the runner used to build every chunk
    first (6.8 GB, then MemoryError); now it plays, and Ctrl-C ends it with one line."""
    proc = subprocess.Popen([SENSEI, "play", "sen", "--games", str(10 ** 13), "--jobs", "2", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_limited(2))
    time.sleep(8)  # let it play a while (a wait, not a timed assertion)
    assert proc.poll() is None, proc.communicate()
    _, lines = _interrupt(proc)
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and "of 10,000,000,000,000 games" in lines[0]


def test_an_interrupted_progress_bar_on_a_pipe_leaves_only_the_one_line():
    """The progress bar is on by default; on a pipe (a log file, CI) it is never drawn, and Ctrl-C used to
    leave an empty line before the one line that says how far the run got."""
    proc = subprocess.Popen([SENSEI, "play", "sen", "--games", str(10 ** 10)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=_ctrl_c_default)
    time.sleep(5)  # let it play a while (a wait, not a timed assertion)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (proc.returncode, err)
    lines = [ln for ln in err.splitlines() if not ln.startswith("compiling ")]
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), repr(err)
    assert out == ""


def test_ctrl_c_with_a_local_dask_cluster_is_one_line_without_the_workers_tracebacks():
    """--backend dask without a scheduler starts worker processes in the command's process group: Ctrl-C
    reaches them too, and each used to print a traceback (and the scheduler its warnings) before the one
    line. A Ctrl-C while the cluster starts is ignored, so it is sent again until the command stops."""
    proc = subprocess.Popen([SENSEI, "play", "senshi", "--games", str(10 ** 8), "--jobs", "2", "--backend", "dask",
                             "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_ctrl_c_default)
    time.sleep(8)  # let the cluster start and play (a wait, not a timed assertion)
    for _ in range(12):
        os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the command and its workers
        try:
            proc.wait(timeout=10)
            break
        except subprocess.TimeoutExpired:
            continue
    out, err = proc.communicate(timeout=60)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err and "WARNING" not in err, err
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and "of 100,000,000 games" in lines[0], err


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    out = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            with open(stat) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.split("/")[2]))
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (an orphan that ended may stay a zombie where nothing reaps it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_worker_processes_end_with_a_command_killed_by_sigkill():
    """SIGKILL cannot be caught, so the command cannot stop its pool: its loky workers went on playing their
    chunks for nobody, then stayed idle for minutes. Each worker now ends within a second of its parent."""
    numpy_file = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "strategies",
                              "sen_numpy.py")
    proc = subprocess.Popen([SENSEI, "play", "sen", "-s", f"{numpy_file}:Cautious", "--games", str(10 ** 8), "--jobs",
                             "2", "--no-progress"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    t0 = time.monotonic()
    workers: list[int] = []
    while len(workers) < 2 and proc.poll() is None and time.monotonic() - t0 < 300:
        time.sleep(0.2)
        workers = [c for c in _children(proc.pid) if "LokyProcess" in _cmdline(c)]
    assert len(workers) == 2, workers
    time.sleep(3)   # they play (a wait, not a timed assertion)
    assert all(_alive(w) for w in workers)
    proc.kill()
    proc.wait()
    t0 = time.monotonic()
    while any(_alive(w) for w in workers) and time.monotonic() - t0 < 60:
        time.sleep(0.2)
    assert not any(_alive(w) for w in workers), "a worker outlived its command"


def test_sigterm_while_a_local_dask_cluster_starts_is_one_line():
    """A SIGTERM that landed while the local cluster started (its workers there, not yet joined) left a
    half-made cluster, and dask's own clean-up at exit failed on it: "Exception ignored in atexit callback"
    and a traceback of 30 lines after the one line. The SIGTERM now waits until the cluster has started."""
    proc = subprocess.Popen([SENSEI, "play", "senshi", "--games", str(10 ** 8), "--jobs", "2", "--backend", "dask",
                             "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    t0 = time.monotonic()
    while not _children(proc.pid) and proc.poll() is None and time.monotonic() - t0 < 120:
        time.sleep(0.01)   # the first worker process: the cluster is starting
    assert proc.poll() is None, proc.communicate()
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert len(lines) == 1 and lines[0].startswith("interrupted"), err


def test_a_huge_run_starts_saves_chunks_and_stops_at_ctrl_c(tmp_path):
    """games = 2**63 - 1 per cell (answer summary keeps no per-deal values): the run prints the size of its
    grid, saves finished chunks with flat memory, and Ctrl-C says how to resume."""
    cfg = _config(tmp_path, games=R.MAX_GAMES, answer="summary")
    out = tmp_path / "runs"
    proc = subprocess.Popen([SENSEI, "run", cfg, "--no-progress", "--no-report", "--out", str(out), "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_limited(2))
    t0 = time.monotonic()
    while len(glob.glob(str(out / "*" / "parts" / "*.npz"))) < 6:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() - t0 < 120, "no finished chunks after 120 s"
        time.sleep(0.05)
    stdout, lines = _interrupt(proc)
    assert stdout.startswith("grid: 2 cells x 9,223,372,036,854,775,807 deals x 2 rotations = "
                             "36,893,488,147,419,103,228 games"), stdout
    assert "time left: about" in stdout and "years" in stdout, stdout
    assert len(lines) == 1 and lines[0].startswith("interrupted: ") and "--resume" in lines[0], lines


def test_ctrl_c_during_play_with_one_job_is_one_line():
    proc = subprocess.Popen([SENSEI, "play", "senshi", "-s", "greedy", "--games", str(10 ** 12)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(4)
    assert proc.poll() is None, proc.communicate()
    _, lines = _interrupt(proc)
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), lines


def test_the_grid_line_and_the_time_left(tmp_path):
    lines = []
    res = run_experiment(_config(tmp_path, "chunk_size = 10"), log=lines.append, jobs=1)
    assert lines[0] == "grid: 2 cells x 100 deals x 2 rotations = 400 games in chunks of up to 10"
    assert len(lines) == 2 and lines[1].startswith("time left: about ") and "from the first 3 chunks" in lines[1]
    assert res.manifest["games_played"] == res.manifest["games_total"] == 400
    # a resume reads chunks back: the grid line says so, and the speed counts only what was played
    folder = str(tmp_path / "parts")
    cfg = load(_config(tmp_path, "chunk_size = 10"))
    play_cells(cfg, store=ChunkStore(folder))
    for f in sorted(os.listdir(folder))[::2]:
        os.unlink(os.path.join(folder, f))
    lines.clear()
    store = ChunkStore(folder)
    runs = play_cells(cfg, store=store, log=lines.append)
    assert lines[0].endswith("; 20 finished chunks (200 games) are read back instead of played"), lines[0]
    assert sum(r.games_played for r in runs) == 200 and sum(r.games_restored for r in runs) == 200


# ---------------------------------------------------------------------------------- the Python API's input
def test_numpy_integers_are_integers_in_the_python_api():
    from strategies.registry import lineup
    agents = lineup("sen", ["threshold"], 2)
    a = R.simulate("sen", agents, n_games=30, seed=4, jobs=1, chunk_size=10).summary()
    b = R.simulate("sen", agents, players=np.int64(2), n_games=np.int64(30), seed=np.int32(4), jobs=np.int64(1),
                   chunk_size=np.int16(10)).summary()
    assert a == b


@pytest.mark.parametrize("kwargs, words", [
    ({"players": "2"}, "players must be an integer"),
    ({"agents": None}, "agents must be a list of strategy objects"),
    ({"agents": ["threshold", "threshold"]}, "agents must be strategy objects, got 'threshold' for seat 0"),
    ({"agents": "fan-and-mallet"}, "is for fan-and-mallet, not sen"),
    ({"rules": [1, 2]}, "rules must be a dict of sen's rule options or a SenRules, got list"),
    ({"rules": "senshi"}, "rules must be a dict of sen's rule options or a SenRules, got SenshiRules"),
])
def test_wrong_arguments_of_simulate_are_one_line(kwargs, words):
    from simcore.errors import SenseiError
    from simcore.registry import get_game
    from strategies.registry import lineup
    args = {"agents": lineup("sen", ["threshold"], 2), "n_games": 10}
    args.update(kwargs)
    if args["agents"] == "fan-and-mallet":
        args["agents"] = lineup("fan-and-mallet", ["random"], 2)
    if args.get("rules") == "senshi":
        args["rules"] = get_game("senshi").make_rules()
    with pytest.raises(SenseiError, match=re.escape(words)):
        R.simulate("sen", **args)


def test_a_config_of_the_wrong_type_is_one_line():
    from experiments.experiment import run_experiment
    from simcore.errors import SenseiError
    with pytest.raises(SenseiError, match="a config is a TOML file's path or a dict, got int"):
        run_experiment(42)


def test_a_forked_worker_ends_at_sigterm_whatever_handler_the_command_set():
    """The multiprocessing backend's pool ends its workers with SIGTERM; a worker forked while the command's
    SIGTERM handler (which stops a command like Ctrl-C) was set must not keep it: with it, runs now and then
    hung after their last game, a worker waiting for ever on the pool's queue lock."""
    code = ("import signal\n"
            "signal.signal(signal.SIGTERM, lambda s, f: None)\n"
            "from simcore.runner import _worker_ignores_ctrl_c\n"
            "_worker_ignores_ctrl_c()\n"
            "assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL\n"
            "assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("raw, words", [
    ({"title": "t", "question": "q", "game": "senshi", "players": 2, "games": 3 * 10 ** 8, "seed": 1,
      "lineup": {"population": ["random", "greedy"]}, "report": {"answer": "equilibrium"}},
     ["of each of at least 3 lineups that answer 'equilibrium' compares", "lower games"]),
    ({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 10 ** 12, "seed": 1,
      "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
      "search": {"focus.wake": {"min": 4, "max": 12, "step": 4}}, "report": {"answer": "best_response"}},
     ["of each of at least 2 lineups that answer 'best_response' compares"]),
    ({"title": "t", "question": "q", "game": "fan-and-mallet", "games": R.MAX_GAMES, "seed": 1,
      "lineup": {"seats": ["random"]}, "search": {"rules.start_positions": ["0,6", "0,5"]},
      "report": {"answer": "design", "objective": "seat0_win_share", "target": 0.5}}, ["answer 'design' compares"]),
])
def test_a_search_whose_per_deal_values_would_not_fit_is_refused_before_anything_runs(raw, words):
    """The searching answers keep every compared lineup's per-deal values: 300 million deals of a meta-game
    reserved 10 GB for one lineup before failing with out of memory."""
    with pytest.raises(SenseiError, match="would need about") as info:
        check_memory(load(raw))
    for w in words:
        assert w in str(info.value), (w, str(info.value))
    check_memory(load({**raw, "games": 2000}))  # a usual size passes


def test_names_that_would_stretch_the_figures_are_refused():
    """A named case or axis of thousands of characters labels every figure: matplotlib's canvas grew with
    it until the report ran out of memory, after every game had been played."""
    base = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 10, "seed": 1,
            "lineup": {"seats": ["threshold"]}}
    with pytest.raises(SenseiError, match="case names of at most 80 characters .* not one of 3,000"):
        load({**base, "sweep": {"variant": {"x" * 3000: {"rules.penalty": 5}}}})
    with pytest.raises(SenseiError, match="axis names of at most 80 characters"):
        load({**base, "sweep": {"y" * 200: {"a": {"rules.penalty": 5}}}})
    load({**base, "sweep": {"variant": {"x" * 80: {"rules.penalty": 5}}}})


def test_the_resource_tracker_does_not_add_lines_after_a_dead_workers_error():
    """loky's resource tracker, a process of its own, warned at exit of the semaphores a killed worker held
    (four lines after the run's one-line error, now and then): it is started with those warnings ignored."""
    import sys as _sys
    if not _sys.platform.startswith("linux"):
        pytest.skip("reads the tracker's command line from /proc")
    from joblib.externals.loky.backend.resource_tracker import _resource_tracker

    from simcore.runner import TRACKER_WARNINGS, _process_pool
    assert _process_pool(2).submit(sum, [1, 2]).result() == 3
    pid = _resource_tracker._pid
    args = open(f"/proc/{pid}/cmdline").read().split("\0")
    assert f"-W{TRACKER_WARNINGS}" in args, args


def _ends_its_process(i):
    if i == 3:
        os._exit(3)
    return i


def test_a_forked_pool_whose_worker_died_is_stopped_with_its_wakeup_pipe_closed(monkeypatch):
    """At exit Python writes to the pipe that wakes a pool's manager thread unless it is closed; were the
    thread closing it at that moment, an OSError traceback followed the run's one-line error. The pool is
    stopped only once that thread has closed it (here it takes its time)."""
    import concurrent.futures.process as cfp
    close = cfp._ThreadWakeup.close

    def slow_close(self):
        time.sleep(0.5)
        close(self)
    monkeypatch.setattr(cfp._ThreadWakeup, "close", slow_close)
    tasks = iter([(_ends_its_process, (i,)) for i in range(8)])
    with pytest.raises(R.WorkerDied):
        R._run_processes(tasks, 2, lambda i, r: None, forked=True)
    assert all(w._closed for w in list(cfp._threads_wakeups.values()))


def test_an_absurd_time_left_reads_in_years_with_the_right_number():
    """--games 10**12 said "time left: about 1 years"."""
    from experiments.engine import human_seconds

    year = 365.25 * 86400
    assert human_seconds(1.2 * year) == "1 year"
    assert human_seconds(2 * year) == "2 years"
    assert human_seconds(12_345 * year) == "12,345 years"
    assert human_seconds(3 * 86400 + 7200) == "3 days 2 h"


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``sig`` (Linux: SigCgt in /proc)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            line = next(ln for ln in fh if ln.startswith("SigCgt:"))
    except (OSError, StopIteration):
        return False
    return bool(int(line.split()[1], 16) >> (sig - 1) & 1)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
def test_sigterm_while_the_command_starts_is_one_line_also_in_a_background_job():
    """A polite kill in the command's first second (its imports) ended it by the signal, with no line; in a
    background job (Ctrl-C ignored) the handler for Ctrl-C's start was not set up either. The command takes
    SIGTERM from its first import on, as it takes Ctrl-C."""
    probe = subprocess.run([sys.executable, "-c", "import sys, signal; sys.argv[0] = 'sensei'; "
                            "signal.signal(signal.SIGINT, signal.SIG_IGN); import experiments.cli; "
                            "print(getattr(signal.getsignal(signal.SIGTERM), '__name__', 'none'), "
                            "'simcore.runner' in sys.modules)"],
                           capture_output=True, text=True, timeout=120, cwd=os.path.dirname(os.path.dirname(__file__)))
    assert probe.stdout.split()[0] == "_interrupted_early", probe
    # a real command in a background job, killed as soon as it takes the signal
    proc = subprocess.Popen([SENSEI, "play", "sen", "--games", str(10 ** 12), "--no-progress"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    t0 = time.monotonic()
    while not _catches(proc.pid, signal.SIGTERM) and time.monotonic() - t0 < 60 and proc.poll() is None:
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert proc.returncode == 130 and len(lines) == 1 and lines[0].startswith("interrupted"), (proc.returncode, err)
