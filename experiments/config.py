"""Experiment configs: one TOML file asks one question; this module reads, checks and expands it.

A config is data only (nothing in it is executed). :func:`load` reads a file (or takes a dict), checks
every key, type, strategy, parameter, rule option and player count before anything runs, and expands
the sweeps into :class:`Cell` objects: one cell is one lineup under one set of rules and one player
count. Every mistake raises :class:`~simcore.errors.SenseiError` naming the file, the key and what was
expected. The schema is documented in ``docs/experiments.md``.
"""
from __future__ import annotations

import contextvars
import dataclasses
import itertools
import math
import os
import re
import tomllib
import unicodedata
from typing import Any

from simcore.errors import SenseiError
from simcore.files import not_a_file, read_limited
from simcore.options import NATIVE, check_native, field_value, shown
from simcore.registry import get_game
from simcore.runner import MAX_CHUNK, MAX_GAMES
from strategies.registry import lookup, make_strategy, resolve

TOP_KEYS = {"title", "question", "game", "players", "games", "seed", "chunk_size", "rules", "lineup", "sweep",
            "sprt", "report", "run"}
LINEUP_KEYS = {"focus", "field", "seats", "tournament", "population", "rotate"}
SPRT_KEYS = {"h0", "h1", "alpha", "beta", "max_games"}
#: [run]: where the games are played (never changes the results; `sensei run --backend/--scheduler` win)
RUN_KEYS = {"backend", "scheduler"}
BACKENDS = ("loky", "threading", "multiprocessing", "dask")
#: specs that name a Python file (FILE.py:Class, ./x, dir/x): configs never load code
_FILE_SPEC = re.compile(r"(\.py$|^[.~]|[/\\])", re.IGNORECASE)
#: [report] keys every answer kind reads; each kind adds its own (experiments/answers/<kind>.py)
COMMON_REPORT_KEYS = {"answer", "over", "metric", "goal", "baseline", "per_game", "notes"}


def _kinds():
    """The registry of answer kinds (imported when first needed: the kinds' modules import this one)."""
    from .answers import REGISTRY
    return REGISTRY


def answer_tables() -> set[str]:
    """Top-level tables that belong to answer kinds (e.g. [search])."""
    return {name for kind in _kinds().values() for name in kind.tables}


def report_keys() -> set[str]:
    """Every key a [report] table may hold: the common ones and those of every answer kind."""
    return COMMON_REPORT_KEYS | {k for kind in _kinds().values() for k in kind.keys}


def answers() -> tuple[str, ...]:
    """The answer kinds' names, in registry order."""
    return tuple(_kinds())


def __getattr__(name: str):
    # derived from the registry of answer kinds: the kinds' names, and which read one row per game, compare
    # with report.baseline, or read the [report] keys
    if name == "ANSWERS":
        return answers()
    if name == "PER_GAME_ANSWERS":
        return tuple(n for n, k in _kinds().items() if k.per_game)
    if name == "BASELINE_ANSWERS":
        return tuple(n for n, k in _kinds().items() if k.baseline)
    if name == "REPORT_KEYS":
        return report_keys()
    raise AttributeError(name)


#: cell figures an answer may be about: name -> (label, better direction for "best" by default)
METRICS = {
    "win_share": ("win share", "max"),
    "mean_score": ("mean score", None),
    "mean_turns": ("mean turns per game", "min"),
}
_SEAT_KEY = re.compile(r"^seat(\d+)$")
#: the columns of the tables a run writes beside its sweep axes (experiments/analysis.py: cells, seats,
#: turns, scores, sprt, ratings; the answer kinds' paired, estimates, race, confirm, path, equilibrium, regrets,
#: metagame):
#: a named sweep axis is a column of these tables too, so it may not take one of their names (nor a
#: setting key's: players, rules, a role, seatN, strategy, or a name with a dot, the form of
#: rules.OPTION, ROLE.PARAM and the metric.NAME, mean.NAME columns). tests/test_config_mistakes.py checks
#: that the tables of a run hold no other column.
RESULT_COLUMNS = frozenset("""
    a against b band_hi band_lo best best_response case cell ci_high ci_low completion count deals decision
    diff diff_hi diff_lo diff_vs_best distance dropped_in_round elo elo_hi elo_lo fair_share field
    field_win_share figure first_deal fixed focus focus_games focus_mean_score focus_score_hi focus_score_lo
    focus_score_median focus_win_hi focus_win_lo focus_win_share fresh_regret fresh_regret_hi fresh_regret_lo
    games group h0 h1 hi in_support interval kind lineup llr lo
    lower mean_score mean_turns metric objective_diff_hi objective_diff_lo objective_diff_vs_best over
    p_value path players probability race_value reference regret regret_hi regret_lo rho rival rival_diff
    rival_hi rival_lo rival_p_value rival_value rival_value_hi rival_value_lo role rotation rotations rules
    scope score score_hi score_lo seat seat0_win_hi seat0_win_lo seat0_win_share seat_advantage
    seat_advantage_hi seat_advantage_lo seat_balance_p seat_spread seconds setting solution sprt start starts step strategy survived tied
    timeouts trial trial_value turns turns_hi turns_lo upper value versus who width win win_hi win_lo win_share
""".split())
class _Absent:
    """What :meth:`Checker.fail` is given for a key that is not in the config at all."""

    def __repr__(self) -> str:
        return "ABSENT"


#: a required key that the config leaves out (``ck.fail(key, expected, ABSENT)``)
ABSENT = _Absent()
#: the most cells a grid may have: each cell is checked and held in memory with its figures (some 50-110 KB a
#: cell through a run, measured: 10,000 cells of one deal each peaked at 1.1 GB), and no report reads more
MAX_CELLS = 10_000


@dataclasses.dataclass(frozen=True)
class SprtSpec:
    """Sequential test on the focus seat's per-deal win share minus the average seat's (1/P of the games that
    have a winner)."""
    h0: float
    h1: float
    alpha: float
    beta: float
    max_games: int


@dataclasses.dataclass(frozen=True)
class ReportSpec:
    answer: str
    over: str | None
    metric: str
    goal: str
    baseline: Any
    per_game: bool
    notes: str
    #: calibration: the mean score band good play should reach, and the band of the top level's share
    score_band: tuple[float, float] | None = None
    top_share: tuple[float, float] | None = None
    #: balance: the game's ratio metrics to report with intervals (names; ``prefix_*`` for a family)
    metrics: tuple[str, ...] = ()
    #: risk, turn_order: a per-seat 0/1 outcome column (e.g. Senshi's ``eliminated``)
    event: str | None = None
    #: best_response, equilibrium, design: the parsed [search] table and the answer's options
    search: Any = None


@dataclasses.dataclass
class Cell:
    """One point of the grid: player count, rules, and the lineup (strategies in base seat order)."""
    index: int
    players: int
    rules: Any
    agents: list[Any]
    #: role of each base seat: "focus", "field", "seat"
    roles: list[str]
    #: the sweep axis values of this cell (axis name -> value as written in the config)
    axes: dict[str, Any]
    #: the tournament pair (a, b) for tournament cells
    pair: tuple[str, str] | None = None

    def rotations(self, rotate: bool) -> list[tuple[int, tuple[int, ...]]]:
        """The rotations to play: ``(offset, focus_seats)`` for each distinct rotation of the lineup.

        Rotation ``r`` seats base seat 0 (the focus) in seat ``r``. Rotations that give the same lineup
        (self-play, repeated strategies) replay the very same games, so each is played once and the
        focus is read from every seat it would have held: ``focus_seats``. Summed over the result, every
        seat counts once for the focus, so the focus's figures are balanced over seats.
        """
        if not rotate:
            return [(0, (0,))]
        specs = [a.spec() for a in self.agents]
        first: dict[tuple, int] = {}
        seats: dict[int, list[int]] = {}
        for r in range(self.players):
            key = tuple(specs[(s - r) % self.players] for s in range(self.players))
            r0 = first.setdefault(key, r)
            seats.setdefault(r0, []).append(r)
        return [(r, tuple(v)) for r, v in seats.items()]


@dataclasses.dataclass
class Config:
    path: str
    raw: dict[str, Any]
    title: str
    question: str
    game: str
    games: int
    seed: int
    chunk_size: int | None
    rotate: bool
    kind: str            # "focus", "seats" or "tournament"
    axes: list[str]      # sweep axis names, in order
    cells: list[Cell]
    sprt: SprtSpec | None
    report: ReportSpec
    strategies: list[str] = dataclasses.field(default_factory=list)  # tournament entrants
    backend: str | None = None     # [run] backend: loky, threading, multiprocessing or dask
    scheduler: str | None = None   # [run] scheduler: a dask scheduler address (implies dask)

    @property
    def group_axes(self) -> list[str]:
        """Axes that split the answer into groups: every axis but the one the answer is about."""
        return [a for a in self.axes if a != self.report.over]


class _Checker:
    """Error messages that name the file and the key."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, key: str, expected: str, got: Any = dataclasses.MISSING) -> None:
        """Refuse ``key``: ``expected`` says what it should be, ``got`` what it is (:data:`ABSENT`: the key is
        not in the config, said as missing rather than as a value the user wrote)."""
        where = f"{self.path}: {key}" if key else self.path
        if got is ABSENT:
            inner = expected[len("this key ("):-1] if expected.startswith("this key (") else None
            why = ("a required key" if inner == "required" else inner if inner and inner.startswith("required")
                   else f"expected {inner}" if inner else None)
            raise SenseiError(f"{where}: missing ({why})" if why else f"{where}: missing; expected {expected}")
        tail = "" if got is dataclasses.MISSING else f", got {_show(got)}"
        raise SenseiError(f"{where}: expected {expected}{tail}")

    def keys(self, table: dict, allowed: set, where: str) -> None:
        for k in table:
            if k not in allowed:
                at = f"{self.path}: {where}{k}"
                raise SenseiError(f"{at}: unknown key (expected one of the keys {', '.join(sorted(allowed))})")

    def table(self, value: Any, key: str) -> dict:
        if not isinstance(value, dict):
            self.fail(key, "a table", value)
        for k in value:  # (a config given as a dict to the Python API: TOML's keys are always text)
            if not isinstance(k, str):
                self.fail(key, "a table whose keys are text", f"the key {k!r}")
        return value

    def text(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(key, "non-empty text", value)
        if any(unicodedata.category(c) == "Cc" and c not in "\n\t" for c in value):  # a NUL, an escape, ...
            self.fail(key, "text without control characters (other than a newline or a tab)", value)
        return value.strip()

    def integer(self, value: Any, key: str, low: int = 1, high: int | None = None) -> int:
        expected = f"an integer >= {low}" if high is None else f"an integer from {low} to {high:,}"
        if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
            self.fail(key, expected, value)
        return value

    def number(self, value: Any, key: str, low: float | None = None, high: float | None = None) -> float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            self.fail(key, "a number", value)
        if (low is not None and value <= low) or (high is not None and value >= high):
            if high is None:
                self.fail(key, f"a number greater than {low:g}", value)
            if low is None:
                self.fail(key, f"a number less than {high:g}", value)
            self.fail(key, f"a number in ({low:g}, {high:g})", value)
        return float(value)


def _toml_value(v: Any) -> str:
    """A value as a config writes it: true/false, a quoted string, a number."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return f'"{v}"' if isinstance(v, str) else str(v)


def _show(v: Any) -> str:
    return shown(v)


class _Said(str):
    """A figure the refusal works out (a grid's size), not a value the user wrote: shown without quotes."""

    def __repr__(self) -> str:
        return str(self)


#: the largest config file read: a grid holds at most MAX_CELLS cells, which a few hundred kilobytes write
#: (parsing the TOML takes some 50 times the file's size in memory: a 7 MB list of a million values took
#: 356 MB before it was refused)
CONFIG_LIMIT = 4 * 2 ** 20


def read_toml(path: str) -> dict[str, Any]:
    why = not_a_file(path)
    if why is not None:
        raise SenseiError(f"{path}: config file not found" if why == "not found" else
                          f"{path}: {why}" + (", not a config file" if why == "is a folder" else ""))
    try:
        data = read_limited(path, CONFIG_LIMIT)
    except OSError as exc:
        raise SenseiError(f"{path}: cannot be read: {exc}") from None
    except ValueError as exc:  # a pipe, or a file far larger than any config
        raise SenseiError(f"{path}: {exc}") from None
    try:
        # a byte-order mark (some editors write one) is no part of the TOML
        return tomllib.loads(data.removeprefix(b"\xef\xbb\xbf").decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise SenseiError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:
        raise SenseiError(f"{path}: config nested too deeply (more than {MAX_DEPTH} levels of arrays and "
                          "tables)") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SenseiError(f"{path}: cannot be read: {exc}") from None


#: the path of a config given as a dict
DICT_CONFIG = "<config>"

#: how a refusal calls the games given over the config's own: the Python argument, or the command line's flag
#: (``sensei run`` sets it to ``--games`` while it loads its config)
GAMES_OVERRIDE = contextvars.ContextVar("sensei_games_override", default="the games argument")


def load(source: str | os.PathLike | dict[str, Any], games: int | None = None) -> Config:
    """Read and check a config (a TOML path or an already parsed dict); ``games`` overrides its games."""
    if isinstance(source, dict):
        path, raw = DICT_CONFIG, source
    elif not isinstance(source, (str, os.PathLike)):
        raise SenseiError(f"a config is a TOML file's path or a dict, got {type(source).__name__}")
    else:
        path = os.fspath(source)
        raw = read_toml(path)
    return parse(raw, path, games)


#: the deepest nesting of arrays and tables a config may have (a valid one needs four or five levels)
MAX_DEPTH = 32


def _check_values(raw: dict[str, Any], ck: "_Checker") -> None:
    """Every value of the config, however deep: no NaN or infinity (TOML allows ``nan`` and ``inf``; no
    setting means either), and no nesting deeper than :data:`MAX_DEPTH`. Iterative, so that a deeply
    nested config is refused rather than overflowing the stack."""
    stack: list[tuple[str, Any, int]] = [("", raw, 0)]
    while stack:
        where, value, depth = stack.pop()
        if depth > MAX_DEPTH:
            top = re.split(r"[.\[]", where, maxsplit=1)[0]
            raise SenseiError(f"{ck.path}: {top}: config nested too deeply (more than {MAX_DEPTH} levels of "
                              "arrays and tables)")
        if isinstance(value, float) and not math.isfinite(value):
            ck.fail(where, "a finite number", value)
        if isinstance(value, dict):
            for k, v in value.items():
                key = str(k) if _BARE_KEY.match(str(k)) else '"' + str(k) + '"'
                stack.append((f"{where}.{key}" if where else key, v, depth + 1))
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                stack.append((f"{where}[{i}]", v, depth + 1))


_BARE_KEY = re.compile(r"^[A-Za-z0-9_.-]+$")


def _rule_at_the_top(raw: dict[str, Any], allowed: set, path: str) -> None:
    """A rule option of the config's game written at the top (``penalty = 15``) is refused with where it
    goes: under ``[rules]`` (fixed) or in ``[sweep]`` (an axis)."""
    try:
        eng = get_game(raw.get("game")) if isinstance(raw.get("game"), str) else None
    except SenseiError:
        return
    if eng is None:
        return
    options = {f.name for f in dataclasses.fields(eng.Rules)}
    for k in raw:
        if k not in allowed and k in options:
            raise SenseiError(f"{path}: {k}: unknown key at the top; {k} is a rule option of {eng.name}: it goes "
                              f"under [rules] ({k} = ... there), or in [sweep] as \"rules.{k}\" = [...] to try "
                              "several values")


#: deals per cell of a config that does not say (its ``games``)
DEFAULT_GAMES = 1000

def parse(raw: dict[str, Any], path: str = DICT_CONFIG, games_override: int | None = None) -> Config:
    ck = _Checker(path)
    ck.table(raw, "")
    _check_values(raw, ck)
    _rule_at_the_top(raw, TOP_KEYS | answer_tables(), path)
    ck.keys(raw, TOP_KEYS | answer_tables(), "")
    for key in ("title", "question", "game"):
        if key not in raw:
            ck.fail(key, "this key (required)", ABSENT)
    title = ck.text(raw["title"], "title")
    question = ck.text(raw["question"], "question")
    game_name = ck.text(raw["game"], "game")
    try:
        eng = get_game(game_name)
    except SenseiError as exc:
        raise SenseiError(f"{path}: game: {exc}") from None
    games = ck.integer(raw.get("games", DEFAULT_GAMES), "games", 1, MAX_GAMES)
    if games_override is not None:
        games = ck.integer(games_override, GAMES_OVERRIDE.get(), 1, MAX_GAMES)
    seed = ck.integer(raw.get("seed", 0), "seed", 0)
    chunk_size = raw.get("chunk_size")
    if chunk_size is not None:
        chunk_size = ck.integer(chunk_size, "chunk_size", 1, MAX_CHUNK)

    # fixed rule options, checked by the game's own option parser
    fixed_rules = ck.table(raw.get("rules", {}), "rules")
    _rules(eng, fixed_rules, ck, "rules")

    # players: an integer, or a list (a sweep axis)
    players_raw = raw.get("players", eng.default_players)
    sweep = ck.table(raw.get("sweep", {}), "sweep")
    axes: list[tuple[str, list[tuple[Any, dict[str, Any]]]]] = []
    if isinstance(players_raw, list):
        if "players" in sweep:
            ck.fail("players", "players either at the top or in [sweep], not both")
        axes.append(("players", [(v, {"players": v}) for v in _grid_values(players_raw, "players", ck)]))
        base_players = None
    else:
        base_players = ck.integer(players_raw, "players")

    def axis_key(axis: str) -> str:
        """Where the config sets sweep axis ``axis``: a list of players at the top is the players axis."""
        return "players" if axis == "players" and isinstance(players_raw, list) else f"sweep.{axis}"

    # (required, but checked after the game and the values above: a missing lineup hid a mistyped game name)
    if "lineup" not in raw:
        ck.fail("lineup", "this key (required)", ABSENT)
    lineup = ck.table(raw["lineup"], "lineup")
    ck.keys(lineup, LINEUP_KEYS, "lineup.")
    swept_focus = sweep.get("focus")
    if "focus" not in lineup and "field" in lineup and isinstance(swept_focus, list) and swept_focus:
        # a sweep of the whole focus spec sets the focus of every cell: the lineup needs none of its own
        lineup = {**lineup, "focus": swept_focus[0]}
    kinds = [k for k in ("focus", "seats", "tournament", "population") if k in lineup]
    if len(kinds) != 1:
        ck.fail("lineup", "exactly one of focus (with field), seats, tournament or population", sorted(lineup))
    kind = "focus" if kinds[0] == "focus" else kinds[0]
    rotate = lineup.get("rotate", True)
    if not isinstance(rotate, bool):
        ck.fail("lineup.rotate", "true or false", rotate)
    roles: dict[str, Any] = {}
    entrants: list[str] = []
    if kind == "focus":
        roles["focus"] = ck.text(lineup["focus"], "lineup.focus")
        if "field" not in lineup:
            ck.fail("lineup.field", "a strategy spec for the other seats (required with focus)", ABSENT)
        roles["field"] = ck.text(lineup["field"], "lineup.field")
    elif kind == "seats":
        if "field" in lineup:
            ck.fail("lineup.field", "field only together with focus", lineup["field"])
        seats = lineup["seats"]
        if isinstance(seats, str):
            seats = [seats]
        if not isinstance(seats, list) or not seats:
            ck.fail("lineup.seats", "a non-empty list of strategy specs, one per seat (or one for all)", seats)
        for i, s in enumerate(seats):
            roles[f"seat{i}"] = ck.text(s, f"lineup.seats[{i}]")
    else:
        if "field" in lineup:
            ck.fail("lineup.field", "field only together with focus", lineup["field"])
        entrants = lineup[kind]
        if not isinstance(entrants, list) or len(entrants) < 2:
            ck.fail(f"lineup.{kind}", "a list of at least two strategy specs", entrants)
        entrants = [ck.text(s, f"lineup.{kind}[{i}]") for i, s in enumerate(entrants)]
        if len(set(entrants)) != len(entrants):
            ck.fail(f"lineup.{kind}", "distinct strategy specs", entrants)
        canon = [_strategy(eng, s, {}, ck, f"lineup.{kind}[{i}]").spec() for i, s in enumerate(entrants)]
        _distinct(f"lineup.{kind}", entrants, canon, ck, "strategy specs")
        if not rotate:
            ck.fail("lineup.rotate", f"true for a {kind} (seats are always rotated)", rotate)

    for role, spec in roles.items():
        _strategy(eng, spec, {}, ck, "lineup.seats" if role.startswith("seat") else f"lineup.{role}")

    # sweeps: lists are grid axes, tables are named cases; a grid too large to hold is refused from the
    # lengths alone, before its values are read (a million wakes took 36 s and 850 MB to be refused), and
    # again below, once its axes are read
    _grid_size(kind, entrants, [len(v) for _, v in axes]  # (the players at the top, read already)
               + [len(v) if isinstance(v, (list, dict)) else 1 for v in sweep.values()], ck)
    for key, value in sweep.items():
        where = f"sweep.{key}"
        if isinstance(value, dict):
            if not value:
                ck.fail(where, "at least one named case", value)
            _axis_name(key, where, ck)
            cases = []
            for name, settings in value.items():
                if not isinstance(name, str):  # (a config given as a dict to the Python API)
                    ck.fail(where, "case names that are text", name)
                if not name.strip():
                    ck.fail(where, "non-empty case names (a name labels its case in the answer)", name)
                if name != name.strip():  # "a" and "a " read alike in the answer's sentences
                    ck.fail(where, "case names without spaces at either end (a name labels its case in the "
                            "answer, where spaces cannot be seen)", name)
                if not name.isprintable():
                    ck.fail(where, "case names without control characters such as a newline or a tab (a name "
                            "labels its case in the answer's sentences and the report's figures)", name)
                if len(name) > NAME_MAX:
                    ck.fail(where, f"case names of at most {NAME_MAX} characters (a name labels its case in the "
                            f"report's figures), not one of {len(name):,}", name[:40] + "...")
                ck.table(settings, f"{where}.{name}")
                for sk in settings:
                    if isinstance(settings[sk], (list, dict)):
                        ck.fail(f"{where}.{name}.{sk}", "a single value", settings[sk])
                    _check_setting_key(sk, f"{where}.{name}.{sk}", kind, roles, ck)
                cases.append((name, dict(settings)))
            axes.append((key, cases))
        else:
            _check_setting_key(key, where, kind, roles, ck)
            axes.append((key, [(v, {key: v}) for v in _grid_values(value, where, ck)]))
    names = [a for a, _ in axes]
    if len(set(names)) != len(names):
        ck.fail("sweep", "each axis once", names)
    # a key set by two axes (a swept value and a named case) would make one of them silently void
    def values_of(cases, k):
        """What an axis sets ``k`` to, in the order written (the error's "got")."""
        out = []
        for _, settings in cases:
            if k in settings and settings[k] not in out:
                out.append(settings[k])
        return out[0] if len(out) == 1 else out

    setters: dict[str, str] = {}
    for axis, cases in axes:
        for k in sorted({k for _, settings in cases for k in settings}):
            if k in setters:
                ck.fail(axis_key(axis), f"no setting of {k!r}, which {axis_key(setters[k])}"
                        f"{' (at the top)' if axis_key(setters[k]) == 'players' else ''} sets already "
                        "(the two would contradict each other)", values_of(cases, k))
            setters[k] = axis
    # ... and so would a key set at the top (players, [rules]) and by every value of a sweep axis (the top
    # value would be used nowhere; named cases that set it in some cases only override a default)
    fixed = {f"rules.{k}": f"[rules] {k} = {_show(v)}" for k, v in fixed_rules.items()}
    if base_players is not None and "players" in raw:
        fixed["players"] = f"players = {_show(raw['players'])} (at the top)"
    for axis, cases in axes:
        for k in sorted(set.intersection(*[set(settings) for _, settings in cases]) & set(fixed)):
            ck.fail(axis_key(axis), f"no setting of {k!r}, which {fixed[k]} sets already "
                    "(the two would contradict each other)", values_of(cases, k))

    # ... and so would a parameter that a spec of the lineup sets itself and every value of an axis sets again
    def lineup_at(r: str) -> str:
        if not r.startswith("seat"):
            return f"lineup.{r}"
        return "lineup.seats" if len(roles) == 1 else f"lineup.seats[{r[4:]}]"

    lineup_specs = {**{r: (v, lineup_at(r)) for r, v in roles.items()},
                    **{f"{kind}[{i}]": (v, f"lineup.{kind}[{i}]") for i, v in enumerate(entrants)}}
    for axis, cases in axes:
        for k in sorted(set.intersection(*[set(settings) for _, settings in cases])):
            head, _, p = k.partition(".")
            if not p or head == "rules":
                continue
            for r, (spec, at) in lineup_specs.items():
                if (head == "strategy" or head == r) and p in _spec_params(spec):
                    ck.fail(axis_key(axis), f"no setting of {k}, which {at} ({spec!r}) sets already (a setting "
                            "comes from one place)", k)
    _, _, _, head_over = _report_head(raw.get("report", {}), ck, kind, names, raw.get("sprt") is not None)
    # an answer about ROLE.P with the whole spec of ROLE swept too: the groups are the ROLE's specs, which
    # hold the swept parameter, so every group would be one cell that compares nothing
    role_of_over, _, param_of_over = (head_over or "").partition(".")
    if param_of_over and role_of_over in roles and role_of_over in names:
        ck.fail(axis_key(role_of_over), f"no sweep of the whole {role_of_over} spec with report.over = {head_over!r} "
                f"(the answer's groups are the {role_of_over}'s specs, which hold {param_of_over}, so each group would "
                f"be one cell and compare nothing; give report.over = {role_of_over!r} to compare the specs)", names)

    _grid_size(kind, entrants, [len(vals) for _, vals in axes], ck)  # (its read axes, before it is made)

    # values that mean one setting (8 and 8.0 of a float parameter, "AB" and "BA") would make duplicate cells
    for axis, cases in axes:
        if axis in sweep and not isinstance(sweep[axis], dict):
            values = [v for v, _ in cases]
            _distinct(f"sweep.{axis}", values, [_meaning(eng, axis, v, roles, entrants, ck, f"sweep.{axis}")
                                               for v in values], ck)
        elif axis in sweep and len(cases) > 1:  # named cases: two with the same settings are one case twice
            _distinct(f"sweep.{axis}", [name for name, _ in cases],
                      [tuple(sorted((k, _meaning(eng, k, v, roles, entrants, ck, f"sweep.{axis}.{name}.{k}"))
                                    for k, v in settings.items())) for name, settings in cases], ck, "cases")

    # expand the grid into cells, checking each one completely before anything runs
    cells: list[Cell] = []
    # a searching answer (best_response) over a tournament draws the tournament's tables itself: one cell
    # per group holds the entrants, as a population's does
    rep = raw.get("report")
    answer = rep.get("answer") if isinstance(rep, dict) else None
    grouped = kind == "tournament" and isinstance(answer, str) and getattr(_kinds().get(answer), "search", None) is not None
    combos = itertools.product(*[vals for _, vals in axes]) if axes else [()]
    for combo in combos:
        settings: dict[str, tuple[Any, str]] = {}
        axis_values: dict[str, Any] = {}
        for (axis, _), (label, sets) in zip(axes, combo):
            axis_values[axis] = label
            for k, v in sets.items():
                settings[k] = (v, axis_key(axis) + ("" if k == axis else f".{label}.{k}"))
        cells.extend(_make_cells(eng, kind, roles, entrants, fixed_rules, base_players, settings, axis_values,
                                 ck, len(cells), grouped, "players" in raw))
    if not cells:
        ck.fail("sweep", "at least one cell", "none")
    _different_games(cells, ck, rotate)
    sprt = _sprt(raw.get("sprt"), ck, kind)
    if sprt is not None and cells:
        # the advantage over the fair share lies within [-1/P, 1 - 1/P]: a hypothesis outside it cannot hold
        # (h1 = 0.6 with 2 players, a win share of 110%, was tested and read "not better")
        small, large = min(c.players for c in cells), max(c.players for c in cells)
        if sprt.h1 > 1 - 1 / small:
            ck.fail("sprt.h1", f"at most {1 - 1 / small:g} with {small} players (the focus's win share less the fair "
                    f"share 1/{small} cannot exceed it)", sprt.h1)
        if sprt.h0 < -1 / large:
            ck.fail("sprt.h0", f"at least {-1 / large:g} with {large} players (the focus's win share less the fair "
                    f"share 1/{large} cannot fall below it)", sprt.h0)
    if sprt is not None and rotate:
        for c in cells:
            if len({a.spec() for a in c.agents}) == 1:
                at = ", ".join(f"{k} = {_toml_value(v)}" for k, v in c.axes.items())
                ck.fail("sprt", "a focus that differs from the field ("
                        + (f"in the cell {at}, " if c.axes else "")
                        + f"the focus is the field, {c.agents[0].spec()}: with the seats rotated its share is the fair "
                        "share by symmetry, so the test could never decide)", "self-play")
    report = _report(raw.get("report", {}), ck, kind, names, sprt, axes, eng, cells, raw)
    report = _report_extra(raw.get("report", {}), ck, kind, report, eng, cells, sprt, raw)
    if report.answer in ("effect", "calibration") and games < 2:
        # its intervals and paired differences are over deals: with one, every one would read "± nan"
        ck.fail(GAMES_OVERRIDE.get() if games_override is not None else "games", f"at least 2 deals per cell for answer = "
                f"{report.answer!r} (its intervals and paired differences are over deals)", games)
    rep_over = report.over
    if _kinds()[report.answer].baseline and rep_over is not None and report.baseline is not None:
        labels = [lab for a, vals in axes if a == rep_over for lab, _ in vals]
        if report.baseline not in labels and rep_over in sweep and not isinstance(sweep[rep_over], dict):
            # the same setting written otherwise ("0, 6" for 0,6; 8.0 for 8 of a float parameter) is that value
            want = _meaning(eng, rep_over, report.baseline, roles, entrants, ck, "report.baseline")
            same = [lab for lab in labels if _meaning(eng, rep_over, lab, roles, entrants, ck, "report.baseline") == want]
            if len(same) == 1 and not (isinstance(want, tuple) and want[:1] == ("as written",)):
                report = dataclasses.replace(report, baseline=same[0])
        if report.baseline not in labels:
            ck.fail("report.baseline", f"one of the values of {rep_over}: {', '.join(map(_toml_value, labels))}",
                    report.baseline)
    return Config(path=path, raw=raw, title=title, question=question, game=eng.name, games=games, seed=seed,
                  chunk_size=chunk_size, rotate=rotate, kind=kind, axes=names, cells=cells, sprt=sprt,
                  report=report, strategies=entrants, **_run_table(raw.get("run"), ck))


def _grid_size(kind: str, entrants: list, lengths: list[int], ck: _Checker) -> None:
    """Refuse a grid of more than :data:`MAX_CELLS` cells: the product of the sweep axes' ``lengths`` (and,
    for a tournament, an upper bound of its match-ups)."""
    size = len(entrants) * (len(entrants) - 1) if kind == "tournament" else 1  # (2 players pair each once)
    for n in lengths:
        size *= n
    if size > MAX_CELLS:
        ck.fail("sweep", f"a grid of at most {MAX_CELLS:,} cells (the product of the sweep axes' lengths"
                + (" and the tournament's match-ups" if kind == "tournament" else "") + ")", _Said(f"{size:,} cells"))


def rules_alike(a_rules: Any, b_rules: Any, players: int) -> list[str]:
    """Why two rule settings that play the same games with ``players`` players are alike: per option that
    differs, the option's own reason (``target has no effect with rounds set``) or that its two values are
    one setting there."""
    a, b, inert = a_rules.as_dict(), b_rules.as_dict(), b_rules.inert(players)

    def where(k: str) -> str:
        # (Sensu's sticks "A" and "4,4,4,3,3,3,2,2,1" are one table with any player count; its power copies "AB"
        # and "A" are one deck with 2-3 players only)
        if all(dict(a_rules.played(p)).get(k) == dict(b_rules.played(p)).get(k) for p in range(1, 9)):
            return ""
        return f" with {players} player{'' if players == 1 else 's'}"

    return [inert[k] if k in inert else f"{k} {_toml_value(a[k])} and {_toml_value(b[k])} are the same setting"
            f"{where(k)}" for k in a if a[k] != b[k]]


def _different_games(cells: list[Cell], ck: _Checker, rotate: bool = False) -> None:
    """Two cells of the grid that play the same games (the same players and strategies, rules that differ
    only in options that change nothing there, such as Sen's target with rounds set, or Sensu's power
    copies without the powers variant, or a named case that sets a default; strategies that differ only in
    parameters that change nothing there; a rotated seats lineup and its cyclic shift) would compare a
    setting with itself: refused, naming both."""
    seen: dict[tuple, Cell] = {}
    for c in cells:
        agents = tuple(a.played(c.players, c.rules) for a in c.agents)
        if rotate and set(c.roles) == {"seat"}:  # rotated, a seats lineup and its cyclic shifts play the same games
            agents = min(agents[k:] + agents[:k] for k in range(len(agents)))
        key = (c.players, c.rules.played(c.players), agents, c.pair)
        other = seen.setdefault(key, c)
        if other is c:
            continue
        why = rules_alike(other.rules, c.rules, c.players)
        if [x.spec() for x in other.agents] != [y.spec() for y in c.agents] and \
                sorted(x.spec() for x in other.agents) == sorted(y.spec() for y in c.agents) and rotate:
            why.append("rotated, a seats lineup and its cyclic shifts play the same games")
        for x, y in zip(other.agents, c.agents):  # parameters that change nothing there (Sensu's play_min in solo)
            if x.name != y.name and x.played(c.players, c.rules) == y.played(c.players, c.rules):
                why.append(f"{x.name} and {y.name} play alike with {c.players} player{'' if c.players == 1 else 's'}")
            px, py, skip = x.params(), y.params(), y.inert(c.players, c.rules)
            why += [skip[k] for k in py if k in skip and px.get(k) != py[k] and skip[k] not in why]
        at = [", ".join(f"{k} = {_toml_value(v)}" for k, v in x.axes.items()) for x in (other, c)]
        raise SenseiError(f"{ck.path}: sweep: the cells " + " and ".join(at) + " play the same games"
                          + (f" ({'; '.join(why)})" if why else "") + ": give each cell a setting of its own")


#: the longest name of a named sweep axis or case: names label the figures, whose canvas grows with them
NAME_MAX = 80


def _axis_name(name: str, where: str, ck: _Checker) -> None:
    """A named sweep axis's name: it becomes a column of the run's tables beside theirs."""
    if not name.strip():
        ck.fail("sweep", "non-empty axis names (a name names a column of the run's tables)", name)
    if len(name) > NAME_MAX:
        ck.fail("sweep", f"axis names of at most {NAME_MAX} characters (a name labels the report's figures), not "
                f"one of {len(name):,}", name[:40] + "...")
    if "." in name:
        why = "a name with a dot has the form of a setting key, rules.OPTION or ROLE.PARAM"
    elif name in RESULT_COLUMNS or _SEAT_KEY.match(name):
        why = "it is a column of the run's tables"
    elif name.endswith(("_share", "_lo", "_hi")):
        why = "the run's share and interval columns end in _share, _lo and _hi"
    else:
        return
    raise SenseiError(f"{ck.path}: {where}: the axis name {name!r} is reserved ({why}); name the axis otherwise, "
                      "e.g. variant")


def _grid_values(value: Any, where: str, ck: _Checker) -> list[Any]:
    if not isinstance(value, list):
        ck.fail(where, "a list of values (a sweep axis) or a table of named cases", value)
    if not value:
        ck.fail(where, "a non-empty list (an empty sweep has no cells)", value)
    for i, v in enumerate(value):
        if isinstance(v, (list, dict)):
            ck.fail(f"{where}[{i}]", "a single value", v)
    if len({repr(v) for v in value}) != len(value):
        ck.fail(where, "distinct values", value)
    return list(value)


def _distinct(where: str, values: list[Any], meanings: list[Any], ck: _Checker, what: str = "values") -> None:
    """Values that mean the same setting once parsed (8 and 8.0 of a float parameter, "AB" and "BA" of a set of
    cards, "threshold" and "threshold:wake=10") would make two cells of one setting: refused."""
    seen: dict[Any, Any] = {}
    for v, m in zip(values, meanings):
        if m in seen:
            ck.fail(where, f"distinct {what} ({_toml_value(seen[m])} and {_toml_value(v)} are the same setting)",
                    values)
        seen[m] = v


def _param_class(eng, spec: str):
    try:
        return type(resolve(eng.name, spec))
    except SenseiError:
        return None


def _meaning(eng, key: str, value: Any, roles: dict[str, Any], entrants: list[str], ck: _Checker, where: str) -> Any:
    """What a sweep value means, to compare values: a rule option's value parsed by the game's rules, a
    parameter's by its strategy, a whole spec's canonical spec. A value of the wrong TOML type is refused
    here; any other mistake is told when its cell is made (then the value stands for itself)."""
    head, _, tail = key.partition(".")
    raw = ("as written", repr(value))
    if key == "players":
        return raw
    if head == "rules" and tail:
        return field_meaning(eng.Rules, tail, value, eng.name, ck, where)
    if not tail:  # a whole spec (never a file's: a config loads no code; its cell says so)
        if not isinstance(value, str) or _FILE_SPEC.search(value.strip().partition(":")[0]):
            return raw
        try:
            return resolve(eng.name, value).spec()
        except SenseiError:
            return raw
    specs = list(roles.values()) + list(entrants) if head == "strategy" else [roles.get(head, "")]
    for spec in specs:
        cls = _param_class(eng, spec)
        if cls is not None and tail in {f.name for f in dataclasses.fields(cls)}:
            return field_meaning(cls, tail, value, f"strategy {cls.name}", ck, where)
    return raw


def field_meaning(cls: type, name: str, value: Any, owner: str, ck: _Checker, where: str) -> Any:
    """What ``value`` of field ``name`` of ``cls`` (a game's Rules, a strategy) means once parsed, to compare
    values. A value of the wrong TOML type is refused here (one line naming ``where``); any other mistake is
    told where the value is used, and the value then stands for itself."""
    try:
        check_native(cls, {name: value}, owner)
        return repr(field_value(cls, name, value, owner))
    except SenseiError as exc:
        if NATIVE in str(exc):
            raise SenseiError(f"{ck.path}: {where}: {exc}") from None
        return ("as written", repr(value))


def _spec_params(spec: Any) -> set[str]:
    """The parameters a spec string sets itself (``threshold:wake=8`` sets wake)."""
    if not isinstance(spec, str):
        return set()
    _, _, rest = spec.strip().partition(":")
    return {item.split("=", 1)[0].strip() for item in rest.split(",") if "=" in item}


def _check_setting_key(key: str, where: str, kind: str, roles: dict[str, Any], ck: _Checker) -> None:
    """A sweep key: players, rules.OPTION, ROLE (a whole spec), ROLE.PARAM, or strategy.PARAM (every seat)."""
    if key == "players":
        return
    head, _, tail = key.partition(".")
    if head == "rules" and tail:
        return
    if kind in ("tournament", "population"):
        if head == "strategy" and tail:
            return
        ck.fail(where, f"players, rules.OPTION or strategy.PARAM for a {kind}", key)
    if head == "strategy" and tail:
        return
    if head in roles and "." not in tail:
        return
    ck.fail(where, "players, rules.OPTION, strategy.PARAM, or one of "
            + ", ".join(f"{r}, {r}.PARAM" for r in roles), key)


def _rules(eng, values: dict[str, Any], ck: _Checker, where: str):
    for k, v in values.items():
        if isinstance(v, (list, dict)):
            ck.fail(f"{where}.{k}", "a single value (use [sweep] for several)", v)
    try:
        check_native(eng.Rules, values, eng.name)
        return eng.make_rules(values)
    except SenseiError as exc:
        raise SenseiError(f"{ck.path}: {where}: {exc}") from None


def _run_table(value: Any, ck: _Checker) -> dict[str, Any]:
    """The optional [run] table: backend and scheduler (a scheduler address implies the dask backend)."""
    if value is None:
        return {}
    t = ck.table(value, "run")
    ck.keys(t, RUN_KEYS, "run.")
    backend = t.get("backend")
    if backend is not None and backend not in BACKENDS:
        ck.fail("run.backend", "one of " + ", ".join(BACKENDS), backend)
    scheduler = t.get("scheduler")
    if scheduler is not None:
        scheduler = ck.text(scheduler, "run.scheduler")
        if backend not in (None, "dask"):
            ck.fail("run.backend", "dask (or nothing) with a scheduler address", backend)
        backend = "dask"
    return {"backend": backend, "scheduler": scheduler}


def _strategy(eng, spec: str, params: dict[str, Any], ck: _Checker, where: str, param_where: dict[str, str] | None = None):
    """The strategy ``spec`` with ``params`` set; a mistake names ``where`` (or the key that set the parameter
    it is about, from ``param_where``: ``sweep.focus.min_bonus``, not the role's last key)."""
    if isinstance(spec, str) and _FILE_SPEC.search(spec.strip().partition(":")[0]):
        ck.fail(where, "a registered strategy NAME[:k=v,...] (configs are data and never load a Python file; "
                "give the file on the command line, sensei run CONFIG --strategies FILE.py, and name its "
                "strategy here, or install it as a package registering the entry point sensei.strategies)", spec)
    try:
        s = resolve(eng.name, spec)
        if params:
            cls = type(s)
            if lookup(eng.name, s.name) is not cls:
                ck.fail(where, "a registered strategy to sweep parameters of", spec)
            check_native(cls, params, f"strategy {s.name}")
            s = make_strategy(cls, {**s.params(), **params}, s.name)
        return s
    except SenseiError as exc:
        if str(exc).startswith(ck.path):
            raise
        about = re.match(r"strategy [^ .:]+\.(\w+):", str(exc)) or re.match(r"unknown parameter '(\w+)'", str(exc))
        if about and param_where and about.group(1) in param_where:
            where = param_where[about.group(1)]
        raise SenseiError(f"{ck.path}: {where}: {exc}") from None


def _make_cells(eng, kind, roles, entrants, fixed_rules, base_players, settings, axis_values, ck, start,
                grouped=False, players_given=True):
    rules_vals = dict(fixed_rules)
    players = base_players
    players_where = "players"
    role_spec = dict(roles)
    role_params: dict[str, dict[str, Any]] = {r: {} for r in roles}
    all_params: dict[str, Any] = {}
    where_of: dict[str, str] = {}
    spec_where: dict[str, str] = {}
    param_where: dict[tuple[str, str], str] = {}
    for key, (value, where) in settings.items():
        head, _, tail = key.partition(".")
        if key == "players":
            players = ck.integer(value, where)
            players_where = where
        elif head == "rules":
            rules_vals[tail] = value
            where_of["rules"] = where
        elif head == "strategy":
            all_params[tail] = value
            where_of["strategy"] = where
        elif tail:
            role_params[head][tail] = value
            where_of[head] = where
            param_where[(head, tail)] = where
        else:
            if not isinstance(value, str):
                ck.fail(where, "a strategy spec", value)
            role_spec[head] = value
            where_of[head] = where
            spec_where[head] = where
    # a parameter comes from one place: a swept spec that sets it itself, ROLE.P and strategy.P (every seat)
    # may not set it twice in one cell (the one would silently override the other); a spec of the lineup
    # that sets it is a default for the named cases that set it in some cases only (checked in parse)
    for role in roles:
        own = _spec_params(role_spec[role]) if role in spec_where else set()
        for p in sorted(role_params[role]):
            if p in own:
                ck.fail(param_where[(role, p)], f"no setting of {role}.{p}, which {spec_where[role]} "
                        f"({role_spec[role]!r}) sets already (a setting comes from one place)", f"{role}.{p}")
            if p in all_params:
                ck.fail(where_of["strategy"], f"no setting of strategy.{p} (every seat), which "
                        f"{param_where[(role, p)]} sets already for the {role} (a setting comes from one place)",
                        f"strategy.{p}")
        for p in sorted(set(all_params) & own):
            ck.fail(where_of["strategy"], f"no setting of strategy.{p} (every seat), which {spec_where[role]} "
                    f"({role_spec[role]!r}) sets already (a setting comes from one place)", f"strategy.{p}")
    if players is None:
        ck.fail("players", "a player count", None)
    rules = _rules(eng, rules_vals, ck, where_of.get("rules", "rules"))
    try:
        eng.validate(players, rules)
    except SenseiError as exc:
        raise SenseiError(f"{ck.path}: {players_where}: {exc}") from None

    def strat(spec, params, where, role=None):
        merged = dict(params)
        if all_params:
            merged = {**all_params, **merged}
        keys = {p: where_of["strategy"] for p in all_params}  # (strategy.P: a mistake names the sweep key)
        keys.update({p: w for (r, p), w in param_where.items() if r == role})
        return _strategy(eng, spec, merged, ck, where, keys)

    out = []
    if kind in ("focus", "tournament") and players < 2:
        what = ("a focus seat against the field" if kind == "focus" else
                "each game puts one entrant alone against a field of another")
        ck.fail(players_where, f"at least 2 players for a {kind} lineup ({what}; a solo game takes lineup.seats)",
                players)
    if kind == "focus":
        focus = strat(role_spec["focus"], role_params["focus"], where_of.get("focus", "lineup.focus"), "focus")
        field = strat(role_spec["field"], role_params["field"], where_of.get("field", "lineup.field"), "field")
        out.append(Cell(start, players, rules, [focus] + [field] * (players - 1),
                        ["focus"] + ["field"] * (players - 1), dict(axis_values)))
    elif kind == "seats":
        seat_roles = list(roles)
        if len(seat_roles) == 1:
            agents = [strat(role_spec["seat0"], role_params["seat0"], where_of.get("seat0", "lineup.seats"),
                            "seat0")] * players
        else:
            if len(seat_roles) != players:
                how = "" if players_where != "players" or players_given else " (the game's default)"
                raise SenseiError(f"{ck.path}: {players_where if players_where != 'players' else 'lineup.seats'}: "
                                  f"{len(seat_roles)} seats for {players} players{how}; give one seat per "
                                  f"player, one seat for all, or players = {len(seat_roles)}")
            agents = [strat(role_spec[r], role_params[r], where_of.get(r, f"lineup.seats[{i}]"), r)
                      for i, r in enumerate(seat_roles)]
        out.append(Cell(start, players, rules, agents, ["seat"] * players, dict(axis_values)))
    elif kind == "population" or grouped:  # one cell per group: the members (the answer plays their lineups)
        made = [strat(s, {}, where_of.get("strategy", f"lineup.{kind}[{i}]")) for i, s in enumerate(entrants)]
        out.append(Cell(start, players, rules, made, ["member"] * len(made), dict(axis_values)))
    else:
        made = [strat(s, {}, where_of.get("strategy", f"lineup.tournament[{i}]")) for i, s in enumerate(entrants)]
        for i, j in itertools.permutations(range(len(made)), 2):
            if players == 2 and j < i:
                continue  # two seats: (A, B) rotated is (B, A)
            out.append(Cell(start + len(out), players, rules, [made[i]] + [made[j]] * (players - 1),
                            ["focus"] + ["field"] * (players - 1), dict(axis_values),
                            pair=(entrants[i], entrants[j])))
    return out


def _sprt(value: Any, ck: _Checker, kind: str) -> SprtSpec | None:
    if value is None:
        return None
    t = ck.table(value, "sprt")
    ck.keys(t, SPRT_KEYS, "sprt.")
    if kind != "focus":
        ck.fail("sprt", "a focus lineup (the test asks whether the focus beats the field)", kind)
    h0 = ck.number(t.get("h0", 0.0), "sprt.h0", -1.0, 1.0)
    h1 = ck.number(t.get("h1", 0.02), "sprt.h1", -1.0, 1.0)
    if h1 <= h0:
        ck.fail("sprt.h1", f"a number greater than h0 = {h0}", h1)
    alpha = ck.number(t.get("alpha", 0.05), "sprt.alpha", 0.0, 0.5)
    beta = ck.number(t.get("beta", 0.05), "sprt.beta", 0.0, 0.5)
    max_games = ck.integer(t.get("max_games", 100_000), "sprt.max_games", 1, MAX_GAMES)
    return SprtSpec(h0, h1, alpha, beta, max_games)


def _report_head(value: Any, ck: _Checker, kind: str, axes: list[str], has_sprt: bool):
    """The [report] checks that need no cell (its keys, the answer, its lineup, report.over): made before
    the grid is expanded too, so that a large grid's config-level mistake is told at once.
    Returns the table, the answer's name, its kind and report.over."""
    t = ck.table(value, "report")
    ck.keys(t, report_keys(), "report.")
    kinds = _kinds()
    swept = [a for a in axes if a != "players"]
    # (a seats lineup's best compares game length only: without a metric its default over a sweep is every
    # cell's figures)
    best = swept and (kind != "seats" or "metric" in t)
    default = "sprt" if has_sprt else ("ratings" if kind == "tournament" else ("equilibrium" if kind == "population"
                                                                              else ("best" if best else "summary")))
    answer = t.get("answer", default)
    if answer not in kinds:
        ck.fail("report.answer", "one of " + ", ".join(kinds), answer)
    spec = kinds[answer]
    if has_sprt and answer != "sprt":
        # the test stops each cell at its own number of deals: best and effect pair cells deal by deal (they
        # failed after every game was played), summary and risk told no verdict
        ck.fail("sprt", f"nothing unless answer is 'sprt' (the test stops each cell at its own number of deals, "
                f"which answer = {answer!r} cannot compare)", "a [sprt] table")
    accepted = spec.lineups or ("focus", "seats", "tournament")
    if kind not in accepted:
        ck.fail("lineup", f"a {', '.join(accepted[:-1]) + ' or ' if len(accepted) > 1 else ''}{accepted[-1]} lineup "
                f"for answer = {answer!r}", kind)
    over = t.get("over")
    if spec.needs_over:
        if over is None:
            cands = [a for a in axes if a != "players"]
            if len(cands) != 1:
                one_case = ("a named axis of one case, [sweep.variant] base = {}, with over = \"variant\"")
                # (players only where the answer may compare player counts: it listed players, then refused it)
                metric = t.get("metric", "win_share")
                allowed = axes if spec.over_players and not (spec.uses_metric and metric in ("win_share", "mean_score")) \
                    else cands
                if allowed:  # several axes: which one the answer compares is the config's to say
                    ck.fail("report.over", "the sweep axis the answer is about, one of " + ", ".join(allowed)
                            + f" (none is given, and the config sweeps {len(axes)}; the others become groups)")
                if axes:  # players alone, which this answer does not compare
                    ck.fail("report.over", f"a sweep axis other than players for answer = {answer!r} to compare (this "
                            "config sweeps only players, and each count gets sentences of its own; to ask it of one "
                            "setting, sweep " + one_case + ")",
                            ABSENT)
                ck.fail("report.over", f"a sweep axis for answer = {answer!r} to compare (this config sweeps nothing: "
                        "add a [sweep] of what to compare; for one setting ask answer = \"summary\", whose "
                        "sentence gives seat 0's advantage, or keep this answer with " + one_case + ")", ABSENT)
            over = cands[0]
        if over not in axes:
            ck.fail("report.over", "one of the sweep axes " + (", ".join(axes) or "(there are none)"), over)
    elif over is not None:
        ck.fail("report.over", f"nothing for answer = {answer!r}", over)
    if over == "players" and not spec.over_players:
        ck.fail("report.over", f"a sweep axis other than players for answer = {answer!r} (its fair shares depend on "
                "the player count; with players swept, each count gets sentences of its own)", over)
    return t, answer, spec, over


def _one_player_count_per_group(ck: _Checker, answer: str, over: str, axes: list[str], cells,
                                 why: str = "its fair shares depend on the player count") -> None:
    """An answer whose fair shares depend on the player count compares the values of ``over`` within a group
    (the cells alike in every other axis) on the same deals: they must have one player count. A named case
    that sets ``players`` is a players axis under another name, which ``report.over = "players"`` is refused
    as (its cells of 2 and 4 players were compared, 4 players read against the fair 50%)."""
    seen: dict[tuple, tuple[Any, int]] = {}
    for c in cells:
        key = tuple(repr(c.axes.get(a)) for a in axes if a != over)
        first = seen.setdefault(key, (c.axes.get(over), c.players))
        if first[1] != c.players:
            ck.fail(f"sweep.{over}", f"one player count in every group for answer = {answer!r} ({why}: sweep "
                    "players as an axis of its own, and each count gets sentences of its own)",
                    f"{over} = {first[0]!r} with {first[1]} players and {c.axes.get(over)!r} with {c.players}")


def _report(value: Any, ck: _Checker, kind: str, axes: list[str], sprt: SprtSpec | None, axis_defs, eng=None,
            cells=(), raw=None) -> ReportSpec:
    from .answers.base import CheckContext

    t, answer, spec, over = _report_head(value, ck, kind, axes, sprt is not None)
    kinds = _kinds()
    ctx = CheckContext(t, ck, kind, None, eng, list(cells), sprt, raw or {}, over)
    if spec.needs_seats and any(c.players < 2 for c in cells):
        ck.fail("players", f"at least 2 players in every cell for answer = {answer!r} ({spec.needs_seats}; a solo "
                "game has one seat)", sorted({c.players for c in cells}))
    if over is not None and not spec.over_players:
        _one_player_count_per_group(ck, answer, over, axes, cells)
    if spec.precheck is not None:
        spec.precheck(ctx)
    for key, used in (("metric", spec.uses_metric), ("goal", spec.uses_goal)):
        if key in t and not used:
            users = [n for n, k in kinds.items() if (k.uses_metric if key == "metric" else k.uses_goal)]
            ck.fail(f"report.{key}", "nothing unless answer is " + " or ".join(users), t[key])
    metric = t.get("metric", "win_share")
    if not isinstance(metric, str) or metric not in METRICS:
        ck.fail("report.metric", "one of " + ", ".join(METRICS), metric)
    if spec.check_metric is not None:
        spec.check_metric(ctx, metric)
    if over is not None and spec.over_players and spec.uses_metric and metric in ("win_share", "mean_score"):
        # (best: 60.2% at 2 players read as clearly better than 46.5% at 3, where 3 players gained the most over
        # its fair share; a game length may be compared from one player count to another)
        why = ("each player count has a fair share of its own, 1/P" if metric == "win_share" else
               "scores of different player counts do not compare")
        if over == "players":
            ck.fail("report.over", f"a sweep axis other than players for answer = {answer!r} with metric = "
                    f"{metric!r} ({why}; with players swept as a group axis each count gets sentences of its own, "
                    "and metric = \"mean_turns\" may compare player counts)", over)
        _one_player_count_per_group(ck, answer, over, axes, cells, why=why)
    goal = t.get("goal", METRICS[metric][1])
    if goal not in ("max", "min"):
        if "goal" in t:
            ck.fail("report.goal", "max or min (which direction of the metric is better)", goal)
        ck.fail("report.goal", f"max or min (which direction of the metric is better; {metric} has no "
                "default direction)", ABSENT)
    baseline = t.get("baseline")
    if spec.baseline == "required":
        if baseline is None:
            ck.fail("report.baseline", "the value of report.over to compare every other value with", ABSENT)
    elif baseline is not None and not spec.baseline:
        ck.fail("report.baseline", "nothing unless answer is "
                + ", ".join(n for n, k in kinds.items() if k.baseline), baseline)
    per_game = t.get("per_game", False)
    if not isinstance(per_game, bool):
        ck.fail("report.per_game", "true or false", per_game)
    notes = t.get("notes", "")
    if not isinstance(notes, str):
        ck.fail("report.notes", "text", notes)
    return ReportSpec(answer, over, metric, goal, baseline, per_game, notes.strip())


def _report_extra(t: dict, ck: _Checker, kind: str, report: ReportSpec, eng, cells: list[Cell], sprt=None,
                  raw=None) -> ReportSpec:
    """The keys of each answer kind (see experiments/answers/): the answer's own kind checks and parses its
    keys; a key of another kind is an error, in registry order."""
    from .answers.base import CheckContext

    answer = report.answer
    kinds = _kinds()
    spec = kinds[answer]
    if spec.per_game and not report.per_game:
        if "per_game" in t:
            ck.fail("report.per_game", f"true for answer = {answer!r} (its intervals are computed deal by deal "
                    "from one row per game)", report.per_game)
        report = dataclasses.replace(report, per_game=True)  # not given: what the answer needs
    ctx = CheckContext(t, ck, kind, report, eng, cells, sprt, raw or {}, report.over)
    for name in sorted(answer_tables() - set(spec.tables)):
        if name in (raw or {}):
            owners = [n for n, k in kinds.items() if name in k.tables]
            ck.fail(name, "nothing unless answer is " + " or ".join(owners), f"a [{name}] table")
    fields: dict[str, Any] = {}
    told: set[str] = set()
    for other in kinds.values():
        if other is spec:
            if other.check is not None:
                fields.update(other.check(ctx))
            told.update(other.keys)
            continue
        for key, says in other.keys.items():
            if key in t and key not in told and key not in spec.keys:
                ck.fail(f"report.{key}", says, t[key])
            told.add(key)
    return dataclasses.replace(report, **fields)
