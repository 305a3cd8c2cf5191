"""Conformance checks of a lineup in one game: what the test suite runs for every registered strategy
(``tests/test_protocol.py``) and ``sensei check`` runs for a strategy of one's own.

* :func:`invariants`: the batch lane checks the game's invariants (cards and tiles conserved, memories
  equal to the truth, every live game at a decision) after every decision; a compiled lineup is also
  played in the compiled lane, checked every few decisions, and must end with the same games;
* :func:`batch_of_one`: a game plays the same alone, in a narrow batch and in a wide one, in both lanes
  (a strategy that keeps state between calls, or draws from a random source of its own, fails it);
* :func:`replayed`: the same seed plays the same games a second time;
* :func:`leak_probe`: at many decisions, the deciding seat's decisions are asked twice on the state (they
  must agree: a decision is a function of what it sees and its random stream) and again on a copy of the
  state in which everything that seat may not know is re-randomised (``Game.scramble_hidden``: other
  players' cards and memories, deck orders); any change means the strategy read what its seat cannot see.

Each check raises :class:`ConformanceError` (an AssertionError) with one line saying what differs; an
illegal option or a strategy's own error propagates as the engine raises it.

:func:`check_strategies` runs the four on a table, as ``sensei check`` does, and returns one
:class:`CheckResult` each (a failure recorded, not raised).
"""
from __future__ import annotations

import copy
import dataclasses
from typing import Any, Callable, Sequence

import numpy as np

from .game import Seats
from .rng import Draws, game_keys, root_key


class ConformanceError(AssertionError):
    """A conformance check failed (the message says which and where)."""


def same_outcomes(a: dict, b: dict, what: str = "") -> None:
    """Two outcomes (dicts of per-game columns) are equal, column by column and game by game."""
    if a.keys() != b.keys():
        raise ConformanceError(f"{what}: different outcome columns")
    for k in a:
        x, y = np.asarray(a[k]), np.asarray(b[k])
        if x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind == "f"):
            games = np.flatnonzero((x != y).reshape(len(x), -1).any(axis=1)) if x.shape == y.shape else []
            where = f" (first in game {int(games[0])})" if len(games) else ""
            raise ConformanceError(f"{what}: {k} differs{where}")


def compiled_walk(eng: Any, state: Any, seats: Seats, chunk: int = 5, max_chunks: int = 200_000) -> None:
    """Play a batch in the compiled lane ``chunk`` decisions at a time, checking the invariants between."""
    lu = seats.lineup_for(eng)
    for _ in range(max_chunks):
        if state.done.all():
            return
        eng.play_state(state, seats, lu, compiled=True, max_steps=chunk)
        try:
            eng.check(state)
        except AssertionError as exc:
            raise ConformanceError(f"compiled lane: an invariant fails: {exc}") from None
    raise ConformanceError("compiled lane: games did not end")


def invariants(eng: Any, rules: Any, players: int, agents: Sequence[Any], n: int, seed: int) -> dict:
    """``n`` games of seed ``seed``: the batch lane checking the invariants after every decision and, for a
    compiled lineup, the compiled lane checked every few decisions, with the same games. Returns the batch
    lane's outcome."""
    try:
        slow = eng.play(np.arange(n), players, rules, agents, root_key(seed), check=True)
    except AssertionError as exc:
        raise ConformanceError(f"batch lane: an invariant fails: {exc}") from None
    if eng.lineup(agents).all_compiled:
        keys = game_keys(root_key(seed), np.arange(n))
        state = eng.new_batch(keys, players, rules)
        compiled_walk(eng, state, Seats(agents, keys))
        same_outcomes(eng.outcome(state), slow, "the compiled lane against the batch lane")
    return slow


def lanes(eng: Any, agents: Sequence[Any]) -> tuple[bool, ...]:
    """The lanes a lineup plays: the compiled lane (when every decision is compiled) and the batch lane."""
    return (True, False) if eng.lineup(agents).all_compiled else (False,)


def batch_of_one(eng: Any, rules: Any, players: int, agents: Sequence[Any], ids: np.ndarray, seed: int,
                 alone: int = 3) -> None:
    """Games ``ids`` play the same in one batch, in batches of 3 and (the first ``alone``) one at a time, in
    every lane the lineup plays."""
    for compiled in lanes(eng, agents):
        lane = "compiled" if compiled else "batch"
        together = eng.play(ids, players, rules, agents, root_key(seed), compiled=compiled)
        narrow = eng.play(ids, players, rules, agents, root_key(seed), width=3, compiled=compiled)
        same_outcomes(narrow, together, f"{lane} lane, batches of 3 against one batch")
        for j, g in enumerate(ids[:alone]):
            one = eng.play(np.array([g]), players, rules, agents, root_key(seed), compiled=compiled)
            for k in together:
                if not np.array_equal(np.asarray(one[k][0]), np.asarray(together[k][j])):
                    raise ConformanceError(f"{lane} lane, game {int(g)} alone against a batch: {k} differs")


def replayed(eng: Any, rules: Any, players: int, agents: Sequence[Any], n: int, seed: int) -> None:
    """The same seed plays the same games twice, in every lane the lineup plays."""
    for compiled in lanes(eng, agents):
        a = eng.play(np.arange(n), players, rules, agents, root_key(seed), compiled=compiled)
        b = eng.play(np.arange(n), players, rules, agents, root_key(seed), compiled=compiled)
        same_outcomes(b, a, f"{'compiled' if compiled else 'batch'} lane, played again with the same seed")


def untouched(seats: Seats, seat: int, mine: np.ndarray, before: Any, after: Any, keys: np.ndarray,
              counters: np.ndarray) -> None:
    """A decision reads its observation and draws from its own stream: it writes nothing into the game's
    state (a public array such as the scores included, which the invariants alone would not notice), no
    random stream's key, and no counter but those of the deciding seat's streams in its games."""
    for f, v in vars(before).items():
        if isinstance(v, np.ndarray):
            w = getattr(after, f)
            if not np.array_equal(v, w, equal_nan=v.dtype.kind in "fc"):
                diff = np.flatnonzero(np.asarray(v != w).reshape(len(v), -1).any(axis=1)) if v.ndim else []
                where = f" (game {int(diff[0])})" if len(diff) else ""
                raise ConformanceError(f"seat {seat} ({seats.name(seat)}) writes into the game's state when it "
                                       f"decides: {f}{where}; a decision only reads its observation")
    if not np.array_equal(keys, seats.draws.keys):
        raise ConformanceError(f"seat {seat} ({seats.name(seat)}) changes the random streams' keys when it decides")
    own = np.zeros(len(counters), dtype=bool)
    own[np.asarray(mine) * seats.players + seat] = True
    moved = seats.draws.counter != counters
    if np.any(moved & ~own):
        raise ConformanceError(f"seat {seat} ({seats.name(seat)}) moves another seat's random stream when it "
                               "decides; a decision draws from its own stream only")


def _option_words(eng: Any, players: int, rules: Any, state: Any, g: int, width: int, opt: Any) -> str:
    """``option 0 (draw the deck's top)``: an option code of game ``g`` of a batch state with the words a
    trace gives it (the code alone where the game has none for it)."""
    from .game import take
    from .tracing import narrator_for

    try:
        words = narrator_for(eng, players, rules).option(take(state, np.array([g]), width, eng.state_constants),
                                                         int(opt))
    except Exception:  # noqa: BLE001 - the words are extra; the code says it all
        return f"option {int(opt)}"
    return f"option {int(opt)}" if words == f"option {int(opt)}" else f"option {int(opt)} ({words})"


def leak_probe(eng: Any, agents: Sequence[Any], players: int, rules: Any, n: int = 10, every: int = 3,
               max_steps: int = 400, seed: int = 3, hidden: bool | None = True) -> int:
    """Walk the batch lane; at every ``every``-th step, ask each deciding seat's decisions on the real state
    and on a state whose hidden information (from that seat's view) is scrambled: they must agree, and so
    must the seat's observation. Every scrambled state must pass the game's invariants. With ``hidden``
    True the scrambles must change the state somewhere, with False (rules that hide nothing) nowhere; None
    checks neither (the engine's own tests do). Returns the number of decisions compared."""
    keys = game_keys(root_key(seed), np.arange(n))
    state = eng.new_batch(keys, players, rules)
    seats = Seats(agents, keys)
    lu = seats.lineup_for(eng)
    S, R = eng.state_tuple(state), eng.rules_tuple(state)
    lu.call("begin_batch", S, R, np.arange(n, dtype=np.int64))
    draws = Draws(game_keys(root_key(99), np.arange(n)))
    checked = changed = 0
    actor, kind = S[3], S[4]
    for step in range(max_steps):
        live = np.flatnonzero(~state.done)
        if not len(live):
            break
        if step % every == 0:
            for seat in range(players):
                mine = live[actor[live] == seat]
                if not len(mine):
                    continue
                other = eng.scramble_hidden(state, seat, draws)
                try:
                    eng.check(other)  # a scrambled state is a state the game could be in
                except AssertionError as exc:
                    raise ConformanceError(f"the scramble of seat {seat}'s hidden information breaks an "
                                           f"invariant: {exc}") from None
                counters = seats.draws.counter.copy()

                def ask(st, watch=False):
                    before = copy.deepcopy(st) if watch else None
                    keys = seats.draws.keys.copy() if watch else None
                    out = eng.decide(st, mine, seats, lu)
                    if watch:
                        untouched(seats, seat, mine, before, st, keys, counters)
                    seats.draws.counter[:] = counters
                    return out

                def unsteady(x, y):
                    i = int(np.flatnonzero(x != y)[0])
                    g = int(mine[i])
                    return ConformanceError(
                        f"seat {seat} ({seats.name(seat)}) decides differently when asked again in the same "
                        f"state (game {g}, decision {eng.decisions[int(kind[g])]!r}): it draws from a random "
                        "source other than the rng it is given, or keeps something between calls")

                a = ask(copy.deepcopy(state), watch=True)
                again = ask(copy.deepcopy(state))
                if not np.array_equal(a, again):
                    raise unsteady(a, again)
                b = ask(copy.deepcopy(other))
                if not np.array_equal(a, b):
                    # asked a few more times on each state: a decision that changes there too is unsteady
                    # (random, or counting its calls), not reading what it may not see
                    for _ in range(4):
                        for st, first in ((other, b), (state, a)):
                            later = ask(copy.deepcopy(st))
                            if not np.array_equal(first, later):
                                raise unsteady(first, later)
                    i = int(np.flatnonzero(a != b)[0])
                    g = int(mine[i])
                    raise ConformanceError(
                        f"seat {seat} ({seats.name(seat)}) decides differently when what it may not see is "
                        f"scrambled: game {g}, decision {eng.decisions[int(kind[g])]!r}, "
                        f"{_option_words(eng, players, rules, state, g, n, a[i])} against "
                        f"{_option_words(eng, players, rules, other, g, n, b[i])}")
                va, vb = eng.observe_all(state, mine, seat), eng.observe_all(other, mine, seat)
                for k in va:
                    if not np.array_equal(va[k], vb[k]):
                        raise ConformanceError(f"seat {seat}'s observation changes in {k} when what it may not "
                                               "see is scrambled")
                checked += len(mine)
                changed += any(not np.array_equal(v, getattr(other, f)) for f, v in vars(state).items()
                               if isinstance(v, np.ndarray))
        eng.step_games(state, live, seats, lu)
    if checked == 0:
        raise ConformanceError("the leak probe compared no decision")
    if hidden is True and not changed:
        raise ConformanceError("the leak probe's scrambles changed nothing (the rules hide nothing?)")
    if hidden is False and changed:
        raise ConformanceError("the rules hide nothing, yet a scramble changed the state")
    return checked


#: the most games ``check_strategies`` and ``sensei check`` play per check (they play decision by decision)
CHECK_MAX_GAMES = 2000


@dataclasses.dataclass(frozen=True)
class CheckResult:
    """One check of :func:`check_strategies`: its function's name (``invariants``, ``batch_of_one``,
    ``replayed``, ``leak_probe``), what it checks in words, whether it passed, the failure's one line (''
    when it passed) and, for the leak probe, the number of decisions it compared."""

    name: str
    what: str
    passed: bool
    message: str = ""
    compared: int | None = None


def table_checks(eng: Any, agents: Sequence[Any], players: int, rules: Any, games: int,
                 seed: int) -> list[tuple[str, str, Callable[[], Any]]]:
    """The four checks of a checked table (:func:`simcore.runner.check_table`), each as (name, words, run)."""
    compiled = eng.lineup(agents).all_compiled
    both = "both lanes" if compiled else "the batch lane: a decision is numpy"
    return [
        ("invariants", f"the invariants after every decision ({both}), {games:,} games"
         + (", the same games in the compiled lane" if compiled else ""),
         lambda: invariants(eng, rules, players, agents, games, seed)),
        ("batch_of_one", f"a game alone, in batches of 3 and in one batch plays the same ({both})",
         lambda: batch_of_one(eng, rules, players, agents, np.arange(games), seed)),
        ("replayed", "the same seed plays the same games again",
         lambda: replayed(eng, rules, players, agents, games, seed)),
        ("leak_probe", "no decision reads what its seat may not see (its decisions on states with that "
         "scrambled), nor writes into the game or another seat's random stream",
         lambda: leak_probe(eng, agents, players, rules, n=games, seed=seed, hidden=None)),
    ]


def check_games_count(games: Any, name: str = "games", by: str = "the conformance checks (they play") -> int:
    """A number of games per check: a positive integer of at most :data:`CHECK_MAX_GAMES` (``name`` and ``by``:
    how the message calls the number and what plays the games)."""
    from .errors import SenseiError
    from .runner import check_games

    if isinstance(games, np.integer):
        games = int(games)
    check_games(games, what=name)
    if games > CHECK_MAX_GAMES:
        raise SenseiError(f"{name} must be at most {CHECK_MAX_GAMES:,} for {by} each game decision by decision), "
                          f"got {games:,}")
    return games


def check_strategies(game: Any, agents: Sequence[Any], players: int | None = None, rules: Any = None,
                     games: int = 20, seed: int = 0) -> list[CheckResult]:
    """``sensei check`` from Python: the four conformance checks of a table (a game's name or engine, one
    strategy object per seat, rules as a dict or a Rules object, as :func:`simcore.runner.simulate` takes
    them), each on ``games`` games of ``seed``. A check that fails (what differs, a decision that raised,
    an illegal option) is recorded in its :class:`CheckResult`, and the next one runs; a mistake in the
    arguments is a one-line SenseiError before any game."""
    from .errors import IllegalAction, SenseiError, StrategyError
    from .runner import check_table

    eng, agents, players, rules = check_table(game, agents, players, rules)
    games = check_games_count(games)
    if isinstance(seed, np.integer):
        seed = int(seed)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SenseiError(f"seed must be a non-negative integer, got {seed!r}")
    out = []
    for name, what, run in table_checks(eng, agents, players, rules, games, seed):
        try:
            got = run()
        except (ConformanceError, StrategyError, IllegalAction) as exc:
            out.append(CheckResult(name, what, False, " ".join(str(exc).split())))
        else:
            out.append(CheckResult(name, what, True, "", got if isinstance(got, int) else None))
    return out
