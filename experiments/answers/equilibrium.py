"""``equilibrium``: what careful players converge to, per group (player count and rules).

Two lineups:

* **A parameterised family** (``focus`` = the family, ``field`` = the config's reference field, the
  parameters in [search] as a grid): iterated best response from each start value (``search.start``; the
  reference field is always the first): the field plays the current value, the best response to it is
  raced over the grid, and the field moves to it, until the field's own value survives the race (it is
  its own best response within the race's intervals: a symmetric fixed point), a value comes back (a
  cycle), or ``search.steps`` best responses were made. Every fixed point found is reported with its
  path. With ``search.meta`` (player counts, or true for every group), also the empirical meta-game over
  the grid's values: every lineup of them, and its equilibria (below).
* **A population** (``lineup.population``: strategy specs; [search] parameters ``MEMBER.P`` are tuned
  first, each as a best response to tables of each other member, in population order): the empirical
  meta-game of every lineup the members can form (multisets of P, each in every order of its members round
  the table, weighted as a random seating, seats rotated), and its equilibria:
  for 2 players the Nash equilibrium of the zero-sum game of win-share advantages (a linear program,
  scipy), alpha-rank (:func:`simcore.gametheory.alpharank`), and for 3-5 players replicator dynamics
  from the uniform mixture (``search.solvers`` chooses). Each support probability has a bootstrap
  interval over deals (none where the equilibrium is one point of a set of them, as where members play
  alike) (the same resampled deals for every lineup), and each member's regret against the
  equilibrium (its win share against a field drawn from the equilibrium minus the equilibrium's own)
  has one too; with ``report.event`` (e.g. Senshi's ``eliminated``), each member's event rate against
  that field.

Tables: ``equilibrium.parquet`` (one row per group, solution and strategy in the support: players, the
rule options, solution, kind, strategy, the swept parameters, probability, ci_low, ci_high, and the
member's regret and event rate), ``race.parquet`` (every best-response race), ``path.parquet`` (the
iterations), ``metagame.parquet`` (the payoff table) and ``regrets.parquet`` (every member's regret
against every solution of a meta-game, in its support or not).
"""
from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from simcore import gametheory as gt
from simcore.options import shown
from simcore.stats import deal_share_interval, deal_values_ci

from ..search import Param, seat_values, setting_label
from ..config import ABSENT
from .base import AnswerKind, CheckContext, ReportContext, Result
from .common import and_list, check_event, clip_interval, describe_group, frame, join_values, metric_range, short_spec
from .searching import (SearchSpec, closest_rival, confirm_fits, deviator_values, edge_text, fair_of, group_axes,
                        mean_values,
                        parse_confirm, parse_search, pct, pct_span, race_rows, search_space, split,
                        start_setting, weak_text, with_params)

if TYPE_CHECKING:
    from ..config import Config
    from ..engine import CellRun

OPTIONS = {"start", "steps", "meta", "bootstrap", "solvers", "intensity", "population_size", "confirm"}
SOLVERS = {"nash": "Nash (linear program)", "alpharank": "alpha-rank", "replicator": "replicator dynamics"}
#: the nash solver's name for 3 to 5 players, where no linear program gives it (:func:`gt.symmetric_nash`)
NASH_SEARCH = "Nash (a search of supports)"
#: at most this many lineups in one group's meta-game, each order of a lineup's members round the table counted
#: (:func:`simcore.gametheory.seating_count`: they are played as lineups of their own)
MAX_LINEUPS = 3000


# ------------------------------------------------------------------------------------------ config
def check(ctx: CheckContext) -> dict[str, Any]:
    ck = ctx.ck
    event = check_event(ctx, required=False) if "event" in ctx.table else None
    if ctx.lineup == "population":
        if "search" in ctx.raw:
            spec, opts = parse_search(ctx, OPTIONS, "of members to tune first (MEMBER.P)", required=False)
        else:
            spec, opts = SearchSpec([]), {}
        names = [a.name for a in ctx.cells[0].agents]
        for p in spec.params:
            if p.role not in names:
                ck.fail(f"search.{p.key}", f"a parameter of a member ({', '.join(names)})", p.role)
            if not p.discrete:
                ck.fail(f"search.{p.key}", "a grid (a list or {min, max, step}): tuned members are raced", "a range")
            if names.count(p.role) > 1:
                ck.fail(f"search.{p.key}", "a member that appears once in the population", p.role)
        for cell in ctx.cells:
            for s in spec.settings() if spec.params else []:
                for role, vals in split(s).items():
                    with_params(cell.agents[names.index(role)], vals, ck, f"search.{role}")
        for key in ("start", "steps", "meta"):
            if key in opts:
                ck.fail(f"search.{key}", "nothing for a population (it is an option of a parameterised family)",
                        opts[key])
        K = len(names)
        for c in ctx.cells:
            n = gt.seating_count(K, c.players)
            if n > MAX_LINEUPS:
                ck.fail("lineup.population", f"at most {MAX_LINEUPS:,} lineups per group (each order of a lineup's "
                        "members round the table counted)", f"{n:,} for {c.players} players")
    else:
        spec, opts = parse_search(ctx, OPTIONS, "of the family (focus.P)")
        for p in spec.params:
            if p.role != "focus":
                ck.fail(f"search.{p.key}", "a parameter of the focus (focus.P): the focus is the family", p.role)
            if not p.discrete:
                ck.fail(f"search.{p.key}", "a grid (a list or {min, max, step}): fixed points are found on a grid",
                        "a range")
        if spec.method != "race":
            ck.fail("search.method", "race (the best responses of an equilibrium are raced on a grid)", spec.method)
        settings = spec.settings()
        for cell in ctx.cells:
            for s in settings:
                with_params(cell.agents[0], split(s)["focus"], ck, "search")
        spec.options["start"] = _starts(ck, opts.get("start"), spec.params, settings, ctx)
        spec.options["steps"] = ck.integer(opts.get("steps", 8), "search.steps")
        meta = opts.get("meta", False)
        counts = sorted({c.players for c in ctx.cells})
        if meta is True:
            meta = counts
        elif meta is False:
            meta = []
        elif not isinstance(meta, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in meta):
            ck.fail("search.meta", "true, false or a list of player counts", meta)
        for P in meta:
            if P not in counts:
                ck.fail("search.meta", f"player counts of the grid ({', '.join(map(str, counts))})", P)
            n = gt.seating_count(len(settings), P)
            if n > MAX_LINEUPS:
                ck.fail("search.meta", f"at most {MAX_LINEUPS:,} lineups per group, each order of a lineup's members "
                        "round the table counted (fewer values or players)", f"{n:,} lineups for {P} players")
        spec.options["meta"] = list(meta)
    parse_confirm(ck, opts, spec)
    spec.options["bootstrap"] = ck.integer(opts.get("bootstrap", 200), "search.bootstrap", 0)
    if spec.options["bootstrap"] > 5000:
        ck.fail("search.bootstrap", "at most 5,000 resamples", spec.options["bootstrap"])
    spec.options["intensity"] = ck.number(opts.get("intensity", 50.0), "search.intensity", 0.0, 1e6)
    spec.options["population_size"] = ck.integer(opts.get("population_size", 50), "search.population_size", 2)
    if spec.options["population_size"] > 1000:
        ck.fail("search.population_size", "at most 1,000 agents", spec.options["population_size"])
    most = max((c.players for c in ctx.cells), default=2)
    ranks = opts.get("solvers") is None or (isinstance(opts.get("solvers"), list) and "alpharank" in opts["solvers"])
    if ranks and spec.options["population_size"] < most:  # alpha-rank seats a table's others from the population
        ck.fail("search.population_size", f"at least the largest player count of the grid ({most}: a table's "
                "other seats are drawn from the rest of the population)", spec.options["population_size"])
    solvers = opts.get("solvers")
    if solvers is not None:
        if not isinstance(solvers, list) or not solvers or any(s not in SOLVERS for s in solvers):
            ck.fail("search.solvers", "a non-empty list of " + ", ".join(SOLVERS), solvers)
        if len(set(solvers)) != len(solvers):  # (the same sentence printed twice)
            ck.fail("search.solvers", "distinct solvers", solvers)
    if ctx.lineup != "population" and not spec.options["meta"]:
        # the family's fixed points only: these settings of the meta-game's solvers would change nothing
        for key in ("solvers", "bootstrap", "intensity", "population_size"):
            if key in opts:
                ck.fail(f"search.{key}", "nothing without a meta-game (search.meta = true or a list of player "
                        "counts: the family's fixed points alone use no solver)", opts[key])
    spec.options["solvers"] = solvers
    if ctx.lineup != "population" and not spec.options["start"]:  # told after the mistakes of the keys given
        _no_start(ck, opts.get("start"), ctx)
    spec.options["event"] = event
    spec.estimate = lambda cfg: _estimate(cfg, spec)
    return {"search": spec, "event": event}


def _starts(ck, value, params: list[Param], settings, ctx) -> list[dict[str, Any]]:
    """The start values: the reference field's own setting first, then ``search.start`` (values of the one
    parameter, or tables of several)."""
    keys = [p.key for p in params]
    out = []
    field = ctx.cells[0].agents[1] if len(ctx.cells[0].agents) > 1 else ctx.cells[0].agents[0]
    focus = ctx.cells[0].agents[0]
    if type(field) is type(focus):
        ref = {k: field.params().get(k.partition(".")[2]) for k in keys}
        if ref in settings:
            out.append(ref)
    if value is None:
        value = []
    if not isinstance(value, list):
        ck.fail("search.start", "a list of start values (tables {P = value} for several parameters)", value)
    given: list[dict[str, Any]] = []
    for i, v in enumerate(value):
        s = start_setting(ck, f"search.start[{i}]", focus, v, keys, settings)
        if s in given:
            ck.fail("search.start", f"distinct start values ({shown(value[given.index(s)])} and {shown(v)} are the "
                    "same setting)", value)
        given.append(s)
        if s not in out:
            out.append(s)
    return out


def _no_start(ck, value, ctx) -> None:
    """No start value: the field is not a setting of the family's grid, and search.start gives none."""
    field = ctx.cells[0].agents[1] if len(ctx.cells[0].agents) > 1 else ctx.cells[0].agents[0]
    why = "is not a setting of it" if type(field) is type(ctx.cells[0].agents[0]) else "is not of the focus's family"
    ck.fail("search.start", f"a start value on the family's grid (the field {field.spec()} {why})",
            ABSENT if value is None else value)


def _estimate(cfg, spec: SearchSpec) -> int:
    per = sum(c.players for c in cfg.cells) * spec.first_deals(cfg.games) * 2
    # a meta-game plays every order of every lineup round the table, each in its rotations: K^P seatings a deal
    if cfg.kind == "population":
        K = len(cfg.cells[0].agents)
        return sum(K ** c.players * (cfg.games + spec.confirm) for c in cfg.cells)
    K = len(spec.settings())
    meta = sum(K ** c.players * (cfg.games + spec.confirm) for c in cfg.cells
               if c.players in spec.options.get("meta", []))
    return per * max(1, K) * (1 + len(spec.options.get("start", []))) + meta


# ------------------------------------------------------------------------------------------ playing
@dataclasses.dataclass
class Path:
    start: dict[str, Any]
    fields: list[dict[str, Any]]
    found: list[Any]            # Searched per step
    end: str = "steps"          # fixed, cycle or steps
    fixed: dict[str, Any] | None = None


@dataclasses.dataclass
class MetaGame:
    labels: list[str]
    agents: list[Any]
    P: int
    lineups: list[tuple[int, ...]]
    pay: dict[tuple[int, ...], dict[int, np.ndarray]]
    events: dict[tuple[int, ...], dict[int, np.ndarray]] | None
    deals: int
    games: int
    settings: list[dict[str, Any]] | None = None
    solutions: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    #: solvers that found no solution (the search of supports, which may miss the equilibria it looks for)
    unsolved: list[str] = dataclasses.field(default_factory=list)
    #: ``search.confirm``: the payoffs on the fresh deals ``fresh_first ..`` (none of them played to find the
    #: equilibria), ``fresh_deals`` of them, and the games they took
    fresh: dict[tuple[int, ...], dict[int, np.ndarray]] | None = None
    fresh_first: int = 0
    fresh_deals: int = 0
    fresh_games: int = 0
    #: of ``games``, those played before the meta-game needed them (a tuning race's lineups)
    reused: int = 0
    #: of ``fresh_games``, those played before (a fixed point's check on the same fresh deals)
    reused_fresh: int = 0
    #: the seatings played: every order of each lineup's members round the table (more than the lineups where
    #: three or more players seat three or more different members, or two pairs)
    orders: int = 0


def search(cfg: Config, ev) -> list:
    spec: SearchSpec = cfg.report.search
    out = []
    for g, cell in enumerate(cfg.cells):
        if cfg.kind == "population":
            out.append(_population(cfg, ev, spec, g, cell))
        else:
            out.append(_family(cfg, ev, spec, g, cell))
        ev.bar.update(cells=1)
    return out


def _family(cfg, ev, spec: SearchSpec, g: int, cell, axes: dict[str, Any] | None = None) -> dict[str, Any]:
    """Iterated best responses of the focus's family from each start (and the meta-game over its grid when
    asked); ``axes`` label the lineups played (default: the group's axis values)."""
    axes = group_axes(cfg, cell) if axes is None else axes
    family = cell.agents[0]
    fn = deviator_values(0, "win_share")
    settings = spec.settings()

    def member(s):
        return with_params(family, split(s)["focus"])

    paths = []
    for k, start in enumerate(spec.options["start"]):
        path = Path(start, [], [])
        field = start
        while True:
            fagent = member(field)

            def runs_of(s, fagent=fagent):
                return [ev.lineup(cell, [member(s)] + [fagent] * (cell.players - 1), axes,
                                  ["focus"] + ["field"] * (cell.players - 1))]

            found = search_space(ev, cfg, spec, runs_of, lambda runs, stop: mean_values(runs, fn, stop), "max",
                                 seed_key=g, share=True)
            path.fields.append(field)
            path.found.append(found)
            alive = [found.settings[found.raced[i]] for i in found.race.survivors]
            if field in alive:
                path.end, path.fixed = "fixed", field
                break
            nxt = found.best
            if nxt in path.fields:
                path.end = "cycle"
                path.fields.append(nxt)
                break
            if len(path.found) >= spec.options["steps"]:
                path.end = "steps"
                path.fields.append(nxt)
                break
            field = nxt
        paths.append(path)
    confirmed = _confirm_fixed_points(cfg, ev, spec, paths, fn) if spec.confirm else {}
    meta = None
    if cell.players in spec.options["meta"]:
        agents = [member(s) for s in settings]
        meta = _metagame(cfg, ev, cell, axes, agents, [setting_label(s) for s in settings], None, spec.confirm)
        meta.settings = settings
        _solve(cfg, spec, meta, g)
    return {"cell": cell, "paths": paths, "meta": meta, "tuned": [], "confirmed": confirmed}


def _confirm_fixed_points(cfg, ev, spec: SearchSpec, paths: list[Path], fn) -> dict[str, dict[str, Any]]:
    """``search.confirm`` for a family: each fixed point's best measured deviation (the race's best other
    setting against a table of it) played again on fresh deals, which start after every deal any race of
    the group played (the races of a path's earlier steps chose the fields that led to the fixed point: the
    deals they played helped find it); a table of the fixed point itself wins the fair share by symmetry.
    Fixed point label -> the deviation, the deals and its win share there."""
    out: dict[str, dict[str, Any]] = {}
    # the deals the group's races played (a race's deal numbers are shared by every lineup: the same shuffles)
    played = max([found.race.rounds[-1][0] for p in paths for found in p.found if found.race.rounds]
                 + [run.deals for p in paths for found in p.found for runs in found.runs.values() for run in runs]
                 + [0])
    for path in paths:
        f = path.fixed
        if f is None or setting_label(f) in out:
            continue
        found = path.found[-1]
        r = found.race
        own = _own_index(found, f)
        dev = r.best if r.best != own else closest_rival(r)
        if dev is None:
            continue
        runs = found.runs[found.raced[dev]]
        first = max([r.rounds[-1][0], played] + [run.deals for run in runs])
        confirm_fits(first, spec.confirm, cfg.path)
        ev.extend(runs, first + spec.confirm)
        x = mean_values(runs, fn, first + spec.confirm)[first:]
        out[setting_label(f)] = {"setting": found.settings[found.raced[dev]], "first": first, "deals": spec.confirm,
                                 "ci": deal_values_ci(x, True), "alike": bool(np.ptp(x) == 0)}
    return out


def _population(cfg, ev, spec: SearchSpec, g: int, cell) -> dict[str, Any]:
    axes = group_axes(cfg, cell)
    agents = list(cell.agents)
    names = [a.name for a in agents]
    tuned = []
    roles = []
    for p in spec.params:
        if p.role not in roles:
            roles.append(p.role)
    for role in roles:
        j = names.index(role)
        params = [p for p in spec.params if p.role == role]
        sub = SearchSpec(params, "race", spec.alpha, spec.first)
        others = [a for i, a in enumerate(agents) if i != j]

        def runs_of(s, j=j, others=others):
            me = with_params(agents[j], split(s)[role])
            return [ev.lineup(cell, [me] + [o] * (cell.players - 1), axes, ["focus"] + ["field"] * (cell.players - 1))
                    for o in others]

        fn = deviator_values(0, "win_share")
        found = search_space(ev, cfg, sub, runs_of, lambda runs, stop: mean_values(runs, fn, stop), "max",
                             seed_key=g, share=True)
        agents[j] = with_params(agents[j], split(found.best)[role])
        tuned.append((role, found))
    meta = _metagame(cfg, ev, cell, axes, agents, [short_spec(a) for a in agents], cfg.report.event, spec.confirm)
    _solve(cfg, spec, meta, g)
    return {"cell": cell, "paths": [], "meta": meta, "tuned": tuned}


def _metagame(cfg, ev, cell, axes, agents, labels, event, confirm: int = 0) -> MetaGame:
    """Every lineup of ``agents`` on deals 0..games-1 (and with ``confirm``, on the fresh deals after them),
    each in every order of its members round the table (seats rotated): a lineup's payoffs are those of a
    random seating, each order weighted by its share of the seatings (:func:`simcore.gametheory.seatings`)."""
    confirm_fits(cfg.games, confirm, cfg.path)
    K, P = len(agents), cell.players
    lineups = gt.lineups(K, P)
    orders = {L: gt.seatings(L) for L in lineups}
    runs = {(L, order): ev.lineup(cell, [agents[i] for i in order], axes, ["member"] * P)
            for L in lineups for order, _ in orders[L]}
    # the games of these lineups played already (a tuning race's lineups, one member against tables of another)
    reused = sum(len(run.rotations) * min(run.deals, cfg.games) for run in runs.values())
    # and of the fresh deals after them (a fixed point's check plays its deviation there, on the same deals)
    reused_fresh = sum(len(run.rotations) * min(max(run.deals - cfg.games, 0), confirm) for run in runs.values())
    ev.extend(list(runs.values()), cfg.games)
    if confirm:
        ev.extend(list(runs.values()), cfg.games + confirm)
    pay, evs = {}, ({} if event else None)
    fresh = {} if confirm else None
    for L in lineups:
        total = sum(n for _, n in orders[L])
        win: dict[int, Any] = {}
        ev_row: dict[int, Any] = {}
        for order, n in orders[L]:
            run = runs[(L, order)]
            for i in sorted(set(L)):
                seats = [b for b in range(P) if order[b] == i]
                w = n / total * np.mean([seat_values(run, "win", b, bool(event)) for b in seats], axis=0)
                win[i] = w if i not in win else win[i] + w
                if event:
                    e = n / total * np.mean([seat_values(run, "event", b, True) for b in seats], axis=0)[:cfg.games]
                    ev_row[i] = e if i not in ev_row else ev_row[i] + e
        pay[L] = {i: w[:cfg.games] for i, w in win.items()}
        if event:
            evs[L] = ev_row
        if confirm:
            fresh[L] = {i: w[cfg.games:cfg.games + confirm] for i, w in win.items()}
    # the games the meta-game is made of (a lineup its races had played already counts too)
    per_deal = sum(len(run.rotations) for run in runs.values())
    return MetaGame(labels, agents, P, lineups, pay, evs, cfg.games, per_deal * cfg.games, fresh=fresh,
                    fresh_first=cfg.games, fresh_deals=confirm, fresh_games=per_deal * confirm, reused=reused,
                    reused_fresh=reused_fresh, orders=len(runs))


def _solve(cfg, spec: SearchSpec, meta: MetaGame, g: int) -> None:
    K, P = len(meta.agents), meta.P
    solvers = spec.options["solvers"] or (["nash", "alpharank"] if P == 2 else ["nash", "alpharank", "replicator"])
    alpha, m = spec.options["intensity"], spec.options["population_size"]
    B = spec.options["bootstrap"]

    def table(idx=None):
        return {L: {i: float(v.mean() if idx is None else v[idx].mean()) for i, v in d.items()}
                for L, d in meta.pay.items()}

    settled: list[bool] = []  # whether the point estimate's replicator dynamics came to rest

    found: list[np.ndarray] = []  # every symmetric equilibrium the point estimate's search found (3-5 players)
    in_set: list[bool] = []  # for each, whether it is one point of a set of equilibria

    def matrix(tab) -> np.ndarray:  # two players: the row strategy's win share against each column's
        return np.array([[tab[tuple(sorted((i, j)))][i] for j in range(K)] for i in range(K)])

    def constant_sum(tab) -> bool:
        # every game has a winner (or a shared win): the two seats' win shares add up to 1
        A = matrix(tab)
        return bool(np.abs(A + A.T - 1.0).max() < 1e-9)

    # two players whose win shares add up to 1: the linear program, exact; else (games stopped at a turn limit
    # have no winner) the search of supports, as for more players
    point_tab = table()
    lp = P == 2 and constant_sum(point_tab)

    lp_alike: list[list[int]] = []  # two players: the groups of members that win alike, where they have weight

    def run(name, tab, near=None):
        if name == "nash" and lp:
            A = matrix(tab)
            M = A - A.T
            x = gt.zero_sum_nash(M)[0]
            # members that win alike against every member: the linear program puts their weight on one of them
            # (a vertex of the set of equilibria); it is split evenly, as no member of a group is to be preferred
            groups = gt.alike_groups(M)
            for grp in groups:
                x[grp] = x[grp].sum() / len(grp)
            if near is None:
                lp_alike[:] = [grp for grp in groups if x[grp].sum() > SUPPORT]
            return x
        if name == "nash":
            if near is None:
                in_set.clear()
                found[:] = gt.symmetric_nash(tab, K, P, sets=in_set)
                return found[0] if found else None
            # a resample: the equilibrium that continues the point estimate's (its support solved again), else
            # the first the search reaches from near it
            y = gt.nash_near(tab, K, P, near)
            return y if y is not None else np.full(K, np.nan)
        if name == "alpharank":
            return gt.alpharank(tab, K, P, alpha, m)
        if near is None:
            return gt.replicator(tab, K, P, settled=settled)
        # a resample starts near the point estimate (with every strategy present): fewer steps to its rest point
        return gt.replicator(tab, K, P, steps=1500, tol=1e-8, start=0.8 * near + 0.2 / K)

    fresh_tab = ({L: {i: float(v.mean()) for i, v in d.items()} for L, d in meta.fresh.items()}
                 if meta.fresh else None)
    # the fresh deals' resamples (their own stream: the in-sample resamples stay as they are)
    frng = np.random.default_rng([int(cfg.seed), 17, g])
    fidx = [frng.integers(0, meta.fresh_deals, meta.fresh_deals) for _ in range(B)] if meta.fresh else []
    fresh_boot = [{L: {i: float(v[idx].mean()) for i, v in d.items()} for L, d in meta.fresh.items()}
                  for idx in fidx]
    ev_tab = ({L: {i: float(v.mean()) for i, v in d.items()} for L, d in meta.events.items()}
              if meta.events else None)
    rng = np.random.default_rng([int(cfg.seed), 13, g])
    idxs = [rng.integers(0, meta.deals, meta.deals) for _ in range(B)]
    boot_tabs = [table(idx) for idx in idxs]
    boot_ev = ([{L: {i: float(v[idx].mean()) for i, v in d.items()} for L, d in meta.events.items()} for idx in idxs]
               if meta.events else [])
    for name in solvers:
        x = run(name, point_tab)
        if x is None:  # the search of supports found none (it may miss one: every game has one)
            meta.unsolved.append(name)
            continue
        reg, value = gt.regrets(point_tab, K, P, x)
        sol = {"name": name, "kind": NASH_SEARCH if name == "nash" and not lp else SOLVERS[name], "probs": x,
               "regret": reg, "value": value}
        if name == "replicator":
            sol["settled"] = settled[-1]
        if name == "nash" and not lp:
            sol["others"] = [y for y in found[1:]]
            sol["set"] = bool(in_set[0])
        if name == "nash" and lp and lp_alike:
            sol["set"], sol["alike"] = True, [list(grp) for grp in lp_alike]
        if B:
            # a point of a set of equilibria: a resample's nearest equilibrium is that point again, an
            # interval of no width that would say nothing of the set: none is given
            bx = np.array([run(name, t, x) for t in boot_tabs]) if not sol.get("set") else np.full((B, K), np.nan)
            br = np.array([gt.regrets(t, K, P, x)[0] for t in boot_tabs])
            if np.isnan(bx).any() and not sol.get("set"):  # resamples where the search found none: left out
                sol["boot_missed"] = int(np.isnan(bx).any(axis=1).sum())
            if not sol.get("set") and sol.get("boot_missed", 0) < len(bx):
                sol["lo"], sol["hi"] = np.nanpercentile(bx, 2.5, axis=0), np.nanpercentile(bx, 97.5, axis=0)
            sol["regret_lo"], sol["regret_hi"] = np.percentile(br, 2.5, axis=0), np.percentile(br, 97.5, axis=0)
        if fresh_tab is not None:
            # the regrets of the equilibrium found, on deals that played no part in finding it
            sol["fresh_regret"] = gt.regrets(fresh_tab, K, P, x)[0]
            if B:
                fr = np.array([gt.regrets(t, K, P, x)[0] for t in fresh_boot])
                sol["fresh_regret_lo"], sol["fresh_regret_hi"] = np.percentile(fr, 2.5, axis=0), np.percentile(
                    fr, 97.5, axis=0)
                # the member that gains most is picked among K: its claim to gain holds only where the lower
                # bound corrected for that pick (Bonferroni over the K members) stays above 0
                sol["fresh_regret_lo_k"] = np.percentile(fr, 2.5 / K, axis=0)
        if ev_tab is not None:
            sol["event"] = gt.field_payoffs(ev_tab, K, P, x)
            if B:
                be = np.array([gt.field_payoffs(t, K, P, x) for t in boot_ev])
                sol["event_lo"], sol["event_hi"] = np.percentile(be, 2.5, axis=0), np.percentile(be, 97.5, axis=0)
        meta.solutions.append(sol)


# ------------------------------------------------------------------------------------------ answer
def _ival(sol, key, i):
    lo, hi = sol.get(key + "_lo" if key != "probs" else "lo"), sol.get(key + "_hi" if key != "probs" else "hi")
    x = sol[key][i]
    if lo is None:
        return pct(x)
    return f"{pct(x)} {pct_span(lo[i], hi[i])}"


def analyse(cfg: Config, tables: dict[str, pl.DataFrame], runs: list[CellRun], state) -> Result:
    spec: SearchSpec = cfg.report.search
    event = cfg.report.event
    sentences, eq_rows, race_table, path_rows, meta_rows, reg_rows = [], [], [], [], [], []
    keys = [p.key for p in spec.params]
    for st in state:
        cell = st["cell"]
        base = {a: cell.axes[a] for a in cfg.axes}
        desc = describe_group(cfg.axes, tuple(base.values()))
        group = {"players": cell.players, **{f"rules.{k}": v for k, v in cell.rules.as_dict().items()}}
        fair = 1.0 / cell.players
        for role, found in st["tuned"]:
            r = found.race
            # the settings the race kept beside the best: the deals could not tell them from it
            kept = [setting_label(found.settings[found.raced[j]]) for j in r.survivors if j != r.best]
            sentences.append((f"{desc}: " if desc else "") + f"{role} tuned first: {setting_label(found.best)} (best "
                             f"response to tables of each other member, win share {pct(r.means[r.best])} "
                             f"{pct_span(r.lo[r.best], r.hi[r.best])} over {r.deals[r.best]:,} deals; "
                             f"{len(found.raced)} setting{'s' if len(found.raced) > 1 else ''} raced, {found.games:,} games"
                             + (f"; not clearly better than {join_values(kept)}, which the race kept beside it"
                                if kept else "") + ")")
            race_table += [{**row, "step": "tune", "field": "other members"} for row in
                           race_rows(base, found, "win_share", fair)]
        fixed = []
        for k, path in enumerate(st["paths"]):
            for step, (field, found) in enumerate(zip(path.fields, path.found)):
                flabel = setting_label(field)
                alive = [setting_label(found.settings[found.raced[i]]) for i in found.race.survivors]
                path_rows.append({**base, "path": k, "start": setting_label(path.start), "step": step, "field": flabel,
                                  **{f"field.{kk.partition('.')[2]}": v for kk, v in field.items()},
                                  "best_response": setting_label(found.best), "tied": ", ".join(alive),
                                  "fixed": field == path.fixed, "games": found.games})
                race_table += [{**row, "path": k, "step": step, "field": flabel,
                                **{f"field.{kk.partition('.')[2]}": v for kk, v in field.items()}}
                               for row in race_rows(base, found, "win_share", fair)]
            if path.fixed is not None and path.fixed not in [f for f, _ in fixed]:
                fixed.append((path.fixed, path))
        if st["paths"]:
            sentences += _family_sentences(cfg, cell, desc, st["paths"], fixed, fair, st.get("confirmed", {}))
            for n, (f, path) in enumerate(fixed):
                found = path.found[-1]
                alive = [setting_label(found.settings[found.raced[i]]) for i in found.race.survivors]
                eq_rows.append({**group, "solution": f"fixed point {n + 1}", "kind": "symmetric fixed point",
                                "strategy": with_params(cell.agents[0], split(f)["focus"]).spec(),
                                **{k: f[k] for k in keys}, "probability": 1.0, "ci_low": 1.0, "ci_high": 1.0,
                                "tied": ", ".join(alive), "starts": ", ".join(setting_label(p.start) for p in
                                                                             st["paths"] if p.fixed == f),
                                **_fresh_columns(st.get("confirmed", {}).get(setting_label(f)),
                                                 _fixed_fair(path, f, cell.players))})
        meta = st["meta"]
        if meta is not None:
            sentences += _meta_sentences(desc, meta, event, fair)
            if meta.settings is not None:  # a solution's weight on a setting at the edge of the grid
                # each with its weight in every solution that gives it one (alpha-rank gives every member some: a
                # setting at the edge with 0.3% of it says little)
                edges: dict[str, tuple[str, list[str]]] = {}
                for sol in meta.solutions:
                    for i in range(len(meta.labels)):
                        e = edge_text(spec.params, meta.settings[i], cell) if sol["probs"][i] > SUPPORT else ""
                        if e:
                            edges.setdefault(meta.labels[i], (e[2:], []))[1].append(
                                f"{sol['kind']} {pct(sol['probs'][i])}")
                if edges:
                    sentences.append((f"{desc}: " if desc else "") + "in the meta-game's solutions, " + "; ".join(
                        e.replace(" is at the edge", f" ({', '.join(w)}) is at the edge", 1) for e, w in edges.values()))
            for sol in meta.solutions:
                for i, label in enumerate(meta.labels):
                    support = sol["probs"][i] > SUPPORT  # as the sentence names it (the bootstrap's interval aside)
                    row = {**group, "solution": sol["name"], "kind": sol["kind"], "strategy": meta.agents[i].spec()}
                    if meta.settings is not None:
                        row.update({k: meta.settings[i][k] for k in keys})
                    elif spec.params:
                        for p in spec.params:
                            if p.role == meta.agents[i].name:
                                row[p.key] = meta.agents[i].params()[p.name]
                    row.update({"probability": float(sol["probs"][i]),
                                "ci_low": float(sol["lo"][i]) if "lo" in sol else None,
                                "ci_high": float(sol["hi"][i]) if "hi" in sol else None,
                                "regret": float(sol["regret"][i]),
                                "regret_lo": float(sol["regret_lo"][i]) if "regret_lo" in sol else None,
                                "regret_hi": float(sol["regret_hi"][i]) if "regret_hi" in sol else None})
                    if "fresh_regret" in sol:
                        row.update({k: float(sol[k][i]) if k in sol else None
                                    for k in ("fresh_regret", "fresh_regret_lo", "fresh_regret_hi")})
                    if "event" in sol:
                        row.update({f"{event}_share": float(sol["event"][i]),
                                    f"{event}_lo": float(sol["event_lo"][i]) if "event_lo" in sol else None,
                                    f"{event}_hi": float(sol["event_hi"][i]) if "event_hi" in sol else None})
                    reg_rows.append({**row, "in_support": bool(support)})
                    if support:
                        eq_rows.append(row)
            for L in meta.lineups:
                for i, v in meta.pay[L].items():
                    mean = float(v.mean())
                    # Wilson's with the deals' effective games; a lineup of one member in every seat wins the
                    # average seat's share by symmetry, no estimate (as the cells table has it)
                    lo, hi = (mean, mean) if len(set(L)) == 1 else deal_share_interval(mean, v)
                    meta_rows.append({**base, "players": cell.players, "lineup": " / ".join(meta.labels[j] for j in L),
                                      "strategy": meta.labels[i], "against": _against(meta, L, i),
                                      "win_share": mean, "lo": lo, "hi": hi, "deals": int(v.size)})
    # the meta-games' members by their labels (a tuned member, a setting of a family), for the Strategies table
    made = {a.spec(): lab for st in state if st["meta"] is not None
            for a, lab in zip(st["meta"].agents, st["meta"].labels) if a is not None}
    return Result(sentences, None, None, {"equilibrium": frame(eq_rows), "race": frame(race_table),
                                          "path": frame(path_rows), "metagame": frame(meta_rows),
                                          "regrets": frame(reg_rows)},
                  headline=_headline(sentences), labels=made)


def _own_index(found, f: dict[str, Any]) -> int:
    """The race index of setting ``f`` in the race ``found`` (a fixed point in its last race)."""
    return next(i for i, j in enumerate(found.raced) if found.settings[j] == f)


def _fixed_fair(path: Path, f: dict[str, Any], players: int) -> float:
    """The fair win share at a table of the fixed point ``f`` that ``path`` reached: the average seat's."""
    return fair_of(path.found[-1], _own_index(path.found[-1], f), players)


def _fresh_fails(c: dict[str, Any], fair: float) -> bool:
    """Whether a fixed point's confirmation (search.confirm) finds a deviation that gains against it on the
    fresh deals: its interval lies above the fair share."""
    lo, _ = clip_interval(c["ci"][1], c["ci"][2], metric_range("win_share"))
    return not c["alike"] and lo is not None and lo > fair + GAIN


def _fresh_columns(c: dict[str, Any] | None, fair: float) -> dict[str, Any]:
    """A fixed point's confirmation (search.confirm) as columns of its row: the best measured deviation and
    its win share against a table of the fixed point on the fresh deals, with its 95% interval, and
    whether the fixed point holds up there (no deviation gains clearly)."""
    if c is None:
        return {}
    m, lo, hi = c["ci"]
    lo, hi = clip_interval(lo, hi, metric_range("win_share"))
    return {"fresh_deviation": setting_label(c["setting"]), "fresh_win_share": float(m),
            "fresh_lo": None if lo is None else float(lo), "fresh_hi": None if hi is None else float(hi),
            "fresh_deals": int(c["deals"]), "fresh_holds": not _fresh_fails(c, fair)}


def _headline(sentences: list[str]) -> list[str] | None:
    """What leads the report: every group's equilibria (a family's fixed points; a meta-game's solutions,
    their support only), not the first sentence alone; None when the answer is short anyway."""
    if len(sentences) <= 3:
        return None
    out = []
    for text in sentences:
        if " of the meta-game of " in text:
            head = text.split("; regret against it")[0].split("; the most")[0]
            notes = []
            exploited = re.search(r"\(([^()]+?) gains against it on deals it was not found on", text)
            if exploited:  # the fresh deals' verdict leads: a mix a member beats is no answer to "unexploitable"
                who = exploited.group(1)
                fig = re.search(r"the largest first: " + re.escape(who) + r" ([+-][\d.]+%) (\[[^\]]+\])", text)
                notes.append(f"{who} gains " + (f"{fig.group(1)} {fig.group(2)} " if fig else "")
                             + "against it on fresh deals: a member can exploit it")
            several = re.search(r"one of (\d+) symmetric equilibria its search found", text)
            if several:  # the mix shown is one of several: the headline says so, as the answer does
                notes.append(f"one of the {several.group(1)} equilibria its search found")
            if "one point of a set of equilibria" in text:  # its shares are one choice among many
                notes.append("one point of a set of equilibria")
            if "pin the mix down" in text:  # some intervals run (nearly) from 0% to 100%: say so where it leads
                exact = re.search(r"on resampled deals [^:;(]* range[s]? from 0% to 100% of it", text)
                notes.append(f"some intervals from {'' if exact else 'nearly '}0% to 100%: "
                             + ("the resamples land on different equilibria, or "
                                if "the resamples land on different equilibria" in text else "")
                             + "the deals do not pin this mix down")
            out.append(head + (f" ({'; '.join(notes)}; see the answer in full)" if notes else ""))
        elif "symmetric equilibrium" in text.split(":")[0] or text.startswith("symmetric equilibrium"):
            out.append(text)
    return out or None


def _against(meta: MetaGame, L: tuple[int, ...], i: int) -> str | None:
    """The other strategy when a lineup is one strategy against copies of another (for the heatmap)."""
    rest = list(L)
    rest.remove(i)
    return meta.labels[rest[0]] if len(set(rest)) == 1 else None


def _unfinished_text(p: Path, fixed: list[tuple[dict[str, Any], Any]]) -> str:
    """A path whose steps ran out: its fields and its last best response (the field it would take next),
    which may be a fixed point another path found (it read "no fixed point in 8 steps" for a path whose
    last step led to one)."""
    last = p.found[-1].best if p.found else None
    reached = next((f for f, _ in fixed if last is not None and f == last), None)
    # a path that ran out of steps already ends with its last best response (``search`` appends it)
    chain = " -> ".join(setting_label(f) for f in p.fields + (
        [last] if last is not None and (not p.fields or p.fields[-1] != last) else []))
    if reached is not None:
        return (f"no fixed point in its {len(p.found)} step{'' if len(p.found) == 1 else 's'}, its last best "
                f"response being the fixed point "
                f"{setting_label(reached)} ({chain})")
    return f"no fixed point in {len(p.found)} step{'' if len(p.found) == 1 else 's'} ({chain})"


def _family_sentences(cfg, cell, desc, paths, fixed, fair, confirmed=None) -> list[str]:
    out = []
    head = "symmetric equilibrium" + (f" for {desc}" if desc else "")
    if fixed:
        parts = []
        held, failed = [], []  # the fixed points the fresh deals bear out, and those they do not
        beaten: dict[str, str] = {}  # a failed one: the deviation that gains against it on the fresh deals
        for f, path in fixed:
            starts = [setting_label(p.start) for p in paths if p.fixed == f]
            # paths that ran out of steps with this fixed point as their last best response lead to it too
            late = [setting_label(p.start) for p in paths if p.end == "steps" and p.found and p.found[-1].best == f]
            found = path.found[-1]
            r = found.race
            k = r.best
            own = _own_index(found, f)
            fair = fair_of(found, own, cell.players)  # a table of the fixed point: the average seat's share
            text = (f"{setting_label(f)} (reached from {join_values(starts)}"
                    + (f", and from {join_values(late)} at {'its' if len(late) == 1 else 'their'} last step"
                       if late else "") + "; against a table of it no setting does clearly better")
            if own == k:  # against a table of itself it wins the fair share by symmetry, every other setting less
                text += f": every other setting measured below its fair share {pct(fair)})"
            else:
                # the best measured of many settings is the luckiest too: its own interval against the fair
                # share is no test; the race's paired test against the fixed point, corrected for the number
                # of settings and rounds, is the one that keeps it
                vs = r.versus_best[own]  # the fixed point less the best; shown as the best's gain

                def gain(key):
                    return None if vs[key] is None else -vs[key]
                weak = weak_text(vs)
                if weak and not (confirmed or {}).get(setting_label(f)):
                    weak += ", and search.confirm would play the deviation again on fresh deals"
                text += (f": the best measured, {setting_label(found.best)}, wins {pct(r.means[k])} against "
                         f"{pct(r.means[own])} for it (fair {pct(fair)}), a paired difference of "
                         f"{pct(gain('diff'), True)} {pct_span(gain('hi'), gain('lo'), True)} over "
                         f"{vs['n']:,} deals "
                         f"that the race's test, corrected for picking among {len(found.raced)} settings, "
                         f"does not call clear{weak})")
            c = (confirmed or {}).get(setting_label(f))
            if c is not None:
                m, lo, hi = c["ci"]
                lo, hi = clip_interval(lo, hi, metric_range("win_share"))
                figure = (f"{pct(m)} on every one of them" if c["alike"] else
                          f"{pct(m)} {pct_span(lo, hi, refs=(fair,))}")
                gains = _fresh_fails(c, fair)
                (failed if gains else held).append(setting_label(f))
                if gains:
                    beaten[setting_label(f)] = (f"{setting_label(c['setting'])} wins {figure} against a table of it "
                                                f"there (fair {pct(fair)})")
                text = text[:-1] + (f"; on {c['deals']:,} fresh deals, numbered from {c['first']:,} (none of them "
                                    f"helped find it), the best measured deviation, {setting_label(c['setting'])}, "
                                    f"wins {figure} against a table of it (fair {pct(fair)})"
                                    + (": it gains there, its interval above the fair share, so the fixed point "
                                       "does not hold up on these deals)" if gains else ")"))
            parts.append((setting_label(f) in failed, text + edge_text(cfg.report.search.params, f, cell)))
        # the fixed points that hold up (or were not played again) first, those the fresh deals refute after
        parts = [t for _, t in sorted(parts, key=lambda x: x[0])]
        if held or failed:  # said first: which fixed points hold up on the fresh deals, before the detail
            if held:
                bits = [f"{join_values(held)} hold{'s' if len(held) == 1 else ''} up on the fresh deals"] + (
                    [f"{join_values(failed)} do{'es' if len(failed) == 1 else ''} not"] if failed else [])
            elif len(failed) == len(fixed):  # what was found is no equilibrium on deals that did not find it
                # (iterated best response's: a meta-game's Nash of the same group may be one, and hold up)
                head += " by iterated best response: none that holds up on the fresh deals"
                bits = ([f"its one fixed point, {failed[0]}, does not: {beaten[failed[0]]}"] if len(failed) == 1
                        else [f"none of its fixed points does: {join_values(failed)} do not"])
            else:  # some were not played again
                bits = [f"{join_values(failed)} do{'es' if len(failed) == 1 else ''} not hold up on the fresh deals"]
            head += " (" + "; ".join(bits) + ")"
        head += ": " + "; ".join(parts)
    elif all(p.end == "cycle" for p in paths):  # (each path met a field it had played: more steps change nothing)
        head += (" by iterated best response: no fixed point, every path " if len(paths) > 1 else
                 " by iterated best response: no fixed point, its path ") + "ends in a cycle"
    else:
        head += " by iterated best response: no fixed point within the steps"
    others = [p for p in paths if p.end != "fixed"]
    if others:
        head += "; " + "; ".join(f"from {setting_label(p.start)}: " + (
            "a cycle (" + " -> ".join(setting_label(f) for f in p.fields) + ")" if p.end == "cycle"
            else _unfinished_text(p, fixed)) for p in others)
    out.append(head)
    ref = paths[0]
    found = ref.found[0]
    r = found.race
    k = r.best
    games = sum(f.games for p in paths for f in p.found)
    fair = fair_of(found, k, cell.players)  # the best response's lineups: the average seat's share
    # the field's own value against the field is a table of one strategy: the fair share by symmetry
    itself = found.best == ref.fields[0]
    # the first path starts from the config's field only when that field is a setting of the grid
    field, focus = cell.agents[-1], cell.agents[0]
    own = {k: field.params().get(k.partition(".")[2]) for k in ref.start} if type(field) is type(focus) else None
    if own == ref.start:
        against = f"the field {field.spec()}"
    else:
        against = (f"a field of {setting_label(ref.start)} (the first start: the config's field {field.spec()} "
                   + ("is not a setting of the grid" if own is not None else "is not of the focus's family") + ")")
    out.append((f"{desc}: " if desc else "") + f"best response to {against}: "
               f"{setting_label(found.best)}"
               + (" (the field's own value: every other setting measured below it, and against itself it wins "
                  f"the fair share {pct(fair)} by symmetry)" if itself else
                  ", " + _share_against_fair(r.means[k], r.lo[k], r.hi[k], r.deals[k], fair)
                  + _kept_field(ref, found, r.lo[k], fair))
               + edge_text(cfg.report.search.params, found.best, cell)
               + "; paths: "
               + "; ".join(" -> ".join(setting_label(f) for f in p.fields) for p in paths)
               + f"; {games:,} games")
    return out


def _share_against_fair(x: float, lo: float, hi: float, deals: int, fair: float) -> str:
    """A best response's win share with its interval and the fair share it is judged against, the bounds with
    the decimals that tell them from it: ``34.2% [33.34%, 35.1%] over 3,000 deals (fair 33.3%)``, where
    ``[33.3%, 35.1%]`` beside "lies above the fair share" read as touching it."""
    return f"win share {pct(x)} {pct_span(lo, hi, refs=(fair,))} over {deals:,} deals (fair {pct(fair)})"


def _kept_field(path: Path, found, lo: float | None = None, fair: float | None = None) -> str:
    """Where the race against the field kept the field's own value beside the best measured response, the
    path stays there (a fixed point at once): said, or the best response would read as a move away from it.
    Where the best's own interval (``lo`` its low end) lies above the fair share, which the field's own value
    wins by symmetry, that is said too: the interval alone reads as clearly better (Sen, 5 players, penalty
    15: wake=8 at 20.8% [20.2%, 21.4%] against the fair 20.0%)."""
    own = path.fields[0] if path.fields else None
    kept = [found.settings[found.raced[j]] for j in found.race.survivors]
    if own is None or own == found.best or own not in kept:
        return ""
    alone = ""
    if lo is not None and fair is not None and lo > fair:
        alone = (f" (the best's own interval lies above the fair share, but taken alone it is not corrected for "
                 f"being the best of {len(found.raced)})")
    return (f"; not clearly better than the field's own value {setting_label(own)}, which the race's test, "
            f"corrected for picking among {len(found.raced)} settings, keeps{alone}: the path stays there")


#: members outside an equilibrium's support named with their regret in its sentence (the rest are counted)
SHOWN = 6
#: a member is in a solution's support with a probability above this (the solvers' rounding is below it)
SUPPORT = 1e-6
#: a regret above this is a gain (a solution's own members have regrets of rounding size)
GAIN = 1e-9
#: a fresh regret below this (it prints as +0.0%) is not called a gain, whatever its interval
SMALL_GAIN = 0.0005
#: a member's share whose interval reaches within this of 0 and of 1 (0.0% and 100.0% as printed) is not
#: pinned down by the deals
LOOSE = 0.0005
#: nor is one whose interval spans this much of 0% to 100% or more (racer 100.0% [1.0%, 100.0%] in a
#: 2-player Senshi meta-game where counter, nearly tied with racer head to head, takes the mix on some
#: resamples of the deals: as loose as one from 0%, where a 0.5% lower end would not have been)
LOOSE_SPAN = 0.9


def _loose_ranges(meta: MetaGame, sol: dict, loose: list[int]) -> str:
    """``racer, counter each range from 0% to 100% of it``, or where an interval stops short of either end
    ``racer ranges from 1.0% to 100.0% of it, counter from 0.0% to 96.0%``."""
    if all(sol["lo"][i] <= LOOSE and sol["hi"][i] >= 1 - LOOSE for i in loose):
        return (f"{join_values(meta.labels[i] for i in loose)} {'ranges' if len(loose) == 1 else 'each range'} "
                "from 0% to 100% of it")
    spans = [f"{pct(sol['lo'][i])} to {pct(sol['hi'][i])}" for i in loose]
    return (f"{meta.labels[loose[0]]} ranges from {spans[0]} of it"
            + "".join(f", {meta.labels[i]} from {sp}" for i, sp in zip(loose[1:], spans[1:])))


def _meta_sentences(desc, meta: MetaGame, event, fair) -> list[str]:
    out = []
    for sol in meta.solutions:
        order = np.argsort(-sol["probs"])
        support = [i for i in order if sol["probs"][i] > SUPPORT]
        text = ((f"{desc}: " if desc else "") + f"{sol['kind']} of the meta-game of {len(meta.labels)} strategies "
                f"({len(meta.lineups)} lineups"
                + (f" in {meta.orders} orders round the table" if meta.orders > len(meta.lineups) else "")
                + f", {meta.deals:,} deals each, {meta.games:,} games"
                + (f", {meta.reused:,} of them played before, in the races above" if meta.reused else "") + "): "
                + ", ".join(f"{meta.labels[i]} {_ival(sol, 'probs', i)}" for i in support)
                + ("" if sol.get("settled", True) else " (the dynamics did not come to rest: this is where they "
                   "stood, after their 20,000 steps or slowed down at a corner that a member left out gains against, "
                   "not a rest point)"))
        # the members outside the support, the closest to gaining against it first (at most SHOWN of them)
        outside = [int(i) for i in np.argsort(-sol["regret"], kind="stable") if i not in support]
        if outside:
            text += "; regret against it (what a member outside it gains, the closest first) " + ", ".join(
                f"{meta.labels[i]} {pct(sol['regret'][i], True)}"
                + (f" {pct_span(sol['regret_lo'][i], sol['regret_hi'][i], True)}" if "regret_lo" in sol
                   else "") for i in outside[:SHOWN]) + (f" and {len(outside) - SHOWN} more" if len(outside) > SHOWN
                                                         else "")
        best_dev = int(np.argmax(sol["regret"]))
        if sol["regret"][best_dev] > 0.005:
            text += (f"; {meta.labels[best_dev]} gains {pct(sol['regret'][best_dev], True)} against it, so it is "
                     "not a Nash equilibrium of the estimated game")
        if "event" in sol:
            text += f"; {event} against a field drawn from it: " + ", ".join(
                f"{meta.labels[i]} {_ival(sol, 'event', i)}" for i in support)
        if sol.get("alike"):
            share = sum(float(sol["probs"][i]) for grp in sol["alike"] for i in grp)
            groups = [and_list(meta.labels[i] for i in grp) for grp in sol["alike"]]
            text += (f"; one point of a set of equilibria: {groups[0]} win alike against every member"
                     + "".join(f", as do {grp}" for grp in groups[1:]) + f", so any split of their {pct(share)} "
                     + ("among them" if len(groups) == 1 else "within each group") + " is an equilibrium too; the "
                     "shares shown split it evenly, with no interval")
        elif sol.get("set"):
            text += ("; one point of a set of equilibria (mixes along which no member gains: members that play "
                     "alike, or games without a winner), so its shares are one choice among many, with no interval")
        if sol.get("others"):
            others = sol["others"]
            text += (f"; one of {len(others) + 1} symmetric equilibria its search found (the first it found); the "
                     "others: " + "; ".join(
                         ", ".join(f"{meta.labels[i]} {pct(y[i])}" for i in np.argsort(-y) if y[i] > SUPPORT)
                         for y in others[:3]) + (f"; and {len(others) - 3} more" if len(others) > 3 else ""))
        loose = [i for i in support if "lo" in sol and sol["hi"][i] - sol["lo"][i] >= LOOSE_SPAN]
        if loose and sol.get("others"):  # the resamples may land on the other equilibria
            text += (f"; on resampled deals {_loose_ranges(meta, sol, loose)}: the resamples land on "
                     f"different equilibria of the {len(sol['others']) + 1} found, or {meta.deals:,} deals a lineup "
                     "are too few to pin the mix down (more deals a lineup, the config's games or --games, tell the "
                     "two apart)")
        elif loose:
            text += (f"; {meta.deals:,} deals a lineup do not pin the mix down: on resampled deals "
                     f"{_loose_ranges(meta, sol, loose)} (more deals a lineup, the config's games or --games, narrow "
                     "the intervals)")
        if sol.get("boot_missed"):
            text += (f"; its intervals leave out the {sol['boot_missed']} resamples of the deals where the search "
                     "found no equilibrium" if "lo" in sol else
                     "; no resample of the deals gave an equilibrium to the search, so it has no interval")
        if "fresh_regret" in sol:
            text += "; " + _fresh_text(meta, sol)
        out.append(text)
    for name in meta.unsolved:
        out.append((f"{desc}: " if desc else "") + f"{NASH_SEARCH} of the meta-game of {len(meta.labels)} strategies: "
                   f"none found from its {len(meta.labels) + 25} starts (every such game has one: the search "
                   "missed it; the other solutions stand)")
    return out


def _fresh_text(meta: MetaGame, sol: dict[str, Any]) -> str:
    """The confirmation's words: every member's regret against the equilibrium on the fresh deals (the
    largest first, at most SHOWN), with bootstrap intervals over those deals."""
    reg = sol["fresh_regret"]
    probs = sol.get("probs")
    # a pure equilibrium's own member gains nothing against a table of itself, by definition: left out
    order = [int(i) for i in np.argsort(-reg, kind="stable") if probs is None or probs[i] < 1 - SUPPORT]
    parts = [f"{meta.labels[i]} {pct(reg[i], True)}" + (
        f" {pct_span(sol['fresh_regret_lo'][i], sol['fresh_regret_hi'][i], True)}"
        if "fresh_regret_lo" in sol else "") for i in order[:SHOWN]]
    text = (f"on {meta.fresh_deals:,} fresh deals (numbered from {meta.fresh_first:,}: none of them helped find it; "
            f"{meta.fresh_games:,} games"
            + (f", {meta.reused_fresh:,} of them played before, in the fixed points' checks" if meta.reused_fresh else "")
            + "), each member's regret against it, the largest first: " + ", ".join(parts)
            + (f" and {len(order) - SHOWN} more" if len(order) > SHOWN else ""))
    top = order[0]
    if reg[top] < SMALL_GAIN:
        # a gain that prints as +0.0% is none to speak of: a member holding all but 4e-6 of alpha-rank's mix
        # "gained" 2e-7 against it, with an interval above 0 (the mix is that member, all but a trace)
        return text
    if "fresh_regret_lo_k" in sol and sol["fresh_regret_lo_k"][top] > GAIN:
        text += (f" ({meta.labels[top]} gains against it on deals it was not found on: its regret stays above 0 "
                 f"with Bonferroni's correction for picking it among the {len(order)} members)")
    elif "fresh_regret_lo_k" in sol and "fresh_regret_lo" in sol and sol["fresh_regret_lo"][top] > GAIN:
        # its own interval above 0, the corrected one not: no clear gain, and the sentence says why
        text += (f" ({meta.labels[top]}'s interval alone lies above 0, but not with Bonferroni's correction for "
                 f"picking it among the {len(order)} members: no clear gain)")
    return text


# ------------------------------------------------------------------------------------------ report
def figures(ctx: ReportContext) -> list:
    from .best_response import race_figure

    t = ctx.t
    out = [_support_figure(t.get("equilibrium")), _curves_figure(t.get("race"), ctx.gaxes),
           _path_figure(t.get("path"), ctx.gaxes, t.get("equilibrium")), _heatmaps(t.get("metagame"), ctx.gaxes)]
    race = t.get("race")
    if race is not None and race.height and "step" in race.columns and (race["step"].cast(pl.String) == "tune").any():
        out.append(race_figure(race.filter(pl.col("step").cast(pl.String) == "tune"), ctx.gaxes,
                               "Tuning", "each tuned member's settings against tables of the other members"))
    return out


def _with_panels(eq: pl.DataFrame) -> pl.DataFrame:
    """``eq`` with a column ``panel``: one per group (the player count and every rule option that differs
    between rows) and solution, e.g. ``2p penalty=15 nash``."""
    varying = [c for c in eq.columns if c.startswith("rules.") and eq[c].n_unique() > 1]
    return eq.with_columns(pl.concat_str([pl.col("players").cast(pl.String) + pl.lit("p")]
                                         + [pl.lit(c.split(".", 1)[1] + "=") + pl.col(c).cast(pl.String).fill_null("none")
                                            for c in varying]
                                         + [pl.col("solution")], separator=" ").alias("panel"))


def _support_figure(eq: pl.DataFrame | None):
    from reports import plots

    if eq is None or eq.height == 0:
        return None
    paths = (eq["kind"] == "symmetric fixed point").any()  # (a meta-game alone has no iteration paths)
    # the mixtures (a fixed point is one pure strategy: the paths show it); strategies of some weight
    eq = eq.filter((pl.col("kind") != "symmetric fixed point") & (pl.col("probability") >= 0.005))
    if eq.height == 0:
        return None
    eq = _with_panels(eq)
    panels = eq["panel"].unique(maintain_order=True).to_list()
    cols = min(3, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig, axs = plots.plt.subplots(rows, cols, figsize=(5.5 * cols, (1.2 + 0.3 * max(
        eq.group_by("panel").len()["len"].max(), 3)) * rows), squeeze=False)
    for ax, p in zip(axs.flat, panels):
        sub = eq.filter(pl.col("panel") == p).sort("probability")
        y = np.arange(sub.height)
        x = sub["probability"].to_numpy() * 100
        lo = sub["ci_low"].fill_null(np.nan).to_numpy() * 100
        hi = sub["ci_high"].fill_null(np.nan).to_numpy() * 100
        ax.barh(y, x, color="tab:blue", alpha=0.7)
        ax.errorbar(x, y, xerr=plots.error_lengths(x, lo, hi), fmt="none", ecolor="black", capsize=3)
        ax.set_yticks(y, [plots.lab(v) for v in sub["strategy"].to_list()], fontsize=7)
        ax.set_xlim(0, 100)
        ax.set_xticks(range(0, 101, 25))
        ax.set_xlabel("probability (%)")
        ax.set_title(p, fontsize=9)
    for ax in list(axs.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    return plots.Figure("Equilibrium support", "each equilibrium mixture's strategies (with at least 0.5%) and "
                        "their probabilities with bootstrap 95% intervals over deals"
                        + ("; the fixed points are in the iteration paths" if paths else ""), plots._encode(fig))


def _curves_figure(race: pl.DataFrame | None, gaxes: list[str]):
    """Best-response curves: the deviator's win share against each field value visited, the diagonal
    (deviator = field) marked."""
    from reports import plots

    if race is None or race.height == 0 or "field" not in race.columns or "path" not in race.columns:
        return None
    race = race.filter(pl.col("path").is_not_null())
    pcols = [c for c in race.columns if c.startswith("focus.")]
    if len(pcols) != 1 or not race[pcols[0]].dtype.is_numeric() or race.height == 0:
        return None
    x = pcols[0]
    fcol = "field." + x.partition(".")[2]
    df = plots.group_labels(race, gaxes).unique(subset=["group", "field", x], keep="first", maintain_order=True)
    groups = df["group"].unique(maintain_order=True).to_list()
    cols = min(4, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig, axs = plots.plt.subplots(rows, cols, figsize=(4.4 * cols, 3.4 * rows), squeeze=False)
    every = sorted(df[fcol].unique().to_list())  # one colour per field value in every panel, one legend
    colours = dict(zip(every, plots.sns.color_palette("viridis", len(every))))
    for ax, g in zip(axs.flat, groups):
        sub = df.filter(pl.col("group") == g)
        fields = sub[fcol].unique(maintain_order=True).to_list()
        for f in sorted(fields):
            color = colours[f]
            s = sub.filter(pl.col(fcol) == f).sort(x)
            xs = s[x].to_numpy().astype(float)
            y = s["value"].to_numpy() * 100
            ax.plot(xs, y, "-", color=color, linewidth=1, label=f"field {f:g}")
            ax.fill_between(xs, s["lo"].fill_null(np.nan).to_numpy() * 100, s["hi"].fill_null(np.nan).to_numpy() * 100,
                            color=color, alpha=0.12, linewidth=0)
            diag = s.filter(pl.col(x) == f)
            if diag.height:
                ax.plot([f], [diag["value"][0] * 100], "D", color=color, ms=6)
        ax.axhline(sub["fair_share"][0] * 100, color="grey", linestyle=":")
        ax.set_title("" if g == "all" else g, fontsize=9)  # (one group: no title to give)
        ax.set_xlabel(plots.short(x) + " of the deviator")
        ax.set_ylabel("deviator's win share (%)")
    for ax in list(axs.flat)[len(groups):]:
        ax.axis("off")
    fig.tight_layout()
    if len(every) > CURVES_LEGEND:
        # many field values: a legend of that many shades cannot be read; a colour bar of the field's value
        # can, one band per value visited, and each curve's diamond sits at its own field's value
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import BoundaryNorm, ListedColormap

        edges = np.arange(len(every) + 1) - 0.5
        # below the panels, where the legend would go (the saved figure's bounds take it in)
        cax = fig.add_axes((0.2, -0.35 / (3.4 * rows), 0.6, 0.1 / (3.4 * rows)))
        bar = fig.colorbar(ScalarMappable(BoundaryNorm(edges, len(every)), ListedColormap([colours[f] for f in every])),
                           cax=cax, orientation="horizontal")
        bar.set_ticks(range(len(every)), labels=[f"{f:g}" for f in every], fontsize=8)
        bar.ax.tick_params(length=0)
        bar.set_label(plots.short(x) + " of the field", fontsize=9)
        return plots.Figure("Best-response curves", "the win share of one deviating seat against a table playing "
                            "each field value visited by the iterations (its colour in the bar below), with 95% "
                            "intervals; a diamond marks the diagonal (deviator = field: the fair share), at the "
                            "curve's own field value", plots._encode(fig))
    seen = {}
    for ax in axs.flat:
        for h, n in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(n, h)
    order = sorted(seen, key=lambda n: float(n.split(" ", 1)[1]))
    fig.legend([seen[n] for n in order], order, loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncols=min(8, max(len(order), 1)), fontsize=8)
    return plots.Figure("Best-response curves", "the win share of one deviating seat against a table playing "
                        "each field value visited by the iterations, with 95% intervals; a diamond marks the "
                        "diagonal (deviator = field: the fair share)", plots._encode(fig))


#: the most field values the best-response curves name in a legend; more get a colour bar
CURVES_LEGEND = 8


def _failed_fixed(path: pl.DataFrame, eq: pl.DataFrame | None, fcol: str) -> pl.DataFrame:
    """``path`` with a column ``failed``: a fixed point that does not hold up on the fresh deals (a deviation
    gains against it there, as the answer says), from the equilibrium table's ``fresh_holds``."""
    vcol = "focus." + fcol.partition(".")[2]
    if eq is None or "fresh_holds" not in eq.columns or vcol not in eq.columns:
        return path.with_columns(pl.lit(False).alias("failed"))
    keys = [c for c in path.columns if c == "players" or c.startswith("rules.")]
    keys = [c for c in keys if c in eq.columns]
    bad = (eq.filter((pl.col("kind") == "symmetric fixed point") & (pl.col("fresh_holds") == False))  # noqa: E712
           .select(keys + [pl.col(vcol).cast(path[fcol].dtype).alias(fcol)]).unique()
           .with_columns(pl.lit(True).alias("failed")))
    return (path.join(bad, on=keys + [fcol], how="left", nulls_equal=True)
            .with_columns((pl.col("fixed") & pl.col("failed").fill_null(False)).alias("failed")))


def _path_figure(path: pl.DataFrame | None, gaxes: list[str], eq: pl.DataFrame | None = None,
                 unchecked: bool = False):
    """The iteration paths; ``unchecked``: a search that plays no fixed point again on fresh deals (a design
    over equilibria), which the caption says, as the same fixed point may fail that check elsewhere."""
    from matplotlib.ticker import MaxNLocator

    from reports import plots

    if path is None or path.height == 0:
        return None
    fcols = [c for c in path.columns if c.startswith("field.")]
    if len(fcols) != 1 or not path[fcols[0]].dtype.is_numeric():
        return None
    path = _failed_fixed(path, eq, fcols[0])
    df = plots.group_labels(path, gaxes)
    groups = df["group"].unique(maintain_order=True).to_list()
    cols = min(4, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig, axs = plots.plt.subplots(rows, cols, figsize=(4.2 * cols, 3 * rows), squeeze=False)
    for ax, g in zip(axs.flat, groups):
        sub = df.filter(pl.col("group") == g)
        for k in sub["path"].unique(maintain_order=True).to_list():
            s = sub.filter(pl.col("path") == k).sort("step")
            line, = ax.plot(s["step"].to_numpy(), s[fcols[0]].to_numpy(), "o-", label=f"from {s['start'][0]}")
            last = s.row(s.height - 1, named=True)
            nxt = _label_value(last.get("best_response"))
            if not last["fixed"] and nxt is not None and nxt != last[fcols[0]]:
                # no fixed point (a cycle, or the steps ran out): the last best response, the field the path
                # would take next
                ax.plot([last["step"], last["step"] + 1], [last[fcols[0]], nxt], "--", color=line.get_color())
                ax.plot([last["step"] + 1], [nxt], "o", mfc="none", color=line.get_color())
            fx = s.filter(pl.col("fixed") & ~pl.col("failed"))
            if fx.height:
                ax.plot(fx["step"].to_numpy(), fx[fcols[0]].to_numpy(), "*", ms=14, color="black")
            fx = s.filter(pl.col("failed"))
            if fx.height:  # a fixed point of the search's deals that a deviation beats on the fresh deals
                ax.plot(fx["step"].to_numpy(), fx[fcols[0]].to_numpy(), "*", ms=14, mfc="white", color="black")
        ax.set_title("" if g == "all" else g, fontsize=9)  # (one group: no title to give)
        ax.set_xlabel("best-response step")
        ax.set_ylabel(fcols[0].partition(".")[2] + " of the field")
        # steps are whole numbers, and so are the values of an integer parameter, even where a panel holds one
        # point (the default ticks would go by fractions)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        lo, hi = ax.get_xlim()
        if hi - lo < 0.5:  # one step (the start is a fixed point): autoscale gives it a tenth of a step
            mid = round((hi + lo) / 2)
            ax.set_xlim(mid - 0.5, mid + 0.5)
            ax.set_xticks([mid])  # the integer locator falls back to fractions where one whole number fits
        if np.all(np.mod(sub[fcols[0]].drop_nulls().to_numpy(), 1) == 0):
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            lo, hi = ax.get_ylim()
            if hi - lo < 2:
                mid = (hi + lo) / 2
                ax.set_ylim(mid - 1.5, mid + 1.5)
    for ax in list(axs.flat)[len(groups):]:
        ax.axis("off")
    fig.tight_layout()
    seen = {}
    for ax in axs.flat:
        for h, n in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(n, h)
    fig.legend(list(seen.values()), list(seen), loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncols=min(6, max(len(seen), 1)), fontsize=8)
    return plots.Figure("Iteration paths", "the field's value at each step of iterated best response, from each "
                        "start value; a star marks a fixed point (the field is its own best response)"
                        + ("; a hollow star, one that does not hold up on the fresh deals (a deviation gains "
                           "against it there)" if path["failed"].any() else "")
                        + (" (no fixed point here was played again on fresh deals, so none shows hollow: a config "
                           "whose answer is equilibrium, with confirm in its [search] table, checks them so)"
                           if unchecked else "") + "; a dashed end "
                        "to a hollow point, the last best response of a path that reached none (a cycle back to an "
                        "earlier value, or its steps ran out)",
                        plots._encode(fig))


def _label_value(label: Any) -> float | None:
    """The value of a one-parameter setting's label (``wake=8`` -> 8.0), else None."""
    try:
        return float(str(label).rsplit("=", 1)[1])
    except (IndexError, ValueError):
        return None


def _heatmaps(meta: pl.DataFrame | None, gaxes: list[str]):
    from matplotlib.colors import Normalize

    from reports import plots

    if meta is None or meta.height == 0:
        return None
    df = meta.filter(pl.col("against").is_not_null() | (pl.col("lineup") == pl.col("strategy")))
    df = plots.group_labels(df, [a for a in gaxes if a in df.columns] or ["players"])
    groups, left_out = plots.first_groups(df["group"].unique(maintain_order=True).to_list(), plots.MAX_PANELS)
    most = max(df.filter(pl.col("group") == g)["strategy"].n_unique() for g in groups)
    # a panel wide and tall enough for its cells and labels (up to a width a page shows whole), the colour
    # bar beside it; at most three panels a row
    width, height = min(max(5.5, 0.6 * most + 3.0), 9.0), min(max(4.6, 0.45 * most + 2.4), 8.0)
    cols = min(len(groups), 3)
    rows = -(-len(groups) // cols)
    fig, axs = plots.plt.subplots(rows, cols, figsize=(cols * width, rows * height), squeeze=False)
    for ax in axs.flat[len(groups):]:
        ax.set_visible(False)
    panels = []
    for g in groups:
        sub = df.filter(pl.col("group") == g)
        labels = sub["strategy"].unique(maintain_order=True).to_list()
        M = np.full((len(labels), len(labels)), np.nan)
        for row in sub.iter_rows(named=True):
            i = labels.index(row["strategy"])
            j = labels.index(row["against"]) if row["against"] is not None else i
            M[i, j] = row["win_share"] * 100
        panels.append((g, labels, M, 100.0 / sub["players"][0]))
    # one colour scale for every panel, as far from each panel's fair share on either side: a colour says the
    # same distance from the fair share whatever the player count
    spread = max((float(np.nanmax(np.abs(M - fair))) for _, _, M, fair in panels if np.isfinite(M).any()),
                 default=0.0) or 1.0
    for n, (ax, (g, labels, M, fair)) in enumerate(zip(axs.flat, panels)):
        # a linear scale from fair - spread to fair + spread (seaborn's centre would stretch each side of a
        # clipped range apart), its colour bar showing only the shares that can be, 0% to 100%
        norm = Normalize(fair - spread, fair + spread)
        plots.sns.heatmap(M, ax=ax, cmap="RdBu_r", norm=norm, annot=plots.annotations(M, 0) if len(labels) <= 8 else False,
                          fmt="",
                          xticklabels=labels, yticklabels=labels, cbar_kws={"label": "win share (%)"})
        ax.collections[0].colorbar.ax.set_ylim(max(0.0, fair - spread), min(100.0, fair + spread))
        plots.plt.setp(ax.get_yticklabels(), rotation=0)  # row labels level, however short
        ax.set_xlabel("against a table of")
        ax.set_ylabel("strategy" if n % cols == 0 else "")
        ax.set_title("" if g == "all" else g)
    fig.tight_layout()
    return plots.Figure("Meta-game payoffs", "win share of each strategy (row) alone against a table of another "
                        "(column), seats rotated; the diagonal is self-play (the fair share); white is each panel's fair "
                        "share, and a colour is the same distance from it in every panel" + left_out,
                        plots._encode(fig))


KIND = AnswerKind("equilibrium", "symmetric fixed points of a family, or the equilibria of a population's meta-game",
                  analyse, check=check, tables=("search",), needs_seats="strategies are played against each other", lineups=("focus", "population"), search=search,
                  figures=figures, keys={"event": "nothing unless answer is risk, turn_order or equilibrium"},
                  paired_plot=False)
