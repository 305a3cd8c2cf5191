"""Experiments: configs that ask a question, the grid runner, and the command line.

``run_experiment(path_or_dict, games=None, jobs=1)`` returns an :class:`~experiments.experiment.Experiment`
whose tables are polars DataFrames; see ``experiments/README.md`` for the config schema.
"""
from __future__ import annotations

from typing import Any

__all__ = ["run_experiment", "load_config", "load_tables", "Experiment"]


def __getattr__(name: str) -> Any:  # lazy, so that ``sensei play`` does not import the experiment stack
    if name in ("run_experiment", "Experiment", "load_tables"):
        from . import experiment
        return getattr(experiment, name)
    if name == "load_config":
        from .config import load
        return load
    raise AttributeError(name)
