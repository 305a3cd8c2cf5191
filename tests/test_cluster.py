"""A local dask cluster (a scheduler and two worker processes) gives the same results as a local run."""
import pytest

from simcore.errors import SenseiError
from simcore.runner import simulate
from strategies.registry import lineup

distributed = pytest.importorskip("distributed")


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
