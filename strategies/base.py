"""The strategy base class: a small frozen parameter object with one job.

A strategy is a ``@dataclass(frozen=True)`` deriving from :class:`Strategy`. Its fields are its
parameters (with defaults, a type and a ``param(...)`` help text); it holds no other state and does no
work in ``__init__``. It answers each decision kind of its game (``Game.decisions``, e.g. Sen's
``start``, ``face_up_slot``, ``drawn``, ...) in one of two forms, or inherits the answer from a strategy
it builds on:

* a **compiled decision**: a function of ``(obs, prm, rng)`` marked with :func:`decision`, assigned to
  the class attribute of the decision's name; ``obs`` is the engine's per-game observation view,
  ``prm`` the strategy's parameters by name, ``rng`` its seat's random stream (a ``simcore.rng.Stream``,
  which has no methods: draw with ``simcore.rng.random(rng)`` and ``simcore.rng.integer(rng, n)``). Lineups
  of compiled strategies play the compiled lane, built-in or not;
* a **numpy method** ``name(self, obs, rng)`` over a batch of observations (the engine's ``observe``),
  returning one option per game; ``rng`` (a ``simcore.rng.AgentRandom``) draws one number per game with
  ``rng.random()``, ``rng.integers(n)`` and ``rng.choose(mask)``. Such lineups play the batch lane.

The streams are per seat and per game (docs/architecture.md, "Random numbers in a strategy"), so no result
depends on the number of workers or on how the games are batched.

For example, threshold play that never takes the face-up top::

    import dataclasses
    from typing import ClassVar

    from simcore.games.sen import DRAW, FACE_UP, own_lands, top_value
    from strategies import decision, param
    from strategies.sen import Threshold, threshold_start


    @decision
    def never_face_up(obs, prm, rng):
        own = obs.mem[obs.g, obs.me, obs.me]  # what the player remembers of its own lands
        choice = threshold_start(own, own_lands(obs), top_value(obs), prm.wake * 6)
        return DRAW if choice == FACE_UP else choice


    @dataclasses.dataclass(frozen=True)
    class Cautious(Threshold):
        '''Threshold play, but it draws from the face-down pile instead of taking the face-up top.'''
        name: ClassVar[str] = "cautious"
        game: ClassVar[str] = "sen"
        wake: int = param(8, "say WAKE UP! when the estimated own total is at most this")

        start = never_face_up

Saved as ``mine.py``, it plays with ``sensei play sen -s ./mine.py:Cautious:wake=9``, or by its name
with ``sensei play sen --strategies mine.py -s cautious:wake=9`` and in an experiment config with
``sensei run CONFIG --strategies mine.py``.

The parameters are the strategy's identity: :meth:`spec` renders them (``cautious:wake=8``), result
tables carry them as columns and experiment sweeps replace them (``dataclasses.replace``).
"""
from __future__ import annotations

import dataclasses
import numbers
from typing import Any, ClassVar

import numpy as np

from simcore.compiled import decision  # noqa: F401  (strategies mark compiled decisions with it)
from simcore.options import display_name, option


def param(default: Any, help: str, **checks: Any) -> Any:
    """A strategy parameter: default, one-line help, optional ``min``/``max``/``choices``."""
    return option(default, help, **checks)


@dataclasses.dataclass(frozen=True)
class Strategy:
    """Base of all strategies (see the module docstring)."""

    name: ClassVar[str] = ""
    game: ClassVar[str] = ""
    #: set for strategies loaded from a user file: (path, class name); the spec then names the file
    _source: ClassVar[tuple[str, str] | None] = None
    #: set for the strategies of a file registered by name (``--strategies FILE``): (path, class name),
    #: which worker processes load them from
    _origin: ClassVar[tuple[str, str] | None] = None
    #: at most this many games (deals) per chunk, where no chunk size is given, for a run with this strategy
    #: in a seat: a slow strategy (a search) plays in small chunks, so that workers share even a single
    #: cell and an interruption loses little (None: the size from the number of games alone). Results
    #: never depend on the chunk size.
    chunk_games: ClassVar[int | None] = None

    def params(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    def inert(self, players: int, rules: Any = None) -> dict[str, str]:
        """The parameters that change nothing with ``players`` and ``rules`` (Sensu's ``play_min`` in solo,
        Sen's ``claim_gain`` without the variant that uses it), each with why: ``{name: reason}``. A config
        refuses cells that differ only in them."""
        return {}

    def played(self, players: int, rules: Any = None) -> tuple:
        """What this strategy plays with ``players`` and ``rules``, to tell two settings apart: its spec's
        head and every parameter but those that change nothing there (:meth:`inert`)."""
        skip = self.inert(players, rules)
        head = self.spec().partition(":")[0]
        return (head,) + tuple((k, repr(v)) for k, v in sorted(self.params().items()) if k not in skip)

    def spec(self) -> str:
        """``name`` or ``name:key=value,...`` with every parameter (the strategy's identity)."""
        cls = type(self)
        head = display_name(self)
        source = cls.__dict__.get("_source")  # a class's own, not one inherited from a loaded base
        if source is not None:
            head = f"{source[0]}:{source[1]}"
        ps = self.params()
        if not ps:
            return head
        return head + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in ps.items())

    def compiled_values(self) -> dict[str, Any]:
        """The numbers a compiled decision gets as ``prm`` (a named tuple with these fields): by default
        every int, float and bool parameter (a text parameter with ``choices`` as the index of its
        value). Override to hand compiled decisions other numbers."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            v = getattr(self, f.name)
            choices = f.metadata.get("choices")
            if isinstance(v, (bool, np.bool_)):
                out[f.name] = bool(v)
            elif isinstance(v, numbers.Integral):  # (numpy's integers too: np.int64(8) was left out of prm)
                out[f.name] = int(v)
            elif isinstance(v, numbers.Real):
                out[f.name] = float(v)
            elif choices and v in choices:
                out[f.name] = list(choices).index(v)
        return out

    def __str__(self) -> str:
        return self.spec()

    def __reduce__(self):
        # a class from a user's file is not importable by module name in a worker process: the worker
        # loads the file again
        own = type(self).__dict__
        from .registry import load_file_strategy
        if own.get("_source") is not None:
            return (load_file_strategy, (own["_source"][0], own["_source"][1], self.params()))
        if own.get("_origin") is not None:
            return (load_file_strategy, (own["_origin"][0], own["_origin"][1], self.params(), None, True))
        return super().__reduce__()


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)
