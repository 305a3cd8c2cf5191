"""Experiments: configs that ask a question, the grid runner, and the command line.

``run_experiment(path_or_dict, games=None, jobs=1)`` returns an :class:`~experiments.experiment.Experiment`
whose tables are polars DataFrames; see ``docs/experiments.md`` for the config schema.
"""
from __future__ import annotations

import signal as _signal
import threading as _threading

# the command line imports this package first: Ctrl-C during the few imports before experiments.cli takes
# over ends the command with one line, never a traceback (the handler is put back at the end)
_HANDLER = _signal.getsignal(_signal.SIGINT)
_EARLY = _threading.current_thread() is _threading.main_thread() and _HANDLER is _signal.default_int_handler
if _EARLY:
    def _interrupted_early(signum, frame):
        import os
        import sys

        sys.stderr.write("interrupted\n")
        os._exit(130)

    _signal.signal(_signal.SIGINT, _interrupted_early)

from typing import Any  # noqa: E402

__all__ = ["run_experiment", "load_config", "load_tables", "load_run", "Experiment", "SavedRun"]


def __getattr__(name: str) -> Any:  # lazy, so that ``sensei play`` does not import the experiment stack
    if name in ("run_experiment", "Experiment", "load_tables", "load_run", "SavedRun"):
        from . import experiment
        return getattr(experiment, name)
    if name == "load_config":
        from .config import load
        return load
    raise AttributeError(name)


if _EARLY:
    _signal.signal(_signal.SIGINT, _HANDLER)
