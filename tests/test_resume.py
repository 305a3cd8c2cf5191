"""Nothing lost: a `sensei run` killed part-way (SIGKILL, or Ctrl-C) resumes from its finished chunks and
ends with the same tables and answer as an uninterrupted run; a resume of another config, seed or number
of games is refused; an incomplete run folder is never presented as a result; dask clusters give the same
tables as a local run."""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import polars as pl
import pytest
from typer.testing import CliRunner

from experiments.cli import app
from experiments.config import load
from experiments.engine import ChunkStore, play_cells
from experiments.experiment import RunInterrupted, chunks_kept, run_experiment
from experiments.tomlwrite import dumps as toml_dumps
from experiments.analysis import analyse
from reports import build_index

SENSEI = os.path.join(os.path.dirname(sys.executable), "sensei")
runner = CliRunner()

# 4 cells (2 and 3 players, wake 6 and 12), 5 rotations per wake value, 300 deals in chunks of 50:
# 60 chunks, a few seconds of play; per-game rows and paired vectors are kept, so every kind of saved
# chunk (totals, score counts, per-deal vectors, per-game rows) is restored.
CONFIG = """\
title = "Resume check"
question = "Which wake value wins more, 6 or 12?"
game = "sen"
games = 300
seed = 11
chunk_size = 50

[lineup]
focus = "threshold"
field = "threshold:wake=10"

[sweep]
players = [2, 3]
"focus.wake" = [6, 12]

[report]
per_game = true
"""
TOTAL_CHUNKS = 60


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    path = tmp_path_factory.mktemp("cfg") / "resume_check.toml"
    path.write_text(CONFIG)
    return str(path)


@pytest.fixture(scope="module")
def reference(config, tmp_path_factory):
    """The uninterrupted run."""
    res = run_experiment(config, out=str(tmp_path_factory.mktemp("ref")))
    assert res.manifest["chunks_played"] == TOTAL_CHUNKS and res.manifest["chunks_restored"] == 0
    return res.run_dir


def assert_same_run(a: str, b: str) -> None:
    """Same files, same tables (cells' `seconds` is a timing, like the manifest), same answer and config."""
    files = lambda d: sorted(f for f in os.listdir(d) if f not in ("report.html",))
    assert files(a) == files(b)
    assert not {"parts", "resume.json"} & set(files(a))
    for name in files(a):
        if name.endswith(".parquet"):
            x, y = pl.read_parquet(os.path.join(a, name)), pl.read_parquet(os.path.join(b, name))
            if name == "cells.parquet":
                x, y = x.drop("seconds"), y.drop("seconds")
            assert x.columns == y.columns and x.dtypes == y.dtypes, name
            assert x.equals(y), name
    for name in ("summary.json", "config.toml"):
        with open(os.path.join(a, name)) as fa, open(os.path.join(b, name)) as fb:
            assert fa.read() == fb.read(), name


def start_run(config: str, out: str, *extra: str) -> subprocess.Popen:
    # SIGINT at its default disposition, as in a terminal (a background job of a shell ignores it)
    return subprocess.Popen([SENSEI, "run", config, "--no-report", "--no-progress", "--out", out, *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def wait_for_parts(proc: subprocess.Popen, out: str, at_least: int) -> int:
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60:
        n = len(glob.glob(os.path.join(out, "*", "parts", "*.npz")))
        if n >= at_least:
            return n
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError("no finished chunks after 60 s")


def one_error_line(r, *words):
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: "), (r.exit_code, r.stderr)
    assert "Traceback" not in r.output
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def test_sigkill_then_resume_gives_the_uninterrupted_results(config, reference, tmp_path):
    out = str(tmp_path / "runs")
    proc = start_run(config, out)
    wait_for_parts(proc, out, 12)
    proc.kill()
    proc.wait()
    (run_dir,) = glob.glob(os.path.join(out, "*"))
    kept = len(glob.glob(os.path.join(run_dir, "parts", "*.npz")))
    assert 12 <= kept < TOTAL_CHUNKS, kept
    assert not os.path.exists(os.path.join(run_dir, "manifest.json"))

    # an incomplete folder is not a result: report says so, the index leaves it out
    r = runner.invoke(app, ["report", run_dir])
    one_error_line(r, "incomplete run", "--resume")
    index = build_index(out)
    assert os.path.basename(run_dir) not in open(index).read()

    # a resume with another seed, number of games or config is refused, and touches nothing
    for text, extra, what in [(CONFIG.replace("seed = 11", "seed = 12"), [], "the seed"),
                              (CONFIG, ["--games", "200"], "games per cell"),
                              (CONFIG.replace('"focus.wake" = [6, 12]', '"focus.wake" = [6, 13]'), [], "the config"),
                              (CONFIG.replace("chunk_size = 50", "chunk_size = 60"), [], "the chunk size")]:
        other = tmp_path / "other.toml"
        other.write_text(text)
        r = runner.invoke(app, ["run", str(other), "--resume", run_dir, "--no-progress", "--no-report", *extra])
        one_error_line(r, "cannot resume", what)
    assert len(glob.glob(os.path.join(run_dir, "parts", "*.npz"))) == kept
    r = runner.invoke(app, ["run", config, "--resume", run_dir, "--out", out])
    one_error_line(r, "not both")

    t0 = time.perf_counter()
    done = subprocess.run([SENSEI, "run", config, "--no-progress", "--resume", run_dir],
                          capture_output=True, text=True, timeout=120)
    resume_seconds = time.perf_counter() - t0
    assert done.returncode == 0, done.stderr
    assert "resumed:" in done.stdout and "Traceback" not in done.stderr
    man = json.load(open(os.path.join(run_dir, "manifest.json")))
    assert man["chunks_restored"] == kept and man["chunks_played"] == TOTAL_CHUNKS - kept
    ref_man = json.load(open(os.path.join(reference, "manifest.json")))
    assert len(man["resumed"]) == 1 and man["games_total"] == ref_man["games_total"] == ref_man["games_played"]
    # the speed counts only what this session played, not what it read back
    assert 0 < man["games_played"] < man["games_total"] and man["games_restored"] == man["games_total"] - man["games_played"]
    assert man["games_per_second"] == pytest.approx(man["games_played"] / (man["seconds_playing"] -
                                                                           man["seconds_compiling"]), rel=0.01)
    assert f"{man['games_played']:,} games played in" in done.stdout
    assert_same_run(reference, run_dir)
    assert os.path.basename(run_dir) in open(os.path.join(out, "index.html")).read()
    print(f"resume of {TOTAL_CHUNKS - kept} chunks: {resume_seconds:.1f} s")

    # a finished run cannot be resumed again
    r = runner.invoke(app, ["run", config, "--resume", run_dir, "--no-progress"])
    one_error_line(r, "complete")


def test_ctrl_c_keeps_finished_work_and_says_how_to_resume(config, reference, tmp_path):
    out = str(tmp_path / "runs")
    proc = start_run(config, out, "--jobs", "2")
    wait_for_parts(proc, out, 8)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the command and its worker processes
    stdout, stderr = proc.communicate(timeout=60)
    (run_dir,) = glob.glob(os.path.join(out, "*"))
    assert proc.returncode == 130, (proc.returncode, stderr)
    assert "Traceback" not in stderr and "Warning" not in stderr, stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip() and not ln.startswith("compiling ")]
    assert len(lines) == 1, stderr
    assert lines[0].startswith("interrupted: ") and f"--resume {run_dir}" in lines[0], lines[0]
    kept = len(glob.glob(os.path.join(run_dir, "parts", "*.npz")))
    assert kept >= 8 and not os.path.exists(os.path.join(run_dir, "manifest.json"))

    r = runner.invoke(app, ["run", config, "--resume", run_dir, "--no-progress", "--no-report"])
    assert r.exit_code == 0, r.output
    assert not glob.glob(os.path.join(run_dir, "*", ".*.tmp")) and not glob.glob(os.path.join(run_dir, ".*.tmp"))
    man = json.load(open(os.path.join(run_dir, "manifest.json")))
    assert man["chunks_restored"] == kept and man["chunks_restored"] + man["chunks_played"] == TOTAL_CHUNKS
    assert_same_run(reference, run_dir)


def test_resume_from_any_subset_of_saved_chunks(tmp_path):
    """SPRT looks and tournaments resume too: with any chunks missing, the tables are the same."""
    sprt = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20, "seed": 3, "chunk_size": 8,
            "lineup": {"focus": "threshold:wake=16", "field": "random"},
            "sprt": {"h0": 0.0, "h1": 0.2, "max_games": 100}}
    tour = {"title": "t", "question": "q", "game": "sen", "games": 24, "seed": 4, "chunk_size": 10,
            "lineup": {"tournament": ["counter", "gambler"]}, "sweep": {"players": [2, 3]},
            "report": {"per_game": True}}
    for k, raw in enumerate((sprt, tour)):
        cfg = load(raw)
        plain = analyse(cfg, play_cells(cfg))
        folder = str(tmp_path / f"parts-{k}")
        store = ChunkStore(folder)
        first = analyse(cfg, play_cells(cfg, store=store))
        saved = sorted(os.listdir(folder))
        assert store.saved == sum(f.endswith(".npz") for f in saved) > 4
        for f in saved[::3]:  # lose every third file (and with it, its chunk)
            os.unlink(os.path.join(folder, f))
        open(os.path.join(folder, ".c0-r0-0-8.npz.x.tmp"), "w").write("half a file")  # an interrupted write
        again = ChunkStore(folder)
        resumed = analyse(cfg, play_cells(cfg, store=again))
        assert again.restored > 0 and again.saved > 0
        assert not [f for f in os.listdir(folder) if f.endswith(".tmp")]
        for got in (first, resumed):
            assert got["answer"] == plain["answer"]
            for name, df in plain["tables"].items():
                a, b = df, got["tables"][name]
                if name == "cells":
                    a, b = a.drop("seconds"), b.drop("seconds")
                assert a.equals(b), name


def test_damaged_chunk_file_is_named_not_trusted(tmp_path):
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 16, "seed": 1, "chunk_size": 8,
           "lineup": {"focus": "threshold", "field": "random"}}
    cfg = load(raw)
    folder = str(tmp_path / "parts")
    play_cells(cfg, store=ChunkStore(folder))
    victim = sorted(f for f in os.listdir(folder) if f.endswith(".npz"))[0]
    with open(os.path.join(folder, victim), "wb") as fh:
        fh.write(b"not a chunk")
    with pytest.raises(Exception) as info:
        play_cells(cfg, store=ChunkStore(folder))
    assert type(info.value).__name__ == "SenseiError" and victim in str(info.value)


def test_a_chunk_file_under_another_chunks_name_is_refused_and_strays_are_not_counted(tmp_path):
    """Each chunk file says which chunk it holds: one copied over another's name (same size, another
    rotation) is refused, not read back as the other; a file of a chunk the run does not have is not
    counted among the chunks read back."""
    from experiments.engine import grid_line

    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 16, "seed": 1, "chunk_size": 8,
           "lineup": {"focus": "threshold", "field": "random"}}
    cfg = load(raw)
    folder = str(tmp_path / "parts")
    play_cells(cfg, store=ChunkStore(folder))
    assert sorted(os.listdir(folder)) == ["c0-r0-0-8.npz", "c0-r0-8-16.npz", "c0-r1-0-8.npz", "c0-r1-8-16.npz"]
    # a file of a chunk the run does not have (cell 9): left alone, and not counted as read back
    shutil.copy(os.path.join(folder, "c0-r1-0-8.npz"), os.path.join(folder, "c9-r0-0-8.npz"))
    store = ChunkStore(folder)
    assert store.stored()[0] == 5
    assert "; 4 finished chunks (32 games) are read back" in grid_line(cfg, _runs_of(cfg), 16, 16, store)
    for f in ("c0-r0-8-16.npz", "c0-r1-0-8.npz", "c0-r1-8-16.npz", "c9-r0-0-8.npz"):
        os.unlink(os.path.join(folder, f))
    assert grid_line(cfg, _runs_of(cfg), 16, 16, ChunkStore(folder)).endswith(
        "; 1 finished chunk (8 games) is read back instead of played")
    assert chunks_kept(1) == "1 finished chunk kept" and chunks_kept(1200) == "1,200 finished chunks kept"
    play_cells(cfg, store=ChunkStore(folder))
    # rotation 1's first chunk under rotation 0's name: the same size, another chunk
    shutil.copy(os.path.join(folder, "c0-r1-0-8.npz"), os.path.join(folder, "c0-r0-0-8.npz"))
    with pytest.raises(Exception) as info:
        play_cells(cfg, store=ChunkStore(folder))
    assert type(info.value).__name__ == "SenseiError" and "a renamed or copied file" in str(info.value)
    assert "holds the finished chunk c0-r1-0-8, not c0-r0-0-8" in str(info.value)


def test_chunk_files_of_the_first_layout_are_read_and_of_a_later_one_refused(tmp_path):
    """A chunk file says its layout: one written before the histogram kept its first bin (no layout, no
    first bin: it starts at 0 turns) is read back to the same tables; one of a layout this sensei does
    not know (a newer sensei resumed the folder) is refused in one line rather than misread."""
    import numpy as np

    from experiments.engine import CHUNK_FORMAT

    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 16, "seed": 1, "chunk_size": 8,
           "lineup": {"focus": "threshold", "field": "random"}}
    cfg = load(raw)
    plain = analyse(cfg, play_cells(cfg))
    folder = str(tmp_path / "parts")
    play_cells(cfg, store=ChunkStore(folder))
    name = os.path.join(folder, "c0-r0-0-8.npz")
    with np.load(name, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    assert int(data["format"]) == CHUNK_FORMAT == 3 and int(data["turns_hist_lo"]) > 0
    assert int(data["turns_hist_width"]) == 1
    old = {k: v for k, v in data.items() if k not in ("format", "turns_hist_lo", "turns_hist_width")}
    lo = int(data["turns_hist_lo"])
    old["turns_hist"] = np.concatenate([np.zeros(lo, np.int64), data["turns_hist"]])  # the first layout: from 0
    with open(name, "wb") as fh:
        np.savez(fh, **old)
    got = analyse(cfg, play_cells(cfg, store=ChunkStore(folder)))
    assert got["answer"] == plain["answer"]
    for table, df in plain["tables"].items():
        a, b = (df.drop("seconds"), got["tables"][table].drop("seconds")) if table == "cells" else (df, got["tables"][table])
        assert a.equals(b), table
    with open(name, "wb") as fh:
        np.savez(fh, **{**data, "format": np.asarray(CHUNK_FORMAT + 1)})
    with pytest.raises(Exception) as info:
        play_cells(cfg, store=ChunkStore(folder))
    assert type(info.value).__name__ == "SenseiError" and "written by a newer sensei (layout 4" in str(info.value)
    # a file of layout 2 whose histogram reached its last bin (4,095 turns) may hold longer games counted there
    capped = {k: v for k, v in data.items() if k != "turns_hist_width"}
    capped.update(format=np.asarray(2), turns_hist_lo=np.asarray(4090), turns_hist=np.asarray([1, 0, 0, 0, 0, 7]))
    with open(name, "wb") as fh:
        np.savez(fh, **capped)
    with pytest.raises(Exception) as info:
        play_cells(cfg, store=ChunkStore(folder))
    assert type(info.value).__name__ == "SenseiError" and "counted games of 4,095 turns or more as 4,095" in \
        str(info.value) and "delete it and resume again to replay it" in str(info.value)


def _runs_of(cfg):
    from experiments.engine import CellRun
    return [CellRun(c, c.rotations(cfg.rotate)) for c in cfg.cells]


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def test_experiment_on_a_dask_cluster_matches_the_local_run(config, reference, cluster, tmp_path):
    out = str(tmp_path / "runs")
    r = runner.invoke(app, ["run", config, "--no-progress", "--no-report", "--out", out,
                            "--scheduler", cluster.scheduler_address])
    assert r.exit_code == 0, r.output
    (run_dir,) = glob.glob(os.path.join(out, "*"))
    man = json.load(open(os.path.join(run_dir, "manifest.json")))
    assert man["backend"] == "dask" and man["scheduler"] == cluster.scheduler_address
    assert_same_run(reference, run_dir)

    # the same through the config's [run] table (the fingerprint ignores it: a resume may move to a cluster)
    cfg2 = tmp_path / "cluster.toml"
    cfg2.write_text(CONFIG.replace("[report]", f'[run]\nbackend = "dask"\nscheduler = "{cluster.scheduler_address}"'
                                               "\n\n[report]"))
    res = run_experiment(str(cfg2), out=str(tmp_path / "runs2"))
    assert res.manifest["backend"] == "dask" and res.manifest["fingerprint"] == json.load(
        open(os.path.join(reference, "manifest.json")))["fingerprint"]
    ref = pl.read_parquet(os.path.join(reference, "cells.parquet")).drop("seconds")
    assert res.cells.drop("seconds").equals(ref)

    # sensei play on the cluster: the same JSON as a local play
    args = ["play", "sen", "-p", "3", "-s", "threshold:wake=8", "--games", "600", "--chunk-size", "200", "--json"]
    local = runner.invoke(app, args)
    remote = runner.invoke(app, args + ["--scheduler", cluster.scheduler_address])
    assert local.exit_code == remote.exit_code == 0, remote.output
    assert json.loads(local.stdout) == json.loads(remote.stdout)


def test_backend_and_scheduler_mistakes_are_one_line(config, tmp_path):
    out = tmp_path / "runs"
    for args, words in [(["--backend", "spark"], ["unknown backend"]),
                        (["--backend", "loky", "--scheduler", "tcp://127.0.0.1:9"], ["needs the dask backend"]),
                        (["--scheduler", "bogus://127.0.0.1:9"], ["cannot reach"])]:
        r = runner.invoke(app, ["run", config, "--no-progress", "--out", str(out), *args])
        one_error_line(r, *words)
    assert not out.exists() or not os.listdir(out)  # nothing was played: no run folder left behind
    bad = tmp_path / "bad.toml"
    bad.write_text(CONFIG + '\n[run]\nbackend = "loky"\nscheduler = "tcp://x:1"\n')
    one_error_line(runner.invoke(app, ["run", str(bad), "--out", str(out)]), "run.backend")
    bad.write_text(CONFIG + '\n[run]\nworkers = 3\n')
    one_error_line(runner.invoke(app, ["run", str(bad), "--out", str(out)]), "run.workers")


def test_a_chunk_that_cannot_be_saved_stops_the_run_with_one_error(tmp_path, monkeypatch):
    import experiments.engine as engine
    from simcore.errors import SenseiError

    def disk_full(path, write, binary=True, sync_dir=True):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(engine, "atomic_write", disk_full)
    cfg = load({"title": "t", "question": "q", "game": "sen", "players": 2, "games": 16, "seed": 1, "chunk_size": 8,
                "lineup": {"focus": "threshold", "field": "random"}})
    # the system refusing the write is an OSError (the command line: one line, status 1, as every full disk),
    # which says that the chunks saved before it are kept
    with pytest.raises(OSError, match="No space left") as info:
        play_cells(cfg, store=ChunkStore(str(tmp_path / "parts")))
    assert info.value.after.startswith(f"the chunks saved before it are kept in {tmp_path}: --resume")
    # any other failure of the writer is named as the chunk's
    monkeypatch.setattr(engine, "atomic_write", lambda *a, **k: (_ for _ in ()).throw(ValueError("odd")))
    with pytest.raises(SenseiError, match="cannot save a finished chunk: odd"):
        play_cells(cfg, store=ChunkStore(str(tmp_path / "parts2")))


def test_a_full_disk_reported_by_a_writer_of_its_own_is_an_os_error(tmp_path):
    # polars' parquet writer reports the system's refusal as "ComputeError: ... No space left on device":
    # atomic_write raises it as the OSError it is (the command line's one line names the file), leaves no
    # temporary file and no partial file
    import errno

    from simcore.files import atomic_write

    class ComputeError(Exception):
        pass

    def full(fh):
        fh.write(b"partial")
        raise ComputeError("parquet: External error: No space left on device (os error 28)")

    target = tmp_path / "cells.parquet"
    with pytest.raises(OSError) as info:
        atomic_write(str(target), full)
    assert info.value.errno == errno.ENOSPC and info.value.filename == str(target)
    assert isinstance(info.value.__cause__, ComputeError)
    assert os.listdir(tmp_path) == []

    def broken(fh):
        raise ComputeError("something else")

    with pytest.raises(ComputeError):  # any other error stays what it is
        atomic_write(str(target), broken)


def test_a_chunk_without_the_per_deal_values_the_run_keeps_is_refused(tmp_path, monkeypatch):
    """Chunks saved where the run kept no per-deal values (an earlier version's ratings run) cannot serve a
    run that keeps them: their deals would count as won by nobody."""
    import experiments.engine as engine

    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 16, "seed": 1, "chunk_size": 8,
           "lineup": {"tournament": ["threshold", "random"]}}
    cfg = load(raw)
    folder = str(tmp_path / "parts")
    monkeypatch.setattr(engine, "needs_vectors", lambda cfg: False)
    play_cells(cfg, store=ChunkStore(folder))
    monkeypatch.undo()
    assert engine.needs_vectors(cfg)
    with pytest.raises(Exception) as info:
        play_cells(cfg, store=ChunkStore(folder))
    assert type(info.value).__name__ == "SenseiError" and "holds no per-deal values" in str(info.value)


def test_a_resume_with_another_config_says_the_config_differs(tmp_path):
    """A run folder of another config differs in its games per cell too: the config is what to name."""
    from experiments.experiment import STATE, open_unfinished, run_fingerprint
    from simcore.errors import SenseiError
    a = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20, "seed": 1,
         "lineup": {"focus": "threshold", "field": "random"}}
    b = {"title": "other", "question": "q", "game": "sen", "players": 3, "games": 50, "seed": 2,
         "lineup": {"focus": "counter", "field": "threshold"}}
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / STATE).write_text(json.dumps({"fingerprint": run_fingerprint(load(a))}))
    (folder / "config.toml").write_text(toml_dumps(a))
    with pytest.raises(SenseiError, match="cannot resume: the config differs"):
        open_unfinished(str(folder), run_fingerprint(load(b)), load(b).raw)
    # the same config with other games or another chunk size: named as such
    with pytest.raises(SenseiError, match="cannot resume: games per cell differs"):
        open_unfinished(str(folder), run_fingerprint(load({**a, "games": 30})), load({**a, "games": 30}).raw)
    with pytest.raises(SenseiError, match="cannot resume: the chunk size differs"):
        c = load({**a, "chunk_size": 7})
        open_unfinished(str(folder), run_fingerprint(c), c.raw)
    # a complete run: of another config, that is the news; of this one, that there is nothing to resume
    (folder / "manifest.json").write_text("{}")
    with pytest.raises(SenseiError, match="cannot resume: the config differs from the complete run's"):
        open_unfinished(str(folder), run_fingerprint(load(b)), load(b).raw)
    with pytest.raises(SenseiError, match="this run is complete .* nothing to resume"):
        open_unfinished(str(folder), run_fingerprint(load(a)), load(a).raw)


def test_the_command_line_says_the_config_differs_on_a_resume_with_another_config(config, tmp_path):
    out = tmp_path / "runs"
    res = run_experiment(config, out=str(out))
    from experiments.experiment import STATE, run_fingerprint
    os.unlink(os.path.join(res.run_dir, "manifest.json"))   # as if interrupted
    with open(os.path.join(res.run_dir, STATE), "w") as fh:
        json.dump({"fingerprint": run_fingerprint(load(config))}, fh)
    other = tmp_path / "other.toml"
    other.write_text('title = "o"\nquestion = "q"\ngame = "sen"\nplayers = 2\ngames = 30\n'
                     '[lineup]\nfocus = "counter"\nfield = "threshold"\n')
    r = runner.invoke(app, ["run", str(other), "--resume", res.run_dir, "--no-progress", "--no-report"])
    one_error_line(r, "cannot resume: the config differs")


def test_a_hand_edited_resume_file_is_unreadable_not_a_crash(tmp_path):
    from experiments.experiment import STATE, open_unfinished, run_fingerprint
    from simcore.errors import SenseiError
    a = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20, "seed": 1,
         "lineup": {"focus": "threshold", "field": "random"}}
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / STATE).write_text(json.dumps({"fingerprint": run_fingerprint(load(a)), "resumed": "x"}))
    with pytest.raises(SenseiError, match=r"resume\.json: unreadable \(TypeError\)"):
        open_unfinished(str(folder), run_fingerprint(load(a)), load(a).raw)


def test_a_pipe_or_a_huge_file_in_a_run_folder_is_refused_without_waiting(tmp_path):
    """A pipe under a run folder's file name hung `sensei report` and `--resume` for ever (Ctrl-C did not stop
    it), and a huge manifest.json filled memory: each is now refused on one line, at once."""
    import threading

    from experiments.experiment import STATE, open_unfinished, run_fingerprint
    from reports import ReportError, build_report
    from simcore.errors import SenseiError
    from simcore.files import TEXT_LIMIT

    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 16, "seed": 1, "chunk_size": 8,
           "lineup": {"focus": "threshold", "field": "random"}}
    done = run_experiment(raw).write(str(tmp_path / "out"))

    def refused(call, error, *words):
        box = {}

        def go():
            try:
                call()
            except error as exc:
                box["msg"] = str(exc)
        t = threading.Thread(target=go, daemon=True)
        t.start()
        t.join(20)
        assert not t.is_alive(), "waited on a pipe"
        assert all(w in box.get("msg", "") for w in words), box
    for name in ("summary.json", "manifest.json", "config.toml"):
        folder = tmp_path / f"pipe-{name}"
        shutil.copytree(done, folder)
        os.unlink(folder / name)
        os.mkfifo(folder / name)
        refused(lambda: build_report(str(folder), index=False), ReportError, name, "not a regular file")
    big = tmp_path / "big"
    shutil.copytree(done, big)
    with open(big / "manifest.json", "r+b") as fh:
        fh.truncate(TEXT_LIMIT + 1)  # (sparse: no disk used)
    refused(lambda: build_report(str(big), index=False), ReportError, "manifest.json", "more than the")
    # an unfinished run: its resume state, and a finished chunk
    cfg = load(raw)
    folder = tmp_path / "unfinished"
    folder.mkdir()
    os.mkfifo(folder / STATE)
    refused(lambda: open_unfinished(str(folder), run_fingerprint(cfg), cfg.raw), SenseiError, STATE,
            "not a regular file")
    parts = str(tmp_path / "parts")
    play_cells(cfg, store=ChunkStore(parts))
    victim = sorted(f for f in os.listdir(parts) if f.endswith(".npz"))[0]
    os.unlink(os.path.join(parts, victim))
    os.mkfifo(os.path.join(parts, victim))
    refused(lambda: play_cells(cfg, store=ChunkStore(parts)), SenseiError, victim, "not a regular file")
    # and a config file far larger than any config
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as fh:
        fh.truncate(TEXT_LIMIT + 1)
    refused(lambda: load(str(huge)), SenseiError, "huge.toml", "more than the")


def test_ctrl_c_while_the_last_chunks_are_written_waits_for_them(tmp_path, monkeypatch):
    """Ctrl-C reaching the run while its chunk writer still had chunks queued cut the wait short: the run said
    "475 finished chunks kept" and its resume then read back 476. The queued chunks are written first now,
    so what the line counts is what a resume finds."""
    import threading

    import numpy as np

    import experiments.engine as engine

    real = engine.atomic_write
    gate = threading.Event()

    def slow(path, write, binary=True, sync_dir=True):
        gate.wait(5)
        return real(path, write, binary=binary, sync_dir=sync_dir)

    monkeypatch.setattr(engine, "atomic_write", slow)
    monkeypatch.setattr(engine, "_chunk_arrays", lambda result: {"n": np.asarray(result, dtype=np.int64)})
    store = ChunkStore(str(tmp_path / "parts"))
    for k in range(3):
        store.save(f"c0_r0_{k * 10}_{k * 10 + 10}", 10)

    class CtrlCOnce:  # the first wait on the writer is cut short by Ctrl-C, as in the main thread
        def __init__(self, thread):
            self.thread, self.calls = thread, 0

        def join(self):
            self.calls += 1
            if self.calls == 1:
                gate.set()
                raise KeyboardInterrupt
            self.thread.join()

        def is_alive(self):
            return self.thread.is_alive()

    store._thread = CtrlCOnce(store._thread)
    with pytest.raises(KeyboardInterrupt):
        store.close()
    assert len(glob.glob(str(tmp_path / "parts" / "*.npz"))) == 3


def test_ctrl_c_after_the_results_are_written_says_the_run_is_complete(config, tmp_path, monkeypatch):
    """Ctrl-C after the manifest was written (while the resume files were cleared, or while the report was
    written) said only "interrupted": the run is complete, and the line says how to get its report."""
    import experiments.experiment as ex

    real = shutil.rmtree

    def cut(path, *a, **k):
        if os.path.basename(path) == "parts":
            raise KeyboardInterrupt
        return real(path, *a, **k)

    monkeypatch.setattr(ex.shutil, "rmtree", cut)
    with pytest.raises(RunInterrupted) as info:
        run_experiment(config, games=20, out=str(tmp_path / "a"))
    (run_dir,) = glob.glob(str(tmp_path / "a" / "*"))
    assert str(info.value) == (f"interrupted: the run is complete in {run_dir} (every result written), its report "
                               f"is not: sensei report {run_dir}")
    monkeypatch.setattr(ex.shutil, "rmtree", real)

    import reports

    def ctrl_c(run_dir):
        raise KeyboardInterrupt

    monkeypatch.setattr(reports, "build_report", ctrl_c)
    r = runner.invoke(app, ["run", config, "--games", "20", "--no-progress", "--out", str(tmp_path / "b")])
    (run_dir,) = glob.glob(str(tmp_path / "b" / "*"))
    assert r.exit_code == 130, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert lines == [f"interrupted: the run is complete in {run_dir} (every result written), its report is not: "
                     f"sensei report {run_dir}"], r.stderr
    assert os.path.isfile(os.path.join(run_dir, "manifest.json"))


def test_a_ctrl_c_that_a_compiler_callback_dropped_still_stops_the_run(config, tmp_path, monkeypatch):
    """Ctrl-C landing in a callback of numba's compiler (while the example games' traces compiled) was printed
    as "Exception ignored ... KeyboardInterrupt" and dropped: the run went on and wrote its report, or failed
    later as "compiled strategies raised RuntimeError: no compiled object yet" (status 2). The noted signal
    now stops it where it goes on (its chunks kept), and the dropped interrupt prints nothing."""
    import types

    import experiments.experiment as ex
    import simcore.errors as errors

    monkeypatch.setattr(ex, "signal_seen", lambda: True)  # the signal noted, its KeyboardInterrupt dropped
    with pytest.raises(RunInterrupted) as info:
        run_experiment(config, games=20, out=str(tmp_path / "a"))
    (run_dir,) = glob.glob(str(tmp_path / "a" / "*"))
    assert str(info.value).startswith("interrupted: ") and f"--resume {run_dir}" in str(info.value)
    assert not os.path.exists(os.path.join(run_dir, "manifest.json"))
    # the command line's hook leaves such a dropped interrupt unprinted, and passes anything else on
    dropped = types.SimpleNamespace(exc_type=KeyboardInterrupt)
    other = types.SimpleNamespace(exc_type=ValueError)
    monkeypatch.setattr(errors, "_SIGNAL_SEEN", True)
    assert errors.drop_ignored_interrupt(dropped) and not errors.drop_ignored_interrupt(other)
    monkeypatch.setattr(errors, "_SIGNAL_SEEN", None)  # a Python session: no handler, nothing dropped
    assert not errors.drop_ignored_interrupt(dropped)
