"""A local dask cluster (a scheduler and two worker processes) gives the same results as a local run."""
import distributed  # noqa: F401  (a dependency: make env installs it; a missing one fails, never skips)
import pytest

from simcore.errors import SenseiError, SystemRefused
from simcore.runner import simulate
from strategies.registry import lineup


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def test_dask_cluster_results_identical_to_local(cluster):
    agents = lineup("sen", ["swapper", "threshold:wake=16"], 2)
    local = simulate("sen", agents, rules={"penalty": 15}, n_games=3000, seed=42, jobs=1, chunk_size=1000)
    remote = simulate("sen", agents, rules={"penalty": 15}, n_games=3000, seed=42, chunk_size=1000,
                      backend="dask", scheduler=cluster.scheduler_address)
    assert remote.summary() == local.summary()


def test_bad_backend_and_scheduler_are_user_errors():
    agents = lineup("sen", ["threshold"], 2)
    with pytest.raises(SenseiError, match="unknown backend"):
        simulate("sen", agents, n_games=10, backend="spark")
    with pytest.raises(SenseiError, match="needs --backend dask"):
        simulate("sen", agents, n_games=10, scheduler="tcp://127.0.0.1:1")
    with pytest.raises(SenseiError, match="cannot reach"):
        simulate("sen", agents, n_games=10, backend="dask", scheduler="tcp://127.0.0.1:9")
    # addresses of protocols dask's client cannot speak as given (tls:// without a TLS configuration, ucx://
    # without UCX) raised TypeErrors from inside distributed: a traceback and exit status 1
    for address in ("tls://127.0.0.1:9", "ucx://127.0.0.1:9"):
        # (ucx:// raised a TypeError alone, an AssertionError without a message after other clients in the process)
        with pytest.raises(SenseiError, match=r"^cannot reach dask scheduler '[a-z]+://127\.0\.0\.1:9': "
                                              r"(TypeError: \S|AssertionError from dask's client, which could not "
                                              r"use this address$)"):
            simulate("sen", agents, n_games=10, backend="dask", scheduler=address)


def test_a_scheduler_error_without_a_message_still_says_what_failed(monkeypatch):
    """In a full test run, ucx:// raised an AssertionError without a message, which read
    "cannot reach dask scheduler 'ucx://127.0.0.1:9': AssertionError"."""
    import distributed

    def refuse(*args, **kwargs):
        raise AssertionError()

    monkeypatch.setattr(distributed, "Client", refuse)
    with pytest.raises(SenseiError, match=r"^cannot reach dask scheduler 'ucx://127\.0\.0\.1:9': AssertionError from "
                                          r"dask's client, which could not use this address$"):
        simulate("sen", lineup("sen", ["threshold"], 2), n_games=10, backend="dask", scheduler="ucx://127.0.0.1:9")


def test_dask_cluster_gives_the_same_best_response_as_a_local_run(cluster, monkeypatch):
    """A searching answer sends its batches to the cluster and ends with the same tables and answer."""
    import experiments.search as search_mod
    from experiments import run_experiment

    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 80, "seed": 6,
           "lineup": {"focus": "threshold", "field": "threshold:wake=10"},
           "search": {"focus.wake": [6, 10, 14]}, "report": {"answer": "best_response"}}
    local = run_experiment(raw)
    monkeypatch.setattr(search_mod.Evaluator, "parallel_seconds", 0.0)   # every batch after the first to dask
    remote = run_experiment(raw, backend="dask", scheduler=cluster.scheduler_address)
    assert remote.answer == local.answer and remote.tables["race"].equals(local.tables["race"])


def test_a_local_dask_cluster_takes_the_local_limit_on_jobs(monkeypatch):
    """Without a scheduler, --backend dask starts --jobs worker processes here: more than the local limit
    are refused in one line before anything starts (never thousands of processes); with a scheduler the
    cluster's workers do the work and the cap is MAX_DASK_JOBS."""
    import simcore.runner as runner
    from experiments import run_experiment
    from simcore.runner import MAX_DASK_JOBS, check_jobs, max_local_jobs

    def never(*a, **k):
        raise AssertionError("a dask client was made")
    monkeypatch.setattr(runner, "_dask_client", never)
    too_many = max_local_jobs() + 1
    for jobs in (too_many, MAX_DASK_JOBS):
        with pytest.raises(SenseiError, match="starts a local cluster of --jobs processes"):
            check_jobs(jobs, "dask")
        with pytest.raises(SenseiError, match="jobs must be at most"):
            simulate("sen", lineup("sen", ["threshold"], 2), n_games=50, jobs=jobs, backend="dask")
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20,
           "lineup": {"focus": "threshold", "field": "threshold"}}
    with pytest.raises(SenseiError, match="jobs must be at most"):
        run_experiment(raw, jobs=too_many, backend="dask")
    assert check_jobs(MAX_DASK_JOBS, "dask", "tcp://10.0.0.5:8786") == MAX_DASK_JOBS
    assert check_jobs(MAX_DASK_JOBS, None, "tcp://10.0.0.5:8786") == MAX_DASK_JOBS
    with pytest.raises(SenseiError, match="at most 4,096 with a dask scheduler"):
        check_jobs(MAX_DASK_JOBS + 1, "dask", "tcp://10.0.0.5:8786")


def test_run_checks_the_scheduler_before_it_makes_its_run_folder(tmp_path):
    """A scheduler address that is malformed or not reached is refused in one line before the run folder
    (or --out) is made: nothing is left behind, as sensei play leaves nothing."""
    from experiments import run_experiment
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 20,
           "lineup": {"focus": "threshold", "field": "threshold"}}
    out = tmp_path / "runs"
    for address in ("x", "tcp://127.0.0.1:9"):
        with pytest.raises(SenseiError, match="cannot reach dask scheduler"):
            run_experiment(raw, scheduler=address, out=str(out))
        assert not out.exists()


def test_a_local_cluster_that_fails_to_start_is_one_line_and_leaves_logging_and_ctrl_c_as_they_were(monkeypatch):
    """While a local cluster starts, Ctrl-C is ignored and the distributed logger shows critical errors only; a start
    that fails gives both back as they were and says so in one line (it named a scheduler 'None')."""
    import logging
    import signal

    def refused(*a, **k):
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN  # the workers would inherit it
        assert logging.getLogger("distributed").level == logging.CRITICAL
        raise OSError(98, "Address already in use")
    monkeypatch.setattr(distributed, "Client", refused)
    log = logging.getLogger("distributed")
    before_level, before_handler = log.level, signal.getsignal(signal.SIGINT)
    log.setLevel(logging.INFO)
    try:
        with pytest.raises(SystemRefused) as err:  # the machine's refusal, not bad input (status 1)
            simulate("sen", lineup("sen", ["threshold"], 2), n_games=50, jobs=2, backend="dask")
        text = str(err.value)
        assert text.startswith("cannot start a local dask cluster of 2 workers: OSError:") and "None" not in text
        assert "\n" not in text
        assert log.level == logging.INFO and signal.getsignal(signal.SIGINT) is before_handler
        from typer.testing import CliRunner

        from experiments.cli import app
        r = CliRunner().invoke(app, ["play", "sen", "-n", "50", "-j", "2", "--backend", "dask", "--no-progress"])
        assert r.exit_code == 1 and r.stderr.startswith("error: cannot start a local dask cluster of 2 workers"), \
            (r.exit_code, r.stderr)
    finally:
        log.setLevel(before_level)
