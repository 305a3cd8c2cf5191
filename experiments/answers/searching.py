"""What the searching answers share (``best_response``, ``equilibrium``, ``design``): the [search] table, the
lineup of a setting, the race of a discrete space and the optuna search of a continuous one.

Every evaluation goes through :class:`experiments.search.Evaluator` (common random numbers, each lineup
played once, finished chunks kept for a resume). A race (:func:`simcore.racing.race`) drops the settings
that are clearly worse than the leader on the same deals; optuna's TPE sampler (seeded by the config's
seed, asked for a fixed batch of trials at a time, so the trials do not depend on ``--jobs``) proposes
settings of a continuous or many-dimensional space, each evaluated on the first round's deals, and the
best few are then raced.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, Callable, Sequence

import numpy as np

from simcore.errors import SenseiError
from simcore.options import check_native, shown
from simcore.racing import RaceResult, race, schedule
from simcore.runner import MAX_GAMES
from simcore.stats import deal_values_ci, paired_diff
from strategies.registry import make_strategy

from ..config import ABSENT, DEFAULT_GAMES
from ..search import Evaluator, Param, focus_values, grid, parse_param, seat_values, setting_label
from .common import (SHARE_DIFFERENCES, average_seat, clip_interval, fmt_metric, in_percent, metric_range,
                     same_on_every_deal, span)

#: [search] keys that are options, not parameters (every parameter key holds a dot)
RACE_KEYS = {"method", "alpha", "first", "trials", "top"}
#: the fewest and the most fresh deals of a confirmation (``[search] confirm``; 0: none)
MIN_CONFIRM = 20
MAX_CONFIRM = 10 ** 9
#: optuna: trials asked at a time (fixed, so that the trials never depend on the number of workers)
BATCH = 4


@dataclasses.dataclass
class SearchSpec:
    """The parsed [search] table (see docs/experiments.md)."""
    params: list[Param]
    method: str = "race"
    alpha: float = 0.05
    first: int | None = None
    trials: int = 30
    top: int = 4
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    estimate: Callable[[Any], int] | None = None
    #: ``search.confirm``: fresh deals on which the answer's choice is played again (0: none)
    confirm: int = 0

    @property
    def discrete(self) -> bool:
        return all(p.discrete for p in self.params)

    def settings(self) -> list[dict[str, Any]]:
        return grid(self.params)

    def first_deals(self, games: int) -> int:
        """Deals of the first round: ``first``, else an eighth of the budget (at least 50, at most all)."""
        return min(games, self.first or max(50, games // 8))

    def rounds(self, games: int) -> list[int]:
        return schedule(self.first_deals(games), games)


def parse_search(ctx, extra: set[str], what: str, required: bool = True) -> tuple[SearchSpec, dict[str, Any]]:
    """The [search] table of ``ctx.raw``: its parameters and the race/optuna options; ``extra`` names the
    further option keys of the kind (returned as written, for the kind to check). ``required``: at least
    one parameter (else a table of options alone is accepted)."""
    ck = ctx.ck
    if "search" not in ctx.raw:
        ck.fail("search", f"a [search] table: the parameters {what} (required for answer = "
                f"{ctx.report.answer!r})", ABSENT)
    t = ck.table(ctx.raw["search"], "search")
    params, opts = [], {}
    for key, value in t.items():
        if "." in key:
            params.append(parse_param(key, value, ck))
        elif key in RACE_KEYS | extra:
            opts[key] = value
        else:
            ck.fail(f"search.{key}", "a parameter ROLE.NAME or one of the options "
                    + ", ".join(sorted(RACE_KEYS | extra)), f"unknown key {key!r}")
    if not params and required:
        ck.fail("search", f"at least one parameter ({what})", "none")
    # a searched key the config also sets (a fixed rule option, a sweep axis) would make that setting void
    raw = ctx.raw
    setters = ({f"rules.{k}": f"[rules] {k} = {shown(v)}" for k, v in raw["rules"].items()}
               if isinstance(raw.get("rules"), dict) else {})
    for axis, value in (raw.get("sweep") or {}).items() if isinstance(raw.get("sweep"), dict) else ():
        keys = {k for case in value.values() if isinstance(case, dict) for k in case} if isinstance(value, dict) \
            else {axis}
        setters.update({k: f"sweep.{axis}" for k in keys if k not in setters})
    for p in params:
        if p.key in setters:
            ck.fail(f"search.{p.key}", f"no search of {p.key!r}, which {setters[p.key]} sets already (the two would "
                    "contradict each other)", p.key)
    for p in params:
        # a grid's values too: {min = 4.0, max = 16.0, step = 4.0} of an integer parameter played wake=16.0,
        # where the list [4.0, 8.0] is refused for its TOML type
        # (a grid of values that are not whole numbers is told by probe_settings, with the words for a grid)
        if p.discrete and (isinstance(t[p.key], list) or all(not isinstance(v, float) or float(v).is_integer()
                                                              for v in p.values)):
            _distinct_values(ctx, p, ck)
    spec = SearchSpec(params)
    method = opts.get("method", "race" if spec.discrete else "optuna")
    if method not in ("race", "optuna"):
        ck.fail("search.method", "race or optuna", method)
    if method == "race" and not spec.discrete:
        cont = next(p.key for p in params if not p.discrete)
        ck.fail("search.method", f"optuna for a continuous parameter ({cont}: give a step to race a grid)", method)
    spec.method = method
    spec.alpha = ck.number(opts.get("alpha", 0.05), "search.alpha", 0.0, 0.5)
    if "first" in opts:
        spec.first = ck.integer(opts["first"], "search.first", 2)
        own = ctx.raw.get("games", DEFAULT_GAMES)
        if isinstance(own, int) and not isinstance(own, bool) and spec.first > own:
            # the first round cannot play more deals than the budget; --games below it plays all of them
            ck.fail("search.first", f"at most games ({own:,}): the first round's deals are part of the budget",
                    spec.first)
    spec.trials = ck.integer(opts.get("trials", 30), "search.trials", 1)
    spec.top = ck.integer(opts.get("top", 4), "search.top", 1)
    if spec.trials > 5000:
        ck.fail("search.trials", "at most 5,000 trials", spec.trials)
    if method == "race":
        for key in ("trials", "top"):
            if key in opts:
                ck.fail(f"search.{key}", "nothing unless method = 'optuna'", opts[key])
        size = math.prod(len(p.values) for p in params)
        if size > 2000:
            ck.fail("search", "a grid of at most 2,000 settings to race (use method = 'optuna')", f"{size:,} settings")
    return spec, {k: v for k, v in opts.items() if k in extra}


def _distinct_values(ctx, p: Param, ck) -> None:
    """A list of values in [search] has TOML-typed values that mean distinct settings once parsed (8 and 8.0
    of a float parameter, "0,6" and "0, 6" of Fan & Mallet's start positions are one setting)."""
    from ..config import _distinct, field_meaning

    cls, owner = None, ""
    if p.role == "rules":
        cls, owner = ctx.eng.Rules, ctx.eng.name
    elif ctx.cells:
        cell = ctx.cells[0]
        seat = {"focus": 0, "field": 1}.get(p.role)
        if seat is None and p.role.startswith("seat") and p.role[4:].isdigit():
            seat = int(p.role[4:])
        agents = cell.agents if seat is None else cell.agents[seat:seat + 1]
        found = [a for a in agents if seat is not None or a.name == p.role]
        if found:
            cls, owner = type(found[0]), f"strategy {found[0].name}"
    meanings = [field_meaning(cls, p.name, v, owner, ck, f"search.{p.key}") if cls is not None
                else ("as written", repr(v)) for v in p.values]
    _distinct(f"search.{p.key}", list(p.values), meanings, ck)


def probe_settings(spec: SearchSpec) -> list[tuple[dict[str, Any], str]]:
    """The settings a config check builds to see that every setting the search may try is valid, each with
    the words that say where it comes from: the grid of a discrete space; for a continuous range its
    endpoints and a point inside with values that are not whole numbers (what optuna will try), so that
    float bounds on an integer parameter are refused before anything runs."""
    if spec.discrete:
        floats = [p.key for p in spec.params if any(isinstance(v, float) and not float(v).is_integer()
                                                    for v in p.values)]
        hint = (f" (the grid of {', '.join(floats)} holds values that are not whole numbers: an integer parameter "
                "or option takes integer min, max and step)") if floats else ""
        return [(s, "search." + ",".join(s) + hint) for s in spec.settings()]
    inside = {p.key: (p.values[0] if p.discrete else p.low + (p.high - p.low) * 0.3819660112501051)
              for p in spec.params}
    cont = ",".join(p.key for p in spec.params if not p.discrete)
    # (the point inside first: an integer parameter refuses it for its own reason, which its words say, where
    # the endpoints' 4.0 is refused only as a float)
    return [(inside, f"search.{cont} (a continuous range, values between its bounds: an integer parameter or "
                     "option takes {min, max, step})"),
            ({p.key: (p.values[0] if p.discrete else p.low) for p in spec.params}, f"search.{cont}"),
            ({p.key: (p.values[-1] if p.discrete else p.high) for p in spec.params}, f"search.{cont}")]


# ----------------------------------------------------------------------------------- settings to lineups
_MADE: dict[tuple, Any] = {}


def with_params(agent, params: dict[str, Any], ck=None, where: str = "search"):
    """A copy of strategy ``agent`` with some parameters changed (checked by the strategy's own fields)."""
    if not params:
        return agent
    key = (agent.spec(), tuple(sorted(params.items())))
    if key in _MADE:
        return _MADE[key]
    try:
        made = make_strategy(type(agent), {**agent.params(), **params}, agent.name)
        if len(_MADE) < 100_000:
            _MADE[key] = made
        return made
    except SenseiError as exc:
        if ck is None:
            raise
        raise SenseiError(f"{ck.path}: {where}: {exc}") from None


def start_setting(ck, where: str, focus, value: Any, keys: list[str], settings) -> dict[str, Any]:
    """One start value of a family's grid (``search.start``): a value of the one parameter, or a table of
    several ({P = value} or {focus.P = value}), which must be a setting of the grid and have the
    parameters' TOML types (10.0 or true are not the integer 10 or 1)."""
    s = (({k if k.startswith("focus.") else f"focus.{k}": x for k, x in value.items()} if isinstance(value, dict)
          else {keys[0]: value} if len(keys) == 1 else None))
    if isinstance(value, list):  # (the equilibrium answer's start is a list of them; here it is one)
        x = repr(value[0]) if len(value) == 1 and not isinstance(value[0], (list, dict)) else "VALUE"
        # an element of a list of starts (the equilibrium answer's: start = [4, 10]) is one value in that list
        one = f"start = [{x}]" if where.endswith("]") else f"start = {x}"
        ck.fail(where, f"one start value, not a list ({one}, or a table {{P = value}} for several parameters)", value)
    if s is None or s not in settings:
        ck.fail(where, "a setting of the family's grid", value)
    try:
        check_native(type(focus), {k.partition(".")[2]: x for k, x in s.items()}, f"strategy {focus.name}")
    except SenseiError as exc:
        raise SenseiError(f"{ck.path}: {where}: {exc}") from None
    return s


def weak_text(vs: dict[str, Any]) -> str:
    """``"; a weak fixed point: ..."`` where the fixed point's paired difference from the best measured
    deviation (``vs``: fixed point less the best) has its own 95% interval wholly below 0, else ""."""
    return "; a weak fixed point: that interval alone lies above 0" if vs["hi"] is not None and vs["hi"] < 0 else ""


def _number(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def declared_bounds(cell, p: Param) -> tuple[float | None, float | None]:
    """The least and greatest value a searched parameter may take at all (its strategy's or rule option's
    declared ``min``/``max``; None where it declares none or the class is not found)."""
    if cell is None:
        return None, None
    if p.role == "rules":
        cls = type(cell.rules)
    elif p.role == "focus":
        cls = type(cell.agents[0])
    elif p.role == "field":
        cls = type(cell.agents[-1])
    elif p.role.startswith("seat") and p.role[4:].isdigit() and int(p.role[4:]) < len(cell.agents):
        cls = type(cell.agents[int(p.role[4:])])
    elif p.role == "strategy":  # every seat's: the first strategy that has the parameter
        cls = next((type(a) for a in cell.agents if dataclasses.is_dataclass(a)
                    and p.name in {f.name for f in dataclasses.fields(a)}), None)
    else:
        cls = next((type(a) for a in cell.agents if getattr(a, "name", None) == p.role), None)
    field = next((f for f in dataclasses.fields(cls) if f.name == p.name), None) if cls is not None and \
        dataclasses.is_dataclass(cls) else None
    return (field.metadata.get("min"), field.metadata.get("max")) if field is not None else (None, None)


def edge_text(params: Sequence[Param], setting: dict[str, Any], cell=None) -> str:
    """``"; wake=20 is at the edge of the searched range (4 to 20): a value beyond it may do better"`` for
    each numeric parameter whose best value is the range's least or greatest (a continuous range's: within
    2% of its width of a bound), else "". A bound that is also the least or greatest value the parameter
    may take (its declared ``min``/``max``, with ``cell`` given: ``threshold``'s wake -1, never) has no
    value beyond it and is not an edge."""
    out = []
    for p in params:
        v = setting.get(p.key)
        if not _number(v):
            continue
        if p.discrete:
            nums = [x for x in p.values if _number(x)]
            if len(nums) < 3 or len(nums) != len(p.values):
                continue
            lo, hi = min(nums), max(nums)
            at_lo, at_hi = v == lo, v == hi
        else:
            lo, hi = p.low, p.high
            at_lo, at_hi = v - lo <= 0.02 * (hi - lo), hi - v <= 0.02 * (hi - lo)
        dmin, dmax = declared_bounds(cell, p)
        at_lo = at_lo and (dmin is None or lo > dmin)
        at_hi = at_hi and (dmax is None or hi < dmax)
        if at_lo or at_hi:
            out.append(f"; {p.name}={clean(v)} is at the edge of the searched range ({clean(lo)} to {clean(hi)}): "
                       "a value beyond it may do better")
    return "".join(out)


def split(setting: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """{role: {name: value}} of a setting whose keys are ROLE.NAME."""
    out: dict[str, dict[str, Any]] = {}
    for key, v in setting.items():
        role, _, name = key.partition(".")
        out.setdefault(role, {})[name] = v
    return out


def group_axes(cfg, cell) -> dict[str, Any]:
    return {a: cell.axes[a] for a in cfg.axes}


def clean(value: Any) -> Any:
    """Optuna's suggestions as plain Python values (floats to 4 significant digits, for readable specs)."""
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(f"{float(value):.4g}")
    return value


# ----------------------------------------------------------------------------------- searching a space
@dataclasses.dataclass
class Searched:
    """A searched space in one group: every setting evaluated, its runs, the race and (optuna) the trials."""
    settings: list[dict[str, Any]]
    race: RaceResult
    raced: list[int]                       # indices (into settings) of the raced settings, in race order
    trials: list[tuple[dict[str, Any], float]] = dataclasses.field(default_factory=list)
    games: int = 0
    runs: dict[int, list[Any]] = dataclasses.field(default_factory=dict)
    #: what the answer kind keeps of each setting besides its runs (design: the equilibrium of a rule setting)
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: the confirmation (``[search] confirm``): the fresh deals ``first .. stop-1`` (none of them played in the
    #: race or by optuna) and the race index of the closest rival played on them with the best (None: no rival)
    confirmed: tuple[int, int, int | None] | None = None
    #: the raced values are shares of games: their intervals are a share's (see ``deal_values_ci``)
    share: bool = False

    @property
    def best(self) -> dict[str, Any]:
        return self.settings[self.raced[self.race.best]]

    def of(self, i: int) -> int:
        """The race index of setting ``i`` (None when it was not raced)."""
        return self.raced.index(i) if i in self.raced else None


def fair_of(found: Searched, k: int, players: int) -> float:
    """The fair win share of the lineups of race index ``k``: the average seat's, 1/P of their games that
    have a winner (the fair 1/P where none stopped at the turn limit)."""
    runs = found.runs.get(found.raced[k]) or []
    decided = [focus_values(r, "decided") for r in runs if r.vec_sum is not None and r.deals > 0]
    if not decided:
        return 1.0 / players
    return average_seat(float(np.mean(np.concatenate(decided))), players)


def self_play(found: Searched, k: int) -> bool:
    """Whether every lineup of race index ``k`` is one strategy in every seat, the focus read from each: its
    win share is the fair share by symmetry, not an estimate (a share alike on every deal otherwise takes
    Wilson's interval over the deals, which would give it a spread it does not have)."""
    runs = found.runs.get(found.raced[k]) or []
    return bool(runs) and all(len({a.spec() for a in r.cell.agents}) == 1 and r.weight == r.cell.players
                              for r in runs)


def search_space(ev: Evaluator, cfg, spec: SearchSpec, runs_of: Callable[[dict[str, Any]], list[Any]],
                 values_of: Callable[[list[Any], int], np.ndarray], goal: str = "max",
                 settings: Sequence[dict[str, Any]] | None = None, seed_key: int = 0, confirm: int = 0,
                 share: bool = False) -> Searched:
    """Race the settings of a discrete space (or ``settings``), or let optuna propose settings and race the
    best ``top``. ``runs_of(setting)`` gives the lineups a setting plays (their per-deal values are
    averaged: several fields), ``values_of(runs, stop)`` the per-deal objective over deals 0..stop-1.
    ``confirm``: fresh deals on which the race's best and its closest rival are then played (0: none).
    ``share``: the objective is a share of games (its intervals a share's, see ``deal_values_ci``)."""
    games0 = ev.games
    budget = cfg.games
    first = spec.first_deals(budget)
    trials: list[tuple[dict[str, Any], float]] = []
    if settings is None and spec.method == "optuna":
        settings, trials = _optuna(ev, cfg, spec, runs_of, values_of, goal, first, seed_key)
        order = sorted(range(len(settings)), key=lambda i: -_signed(trials[i][1], goal))
        raced = []
        for i in order:
            if settings[i] not in [settings[j] for j in raced]:
                raced.append(i)
            if len(raced) == spec.top:
                break
    else:
        settings = list(settings if settings is not None else spec.settings())
        raced = list(range(len(settings)))
    runs = {i: runs_of(settings[i]) for i in raced}

    def evaluate(idx: Sequence[int], stop: int) -> dict[int, np.ndarray]:
        ev.extend([r for k in idx for r in runs[raced[k]]], stop)
        return {k: values_of(runs[raced[k]], stop) for k in idx}

    confirm_fits(budget, confirm, cfg.path)
    res = race(len(raced), evaluate, first, budget, spec.alpha, goal, share=share)
    found = Searched(list(settings), res, raced, trials, ev.games - games0, runs, share=share)
    if confirm:
        # the best of many settings is also the luckiest on the deals that chose it: its figure on deals no
        # choice has seen is not. They start after the race's last round (the budget, when the race ran to its
        # end) and after any deal these lineups have played already, so that none is played for nothing
        rival = closest_rival(res)
        both = [r for k in [res.best] + ([rival] if rival is not None else []) for r in runs[raced[k]]]
        first = max([res.rounds[-1][0]] + [r.deals for r in both])
        confirm_fits(first, confirm, cfg.path)
        ev.extend(both, first + confirm)
        found.confirmed = (first, first + confirm, rival)
        found.games = ev.games - games0
    return found


def confirm_fits(games: int, confirm: int, path: str) -> None:
    """A one-line error, naming the config ``path``, when the fresh deals of ``search.confirm`` would run past
    the last deal number."""
    if confirm and games + confirm > MAX_GAMES:
        raise SenseiError(f"{path}: search.confirm: games + confirm must be at most {MAX_GAMES:,} (the deals are "
                          f"numbered), got {games:,} + {confirm:,}")


def closest_rival(r: RaceResult) -> int | None:
    """The race index of the setting closest to the best (the smallest paired difference on the deals both
    played), or None when only one setting was raced."""
    rivals = [k for k in range(len(r.versus_best)) if r.versus_best[k] is not None]
    return min(rivals, key=lambda k: (abs(r.versus_best[k]["diff"]), k)) if rivals else None


def confirmation(found: Searched, per_deal: Callable[[list[Any], int], np.ndarray],
                 share: bool | None = None) -> dict[str, Any] | None:
    """The best setting on the confirmation's fresh deals (``per_deal(runs, stop)``: its per-deal values over
    deals 0..stop-1): its mean with its interval (a share's where the objective is one) and, with a rival, the rival's and the paired difference
    rival - best; ``alike``/``rival_alike``: the same value on every fresh deal (no spread to make an
    interval of). ``share``: whether ``per_deal`` gives a share of games (default: as the race's values do)."""
    if found.confirmed is None:
        return None
    share = found.share if share is None else share
    first, stop, rival = found.confirmed
    x = per_deal(found.runs[found.raced[found.race.best]], stop)[first:stop]
    out: dict[str, Any] = {"first": first, "deals": stop - first, "ci": deal_values_ci(x, share),
                           "rival": None, "versus": None,
                           "rival_ci": None, "alike": bool(np.ptp(x) == 0), "rival_alike": False}
    if rival is not None:
        y = per_deal(found.runs[found.raced[rival]], stop)[first:stop]
        out["rival"] = found.settings[found.raced[rival]]
        out["rival_ci"] = deal_values_ci(y, share)
        out["rival_alike"] = bool(np.ptp(y) == 0)
        out["versus"] = paired_diff(y, x)
    return out


def _figure(metric: str, ci: tuple, alike: bool) -> str:
    m, lo, hi = ci
    signed = metric in SHARE_DIFFERENCES  # a difference of shares reads +9.0% [+4.2%, +13.8%], as in the race
    if alike:
        return f"{value_text(metric, m, signed)} on every one of them"
    lo, hi = clip_interval(lo, hi, metric_range(metric))
    return f"{value_text(metric, m, signed)} {value_span(metric, lo, hi, signed)}"


def confirmed_text(conf: dict[str, Any], metric: str, target: float | None = None,
                   band: tuple[float, float] | None = None) -> str:
    """The answer's words for a confirmation (:func:`confirmation`); with the design's ``target`` or ``band``,
    which of the two comes closer to it on the fresh deals."""
    text = (f"on {conf['deals']:,} fresh deals (numbered from {conf['first']:,}: none of them helped choose it): "
            + _figure(metric, conf["ci"], conf["alike"]))
    d = conf["versus"]
    if d is not None:
        dlo, dhi = clip_interval(d["lo"], d["hi"], metric_range(metric, diff=True))
        if d["lo"] is not None and d["lo"] == d["hi"]:  # alike on every deal: no interval to give
            same = ("the same as the best's on every one of them" if d["diff"] == 0 else
                    f"a paired difference of {value_text(metric, d['diff'], True)} from the best on every one of them")
        else:
            same = (f"a paired difference of {value_text(metric, d['diff'], True)} "
                    f"{value_span(metric, dlo, dhi, True)} from the best")
        text += (f"; the closest rival, {setting_label(conf['rival'])}, there: "
                 + _figure(metric, conf["rival_ci"], conf["rival_alike"]) + ", " + same)
        if target is not None or band is not None:
            def distance(x: float) -> float:
                if target is not None:
                    return abs(x - target)
                return max(band[0] - x, x - band[1], 0.0)
            a, b = distance(conf["ci"][0]), distance(conf["rival_ci"][0])
            text += (f" (from the {'target' if target is not None else 'band'}: {value_text(metric, a)} for the best, "
                     f"{value_text(metric, b)} for the rival"
                     + (": the rival comes closer on these deals)" if b < a else ")"))
    if target is not None or band is not None:
        text += _verdict(conf, metric, target, band)
    return text


def _off(ci: tuple, alike: bool, metric: str, target: float | None, band: tuple[float, float] | None) -> str | None:
    """"below" or "above" where a fresh figure's 95% interval (its value, where every deal gave the same)
    lies wholly off the design's target or band; None where it reaches it."""
    m, lo, hi = ci
    lo, hi = (m, m) if alike else clip_interval(lo, hi, metric_range(metric))
    if lo is None or hi is None:
        return None
    low, high = (target, target) if target is not None else band
    return "below" if hi < low else "above" if lo > high else None


def _verdict(conf: dict[str, Any], metric: str, target: float | None, band: tuple[float, float] | None) -> str:
    """What the fresh deals say of the design's aim: where the best's interval misses the target (or band),
    in words, with the rival's where it has one; nothing where the best's interval reaches it."""
    aim = (f"the target {value_text(metric, target)}" if target is not None else
           f"the band {value_span(metric, band[0], band[1])}")
    best = _off(conf["ci"], conf["alike"], metric, target, band)
    if best is None:
        return ""
    text = f"; so on these deals the best misses {aim} (its interval lies {best} it)"
    if conf["rival"] is not None:
        rival = _off(conf["rival_ci"], conf["rival_alike"], metric, target, band)
        text += (f", and so does the rival ({rival} it)" if rival is not None else
                 ", where the rival's interval reaches it")
    return text


def confirm_row(base: dict[str, Any], found: Searched, conf: dict[str, Any], metric: str,
                race_value: float) -> dict[str, Any]:
    """One row of ``confirm.parquet``: the best setting's figure on the fresh deals (``race_value``: its
    figure in the race), the closest rival's there and its paired difference (rival - best)."""
    m, lo, hi = conf["ci"]
    d = conf["versus"] or {}
    rm, rlo, rhi = conf["rival_ci"] or (None, None, None)
    return {**base, "setting": setting_label(found.best), "metric": metric, "first_deal": conf["first"],
            "deals": conf["deals"], "value": m, "lo": lo, "hi": hi,
            "race_value": race_value,
            "rival": setting_label(conf["rival"]) if conf["rival"] is not None else None,
            "rival_value": rm, "rival_value_lo": rlo, "rival_value_hi": rhi,
            "rival_diff": d.get("diff"), "rival_lo": d.get("lo"), "rival_hi": d.get("hi"),
            "rival_p_value": d.get("p_value")}


def parse_confirm(ck, opts: dict[str, Any], spec: SearchSpec) -> None:
    """``[search] confirm``: the fresh deals of the confirmation (0: none)."""
    spec.confirm = ck.integer(opts.get("confirm", 0), "search.confirm", 0, MAX_CONFIRM)
    if 0 < spec.confirm < MIN_CONFIRM:
        ck.fail("search.confirm", f"0 (none) or at least {MIN_CONFIRM} fresh deals (an interval needs a spread)",
                spec.confirm)


def _signed(x: float, goal: str) -> float:
    return x if goal == "max" else -x


def _optuna(ev, cfg, spec: SearchSpec, runs_of, values_of, goal: str, first: int, seed_key: int):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=int(cfg.seed) * 1000 + seed_key,
                                         n_startup_trials=min(10, max(2, spec.trials // 3)))
    study = optuna.create_study(direction="maximize" if goal == "max" else "minimize", sampler=sampler)
    settings, trials = [], []
    done = 0
    while done < spec.trials:
        batch = [study.ask() for _ in range(min(BATCH, spec.trials - done))]
        chosen = [{p.key: clean(_suggest(t, p)) for p in spec.params} for t in batch]
        runs = [runs_of(s) for s in chosen]
        ev.extend([r for rs in runs for r in rs], first)
        for t, s, rs in zip(batch, chosen, runs):
            value = float(values_of(rs, first).mean())
            study.tell(t, value)
            settings.append(s)
            trials.append((s, value))
        done += len(batch)
    return settings, trials


def _suggest(trial, p: Param):
    if p.values is not None and p.low is None:          # a list: a choice
        return trial.suggest_categorical(p.key, list(p.values))
    if p.values is not None:                             # a grid {min, max, step}
        if all(isinstance(v, int) for v in p.values):
            return trial.suggest_int(p.key, int(p.values[0]), int(p.values[-1]), step=int(p.values[1] - p.values[0])
                                     if len(p.values) > 1 else 1)
        step = (p.values[1] - p.values[0]) if len(p.values) > 1 else None
        return trial.suggest_float(p.key, float(p.values[0]), float(p.values[-1]), step=step)
    return trial.suggest_float(p.key, float(p.low), float(p.high))


# ----------------------------------------------------------------------------------- per-deal objectives
def mean_values(runs: list[Any], fn: Callable[[Any], np.ndarray], stop: int) -> np.ndarray:
    """Per-deal values averaged over several lineups (a setting against several fields), deals 0..stop-1."""
    return np.mean([fn(r)[:stop] for r in runs], axis=0)


def deviator_values(seat: int, metric: str, event: bool = False) -> Callable[[Any], np.ndarray]:
    """The deviator's per-deal win share (or score) in base seat ``seat`` (0: the focus, over its seats)."""
    what = "win" if metric == "win_share" else "score"
    if seat == 0:
        return lambda run: focus_values(run, what)
    return lambda run: seat_values(run, what, seat, event)


def race_rows(base: dict[str, Any], found: Searched, metric: str, fair: float | None) -> list[dict[str, Any]]:
    """One row per raced setting: its values, deals, mean and interval, the round it was dropped in, and
    the paired difference against the best on the same deals."""
    r = found.race
    rows = []
    for k, i in enumerate(found.raced):
        s = found.settings[i]
        d = r.versus_best[k]
        lo, hi = _f(r.lo[k]), _f(r.hi[k])
        if metric == "win_share" and self_play(found, k) and fair is not None and abs(r.means[k] - fair) < 1e-6:
            lo = hi = _f(r.means[k])  # the fair share by symmetry: exact, as in the cells table
        rows.append({**base, **s, "setting": setting_label(s), "metric": metric, "deals": r.deals[k],
                     "value": r.means[k], "lo": lo, "hi": hi, "fair_share": fair,
                     "best": k == r.best, "survived": k in r.survivors,
                     "dropped_in_round": r.dropped_in[k], "diff_vs_best": None if d is None else d["diff"],
                     "diff_lo": None if d is None else _f(d["lo"]), "diff_hi": None if d is None else _f(d["hi"]),
                     "p_value": None if d is None else _f(d["p_value"])})
    return rows


def _f(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def pct(x: float | None, signed: bool = False) -> str:
    return fmt_metric("win_share", x, signed)


def pct_span(lo: float | None, hi: float | None, signed: bool = False, refs: tuple[float | None, ...] = ()) -> str:
    """A share's interval within [0%, 100%] (a difference of shares, ``signed``: within [-100%, +100%]); with
    ``refs``, the decimals that tell a bound from the figure it is judged against (see :func:`span`)."""
    lo, hi = clip_interval(lo, hi, metric_range("win_share", diff=signed))
    return span("win_share", lo, hi, signed, refs=refs)


def _shown_as(metric: str) -> str:
    if in_percent(metric):
        return "win_share"
    return "mean_score"  # two decimals, as for every figure that is not a share


def value_text(metric: str, x: float | None, signed: bool = False) -> str:
    return fmt_metric(_shown_as(metric), x, signed)


def value_span(metric: str, lo: float | None, hi: float | None, signed: bool = False,
               refs: tuple[float | None, ...] = ()) -> str:
    return span(_shown_as(metric), lo, hi, signed, refs=refs)


def dropped_note(found: Searched, k: int) -> str:
    """``, dropped there as clearly worse than edge=4.0, the leader then``: a rival the race dropped
    was found clearly worse than its round's leader (with the correction for picking), not than the final best,
    so that its interval against the best may still reach 0; empty for a setting still in the race."""
    r = found.race
    at = r.dropped_in[k]
    if at is None:
        return ""
    leader = r.rounds[at][2]
    than = "the best" if leader == r.best else f"{setting_label(found.settings[found.raced[leader]])}, the leader then"
    return f", dropped there as clearly worse than {than}"


def runners_up(found: Searched, metric: str, count: int = 3) -> str:
    """The closest rivals of the best on the same deals: ``wake=11 -0.3% [-0.5%, -0.1%]``."""
    r = found.race
    others = [k for k in range(len(found.raced)) if k != r.best]
    others.sort(key=lambda k: abs(r.versus_best[k]["diff"]))
    parts = []
    for k in others[:count]:
        d = r.versus_best[k]
        s = found.settings[found.raced[k]]
        lo, hi = clip_interval(d["lo"], d["hi"], metric_range(metric, diff=True))
        note = dropped_note(found, k)
        same = same_on_every_deal(d)
        parts.append(f"{setting_label(s)} " + ("the same on every deal" if same else
                     f"{value_text(metric, d['diff'], True)} {value_span(metric, lo, hi, True)}")
                     + f" over {d['n']:,} deals" + (f" ({note[2:]})" if note else ""))
    return "; ".join(parts)
