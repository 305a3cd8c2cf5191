"""Traces: one game played decision by decision, told as a play-by-play (see docs/traces.md).

:func:`trace_game` plays game ``K`` (its global index, 0-based: the ``game`` column of the per-game
table) of a run exactly as ``sensei play`` and :func:`simcore.runner.simulate` play it: the same seats,
the same deal keys (seed, K), the same strategies' random streams, the same rule steps (the engine's
protocol functions ``begin``, ``legal``, ``step``, through the lineup's ``begin_batch`` / ``step_batch``
and :meth:`Game.decide`). It records, for every decision, the seat, its strategy, a short summary of
what it knew, its options, its choice and the public effect; each game's narrator (one module per game
in this package) adds the deals, the reveals and the scoring step by step.

A trace is a list of events (plain dicts, JSON-ready). Who may read what:

* ``knew``, ``options``, ``chose`` of a decision: the deciding seat;
* ``effect``, ``lines`` and the outcome fields: everybody;
* ``private``: ``{seat: text}``, what that seat alone learns (the card it drew, its own dealt lands);
* ``hidden``: what nobody sees yet (the referee's view: the dealt cards, a card drawn by another seat).

:func:`view` keeps what one seat saw; :func:`render` prints events as text, :func:`json_lines` as JSON
Lines. A scripted deal (the rule tests' worked examples) is traced by passing its prepared ``state``
(and its ``keys``) instead of a seed and a game index.
"""
from __future__ import annotations

import copy
import importlib
import json
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..errors import SenseiError
from ..game import Game, Seats
from ..rng import game_keys, root_key

#: per game: the module of its narrator (a class ``Narrator``)
NARRATORS = {
    "sen": "simcore.tracing.sen",
    "senshi": "simcore.tracing.senshi",
    "sensu": "simcore.tracing.sensu",
    "fan-and-mallet": "simcore.tracing.fan_and_mallet",
}
#: options listed in the text of a decision (the JSON line lists them all)
SHOWN_OPTIONS = 12
#: room for the legal options of any decision of any game
_OPTION_ROOM = 8192


class Narrator:
    """How one game's events are told: the engine's state in words. A game's narrator overrides these."""

    #: decisions that are not turns (set-up choices): their events carry no turn number
    setup: tuple[str, ...] = ()
    #: what the engine's score is, as the end line names it
    score_name: str = "scores"

    def __init__(self, eng: Game, players: int, rules: Any):
        self.eng = eng
        self.players = players
        self.rules = rules

    def opening(self, state: Any) -> list[dict[str, Any]]:
        """Events after ``begin`` (the deal)."""
        return []

    def knew(self, state: Any, seat: int) -> str:
        """A short summary of what ``seat`` knows at its current decision."""
        return ""

    def option(self, state: Any, opt: int) -> str:
        """The words for option ``opt`` at the current decision of ``state``."""
        return str(opt)

    def effect(self, before: Any, after: Any, opt: int, seat: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """What the step from ``before`` to ``after`` did: fields of the decision's event (``effect``,
        ``private``, ``hidden``) and the events that follow it (a round's end, a new deal)."""
        return {"effect": ""}, []

    def ending(self, state: Any, outcome: dict[str, np.ndarray]) -> list[str]:
        """The game's end: the reveal and the scoring, step by step."""
        return []


def snapshot(state: Any) -> Any:
    """A copy of a state whose arrays are copies (the rules and other values are shared)."""
    snap = copy.copy(state)
    for name, value in vars(state).items():
        if isinstance(value, np.ndarray):
            setattr(snap, name, value.copy())
    return snap


def narrator_for(eng: Game, players: int, rules: Any) -> Narrator:
    module = NARRATORS.get(eng.name)
    if module is None:
        raise SenseiError(f"no trace narrator for {eng.name}")
    return importlib.import_module(module).Narrator(eng, players, rules)


def check_game_index(game: Any, games: int | None = None, names: tuple[str, str] = ("game", "games")) -> int:
    """A game index K (0-based, the per-game table's ``game`` column): below ``games`` when given. ``names``
    are how the messages call the two (the command line's ``--game`` and ``--games``)."""
    from ..runner import MAX_GAMES, check_games

    name, games_name = names
    if isinstance(game, np.integer):  # (numpy integers, as notebooks make them, are integers)
        game = int(game)
    if not isinstance(game, int) or isinstance(game, bool) or game < 0:
        raise SenseiError(f"{name} must be a game index from 0 (the per-game table's game column), got {game!r}")
    if games is not None:
        check_games(games, what=games_name)
        if game >= games:
            raise SenseiError(f"{name} {game:,} is beyond {games_name} {games:,}: game indices run from 0 to "
                              f"{games - 1:,}")
    elif game >= MAX_GAMES:
        raise SenseiError(f"{name} must be below {MAX_GAMES:,} (a 64-bit game index), got {game:,}")
    return game


def _names(agents: Sequence[Any]) -> list[str]:
    return [a.spec() if hasattr(a, "spec") else repr(a) for a in agents]


def trace_game(eng: Game, agents: Sequence[Any], players: int | None = None, rules: Any = None, seed: int = 0,
               game: int = 0, state: Any = None, keys: np.ndarray | None = None,
               prepare: Callable[[Any], None] | None = None,
               max_decisions: int | None = None) -> list[dict[str, Any]]:
    """The events of game ``game`` (0-based global index) of the run with ``seed``, played by ``agents``
    (one per seat, in seat order as ``sensei play`` seats them): the list of :func:`iter_trace`'s events."""
    return list(iter_trace(eng, agents, players, rules, seed, game, state, keys, prepare, max_decisions))


def iter_trace(eng: Game, agents: Sequence[Any], players: int | None = None, rules: Any = None, seed: int = 0,
               game: int = 0, state: Any = None, keys: np.ndarray | None = None,
               prepare: Callable[[Any], None] | None = None,
               max_decisions: int | None = None) -> Iterator[dict[str, Any]]:
    """The events of game ``game`` (0-based global index) of the run with ``seed``, played by ``agents``
    (one per seat, in seat order as ``sensei play`` seats them), each as soon as it happens: a game of
    many rounds (Sen's ``rounds``, Fan & Mallet's ``match_points``) is millions of events, which the
    command line prints as they come instead of keeping them.

    ``state`` (with its ``keys``, one per game of a batch of one): a prepared state to play instead
    (a scripted deal); ``prepare(state)`` may change the fresh state before ``begin`` (a scripted deck);
    ``max_decisions`` stops the trace after that many decisions (a worked example's moment of play; the
    end event then says ``finished: false`` and gives the scores so far). The last event is the game's
    end (``scores``, ``win``, ``turns``, ``timeout``) from the engine's ``outcome``: the game's row of
    the per-game table.
    """
    from ..runner import check_table

    # (a game's name or engine; names, classes, another game's strategies, a Rules object's text: as simulate)
    eng, agents, players, rules = check_table(eng, agents, players, rules)
    if isinstance(seed, np.integer):
        seed = int(seed)
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise SenseiError(f"seed must be a non-negative integer, got {seed!r}")
    if state is None:
        game = check_game_index(game)
        keys = game_keys(root_key(seed), np.array([game], dtype=np.int64))
        state = eng.new_batch(keys, players, rules)
        scripted = False
    else:
        if keys is None:
            keys = np.asarray(getattr(state, "keys"))
        scripted = True
        rules = getattr(state, "rules", rules) or rules
    if prepare is not None:
        prepare(state)
    kern = importlib.import_module(eng.kernels)
    seats = Seats(list(agents), np.asarray(keys))
    lu = eng.lineup(list(agents))
    nar = narrator_for(eng, players, rules)
    S, R = eng.state_tuple(state), eng.rules_tuple(state)
    idx = np.zeros(1, dtype=np.int64)
    names = _names(agents)
    if lu.all_compiled:
        # the lineup's decisions compiled (and a decision that cannot compile refused) before the first
        # line, on a copy of the game with streams of its own: the trace and its randomness are untouched
        # (compiled decisions are functions of what they are given; a numpy one may keep state, and is not
        # asked ahead)
        notice = lu.compile_notice("batch")
        if notice:
            import sys
            print(notice, file=sys.stderr, flush=True)
        warm = copy.deepcopy(state)
        wS, wR = eng.state_tuple(warm), eng.rules_tuple(warm)
        lu.call("begin_batch", wS, wR, idx)
        if not wS[0][0]:
            eng.decide(warm, idx, Seats(list(agents), np.asarray(keys)), lu)
        lu.mark_compiled("batch")
        del warm, wS, wR
    head = {"event": "game", "game": eng.name, "players": players, "seed": None if scripted else seed,
            "index": None if scripted else game, "strategies": names,
            "rules": rules.as_dict()}
    yield head
    lu.call("begin_batch", S, R, idx)
    yield from nar.opening(state)
    limit = eng.turn_limit(state.rules)
    buf = np.zeros(_OPTION_ROOM, dtype=np.int64)
    done, turns, timeout = S[0], S[1], S[2]
    step_no = 0
    while not done[0]:
        if max_decisions is not None and step_no >= max_decisions:
            break
        if turns[0] >= limit:  # as both lanes do: a game at the turn limit stops, a timeout
            timeout[0] = True
            done[0] = True
            break
        seat, kind = int(S[3][0]), int(S[4][0])
        n = int(kern.legal(S, R, 0, buf))
        legal = [int(x) for x in buf[:n]]
        name = eng.decisions[kind]
        ev: dict[str, Any] = {"event": "decision", "step": step_no,
                              "turn": None if name in nar.setup else int(turns[0]) + 1, "seat": seat,
                              "strategy": names[seat], "decision": name,
                              "knew": nar.knew(state, seat), "options": [nar.option(state, o) for o in legal]}
        before = snapshot(state)
        opts = eng.decide(state, idx, seats, lu)
        bad = lu.call("step_batch", S, R, idx, opts)
        if bad >= 0:
            raise lu.error(np.array([0, seat, kind, opts[0]]), seats.name)
        opt = int(opts[0])
        ev["chose"] = nar.option(before, opt)
        fields, after = nar.effect(before, state, opt, seat)
        ev.update(fields)
        yield ev
        yield from after
        step_no += 1
    out = eng.outcome(state)
    end = {"event": "end", "scores": [float(x) for x in np.asarray(out["score"])[0]],
           # (a game the trace stopped in has no winner yet: its outcome's even shares read as a tie)
           "win": [float(x) for x in np.asarray(out["win"])[0]] if done[0] else None,
           "turns": int(np.asarray(out["turns"])[0]),
           "timeout": bool(np.asarray(out["timeout"])[0]), "decisions": step_no, "finished": bool(done[0]),
           "score_name": nar.score_name,
           "lines": nar.ending(state, out) if done[0] else []}
    yield end


# ----- who saw what -----------------------------------------------------------------------------------
_ACTOR_ONLY = ("knew", "options", "chose")


def view(events: Sequence[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    """The events as seat ``seat`` saw them (None: the referee, who sees everything)."""
    if seat is None:
        return [dict(e) for e in events]
    players = next((e.get("players") for e in events if e.get("event") == "game"), None)
    if isinstance(seat, np.integer):
        seat = int(seat)
    if not isinstance(seat, int) or isinstance(seat, bool) or (
            players is not None and not 0 <= seat < players) or seat < 0:
        span = f"0 to {players - 1}" if players is not None else "from 0"
        raise SenseiError(f"view: seat must be a seat of the table ({span}), got {seat!r:.40}")
    out = []
    for e in events:
        e = dict(e)
        e.pop("hidden", None)
        private = e.pop("private", None) or {}
        mine = private.get(seat, private.get(str(seat)))
        if mine:
            e["private"] = {seat: mine}
        if e.get("event") == "decision" and e.get("seat") != seat:
            for k in _ACTOR_ONLY:
                e.pop(k, None)
        out.append(e)
    return out


def json_lines(events: Sequence[dict[str, Any]]) -> str:
    """One JSON object per line."""
    def clean(x: Any) -> Any:
        if isinstance(x, dict):
            return {str(k): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if hasattr(x, "item") and callable(x.item):
            return x.item()
        return x
    return "".join(json.dumps(clean(e)) + "\n" for e in events)


def _fmt_score(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def render(events: Sequence[dict[str, Any]], seat: int | None = None) -> str:
    """The play-by-play text of ``events`` (already filtered by :func:`view` for ``seat``)."""
    lines: list[str] = []
    for e in events:
        kind = e.get("event")
        if kind == "game":
            where = (f"game {e['index']} (0-based) of seed {e['seed']}" if e.get("index") is not None
                     else "a scripted deal")
            lines.append(f"{e['game']}, {e['players']} player{'s' if e['players'] != 1 else ''}, {where}"
                         + (f", as seat {seat} saw it" if seat is not None else ""))
            for s, name in enumerate(e["strategies"]):
                lines.append(f"  seat {s}: {name}")
            lines.append("  rules: " + ", ".join(f"{k}={_show(v)}" for k, v in e["rules"].items()))
        elif kind == "decision":
            when = "set-up" if e.get("turn") is None else f"turn {e['turn']}"
            lines.append(f"{when}, seat {e['seat']} ({e['strategy']}): {e['decision']}")
            if "knew" in e and e["knew"]:
                lines.append(f"  knew: {e['knew']}")
            if "options" in e:
                opts = e["options"]
                shown = "; ".join(opts[:SHOWN_OPTIONS])
                more = f"; ... ({len(opts)} options)" if len(opts) > SHOWN_OPTIONS else ""
                lines.append(f"  options: {shown}{more}")
            if "chose" in e:
                lines.append(f"  chose: {e['chose']}")
            if e.get("effect"):
                lines.append(f"  -> {e['effect']}")
        elif kind == "end":
            if not e.get("finished", True):
                n = e["decisions"]
                lines.append(f"(the trace stops here, after {n} decision{'s' if n != 1 else ''}; the game goes on)")
                lines.append(f"  {e.get('score_name') or 'scores'} so far: "
                             f"{', '.join(_fmt_score(x) for x in e['scores'])}")
                continue
            lines.append("game end" + (" (stopped by the turn limit: a timeout)" if e["timeout"] else ""))
            for ln in e.get("lines") or []:
                lines.append(f"  {ln}")
            # a game names its score (Senshi: each player's smallest pile); a solo game has no win shares
            win = f"; win: {', '.join(_fmt_score(x) for x in e['win'])}" if e.get("win") else ""
            lines.append(f"  {e.get('score_name') or 'scores'}: {', '.join(_fmt_score(x) for x in e['scores'])}"
                         f"{win}; turns: {e['turns']}")
        else:
            title = e.get("title") or kind
            lines.append(f"{title}")
            for ln in e.get("lines") or []:
                lines.append(f"  {ln}")
            if e.get("effect"):
                lines.append(f"  {e['effect']}")
        for who, text in sorted((e.get("private") or {}).items(), key=lambda kv: int(kv[0])):
            lines.append(f"  [seat {who} alone sees] {text}")
        if e.get("hidden"):
            lines.append(f"  [hidden] {e['hidden']}")
    return "\n".join(lines) + "\n" if lines else ""


def _show(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
