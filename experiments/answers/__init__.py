"""The answer kinds, registered in one place.

Config validation (:mod:`experiments.config`), the analysis (:mod:`experiments.analysis`) and the reports
(:mod:`reports.html`) iterate :data:`REGISTRY`; each kind lives in its own module (its config keys and
their validation, its analysis and sentences, its figures): see :mod:`experiments.answers.base`.
"""
from __future__ import annotations

from . import (balance, best, best_response, calibration, design, effect, equilibrium, ratings, risk, sprt,
               summary, turn_order)
from .base import AnswerKind

#: every answer kind, in the order of the documentation (and of the validation of their keys)
REGISTRY: dict[str, AnswerKind] = {k.name: k for k in (
    best.KIND, effect.KIND, ratings.KIND, sprt.KIND, summary.KIND, calibration.KIND, balance.KIND, risk.KIND,
    turn_order.KIND, best_response.KIND, equilibrium.KIND, design.KIND,
)}


def get(name: str) -> AnswerKind | None:
    """The kind named ``name`` (None for a name no kind has, e.g. in a run folder of another version)."""
    return REGISTRY.get(name)
