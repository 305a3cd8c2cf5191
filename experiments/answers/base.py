"""An answer kind: what a config's ``report.answer`` names, in one module each.

Each kind module (``experiments/answers/<kind>.py``) defines one :class:`AnswerKind`: the [report] keys it
owns and their validation, its analysis (the sentences and the tables it adds) and its report figures.
:mod:`experiments.answers` registers every kind in one place; config validation, the analysis and the
reports iterate that registry, so a new kind is one new module and one line there.
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable

import polars as pl

if TYPE_CHECKING:
    from ..config import Config, ReportSpec, _Checker
    from ..engine import CellRun


@dataclasses.dataclass
class CheckContext:
    """What a kind's validation sees: the [report] table as written, the checker that names file and key,
    the lineup kind (focus, seats, tournament, ...), the report parsed so far, the game and every cell."""
    table: dict[str, Any]
    ck: "_Checker"
    lineup: str
    report: "ReportSpec"
    eng: Any
    cells: list[Any]
    sprt: Any = None
    raw: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: report.over as given or defaulted (None for an answer without one)
    over: str | None = None


@dataclasses.dataclass
class Result:
    """What a kind's analysis returns: the answer sentences, its paired differences (``paired.parquet``),
    its estimates (``estimates.parquet``) and any further tables of its own (name -> DataFrame)."""
    answer: list[str]
    paired: pl.DataFrame | None = None
    estimates: pl.DataFrame | None = None
    tables: dict[str, pl.DataFrame] = dataclasses.field(default_factory=dict)
    #: the few sentences that lead the report (None: the answer's first sentences)
    headline: list[str] | None = None
    #: ``{full spec: label}`` of strategies the answer made that the config does not name (the members a
    #: population's search tuned), for the report's Strategies table
    labels: dict[str, str] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ReportContext:
    """What a kind's report figures read: the run's summary, its tables and the axes."""
    s: dict[str, Any]
    t: dict[str, pl.DataFrame]
    cells: pl.DataFrame
    axes: list[str]
    gaxes: list[str]
    over: str | None


@dataclasses.dataclass(frozen=True)
class AnswerKind:
    """One answer kind. Only ``name``, ``summary`` and ``analyse`` are required."""
    name: str
    #: one line for documentation and error messages
    summary: str
    #: (cfg, tables, runs) -> Result; tables are the generic ones (cells, seats, turns, scores, sprt, ratings)
    analyse: Callable[["Config", dict[str, pl.DataFrame], list["CellRun"]], Result]
    #: the answer is about one sweep axis (report.over; the only non-player axis by default)
    needs_over: bool = False
    #: report.over may be the player count (False where the answer's fair shares depend on it: each player
    #: count then gets its own sentences as a group axis)
    over_players: bool = True
    #: reads report.metric / report.goal (elsewhere either is an error, not silently ignored)
    uses_metric: bool = False
    uses_goal: bool = False
    #: needs one row per game (report.per_game = true)
    per_game: bool = False
    #: report.baseline: "required", "optional" (default: the first value of over) or None (not allowed)
    baseline: str | None = None
    #: keeps per-deal vectors for paired comparisons (True), or for intervals over deals where they are few
    #: enough (``"small"``: up to :data:`experiments.engine.SMALL_VECTORS` deals of all cells; beyond, the
    #: intervals are over games, so that a run of any size keeps flat memory)
    vectors: bool | str = False
    #: [report] keys of this kind -> what another kind's config is told when it has one
    keys: dict[str, str] = dataclasses.field(default_factory=dict)
    #: (CheckContext) -> None: checks that need only the lineup and [sprt] (before report.over is read)
    precheck: Callable[[CheckContext], None] | None = None
    #: (CheckContext, metric) -> None: checks of report.metric
    check_metric: Callable[[CheckContext, str], None] | None = None
    #: (CheckContext) -> dict of ReportSpec fields: the kind's own keys, checked and parsed
    check: Callable[[CheckContext], dict[str, Any]] | None = None
    #: (ReportContext) -> figures drawn first (before the paired differences, ratings and SPRT plots)
    lead_figures: Callable[[ReportContext], list[Any]] | None = None
    #: (ReportContext) -> the compact answer table that follows the headline (a DataFrame of text), or None
    lead_table: Callable[[ReportContext], Any] | None = None
    #: (ReportContext) -> figures of the kind, after the generic ones
    figures: Callable[[ReportContext], list[Any]] | None = None
    #: draw the generic paired-differences plot when there are paired rows
    paired_plot: bool = True
    #: the distribution figures (turns, scores, seats, lead changes) by group axes (else by every axis)
    dist_by_group: bool = False
    #: (ReportContext) -> (cells, axes, with_scores) of the distribution figures; overrides dist_by_group
    dist: Callable[[ReportContext], tuple[pl.DataFrame, list[str], bool]] | None = None
    #: the balance table by group axes (else by every axis)
    balance_by_group: bool = False
    #: top-level tables of the config that belong to this kind (e.g. ``search``)
    tables: tuple[str, ...] = ()
    #: lineups of the config this kind accepts (None: any); checked before anything else of the kind
    lineups: tuple[str, ...] | None = None
    #: why the kind needs at least 2 players in every cell (None: it answers solo games too), e.g.
    #: "it compares seats"; a config with a solo cell is refused before anything runs
    needs_seats: str | None = None
    #: a kind that chooses its lineups as it goes: (cfg, Evaluator) -> state, then analyse(cfg, tables,
    #: runs, state); the config's cells are then the groups (one per combination of the sweep axes)
    search: Callable[["Config", Any], Any] | None = None
