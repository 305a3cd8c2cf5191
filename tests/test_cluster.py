"""A local dask cluster (a scheduler and two worker processes) gives the same results as a local run."""
import distributed  # noqa: F401  (a dependency: make env installs it; a missing one fails, never skips)
import pytest

from simcore.errors import SenseiError
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
