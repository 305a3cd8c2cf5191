"""The searching answers on a local dask cluster (a scheduler and two worker processes): equilibria and
design searches end with the same tables and answer as a run in this process (dask is a dependency: these
tests never skip)."""
import pytest
from distributed import LocalCluster

import experiments.search as search_mod
from experiments import run_experiment


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        yield c


def same_on_the_cluster(raw, cluster, monkeypatch, tables):
    local = run_experiment(raw)
    with monkeypatch.context() as m:
        m.setattr(search_mod.Evaluator, "parallel_seconds", 0.0)   # every batch after the first to dask
        remote = run_experiment(raw, backend="dask", scheduler=cluster.scheduler_address)
    assert remote.manifest["backend"] == "dask"
    assert remote.answer == local.answer
    for name in tables:
        assert remote.tables[name].equals(local.tables[name]), name
    assert remote.cells.drop("seconds").equals(local.cells.drop("seconds"))
    return local


def test_equilibrium_of_a_family_on_a_dask_cluster(cluster, monkeypatch):
    raw = {"title": "t", "question": "q", "game": "sen", "players": 2, "games": 60, "seed": 8,
           "lineup": {"focus": "threshold", "field": "threshold:wake=8"},
           "search": {"focus.wake": [4, 8, 12], "start": [12], "meta": [2], "bootstrap": 10},
           "report": {"answer": "equilibrium"}}
    res = same_on_the_cluster(raw, cluster, monkeypatch, ("equilibrium", "race", "path", "metagame"))
    assert set(res.tables["equilibrium"]["solution"]) >= {"nash", "alpharank"}


def test_equilibrium_of_a_population_on_a_dask_cluster(cluster, monkeypatch):
    raw = {"title": "t", "question": "q", "game": "senshi", "games": 12, "seed": 9, "players": 3,
           "lineup": {"population": ["random", "greedy", "guard"]},
           "search": {"guard.margin": [0, 2], "bootstrap": 10},
           "report": {"answer": "equilibrium", "event": "eliminated"}}
    same_on_the_cluster(raw, cluster, monkeypatch, ("equilibrium", "race", "metagame"))


def test_design_searches_on_a_dask_cluster(cluster, monkeypatch):
    raw = {"title": "t", "question": "q", "game": "fan-and-mallet", "games": 80, "seed": 3,
           "lineup": {"seats": ["closer"]}, "search": {"rules.start_positions": ["0,6", "0,3", "0,0"]},
           "report": {"answer": "design", "objective": "seat0_win_share", "target": 0.5, "per_game": True}}
    same_on_the_cluster(raw, cluster, monkeypatch, ("race", "paired", "games"))
    raw = {"title": "t", "question": "q", "game": "sen", "players": 3, "games": 60, "seed": 11,
           "lineup": {"focus": "threshold", "field": "threshold:wake=12"},
           "search": {"rules.penalty": [0, 15], "focus.wake": [4, 8, 12, 16]},
           "report": {"answer": "design", "objective": "equilibrium_stakes", "goal": "max"}}
    same_on_the_cluster(raw, cluster, monkeypatch, ("race", "equilibrium", "path"))
