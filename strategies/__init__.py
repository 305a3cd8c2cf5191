"""Strategies for every game: reference policies and heuristics, and the spec registry."""
from .base import Strategy, decision, param

__all__ = ["Strategy", "decision", "param"]
