"""The decision protocol shared by every engine, and the two generic drivers that play every game.

A game engine is one module (``simcore/games/<game>.py``) deriving from :class:`Game`. It holds the rules
only (no strategy code, no strategy name) and provides:

* ``Rules``: a frozen dataclass of rule options (see :mod:`simcore.options`);
* ``decisions``: the names of its decision kinds (Sen: ``start``, ``face_up_slot``, ``drawn``, ...); a
  strategy answers kind ``k`` with its decision of name ``decisions[k]``, compiled or numpy;
* ``kernels``: the module of its compiled (numba) protocol functions, each for game ``g`` of a batch:
  ``begin(S, R, g)`` (deal, go to the first decision), ``step(S, R, g, opt)`` (apply one option and run
  the rules to the next decision point; False and nothing changed when the option is illegal),
  ``observe(S, R, g, seat)`` (a view of what ``seat`` may know, read by compiled strategies) and
  ``legal(S, R, g, out)`` (the legal options); ``S`` is :meth:`Game.state_tuple` (done, turns, timeout,
  actor, kind, then the engine's arrays), ``R`` is :meth:`Game.rules_tuple`;
* ``new_batch(keys, players, rules)``: a fresh batch (``keys`` = one 64-bit key per game), and
  ``observe(state, idx, actor)`` / ``encode(kind, answer, state, idx)``: the batch observation numpy
  strategies get and the reading of their answers as option codes;
* ``outcome(state)``: per-game result columns (see :data:`STANDARD_COLUMNS`);
  ``metrics(totals, n, players, rules)``: the ``play`` contract's figures from column sums;
* for the conformance suite: ``check(state)`` (invariants), ``observe_all(state, idx, seat)`` (everything
  a seat may know, as arrays) and ``scramble_hidden(state, seat, draws)`` (a copy whose hidden
  information from the seat's point of view is re-randomised).

Two drivers play every game: the compiled lane (:meth:`Game._play_lane`, a generated module per lineup,
see :mod:`simcore.lineup`, plays each game to its end in one compiled loop when every decision of every
seat is compiled) and the batch lane (:meth:`Game._play_batch`: one decision of every live game per step,
each strategy asked once per step for a batch). Both use the same rule steps and the same random streams,
so they play the same games. Chains of decisions within a turn (Take 2, powers, the final round) are
decision kinds, never callbacks into strategies in the middle of a rule.
"""
from __future__ import annotations

import abc
import copy
import dataclasses
from typing import Any, Callable, ClassVar, Sequence

import numpy as np

from .errors import IllegalAction, SenseiError, StrategyError, error_text, strategy_error
from .options import Rules
from .rng import STREAM_SEAT, AgentRandom, Draws, game_keys, stream_keys

#: Columns every engine's ``outcome`` returns. Shapes: (n,) or (n, players).
STANDARD_COLUMNS = {
    "score": "final score per seat (game-specific meaning), float (n, P)",
    "win": "win share per seat: 1/k for a k-way tie, 0 for every seat in a timed-out game, float (n, P)",
    "turns": "turns played, all players, int (n,)",
    "timeout": "stopped by the turn limit, bool (n,)",
}

#: a figure's or a column's possible range ``(lowest, highest)``, None where it has no bound on that side
Range = tuple[float | None, float | None]
#: what a share can be (a 0/1 column, or a count of a subset of what its denominator counts)
SHARE: Range = (0.0, 1.0)
#: a count or any other quantity that is never negative
NON_NEGATIVE: Range = (0.0, None)
#: the possible range of each entry of the standard columns
STANDARD_RANGES: dict[str, Range] = {"win": SHARE, "timeout": SHARE, "turns": NON_NEGATIVE}


class Seats:
    """Who plays each seat of a batch, and the random stream of each (game, seat).

    Engines call :meth:`ask` with the batch positions of the games that need a decision and the seat
    that must decide in each; games are grouped by the strategy of that seat so that each strategy is
    called once per decision point with a batch of observations.
    """

    def __init__(self, agents: Sequence[Any], keys: np.ndarray):
        self.agents = list(agents)
        self.players = len(self.agents)
        n = len(keys)
        groups: list[tuple[Any, list[int]]] = []
        for seat, agent in enumerate(self.agents):
            for other, seats in groups:
                if other is agent or other == agent:
                    seats.append(seat)
                    break
            else:
                groups.append((agent, [seat]))
        self.group_of_seat = np.zeros(self.players, dtype=np.int64)
        for g, (_, seats) in enumerate(groups):
            self.group_of_seat[seats] = g
        self.groups = [agent for agent, _ in groups]
        flat_keys = np.repeat(keys, self.players)
        seat_ids = np.tile(np.arange(self.players), n)
        self.draws = Draws(stream_keys(flat_keys, STREAM_SEAT, seat_ids))

    def splice(self, places: np.ndarray, fresh: "Seats") -> None:
        """Give batch positions ``places`` the random streams (keys, counters) of ``fresh``'s games."""
        P = self.players
        dst = (np.asarray(places)[:, None] * P + np.arange(P)[None, :]).reshape(-1)
        self.draws.keys[dst] = fresh.draws.keys
        self.draws.counter[dst] = fresh.draws.counter

    def lineup_for(self, game: Any) -> Any:
        """The :class:`simcore.lineup.Lineup` of these seats' strategies for ``game`` (made once)."""
        lu = getattr(self, "_lineup", None)
        if lu is None or lu.game is not game:
            lu = self._lineup = game.lineup(self.agents)
        return lu

    def name(self, seat: int) -> str:
        agent = self.agents[seat]
        return getattr(agent, "spec", lambda: repr(agent))()


def illegal(seats: Seats, decision: str, actor: np.ndarray, bad: np.ndarray | int, what: str) -> None:
    """Raise IllegalAction if any entry of the mask ``bad`` is set (or, given a position, if it is >= 0),
    naming the strategy and the decision."""
    if np.ndim(bad) == 0:
        if bad < 0:
            return
        pos = int(bad)
    elif np.any(bad):
        pos = int(np.flatnonzero(bad)[0])
    else:
        return
    seat = int(np.asarray(actor)[pos])
    raise IllegalAction(f"strategy {seats.name(seat)} (seat {seat}) made an illegal {decision}: {what}")


_INT64_MAX = np.iinfo(np.int64).max


def _answer_type(a: np.ndarray) -> str:
    if a.dtype.kind in "US":
        return "str"
    if a.dtype.kind == "O":
        return "/".join(sorted({type(x).__name__ for x in a.ravel().tolist()})) or "object"
    return str(a.dtype)


def answer_integers(value: Any, decision: str, what: str = "answers") -> np.ndarray:
    """A numpy strategy's answer as int64 option numbers. Only integers are answers: bool, float (NaN
    included), complex, strings, None and other objects are illegal answers, never rounded or cast;
    raises :class:`IllegalAction` ("made an illegal DECISION: ... of type T") saying what came instead."""
    if isinstance(value, np.ma.MaskedArray) and np.ma.getmask(value) is not np.ma.nomask and value.mask.any():
        # np.asarray reads a masked entry as the value hidden under its mask: an answer nobody gave
        raise IllegalAction(f"made an illegal {decision}: {what} with masked entries (a masked array; every game "
                            "needs an answer)")
    try:
        a = np.asarray(value)
    except (TypeError, ValueError) as exc:  # ragged sequences and the like
        raise IllegalAction(f"made an illegal {decision}: {what} that are not an array of integers "
                            f"({' '.join(str(exc).split())})") from None
    if a.dtype.kind == "O" and a.size and all(type(x) is int for x in a.ravel().tolist()):
        big = max(a.ravel().tolist(), key=abs)  # Python integers, in an array of objects or beyond 64 bits
        if abs(big) > _INT64_MAX:
            raise IllegalAction(f"made an illegal {decision}: an answer of {big} (too large for an option)")
        return a.astype(np.int64)  # integers all the same (np.array([...], dtype=object))
    if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
        raise IllegalAction(f"made an illegal {decision}: {what} of type {_answer_type(a)} (integers are expected)")
    if a.dtype.kind == "u" and a.size and int(a.max()) > _INT64_MAX:
        raise IllegalAction(f"made an illegal {decision}: an answer of {int(a.max())} (too large for an option)")
    return a.astype(np.int64)


def out_of_range(decision: str, what: str, parts: Sequence[np.ndarray], ok: np.ndarray, expected: str) -> None:
    """Raise IllegalAction naming the first answer (a tuple of ``parts`` where ``ok`` is False) that no option
    can encode, with what is ``expected`` of it."""
    if ok.all():
        return
    i = int(np.flatnonzero(~ok)[0])
    values = ", ".join(str(int(p[i])) for p in parts)
    raise IllegalAction(f"made an illegal {decision}: {what} = ({values}) ({expected})")


def answer_rows(value: Any, n: int, width: int, decision: str, what: str) -> np.ndarray:
    """A numpy strategy's answer of one row of ``width`` integers per game (``n`` games), e.g. Sensu's slot
    orders; anything of another shape is an illegal answer that says which shape came."""
    a = answer_integers(value, decision, what)
    if a.shape != (n, width):
        raise IllegalAction(f"made an illegal {decision}: {what} of shape {a.shape} for {n} games (one row of "
                            f"{width} per game is expected: shape ({n}, {width}))")
    return a


def answer_parts(value: Any, n: int, decision: str, what: str) -> list[np.ndarray]:
    """A numpy strategy's answer of ``n`` integer arrays (a tuple or list of them, or an array whose first
    axis has ``n`` rows), e.g. Sen's (player, slot) for a peek; anything else is an illegal answer."""
    ok = isinstance(value, (tuple, list)) or (isinstance(value, np.ndarray) and value.ndim >= 2)
    if not ok or len(value) != n:
        if value is None:
            got = "None"
        elif isinstance(value, np.ndarray):
            got = f"an array of shape {value.shape}"
        elif isinstance(value, (tuple, list)):
            got = f"a {type(value).__name__} of {len(value)}"
        else:
            got = f"a value of type {type(value).__name__}"
        raise IllegalAction(f"made an illegal {decision}: {n} arrays {what} are expected, not {got}")
    return [answer_integers(x, decision) for x in value]


@dataclasses.dataclass(frozen=True)
class Metric:
    """A contract figure computed as sum(num)/sum(den) over games (den None: the number of games).

    ``bounds`` is the figure's possible range when the columns' ranges do not give it (see
    :meth:`Game.metric_range`): :data:`SHARE` for a rate whose numerator counts a subset of what its
    denominator counts, or a per-unit range such as (0, 12) houses per game."""
    name: str
    num: str
    den: str | None = None
    per_seat: bool = False
    bounds: Range | None = None
    #: what the figure means, in a reader's words (the reports' captions give it where they show the figure)
    meaning: str = ""


class Game(abc.ABC):
    """Base class of every engine; see the module docstring for what a game provides."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    #: seats when none are given
    default_players: ClassVar[int] = 2
    Rules: ClassVar[type] = Rules
    Player: ClassVar[type] = object
    #: columns of ``outcome`` beyond the standard ones: name -> description
    columns: ClassVar[dict[str, str]] = {}
    #: contract metrics computed from column sums
    ratio_metrics: ClassVar[tuple[Metric, ...]] = ()
    #: metrics an engine's ``metrics`` adds beyond ``ratio_metrics`` that are the per-game mean of an
    #: outcome column (entry by entry for a list or dict): name -> column, for their 95% intervals
    metric_columns: ClassVar[dict[str, str]] = {}
    #: the possible range of each entry of an outcome column (beyond :data:`STANDARD_RANGES`, ``score``
    #: included): name -> (lowest, highest), None where unbounded; a column not named has no known range.
    #: The intervals of the figures are clipped to the ranges these give (:meth:`metric_range`).
    column_ranges: ClassVar[dict[str, Range]] = {}
    #: the ratio metrics in words, for answer sentences (else their names): a metric's name -> a phrase with
    #: ``{}`` where its value goes (``"{} of possessions are tied"``); a family's ``prefix_*`` -> what its
    #: members measure, each member then named by the rest of its name (``"mean bonus power of a kid ghost"``)
    metric_words: ClassVar[dict[str, str]] = {}
    #: state arrays that are tables shared by the whole batch, not per game (never sliced or spliced)
    state_constants: ClassVar[tuple[str, ...]] = ()
    #: games played side by side in a chunk (finished games hand their place to the next)
    batch_width: ClassVar[int] = 8192
    #: games per block of the compiled lane, at least: each game is played to its end on its own, so a
    #: block only bounds the memory of its state (a default chunk is one block: no concatenation, and
    #: each block's fixed costs are paid once)
    lane_block: ClassVar[int] = 16384
    #: hard cap on turns per game when the rules have none (a safety net; counted as a timeout)
    safety_turns: ClassVar[int] = 100_000
    #: which way a player's score is better: "max" (points, sticks, markers, a pile) or "min" (Sen's ravens)
    score_better: ClassVar[str] = "max"
    #: what a seat's score is, where the answers' "mean score" alone would not say (Senshi: its smallest pile)
    score_words: ClassVar[str] = ""
    #: the decision protocol: decision kind code -> name (the numpy method and the compiled decision of
    #: that name answer it); empty for an engine that still plays turn by turn (``turn``)
    decisions: ClassVar[tuple[str, ...]] = ()
    #: module holding the engine's compiled protocol functions ``begin``, ``step``, ``observe``, ``legal``
    kernels: ClassVar[str] = ""
    #: the kernels module also has ``step_inline``: ``step`` as a function numba inlines (the compiled lane
    #: uses it; a call would copy the whole state tuple)
    step_inline: ClassVar[bool] = False

    # ----- what a game implements -------------------------------------------------------------
    @abc.abstractmethod
    def new_state(self, keys: np.ndarray, players: int, rules: Any) -> Any:
        """A fresh batch of games, one per key."""

    def turn(self, state: Any, idx: np.ndarray, seats: Seats) -> None:
        """One player's turn in each game of ``idx``: its decisions, asked of ``seats`` and applied, until
        the turn is over (the batch lane one turn at a time, for tests and traces)."""
        lu = seats.lineup_for(self)
        idx = np.asarray(idx, dtype=np.int64)
        S, R = self.state_tuple(state), self.rules_tuple(state)
        lu.call("begin_batch", S, R, idx)
        start = S[1][idx].copy()
        while True:
            live = idx[~S[0][idx] & (S[1][idx] == start)]
            if not len(live):
                return
            self.step_games(state, live, seats, lu)

    def step_games(self, state: Any, idx: np.ndarray, seats: Seats, lu: Any = None) -> np.ndarray:
        """One decision in each game of ``idx`` (none may be done): asked of the acting seats' strategies,
        checked and applied. Returns the options taken."""
        lu = seats.lineup_for(self) if lu is None else lu
        idx = np.asarray(idx, dtype=np.int64)
        S, R = self.state_tuple(state), self.rules_tuple(state)
        opts = self.decide(state, idx, seats, lu)
        bad = lu.call("step_batch", S, R, idx, opts)
        if bad >= 0:
            raise lu.error(np.array([idx[bad], S[3][idx[bad]], S[4][idx[bad]], opts[bad]]), seats.name,
                           self.legal_here(state, int(idx[bad])))
        return opts

    @abc.abstractmethod
    def outcome(self, state: Any) -> dict[str, np.ndarray]:
        """Per-game result columns (see :data:`STANDARD_COLUMNS`)."""

    def turn_limit(self, rules: Any) -> int:
        """The rules' ``max_turns``, else the safety cap once more for every 1,000 rounds or points beyond
        the first 1,000 that the rules ask for (:meth:`game_length`), so that long games end by their rules."""
        limit = getattr(rules, "max_turns", None)
        if limit:
            return int(limit)
        return self.safety_turns * max(1, -(-int(self.game_length(rules)) // 1000))

    def game_length(self, rules: Any) -> int:
        """The rounds, points or games the rules ask a game to play (0: nothing beyond one ordinary game)."""
        return 0

    def metrics(self, totals: dict[str, np.ndarray], n: int, players: int, rules: Any) -> dict[str, Any]:
        """Contract metrics from column sums; the default evaluates :attr:`ratio_metrics`."""
        out: dict[str, Any] = {}
        for m in self.ratio_metrics:
            num = np.asarray(totals[m.num], dtype=float)
            den = float(n) if m.den is None else np.asarray(totals[m.den], dtype=float)
            with np.errstate(invalid="ignore", divide="ignore"):
                val = num / den
            val = np.where(np.asarray(den) > 0, val, np.nan) if m.den is not None else val
            out[m.name] = [_clean(v) for v in np.atleast_1d(val)] if m.per_seat else _clean(val)
        return out

    def column_range(self, col: str, players: int, rules: Any) -> Range:
        """The possible range ``(lowest, highest)`` of each entry of outcome column ``col`` under ``rules``
        (None where unbounded or unknown): :attr:`column_ranges`, the standard columns' own."""
        found = STANDARD_RANGES.get(col) or self.column_ranges.get(col)
        return tuple(found) if found else (None, None)

    def metric_range(self, name: str, players: int, rules: Any) -> Range:
        """The possible range ``(lowest, highest)`` of metric ``name`` (None where unbounded or unknown): a
        ratio metric's declared ``bounds``; else the range of the column a mean is taken of; else, for a
        ratio of sums of columns that are never negative, at least 0."""
        for m in self.ratio_metrics:
            if m.name != name:
                continue
            if m.bounds is not None:
                return tuple(m.bounds)
            lo, hi = self.column_range(m.num, players, rules)
            if m.den is None:
                return lo, hi
            den_lo, _ = self.column_range(m.den, players, rules)
            if lo is not None and lo >= 0 and den_lo is not None and den_lo >= 0:
                return 0.0, None
            return None, None
        col = self.metric_columns.get(name)
        if col is not None:
            return self.column_range(col, players, rules)
        return None, None

    # ----- shared --------------------------------------------------------------------------------
    def validate(self, players: int, rules: Any) -> None:
        if not self.min_players <= players <= self.max_players:
            span = (f"{self.min_players}" if self.min_players == self.max_players
                    else f"{self.min_players}-{self.max_players}")
            raise SenseiError(f"{self.name} is for {span} players, got {players}")

    def make_rules(self, values: dict[str, Any] | None = None) -> Any:
        return self.Rules.from_values(values or {}, self.name)

    def play(self, game_ids: np.ndarray, players: int, rules: Any, agents: Sequence[Any], root: np.uint64,
             check: bool = False, on_turn: Callable[[Any], None] | None = None,
             width: int | None = None, compiled: bool = True) -> dict[str, np.ndarray]:
        """Play complete games with global indices ``game_ids``; returns the outcome columns in that order.

        ``width`` is the number of games played side by side: when it is smaller than the number of
        games, every finished game hands its place to the next one (its outcome is kept), so the batch
        stays full. Results do not depend on ``width``. ``check`` runs :meth:`check` after every step
        (every decision; tests); ``on_turn(state)`` is a test hook called at the same moments.

        When every seat's every decision is compiled and ``compiled`` is True (and no hook is given),
        the games are played in the compiled lane (blocks of ``width`` games, each played to its end in
        one compiled call); else in the batch lane, which asks numpy strategies for a batch of decisions
        at a time. Both lanes play the same games.
        """
        if len(agents) != players:
            raise SenseiError(f"{len(agents)} strategies for {players} seats")
        ids = np.asarray(game_ids, dtype=np.int64)
        n = len(ids)
        width = n if width is None else max(1, min(int(width), n))
        lu = self.lineup(agents)
        if compiled and lu.all_compiled and not check and on_turn is None:
            return self._play_lane(ids, players, rules, agents, root, width, lu)
        return self._play_batch(ids, players, rules, agents, root, width, lu, check, on_turn)

    # ----- the decision protocol -----------------------------------------------------------------
    def lineup(self, agents: Sequence[Any]):
        """The :class:`simcore.lineup.Lineup` of ``agents`` (which decisions are compiled, the
        generated module); made once per lineup and process."""
        from .lineup import Lineup
        cache = self.__dict__.setdefault("_lineups", {})
        try:
            key = tuple(agents)
            hash(key)
        except TypeError:  # agents that cannot be hashed: no cache
            return Lineup(self, agents)
        lu = cache.get(key)
        if lu is None:
            if len(cache) > 256:
                cache.clear()
            lu = cache[key] = Lineup(self, agents)
        return lu

    def state_tuple(self, state: Any) -> tuple:
        """The state's arrays as the compiled functions take them: ``(done, turns, timeout, actor, kind,
        ...)`` (the state's own arrays, never copies)."""
        raise TypeError(f"{type(self).__name__} does not follow the decision protocol")

    def rules_tuple(self, state: Any) -> tuple:
        """The rule options (and the player count) as a tuple of numbers for the compiled functions."""
        raise TypeError(f"{type(self).__name__} does not follow the decision protocol")

    def observe(self, state: Any, idx: np.ndarray, seat: np.ndarray) -> Any:
        """The batch observation of seat ``seat[i]`` in game ``idx[i]`` at its current decision (what a
        numpy strategy gets)."""
        raise TypeError(f"{type(self).__name__} does not follow the decision protocol")

    def legal_here(self, state: Any, g: int) -> list[int] | None:
        """The legal option codes of game ``g`` at its current decision, for an error message that names an
        illegal one (the engine module's compiled ``legal(S, R, g, out)``); None where they cannot be had."""
        import sys
        mod = sys.modules.get(type(self).__module__)
        fn, most = getattr(mod, "legal", None), getattr(mod, "MAX_OPTIONS", None)
        if fn is None or not isinstance(most, int):
            return None
        try:
            out = np.empty(most, dtype=np.int64)
            n = int(fn(self.state_tuple(state), self.rules_tuple(state), np.int64(g), out))
        except Exception:  # noqa: BLE001 - an error message's extra words only
            return None
        return out[:n].tolist() if 0 <= n <= most else None

    def option_text(self, kind: int, opt: int) -> str:
        """An option code of decision ``kind`` in words for an error message (``option 15``; a game may say
        what the code stands for, as Sen's ``option 15 (player 1, slot 7)``)."""
        return f"option {opt}"

    def encode(self, kind: int, result: Any, state: Any, idx: np.ndarray) -> np.ndarray:
        """A numpy strategy's answers to decision ``kind`` as option codes (int64, one per game); the
        default takes one integer per game."""
        return answer_integers(result, self.decisions[kind])

    def new_batch(self, keys: np.ndarray, players: int, rules: Any) -> Any:
        """A fresh batch state for the drivers (``begin`` has not run); default :meth:`new_state`."""
        return self.new_state(keys, players, rules)

    def _play_lane(self, ids, players, rules, agents, root, width, lu) -> dict[str, np.ndarray]:
        """The compiled lane: blocks of ``width`` games (:attr:`lane_block` at least), each game played to its
        end in one compiled call."""
        width = max(width, min(len(ids), self.lane_block))
        parts = []
        notice = lu.compile_notice()
        if notice:
            import sys
            print(notice, file=sys.stderr, flush=True)
        for a in range(0, len(ids), width):
            keys = game_keys(root, ids[a:a + width])
            state = self.new_batch(keys, players, rules)
            try:
                self.play_state(state, Seats(agents, keys), lu)
            except StrategyError as exc:
                if exc.__cause__ is None:
                    raise
                # an exception raised in the compiled loop does not say which decision raised it: the same
                # games in the batch lane, which asks each group of seats for each decision apart, name it
                self._play_batch(ids[a:a + width], players, rules, agents, root, width, lu, False, None)
                raise
            parts.append(self.outcome(state))
        lu.mark_compiled()
        if len(parts) == 1:
            return parts[0]
        return {k: np.concatenate([np.asarray(p[k]) for p in parts]) for k in parts[0]}

    def play_state(self, state: Any, seats: "Seats", lu: Any = None, compiled: bool = True,
                   limit: int | None = None, max_steps: int = -1) -> None:
        """Play every game of the batch ``state`` on (to its end, to ``limit`` turns: a timeout, or for
        ``max_steps`` more decisions) in the compiled lane, or with ``compiled=False`` in the batch lane
        (one decision of every live game per step). Both give the same games."""
        from .lineup import scratch
        lu = seats.lineup_for(self) if lu is None else lu
        limit = self.turn_limit(state.rules) if limit is None else limit
        S, R = self.state_tuple(state), self.rules_tuple(state)
        fw, iw = scratch()
        if compiled:
            err = np.zeros(4, dtype=np.int64)
            if not lu.call("play", S, R, lu.cls_of_seat, lu.params, seats.draws.keys, seats.draws.counter, fw, iw,
                           limit, max_steps, err):
                raise lu.error(err, seats.name, self.legal_here(state, int(err[0])))
            return
        lu.call("begin_batch", S, R, np.arange(len(S[0]), dtype=np.int64))
        done, turns, timeout = S[0], S[1], S[2]
        steps = 0
        while steps != max_steps:
            idx = np.flatnonzero(~done)
            over = turns[idx] >= limit
            timeout[idx[over]] = True
            done[idx[over]] = True
            idx = idx[~over]
            if not len(idx):
                return
            self.step_games(state, idx, seats, lu)
            steps += 1

    def decide(self, state: Any, idx: np.ndarray, seats: "Seats", lu: Any, scratch: tuple | None = None) -> np.ndarray:
        """The option each game of ``idx`` takes at its current decision, from its acting seat's strategy
        (compiled decisions through the lineup's module, numpy ones as a batch per strategy and kind).
        The random streams of the acting seats advance as in play."""
        from .lineup import scratch as new_scratch
        S, R = self.state_tuple(state), self.rules_tuple(state)
        fw, iw = scratch if scratch is not None else new_scratch()
        idx = np.asarray(idx, dtype=np.int64)
        opts = np.empty(len(idx), dtype=np.int64)
        failed = None
        if lu.all_compiled:
            try:
                lu.call("decide", S, R, idx, lu.cls_of_seat, lu.params, seats.draws.keys, seats.draws.counter,
                        fw, iw, opts)
                return opts
            except StrategyError as exc:  # raised in a compiled decision: asked group by group, to name it
                if exc.__cause__ is None:
                    raise
                failed = exc
        actor = np.asarray(S[3][idx], dtype=np.int64)
        kind = np.asarray(S[4][idx], dtype=np.int64)
        for k in np.unique(kind):
            name = self.decisions[int(k)]
            for grp in np.unique(seats.group_of_seat[actor[kind == k]]):
                sel = np.flatnonzero((kind == k) & (seats.group_of_seat[actor] == grp))
                seat0 = int(actor[sel[0]])
                form = lu.forms[seat0][name]
                if form == "compiled":
                    out = np.empty(len(sel), dtype=np.int64)
                    try:
                        lu.call("decide", S, R, idx[sel], lu.cls_of_seat, lu.params, seats.draws.keys,
                                seats.draws.counter, fw, iw, out)
                    except StrategyError as exc:  # raised in this group's compiled decision: name both
                        if exc.__cause__ is None:
                            raise
                        raise strategy_error(seats.groups[grp], name, exc.__cause__) from exc.__cause__
                    opts[sel] = out
                elif form == "numpy":
                    opts[sel] = self._ask_numpy(state, idx[sel], actor[sel], int(k), name, seats, grp)
                else:
                    raise IllegalAction(f"strategy {seats.name(seat0)} (seat {seat0}) has no decision {name!r}")
        if failed is not None:  # (asked apart, no decision raised: the first error stands)
            raise failed
        return opts

    def _ask_numpy(self, state, idx, actor, kind: int, name: str, seats: "Seats", grp: int) -> np.ndarray:
        agent = seats.groups[grp]
        rng = AgentRandom(seats.draws, idx, actor, seats.players)
        obs = self.observe(state, idx, actor)
        try:
            res = getattr(agent, name)(obs, rng)
        except BaseException as exc:  # noqa: BLE001 - a strategy may fail in any way: name it, the decision, the error
            err = strategy_error(agent, name, exc)
            if err is exc:
                raise
            raise err from exc
        try:
            out = self.encode(kind, res, state, idx)
        except IllegalAction as exc:  # an answer that is no option at all: the engine says why
            raise IllegalAction(f"strategy {seats.name(int(actor[0]))} (seat {int(actor[0])}) {exc}") from None
        except Exception as exc:  # noqa: BLE001 - an answer numpy cannot read (or whose own methods fail)
            raise IllegalAction(f"strategy {seats.name(int(actor[0]))} (seat {int(actor[0])}) made an illegal "
                                f"{name}: an answer that is no option ({type(exc).__name__}: "
                                f"{error_text(exc)})") from None
        if out.shape != (len(idx),):
            raise IllegalAction(f"strategy {seats.name(int(actor[0]))} (seat {int(actor[0])}) made an illegal {name}: "
                                f"answers of shape {out.shape} for {len(idx)} games (one option per game is "
                                f"expected: shape ({len(idx)},))")
        return out

    def _play_batch(self, ids, players, rules, agents, root, width, lu, check, on_step) -> dict[str, np.ndarray]:
        """The batch lane: one decision of every live game per step, asked of each strategy as a batch."""
        from .lineup import scratch
        notice = lu.compile_notice("batch")
        if notice:
            import sys
            print(notice, file=sys.stderr, flush=True)
        n = len(ids)
        keys = game_keys(root, ids[:width])
        state = self.new_batch(keys, players, rules)
        seats = Seats(agents, keys)
        S, R = self.state_tuple(state), self.rules_tuple(state)
        work = scratch()
        lu.call("begin_batch", S, R, np.arange(width, dtype=np.int64))
        limit = self.turn_limit(rules)
        refill = width < n
        refill_at = max(1, width // 8)  # hand places over in bulk: a fresh batch has a fixed cost
        slot_game = np.arange(width)  # position in ``ids`` of the game in each place, -1 once retired
        nxt = width
        results: dict[str, np.ndarray] | None = None
        done, turns, timeout = S[0], S[1], S[2]
        while True:
            idx = np.flatnonzero(~done)
            if len(idx) == 0 and not refill:
                break
            over = turns[idx] >= limit
            if over.any():
                timeout[idx[over]] = True
                done[idx[over]] = True
                idx = idx[~over]
            if len(idx):
                opts = self.decide(state, idx, seats, lu, work)
                bad = lu.call("step_batch", S, R, idx, opts)
                if bad >= 0:
                    raise lu.error(np.array([idx[bad], S[3][idx[bad]], S[4][idx[bad]], opts[bad]]), seats.name,
                                   self.legal_here(state, int(idx[bad])))
                if check:
                    self.check(state)
                if on_step is not None:
                    on_step(state)
            if not refill:
                continue
            fin = np.flatnonzero(done & (slot_game >= 0))
            if len(fin) == 0 or (len(fin) < refill_at and not done.all()):
                continue
            res = self.outcome(take(state, fin, width, self.state_constants))
            if results is None:
                results = {k: np.zeros((n,) + np.asarray(v).shape[1:], dtype=np.asarray(v).dtype)
                           for k, v in res.items()}
            for k, v in res.items():
                results[k][slot_game[fin]] = v
            slot_game[fin] = -1
            k = min(len(fin), n - nxt)
            if k:
                places = fin[:k]
                new_keys = game_keys(root, ids[nxt:nxt + k])
                fresh = self.new_batch(new_keys, players, rules)
                splice(state, places, fresh, width, self.state_constants)
                seats.splice(places, Seats(agents, new_keys))
                lu.call("begin_batch", S, R, np.asarray(places, dtype=np.int64))
                slot_game[places] = np.arange(nxt, nxt + k)
                nxt += k
            if (slot_game < 0).all():
                break
        lu.mark_compiled("batch")
        return results if refill else self.outcome(state)

    def check(self, state: Any) -> None:
        """Invariants that must hold after every turn (raise AssertionError)."""

    def describe(self) -> dict[str, Any]:
        from .options import describe
        return {"name": self.name, "title": self.title, "players": [self.min_players, self.max_players],
                "summary": self.summary, "rules": describe(self.Rules)}


def _batch_fields(state: Any, width: int, constants: tuple[str, ...] = ()):
    """The per-game arrays of a batch state: arrays whose first axis is the batch (``constants`` excepted)."""
    for name, value in vars(state).items():
        if name in constants:
            continue
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == width:
            yield name, value


def take(state: Any, idx: np.ndarray, width: int, constants: tuple[str, ...] = ()) -> Any:
    """A shallow copy of a batch state holding only the games ``idx`` (arrays with a batch axis sliced)."""
    sub = copy.copy(state)
    for name, value in _batch_fields(state, width, constants):
        setattr(sub, name, value[idx])
    return sub


def splice(state: Any, places: np.ndarray, fresh: Any, width: int, constants: tuple[str, ...] = ()) -> None:
    """Put the games of batch state ``fresh`` into ``state`` at batch positions ``places``."""
    k = len(places)
    for name, value in _batch_fields(state, width, constants):
        new = getattr(fresh, name)
        if isinstance(new, np.ndarray) and new.ndim >= 1 and new.shape[0] == k:
            value[places] = new


def _clean(v: Any) -> Any:
    v = float(v)
    return None if v != v else v


def tie_shares(values: np.ndarray, lower_is_better: bool = True) -> np.ndarray:
    """Win shares (n, P): each seat with the best value gets 1/k of a win (k = number of tied seats)."""
    best = values.min(axis=1, keepdims=True) if lower_is_better else values.max(axis=1, keepdims=True)
    win = (values == best).astype(np.float64)
    return win / win.sum(axis=1, keepdims=True)
