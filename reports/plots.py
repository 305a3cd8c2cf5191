"""Plots for reports (seaborn on matplotlib's Agg backend), each returned as a base64 PNG.

Every function takes result tables (polars DataFrames read from a run folder) and returns a
:class:`Figure` or None when the tables hold nothing to draw. Nothing here plays games.
"""
from __future__ import annotations

import base64
import contextlib
import contextvars
import dataclasses
import io
import warnings

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import seaborn as sns  # noqa: E402

sns.set_theme(style="whitegrid", context="notebook")
# a label in a script the font lacks (a case named in Chinese, say) is drawn as boxes; matplotlib's warning for
# each glyph filled stderr with dozens of lines a reader cannot act on
warnings.filterwarnings("ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning)
MAX_HUES = 10
#: at most this many figures of one kind drawn one per group (a win matrix per player count and variant)
MAX_GROUP_FIGURES = 24
#: at most this many panels side by side in a figure of one panel per group
MAX_PANELS = 6

#: the short label of every strategy of the run being drawn (``summary.json``'s ``labels``)
_LABELS: contextvars.ContextVar[dict[str, str]] = contextvars.ContextVar("labels", default={})


@contextlib.contextmanager
def use_labels(labels: dict[str, str] | None):
    """Draw strategies (specs, and values of strategy axes) by their short labels inside the block."""
    token = _LABELS.set(dict(labels or {}))
    try:
        yield
    finally:
        _LABELS.reset(token)


def lab(v) -> str:
    """The short label of a strategy (see :func:`strategies.registry.spec_labels`), else the value as text."""
    if isinstance(v, bool):
        return "true" if v else "false"
    text = str(v)
    return _LABELS.get().get(text, text)


def legend_outside(ax, **kw):
    """A legend to the right of the axes, where it covers no data point; none for the single group "all"
    (a run without groups), which would name nothing."""
    handles, names = ax.get_legend_handles_labels()
    if not handles or names == ["all"]:
        return None
    kw.setdefault("fontsize", 8)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def first_groups(groups: list, limit: int, what: str = "groups") -> tuple[list, str]:
    """The first ``limit`` groups (or other series, ``what``) to draw, and a note for the caption naming
    those left out (empty when every one is drawn): a figure never drops a group without saying so."""
    shown, rest = list(groups[:limit]), list(groups[limit:])
    if not rest:
        return shown, ""
    names = "; ".join(lab(g) for g in rest[:8]) + ("; ..." if len(rest) > 8 else "")
    return shown, (f"; only the first {limit} {what} are drawn, {len(rest)} more are not: {names} (their "
                   "figures are in the tables)")


def annotations(data, decimals: int) -> np.ndarray:
    """A heatmap's cell texts, rounded as the sentences round (:func:`experiments.answers.common.rounded`:
    a share of 0.2015 reads 20.1 in both, where matplotlib's format gives 20.2); empty for a missing cell."""
    from experiments.answers.common import rounded

    values = np.asarray(data, dtype=float)
    out = np.full(values.shape, "", dtype=object)
    for i, v in np.ndenumerate(values):
        if np.isfinite(v):
            out[i] = f"{rounded(v, decimals):.{decimals}f}"
    return out


def rotate_labels(ax, angle: int = 35) -> None:
    """Slanted category labels, anchored at their tick so that they stay under it (and inside the figure)."""
    plt.setp(ax.get_xticklabels(), rotation=angle, ha="right", rotation_mode="anchor")


def error_lengths(v, lo, hi) -> list[np.ndarray]:
    """matplotlib's error-bar lengths below and above ``v`` for the interval [lo, hi]: never negative (a
    point estimate can fall outside a bootstrap interval of few deals: its bar then reaches the interval on
    one side only) and 0 where the interval is missing."""
    v, lo, hi = (np.asarray(a, dtype=float) for a in (v, lo, hi))
    return [np.maximum(np.nan_to_num(v - lo), 0.0), np.maximum(np.nan_to_num(hi - v), 0.0)]


def share_diff_bounds(paired: pl.DataFrame, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``lo`` and ``hi`` columns of paired differences times ``scale``; for a difference of shares
    (``scale`` 100, in points) clipped to [-100, +100], the range such a difference can take (a t interval
    over few deals may reach past it). Missing bounds are NaN."""
    lo = paired["lo"].fill_null(np.nan).to_numpy().astype(float) * scale
    hi = paired["hi"].fill_null(np.nan).to_numpy().astype(float) * scale
    if scale == 100:
        lo, hi = np.clip(lo, -100.0, 100.0), np.clip(hi, -100.0, 100.0)
    return lo, hi


def share_bounds(name: str, est: pl.DataFrame, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``lo`` and ``hi`` columns of estimates times ``scale``; for a share (a figure whose name says
    ``share``) clipped to [0, scale], the range a share can take (a t interval over few deals may reach
    past 100%). Missing bounds are NaN."""
    lo = est["lo"].fill_null(np.nan).to_numpy().astype(float) * scale
    hi = est["hi"].fill_null(np.nan).to_numpy().astype(float) * scale
    if "share" in name:
        lo, hi = np.clip(lo, 0.0, scale), np.clip(hi, 0.0, scale)
    return lo, hi


def _is_int_data(values: list[np.ndarray]) -> bool:
    vals = np.concatenate([np.asarray(v, dtype=float).ravel() for v in values]) if values else np.array([])
    vals = vals[np.isfinite(vals)]
    return vals.size > 0 and bool(np.all(vals == np.round(vals))) and float(np.ptp(vals)) >= 1


def integer_ticks(fig) -> None:
    """Axes whose data are whole numbers (an integer parameter, a count) get ticks at whole numbers only
    (matplotlib's default locator would put some at halves); axes with ticks of their own are left alone."""
    from matplotlib.ticker import AutoLocator, MaxNLocator

    for ax in fig.axes:
        for axis, pick in ((ax.xaxis, 0), (ax.yaxis, 1)):
            if type(axis.get_major_locator()) is not AutoLocator:
                continue
            data = [ln.get_xydata()[:, pick] for ln in ax.lines if len(ln.get_xydata())]
            data += [c.get_offsets()[:, pick] for c in ax.collections
                     if hasattr(c, "get_offsets") and len(c.get_offsets()) and type(c).__name__ == "PathCollection"]
            if _is_int_data(data):
                axis.set_major_locator(MaxNLocator(integer=True))


#: the smallest font a crowded axis's category labels shrink to (points)
MIN_LABEL_SIZE = 6.0


def _crowding(ax, axis: str, renderer) -> tuple[list, float, float] | None:
    """The visible tick labels of an axis with the room between neighbouring ticks (pixels) and the
    largest label's size across that room (its height when rotated from the line of the axis, else its
    length along it); None with fewer than two labels."""
    ticks = ax.get_xaxis().get_major_ticks() if axis == "x" else ax.get_yaxis().get_major_ticks()
    lo, hi = sorted(ax.get_xlim() if axis == "x" else ax.get_ylim())
    pairs = [(t.get_loc(), t.label1) for t in ticks
             if t.label1.get_visible() and t.label1.get_text() and lo - 1e-9 <= t.get_loc() <= hi + 1e-9]
    if len(pairs) < 2:
        return None
    k = 0 if axis == "x" else 1
    pos = np.sort([ax.transData.transform((v, 0) if axis == "x" else (0, v))[k] for v, _ in pairs])
    room = float(np.min(np.diff(pos)))
    labels = [t for _, t in pairs]
    sizes = [renderer.get_text_width_height_descent(t.get_text(), t.get_fontproperties(), ismath=False)
             for t in labels]
    rot = labels[0].get_rotation() % 180
    along = rot == 0 if axis == "x" else rot == 90
    need = max(w for w, _, _ in sizes) if along else max(h for _, h, _ in sizes) / max(
        abs(np.sin(np.radians(rot))) if axis == "x" else abs(np.cos(np.radians(rot))), 1e-6)
    return labels, room, float(need)


def _fits(got) -> bool:
    """Whether an axis's labels (``_crowding``'s labels, room and need) fit with a tenth to spare; True when
    there is nothing to measure."""
    return got is None or got[2] * 1.1 <= got[1]


def fit_tick_labels(fig) -> bool:
    """Category labels that would overlap their neighbours are slanted, then stood upright, then set in a
    smaller font (down to :data:`MIN_LABEL_SIZE`), on every axes of the figure: many strategies, pairings
    or sweep values on one axis stay readable. Returns whether anything changed (the caller lays the
    figure out again)."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    changed = False
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        for axis in ("x", "y"):
            got = _crowding(ax, axis, renderer)
            if _fits(got):
                continue
            if axis == "x":
                for angle in (35, 60, 90):  # slanted, steeper, upright: the room across a label grows
                    labels = got[0]
                    if labels[0].get_rotation() % 180 >= angle:
                        continue
                    plt.setp(labels, rotation=angle, ha="right" if angle < 90 else "center",
                             rotation_mode="anchor" if angle < 90 else "default",
                             va="top" if angle == 90 else labels[0].get_va())
                    changed = True
                    fig.draw_without_rendering()
                    got = _crowding(ax, axis, renderer)
                    if _fits(got):
                        break
            if not _fits(got):
                labels, room, need = got
                size = labels[0].get_fontsize()
                new = max(MIN_LABEL_SIZE, size * room / (need * 1.1))
                if new < size:
                    plt.setp(labels, fontsize=new)
                    changed = True
    if changed:
        fig.draw_without_rendering()
    return changed


@dataclasses.dataclass
class Figure:
    title: str
    caption: str
    png: str  # base64


def _axes_texts(ax) -> list:
    """The visible texts an axes draws around itself: its title, axis labels and tick labels."""
    if not ax.get_visible():
        return []
    texts = [ax.title, ax._left_title, ax._right_title]
    for axis in (ax.xaxis, ax.yaxis):
        if not ax.axison or not axis.get_visible():  # a panel turned off, a twin's shared axis
            continue
        texts.append(axis.label)
        for tick in axis._update_ticks():  # only the ticks drawn (within the view), on the sides drawn
            texts += [lab for lab in (tick.label1, tick.label2) if lab.get_visible()]
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def overlapping_texts(fig) -> list[tuple[str, str]]:
    """Pairs of texts of different axes of the figure (a colour bar is an axes of its own) that overprint
    one another: a label running into the next panel, say. Empty when the figure reads cleanly."""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    boxes = [(i, t.get_text(), t.get_window_extent(renderer)) for i, ax in enumerate(fig.axes)
             for t in _axes_texts(ax)]
    out = []
    for k, (i, text, box) in enumerate(boxes):
        for j, other, obox in boxes[k + 1:]:
            if i != j and box.overlaps(obox) and (min(box.x1, obox.x1) - max(box.x0, obox.x0)) > 1 and (
                    min(box.y1, obox.y1) - max(box.y0, obox.y0)) > 1:
                out.append((text, other))
    return out


def settle(fig) -> None:
    """A figure's last touches before it is drawn: whole-number ticks, category labels that fit, and the
    panels laid out again where their labels run into one another."""
    integer_ticks(fig)
    fit_tick_labels(fig)
    if len(fig.axes) > 1 and overlapping_texts(fig):
        fig.tight_layout()


def _encode(fig) -> str:
    settle(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def short(axis: str) -> str:
    """An axis as the sentences name it (:func:`experiments.answers.common.short`)."""
    from experiments.answers.common import short as said
    return said(axis)


def shown(df: pl.DataFrame, col: str) -> pl.Expr:
    """Column ``col`` as text, as the sentences show its values: a rule option's true/false as on/off."""
    if col in df.columns and df.schema[col] == pl.Boolean:
        return pl.when(pl.col(col)).then(pl.lit("on")).otherwise(pl.lit("off"))
    return pl.col(col).cast(pl.String).fill_null("none")   # a rule option's none (e.g. match_points)


def group_labels(cells: pl.DataFrame, axes: list[str]) -> pl.DataFrame:
    """cells with a ``group`` column naming the group of each cell ("all" when there are no axes)."""
    if not axes:
        return cells.with_columns(pl.lit("all").alias("group"))
    parts = []
    labels = _LABELS.get()
    for a in axes:
        col = shown(cells, a)
        if labels and a != "players":
            col = col.replace(labels)
        parts.append(col + pl.lit("p") if a == "players" else pl.lit(short(a) + " ") + col)
    return cells.with_columns(pl.concat_str(parts, separator=", ").alias("group"))


#: a distribution figure over more groups than this, with two or more sweep axes, draws one panel per value of
#: one axis (the player count where it is swept) and one colour per value of the others
PANEL_GROUPS = 6


def hue_panels(cells: pl.DataFrame, axes: list[str]) -> tuple[pl.DataFrame, list[str], list[str], str]:
    """How a distribution figure lays out its groups: ``(cells with columns group, panel and hue, the panels
    to draw, the hues to draw, a caption note naming what is left out)``. Few groups, or one axis: one panel
    ("") and one colour per group, the first :data:`MAX_HUES`; more groups over several axes: one panel per
    value of the player count (else the first axis), the first :data:`MAX_PANELS`, each with a colour per
    group of the other axes, so that every group is drawn where a single panel would hold too many lines."""
    df = group_labels(cells, axes)
    groups = df["group"].unique(maintain_order=True).to_list()
    if len(axes) < 2 or len(groups) <= PANEL_GROUPS:
        drawn, left_out = first_groups(groups, MAX_HUES)
        return df.with_columns(pl.lit("").alias("panel"), pl.col("group").alias("hue")), [""], drawn, left_out
    first = _panel_axis(axes)
    rest = [a for a in axes if a != first]
    df = df.with_columns(_panel_names(cells, first).alias("panel"), group_labels(cells, rest)["group"].alias("hue"))
    panels, out_p = first_groups(df["panel"].unique(maintain_order=True).to_list(), MAX_PANELS, "panels")
    hues, out_h = first_groups(df["hue"].unique(maintain_order=True).to_list(), MAX_HUES, "colours")
    return df, panels, hues, out_p + out_h


def _panel_names(cells: pl.DataFrame, first: str) -> pl.Series:
    """Each cell's panel, named by its value of the axis ``first`` (``4 players``, ``seat0 counter``)."""
    if first == "players":
        return cells.select(shown(cells, first) + pl.lit(" players")).to_series()
    return group_labels(cells, [first])["group"]


def _panel_axis(axes: list[str]) -> str:
    """The axis whose values are the panels of :func:`hue_panels`: the player count where it is swept."""
    return "players" if "players" in axes else axes[0]


def panel_grid(panels: list[str], width: float = 8.0, height: float = 4.0):
    """A figure of one axes per panel (two columns when there are several, axes shared) and the axes in
    the panels' order."""
    cols = 1 if len(panels) == 1 else 2
    rows = -(-len(panels) // cols)
    if cols == 1:
        fig, ax = plt.subplots(figsize=(width, height))
        return fig, [ax]
    fig, axs = plt.subplots(rows, cols, figsize=(width + 2, 0.75 * height * rows + 0.6), sharex=True, sharey=True,
                            squeeze=False)
    flat = list(axs.ravel())
    for ax in flat[len(panels):]:
        ax.set_visible(False)
    for ax, title in zip(flat, panels):
        ax.set_title(title, fontsize=10)
    return fig, flat[:len(panels)]


def panel_labels(axs: list, xlabel: str, ylabel: str) -> None:
    """Axis labels: on the axes of a single panel; for several, the x label under each column (with tick
    labels under every panel that has none below it), the y label on the first column of a single row, or
    once for the whole figure over several rows (a long label on each row ran into the next row's)."""
    if len(axs) == 1:
        axs[0].set_xlabel(xlabel)
        axs[0].set_ylabel(ylabel)
        return
    fig = axs[0].figure
    rows = axs[0].get_subplotspec().get_gridspec().nrows
    for ax in axs:
        spec = ax.get_subplotspec()
        below_hidden = not spec.is_last_row() and not any(
            o.get_visible() and o.get_subplotspec().colspan == spec.colspan
            and o.get_subplotspec().rowspan.start == spec.rowspan.stop for o in fig.axes)
        if below_hidden:
            ax.xaxis.set_tick_params(labelbottom=True)
        if spec.is_last_row() or below_hidden:  # under each column (a figure-wide label ran into the ticks)
            ax.set_xlabel(xlabel)
        if rows == 1 and spec.is_first_col():
            ax.set_ylabel(ylabel)
    if rows > 1:  # once for the figure: a long label on each row ran into the next row's
        fig.supylabel(ylabel, fontsize=11)


def panel_legend(axs: list) -> None:
    """One legend for every panel (the colours are the same in each), right of the first row."""
    seen: dict[str, object] = {}
    for ax in axs:
        for h, name in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(name, h)
    if seen:
        ax = axs[min(1, len(axs) - 1)]
        ax.legend(list(seen.values()), list(seen.keys()), loc="upper left", bbox_to_anchor=(1.01, 1.0),
                  borderaxespad=0.0, fontsize=8)


def panel_note(panels: list[str], cells: pl.DataFrame, axes: list[str]) -> str:
    """The caption's words on the panels (empty for a single one)."""
    if len(panels) < 2:
        return ""
    from experiments.answers.common import and_list

    first = _panel_axis(axes)
    return f"; one panel per {'player count' if first == 'players' else short(first)}, one colour per " + \
        and_list([short(a) for a in axes if a != first])


def _is_numeric(s: pl.Series) -> bool:
    return s.dtype.is_numeric()


def sweep_lines(cells: pl.DataFrame, over: str, group_axes: list[str], y: str, lo: str, hi: str,
                ylabel: str, fair: bool = False, percent: bool | None = None,
                names: dict[str, str] | None = None) -> Figure | None:
    """The metric against the swept parameter with its 95% intervals, one colour per group: a line with a
    band over a numeric parameter; points with error bars (no lines) over categories (strategies, named
    cases), in the config's order. A share (``percent``, by default with ``fair``, a win share) is drawn in
    percent, as the sentences give it. ``names``: words for values that mean something of their own
    (``{"-1": "never"}``), written beside those values' ticks ("-1 (never)"), every swept value then
    getting a tick."""
    if over not in cells.columns or y not in cells.columns or cells[y].null_count() == cells.height:
        return None
    numeric = _is_numeric(cells[over])
    df = group_labels(cells, group_axes)
    if numeric:
        df = df.sort(over, maintain_order=True)
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_HUES)
    cats = df[over].unique(maintain_order=True).to_list()
    fig, ax = plt.subplots(figsize=(8, 4.5) if numeric else (max(8, 0.6 * len(cats) + 3), 4.5))
    k = 100.0 if (fair if percent is None else percent) else 1.0
    palette = sns.color_palette("tab10", len(groups))
    width = 0.8 / max(len(groups), 1)
    for j, (color, g) in enumerate(zip(palette, groups)):
        sub = df.filter(pl.col("group") == g)
        yv = sub[y].fill_null(np.nan).to_numpy().astype(float) * k
        has_ci = lo in sub.columns and hi in sub.columns
        lov = sub[lo].fill_null(np.nan).to_numpy().astype(float) * k if has_ci else yv
        hiv = sub[hi].fill_null(np.nan).to_numpy().astype(float) * k if has_ci else yv
        if numeric:
            x = sub[over].to_numpy()
            ax.plot(x, yv, color=color, marker="o", label=g)
            if has_ci:
                ax.fill_between(x, lov, hiv, color=color, alpha=0.18, linewidth=0)
        else:
            x = np.array([cats.index(v) for v in sub[over].to_list()]) - 0.4 + width * (j + 0.5)
            ax.errorbar(x, yv, yerr=_yerr(yv, lov, hiv), fmt="o", color=color, label=g, capsize=3)
        if fair and "fair_share" in sub.columns:
            ax.axhline(sub["fair_share"][0] * k, color=color, linestyle=":", linewidth=1)
    if not numeric:
        ax.set_xticks(range(len(cats)), [lab(v) for v in cats])
        if len(cats) > 5 or max(len(lab(v)) for v in cats) > 8:
            rotate_labels(ax)
    named = [v for v in cats if str(v) in (names or {})] if numeric else []
    if named:  # (wake -1 on a numeric axis, with no word of what it means, read as a wake like the others)
        ax.set_xticks(cats, [f"{lab(v)} ({names[str(v)]})" if v in named else lab(v) for v in cats])
    ax.set_xlabel(short(over))
    ax.set_ylabel(ylabel + (" (%)" if k == 100.0 else ""))
    legend_outside(ax, title=", ".join(short(a) for a in group_axes) or None)
    cap = (f"{ylabel} by {short(over)}; " + ("bands" if numeric else "error bars") + " are 95% intervals"
           + ("; dotted lines: fair share 1/P" if fair else "")
           + "".join(f"; {short(over)} {lab(v)}: {names[str(v)]}" for v in named))
    return Figure(f"{ylabel} by {short(over)}", cap + left_out, _encode(fig))


def sweep_heatmap(cells: pl.DataFrame, over: str, group_axes: list[str], y: str, label: str,
                  percent: bool) -> Figure | None:
    """The metric over the swept parameter (rows) and the groups (columns)."""
    if not group_axes or over not in cells.columns or y not in cells.columns:
        return None
    df = group_labels(cells, group_axes)
    piv = df.select([over, "group", y]).pivot(on="group", index=over, values=y, aggregate_function="mean")
    if _is_numeric(piv[over]):
        piv = piv.sort(over)
    cols = [c for c in piv.columns if c != over]
    data = piv.select(cols).to_numpy().astype(float)
    if percent:
        data = data * 100
    fig, ax = plt.subplots(figsize=(min(2 + 1.1 * len(cols), 14), 0.45 * piv.height + 2))
    sns.heatmap(data, annot=annotations(data, 1), fmt="", cmap="viridis", ax=ax, xticklabels=cols,
                yticklabels=[lab(v) for v in piv[over].to_list()], cbar_kws={"label": label + (" (%)" if percent else "")})
    ax.grid(False)  # no style grid over the cells
    ax.set_ylabel(short(over))
    ax.set_xlabel(", ".join(short(a) for a in group_axes))
    rotate_labels(ax, 30)
    return Figure(f"{label}: every cell", f"{label} for each {short(over)} and group", _encode(fig))


#: the game-length figure's axis ends at this quantile of the games drawn when the longest game is more than
#: ``TAIL_STRETCH`` times as long (the games beyond it are counted in the caption)
TAIL_QUANTILE = 0.995
TAIL_STRETCH = 1.5
#: the game-length figure's turns go on a log scale when the 99.5th percentile is more than this many times
#: the median
LOG_TAIL = 8.0


def turn_limit_text(limit: tuple[int, int]) -> str:
    """``1,000 turns``; for a bin of several turns (games that span more than the histogram's bins of one
    turn), ``between 98,304 and 98,311 turns``."""
    lo, hi = limit
    return f"{lo:,} turns" if lo == hi else f"between {lo:,} and {hi:,} turns"


def finished_turns(turns: pl.DataFrame, cells: pl.DataFrame) -> tuple[pl.DataFrame, int, tuple[int, int] | None]:
    """The game-length histogram without the games stopped at the turn limit: each cell's ``timeouts``
    games (the cells table) are its longest ones (a stopped game has played the whole limit, a finished one
    no more), taken off the top of its histogram. Returns the histogram of finished games, the number of
    stopped games and the longest of them (the limit: the first and last turns of its bin where the games span
    more than the histogram's bins of one turn, see :func:`turn_limit_text`), or None when no game was stopped."""
    if "timeouts" not in cells.columns or turns.height == 0:
        return turns, 0, None
    stops = {int(c): int(n or 0) for c, n in zip(cells["cell"].to_list(), cells["timeouts"].to_list())}
    if not any(stops.values()):
        return turns, 0, None
    parts, stopped, limit = [], 0, None
    for (cell,), sub in turns.sort(["cell", "turns"]).group_by(["cell"], maintain_order=True):
        left = min(stops.get(int(cell), 0), int(sub["count"].sum()))
        if left:
            width = int(sub["width"].max()) if "width" in sub.columns else 1
            last = int(sub["turns"].max())
            limit = max(limit or (0, 0), (last, last + width - 1))
            stopped += left
            counts = sub["count"].to_numpy().copy()
            for i in range(len(counts) - 1, -1, -1):  # take the stopped games off the longest first
                take = min(left, int(counts[i]))
                counts[i] -= take
                left -= take
                if left == 0:
                    break
            sub = sub.with_columns(pl.Series("count", counts, dtype=sub["count"].dtype)).filter(pl.col("count") > 0)
        parts.append(sub)
    return pl.concat(parts) if parts else turns.clear(), stopped, limit


def turns_distribution(turns: pl.DataFrame, cells: pl.DataFrame, axes: list[str]) -> Figure | None:
    """Game length distribution per group (cells of a group pooled). Games stopped at the turn limit are
    left out of the histogram and counted in the caption: drawn at the limit (1,000 turns, say) they would
    stretch the axis so far that the games that finished would be squeezed into a sliver."""
    turns = turns.filter(pl.col("cell").is_in(cells["cell"].implode()))  # the cells drawn, and only those
    if turns.height == 0:
        return None
    turns, stopped, limit = finished_turns(turns, cells)
    note = ""
    if stopped:
        total = stopped + int(turns["count"].sum()) if turns.height else stopped
        note = (f"; {stopped:,} of the {total:,} games ({stopped / total:.1%}) stopped at the turn limit "
                f"({turn_limit_text(limit)}), not shown")
        if turns.height == 0:
            return None
    lay, panels, hues, left_out = hue_panels(cells, axes)
    df = turns.join(lay.select(["cell", "panel", "hue"]), on="cell")
    agg = df.group_by(["panel", "hue", "turns"]).agg(pl.col("count").sum()).sort("turns")
    # a long thin tail (a few games of many times the usual length) would squeeze the rest as the turn
    # limit did: the axis ends at the 99.5th percentile of the games drawn when the longest is far beyond it
    drawn = agg.filter(pl.col("panel").is_in(panels) & pl.col("hue").is_in(hues))
    t_all, c_all = drawn["turns"].to_numpy(), drawn["count"].to_numpy().astype(float)
    order = np.argsort(t_all, kind="stable")
    cum = np.cumsum(c_all[order]) / c_all.sum()
    edge = float(t_all[order][np.searchsorted(cum, TAIL_QUANTILE)])
    longest = float(t_all.max())
    right = edge * 1.05 if longest > TAIL_STRETCH * edge else None
    median = float(t_all[order][np.searchsorted(cum, 0.5)])
    # a long tail even below the 99.5th percentile (an equilibrium search's extreme settings play games many
    # times the usual length): turns on a log scale, with bins of equal width on it
    log = edge > LOG_TAIL * max(median, 1.0)
    # one bin width for every group: about 60 bins over the axis
    width = max(1, int(np.ceil(((right if right is not None else longest) - t_all.min() + 1) / 60)))
    edges = np.unique(np.floor(np.geomspace(max(1.0, float(t_all.min())), longest + 1, 61))) if log else None
    fig, axs = panel_grid(panels)
    colors = dict(zip(hues, sns.color_palette("tab10", len(hues))))
    for ax, pname in zip(axs, panels):
        for h in hues:
            sub = drawn.filter((pl.col("panel") == pname) & (pl.col("hue") == h))
            if sub.height == 0:
                continue
            t, c = sub["turns"].to_numpy(), sub["count"].to_numpy().astype(float)
            if log:
                hist, _ = np.histogram(np.maximum(t, edges[0]), bins=edges, weights=c)
                # the share per tenfold of turns: bins hold whole numbers of turns, so their widths on the log
                # scale differ at the low end, and a share per bin would jump with them
                ax.step(edges[:-1], hist / c.sum() / np.diff(np.log10(edges)), where="post", color=colors[h],
                        label=h)
                continue
            bins = (t // width) * width
            uniq, inv = np.unique(bins, return_inverse=True)
            dens = np.bincount(inv, weights=c) / c.sum() / width
            # the last bin drawn as wide as the others (a step ends at its last x: the longest games' bin, often
            # the commonest in Fan & Mallet, was a line of no width)
            ax.step(np.append(uniq, uniq[-1] + width), np.append(dens, dens[-1]), where="post", color=colors[h],
                    label=h)
    if log:
        from matplotlib.ticker import FuncFormatter

        for ax in axs:
            ax.set_xscale("log")
            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))  # 10, 100, 1,000 (not 10^1)
        note += (f"; turns on a log scale (a long tail: the 99.5th percentile, {edge:,.0f} turns, is "
                 f"{edge / max(median, 1.0):.0f} times the median, {median:,.0f})")
        right = None  # every game drawn: the log scale holds the tail
    if right is not None:
        beyond = int(c_all[t_all > right].sum())
        for ax in axs:
            ax.set_xlim(left=min(0.0, float(t_all.min())), right=right)
        note += (f"; the axis ends at {right:,.0f} turns: {beyond:,} of the {int(c_all.sum()):,} games drawn "
                 f"({beyond / c_all.sum():.1%}) were longer, up to {longest:,.0f} turns")
    for ax in axs:
        ax.set_ylim(bottom=0)
    panel_labels(axs, "turns per game (all players)" + (", log scale" if log else ""),
                 "share of games per tenfold of turns" if log else "share of games per turn")
    panel_legend(axs)
    note += panel_note(panels, cells, axes)
    return Figure("Game length", "distribution of the number of turns per game, cells of each group pooled"
                  + note + left_out, _encode(fig))


def score_histogram(scores: np.ndarray, counts: np.ndarray, bins: int = 40) -> tuple[np.ndarray, np.ndarray, float]:
    """A histogram of final scores (discrete values with their counts): ``(left edges, share of games per
    unit of score, bin width)``. Bins start at the lowest score played and are whole numbers wide for
    whole-number scores, so nothing is drawn below the lowest score (a kernel density would spill past
    the bounds of the game's scores)."""
    s = np.asarray(scores, dtype=float)
    c = np.asarray(counts, dtype=float)
    lo, hi = float(s.min()), float(s.max())
    integer = bool(np.all(s == np.round(s)))
    span = hi - lo + (1 if integer else 0)
    width = max(1.0, float(np.ceil(span / bins))) if integer else (span / bins if span > 0 else 1.0)
    idx = np.floor((s - lo) / width).astype(np.int64)
    if not integer:
        idx = np.minimum(idx, max(int(np.ceil(span / width)) - 1, 0))
    uniq, inv = np.unique(idx, return_inverse=True)
    share = np.bincount(inv, weights=c) / c.sum() / width
    return lo + uniq * width, share, width


def score_distribution(scores: pl.DataFrame, cells: pl.DataFrame, axes: list[str], who: str) -> Figure | None:
    """Final scores per group as step histograms (cells of each group pooled), from the lowest score played."""
    if scores.height == 0:
        return None
    lay, panels, hues, left_out = hue_panels(cells, axes)
    df = scores.filter(pl.col("who") == who).join(lay.select(["cell", "panel", "hue"]), on="cell")
    if df.height == 0:
        return None
    fig, axs = panel_grid(panels)
    colors = dict(zip(hues, sns.color_palette("tab10", len(hues))))
    lowest = None
    for ax, pname in zip(axs, panels):
        for h in hues:
            sub = (df.filter((pl.col("panel") == pname) & (pl.col("hue") == h)).group_by("score")
                   .agg(pl.col("count").sum()).sort("score"))
            if sub.height == 0 or float(sub["count"].sum()) <= 0:
                continue
            left, share, width = score_histogram(sub["score"].to_numpy(), sub["count"].to_numpy())
            xs = np.append(left, left[-1] + width)
            ax.step(xs, np.append(share, share[-1]), where="post", color=colors[h], label=h)
            lowest = left[0] if lowest is None else min(lowest, left[0])
    for ax in axs:
        if lowest is not None:
            ax.set_xlim(left=lowest)
        ax.set_ylim(bottom=0)
    panel_labels(axs, "final score" + (" of the focus seat" if who == "focus" else " (every seat)"),
                 "share of games per point")
    panel_legend(axs)
    left_out = panel_note(panels, cells, axes) + left_out
    return Figure("Final scores", "histogram of final scores" + (" of the focus seat" if who == "focus" else
                                                                  ", every seat") + ", cells of each group pooled "
                  "(from the lowest score played)" + left_out, _encode(fig))


def seat_shares(seats: pl.DataFrame, cells: pl.DataFrame, axes: list[str]) -> Figure | None:
    """Win share by table seat (whoever sits there), pooled over rotations and the cells of each group."""
    if seats.height == 0:
        return None
    g = group_labels(cells, axes).select(["cell", "group", "players"])
    df = seats.select(["cell", "seat", "games", "win_share"]).join(g, on="cell")
    df = df.filter(pl.col("win_share").is_not_null())  # solo games have no win
    if df.height == 0:
        return None
    agg = (df.group_by(["group", "seat"], maintain_order=True)
           .agg((pl.col("win_share") * pl.col("games")).sum().alias("w"), pl.col("games").sum().alias("n"),
                pl.col("players").first()))
    agg = agg.with_columns((100 * pl.col("w") / pl.col("n")).alias("share"))  # in percent, as the sentences
    every = agg["group"].unique(maintain_order=True).to_list()
    if len(every) > MAX_GROUP_FIGURES and len(axes) >= 2:
        # more groups than one row of bars holds: a row of bars per value of one axis (the player count where
        # it is swept), its bars the groups of the other axes, so that every group is drawn
        first = _panel_axis(axes)
        rest = [a for a in axes if a != first]
        key = group_labels(cells, axes).select(
            "group", _panel_names(cells, first).alias("panel"),
            group_labels(cells, rest)["group"].alias("bar")).unique(subset="group", keep="first")
        agg = agg.join(key, on="group", how="left")
        panels, left_out = first_groups(agg["panel"].unique(maintain_order=True).to_list(), MAX_PANELS, "panels")
        per = max(agg.group_by("panel").agg(pl.col("bar").n_unique())["bar"].max(), 1)
        fig, axs = plt.subplots(len(panels), 1, figsize=(max(8.0, 0.7 * per + 2), 3.2 * len(panels) + 0.8),
                                sharey=True, squeeze=False)
        axs = list(axs[:, 0])
        for ax, panel in zip(axs, panels):
            _seat_bars(ax, agg.filter(pl.col("panel") == panel), "bar")
            ax.set_title(panel, fontsize=10)
        panel_labels(axs, "", "win share of the seat (%)")
        legend_outside(axs[0], title="seat")
        for ax in axs[1:]:
            if ax.get_legend() is not None:
                ax.get_legend().remove()
        from experiments.answers.common import and_list

        left_out = (f"; one row per {'player count' if first == 'players' else short(first)}, along it the "
                    + and_list([short(a) for a in rest]) + left_out)
    else:
        # the groups are categories of the x axis (the colours are the seats): as many as a wider figure holds
        groups, left_out = first_groups(every, MAX_GROUP_FIGURES)
        agg = agg.filter(pl.col("group").is_in(groups))
        fig, ax = plt.subplots(figsize=(max(8.0, 0.7 * len(groups) + 2), 4))
        _seat_bars(ax, agg, "group")
        ax.set_ylabel("win share of the seat (%)")
        legend_outside(ax, title="seat")
    return Figure("Seat balance", "win share of each table seat (seat 0 starts), lineups rotated, with its Wilson "
                  "95% interval over the seat's games (the games of one deal's rotations share its cards, so the "
                  "answer's intervals over deals may differ); dotted: the fair share (1/P of the games that have a "
                  "winner)"
                  + left_out, _encode(fig))


def _seat_bars(ax, agg: pl.DataFrame, x: str) -> None:
    """The seat balance on ``ax``: one category of the x axis per value of ``x``, a point per seat with its
    Wilson 95% interval over the seat's games, and the fair share of each category dotted. Points, not bars
    from 0: the seat effects the answers speak of are a point or two, which bars of some 50% hid."""
    from simcore.stats import wilson

    names = agg[x].unique(maintain_order=True).to_list()
    seats = sorted(agg["seat"].unique().to_list())
    colors = sns.color_palette("crest", len(seats))
    # each category's seats spread over its own width (2 players beside 5 in one figure)
    per = {name: max(int(agg.filter(pl.col(x) == name)["seat"].n_unique()), 1) for name in names}
    for j, (seat, color) in enumerate(zip(seats, colors)):
        sub = agg.filter(pl.col("seat") == seat)
        pos = np.array([names.index(v) - 0.4 + 0.8 / per[v] * (j + 0.5) for v in sub[x].to_list()])
        share = sub["share"].to_numpy()
        lo, hi = wilson(sub["w"].to_numpy(), sub["n"].to_numpy())
        ax.errorbar(pos, share, yerr=error_lengths(share, 100 * np.asarray(lo), 100 * np.asarray(hi)), fmt="o",
                    color=color, label=str(seat), capsize=2, markersize=4)
    for i, name in enumerate(names):
        # the average seat's share: 1/P of the games that have a winner (1/P where every game has one)
        fair = float(agg.filter(pl.col(x) == name)["share"].mean())
        ax.hlines(fair, i - 0.4, i + 0.4, colors="black", linestyles=":")
    ax.set_xticks(range(len(names)), [str(n) for n in names])
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.set_xlabel("")
    ax.set_ylabel("")  # (seaborn's: the column's name; the caller labels the axis)
    if len(names) > 4 or max(len(str(g)) for g in names) > 12:
        rotate_labels(ax, 30)


def win_matrices(cells: pl.DataFrame, axes: list[str], strategies: list[str]) -> list[Figure]:
    """Tournament win matrix per group: the row strategy's win share per seat against the column's."""
    if "a" not in cells.columns:
        return []
    out = []
    df = group_labels(cells, axes)
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_GROUP_FIGURES)
    for gname in groups:
        sub = df.filter(pl.col("group") == gname)
        P = int(sub["players"][0])
        k = len(strategies)
        m = np.full((k, k), np.nan)
        idx = {s: i for i, s in enumerate(strategies)}
        for r in sub.iter_rows(named=True):
            m[idx[r["a"]], idx[r["b"]]] = r["focus_win_share"]
            if P == 2:
                m[idx[r["b"]], idx[r["a"]]] = r["field_win_share"]
        fig, ax = plt.subplots(figsize=(1.3 * k + 2.5, 1.0 * k + 1.5))
        names = [lab(x) for x in strategies]
        sns.heatmap(m * 100, annot=annotations(m * 100, 1), fmt="", cmap="RdBu_r", center=100 / P, ax=ax,
                    xticklabels=names,
                    yticklabels=names, cbar_kws={"label": "row's win share (%)"})
        ax.grid(False)  # no style grid over the cells
        ax.set_xlabel("against (field)")
        ax.set_ylabel("strategy (alone)" if P > 2 else "strategy")
        out.append(Figure(f"Win matrix: {gname}",
                          f"{gname}: win share (%) of the row strategy"
                          + (f" alone against {P - 1} copies of the column strategy" if P > 2 else
                             " against the column strategy") + f"; fair share {100 / P:.1f}%"
                          + (left_out if gname == groups[-1] else ""), _encode(fig)))
    return out


def ratings_plot(ratings: pl.DataFrame, axes: list[str]) -> Figure | None:
    if ratings.height == 0:
        return None
    df = group_labels(ratings, axes)
    fig, ax = plt.subplots(figsize=(8, 4))
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_HUES)
    strategies = df["strategy"].unique(maintain_order=True).to_list()
    width = 0.8 / max(len(groups), 1)
    for j, (color, g) in enumerate(zip(sns.color_palette("tab10", len(groups)), groups)):
        sub = df.filter(pl.col("group") == g)
        x = np.array([strategies.index(s) for s in sub["strategy"].to_list()]) - 0.4 + width * (j + 0.5)
        e = sub["elo"].to_numpy()
        ax.errorbar(x, e, yerr=error_lengths(e, sub["elo_lo"].to_numpy(), sub["elo_hi"].to_numpy()), fmt="o", color=color,
                    label=g, capsize=3)
    ax.axhline(0, color="grey", linewidth=1)
    ax.set_xticks(range(len(strategies)), [lab(x) for x in strategies])
    if len(strategies) > 5 or max(len(lab(x)) for x in strategies) > 10:
        rotate_labels(ax)
    ax.set_ylabel(f"Elo relative to {lab(df['reference'][0])}")
    legend_outside(ax)
    return Figure("Ratings", "Bradley-Terry ratings (Elo scale) with 95% intervals, per group" + left_out,
                  _encode(fig))


#: the width of one panel of the paired differences (inches)
PANEL_WIDTH = 5.5


def paired_plot(paired: pl.DataFrame, group_axes: list[str]) -> Figure | None:
    """Paired differences against the reference cell (best value or baseline), 95% intervals."""
    from experiments.answers.common import in_percent
    if paired.height == 0:
        return None
    df = group_labels(paired, group_axes)
    metrics = paired["metric"].unique(maintain_order=True).to_list()
    # a panel wide enough for its values and groups (fan_and_mallet_design: 12 start positions of 3 heuristics
    # drew 36 intervals on top of one another in 5.5 inches)
    most = max(paired.filter(pl.col("metric") == m)["value"].n_unique() for m in metrics)
    groups_n = min(df["group"].n_unique(), MAX_HUES)
    width = min(max(PANEL_WIDTH, 0.22 * most * max(groups_n, 2) + 1.5), 9.0)
    fig, axes = plt.subplots(1, len(metrics), figsize=(width * len(metrics), 4), squeeze=False)
    refs = []  # each panel's references, where every group has its own
    for ax, metric in zip(axes[0], metrics):
        sub = df.filter(pl.col("metric") == metric)
        scale = 100 if in_percent(metric) else 1
        raw = sub["value"].unique(maintain_order=True)
        values = (raw.sort() if raw.dtype.is_numeric() else raw).cast(pl.String).to_list()
        groups, left_out = first_groups(sub["group"].unique(maintain_order=True).to_list(), MAX_HUES)
        width = 0.8 / max(len(groups), 1)
        for j, (color, g) in enumerate(zip(sns.color_palette("tab10", len(groups)), groups)):
            s = sub.filter(pl.col("group") == g)
            x = np.array([values.index(v) for v in s["value"].cast(pl.String).to_list()]) - 0.4 + width * (j + 0.5)
            d = s["diff"].to_numpy() * scale
            lo, hi = share_diff_bounds(s, scale)
            ax.errorbar(x, d, yerr=error_lengths(d, lo, hi), fmt="o", color=color, label=g, capsize=3)
        ax.axhline(0, color="grey", linewidth=1)
        names = [lab(v) for v in values]
        # "start_positions=0,0" under an axis named start_positions: the values alone
        prefix = f"{short(sub['over'][0])}="
        if names and all(n.startswith(prefix) for n in names):
            names = [n[len(prefix):] for n in names]
        ax.set_xticks(range(len(values)), names)
        if len(values) > 6 or max(map(len, names)) > 8:  # long labels (e.g. strategies) slanted
            rotate_labels(ax)
        title = metric.replace("_", " ")
        # a difference of shares is in percentage points; of game lengths in turns
        ax.set_title(f"{title} difference" + (" (percentage points)" if scale == 100 else
                                              " (turns)" if metric == "mean_turns" else ""))
        vs = sub["versus"].cast(pl.String).unique().to_list()
        if len(vs) == 1:
            ref = f" (each minus {lab(vs[0])})"
        else:  # each group against its own reference (the best answer: the group's best value), in the caption
            pairs = sub.filter(pl.col("group").is_in(groups)).select(
                "group", pl.col("versus").cast(pl.String)).unique(maintain_order=True).rows()
            ref = " (each minus its group's reference)"
            per_group = sub.filter(pl.col("group").is_in(groups)).group_by("group").len()["len"].max()
            refs.append(f"Each group's reference for {title}"
                        + (" (only each group's runner-up is drawn)" if per_group == 1 else "") + ": "
                        + "; ".join(f"{g} {lab(v)}" for g, v in pairs) + ".")
        ax.set_xlabel(short(sub["over"][0]) + ref)
    legend_outside(axes[0][-1])
    fig.tight_layout()
    return Figure("Paired differences", "difference from the reference cell on the same deals (common random "
                  "numbers), with paired 95% intervals" + left_out + ("." + " ".join([""] + refs) if refs else ""),
                  _encode(fig))


def sprt_plot(sprt: pl.DataFrame) -> Figure | None:
    if sprt.height == 0:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.4 * sprt.height + 2))
    labels = [f"{lab(r['focus'])} vs {lab(r['field'])} ({r['players']}p)" for r in sprt.iter_rows(named=True)]
    colors = ["tab:green" if d == "H1" else "tab:red" if d == "H0" else "tab:grey" for d in sprt["decision"]]
    ax.barh(range(sprt.height), sprt["llr"].to_numpy(), color=colors)
    ax.axvline(sprt["lower"][0], color="tab:red", linestyle="--")
    ax.axvline(sprt["upper"][0], color="tab:green", linestyle="--")
    ax.set_yticks(range(sprt.height), labels)
    ax.set_xlabel("log-likelihood ratio (dashed: decision bounds)")
    return Figure("Sequential test", "final LLR of each cell's SPRT: green accepted H1 (better), red H0", _encode(fig))


def lead_changes_plot(cells: pl.DataFrame, axes: list[str]) -> Figure | None:
    if "mean.lead_changes" not in cells.columns:
        return None
    df = group_labels(cells, axes)
    agg = df.group_by("group", maintain_order=True).agg(
        ((pl.col("mean.lead_changes") * pl.col("games")).sum() / pl.col("games").sum()).alias("lead_changes"))
    fig, ax = plt.subplots(figsize=(8, 3.5))
    sns.barplot(data=agg.to_pandas(), x="group", y="lead_changes", ax=ax, color="tab:purple")
    ax.set_xlabel("")
    ax.set_ylabel("lead changes per game")
    rotate_labels(ax, 30)
    return Figure("Lead changes", "mean number of changes of the leading seat per game (drama)", _encode(fig))


# ------------------------------------------------------------------ calibration and balance answers
def _yerr(y: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[np.ndarray]:
    """Error bar lengths below and above (missing bounds draw none; rounding never makes them negative)."""
    return [np.clip(np.nan_to_num(y - lo), 0, None), np.clip(np.nan_to_num(hi - y), 0, None)]


def calibration_plot(est: pl.DataFrame, over: str) -> Figure | None:
    """The criterion of a calibration answer: each solo strategy's mean score and the top level's share for
    every value of ``over``, with 95% intervals, against the bands the criterion asks for (shaded)."""
    if est.height == 0 or "figure" not in est.columns:
        return None
    score = est.filter((pl.col("scope") == "cell") & (pl.col("figure") == "mean_score"))
    top_rows = est.filter((pl.col("scope") == "cell") & pl.col("figure").str.starts_with("level.")
                          & pl.col("band_lo").is_not_null())
    if score.height == 0:
        return None
    cases = score["case"].unique(maintain_order=True).to_list()
    strategies = score["strategy"].unique(maintain_order=True).to_list()[:MAX_HUES]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    width = 0.8 / max(len(strategies), 1)
    for panel, (ax, df, scale, label) in enumerate(
            ((axes[0], score, 1, "mean score"),
             (axes[1], top_rows, 100, (top_rows["figure"][0].split(".", 1)[1] + " share (%)") if top_rows.height else ""))):
        if df.height == 0:
            ax.set_visible(False)
            continue
        ax.axhspan(df["band_lo"][0] * scale, df["band_hi"][0] * scale, color="tab:green", alpha=0.12, linewidth=0,
                   label="criterion band")
        for j, (color, s) in enumerate(zip(sns.color_palette("tab10", len(strategies)), strategies)):
            sub = df.filter(pl.col("strategy") == s)
            x = np.array([cases.index(c) for c in sub["case"].to_list()]) - 0.4 + width * (j + 0.5)
            y = sub["value"].to_numpy() * scale
            lo = sub["lo"].fill_null(np.nan).to_numpy() * scale
            hi = sub["hi"].fill_null(np.nan).to_numpy() * scale
            ax.errorbar(x, y, yerr=_yerr(y, lo, hi), fmt="o", color=color, label=s,
                        capsize=3)
        ax.set_xticks(range(len(cases)), [lab(c) for c in cases])
        ax.set_xlabel(short(over))
        ax.set_ylabel(label)
    legend_outside(axes[1] if top_rows.height else axes[0])
    fig.tight_layout()
    return Figure("Calibration criterion", f"left: each solo strategy's mean score by {short(over)}; right: the "
                  "share of its games reaching the top level; 95% intervals (t, Wilson); shaded: the bands the "
                  "criterion asks of the best strategy", _encode(fig))


def levels_plot(est: pl.DataFrame, over: str) -> Figure | None:
    """Level shares of each solo strategy for every value of ``over`` (bars with Wilson 95% intervals)."""
    if est.height == 0 or "figure" not in est.columns:
        return None
    df = est.filter((pl.col("scope") == "cell") & pl.col("figure").str.starts_with("level."))
    if df.height == 0:
        return None
    strategies = df["strategy"].unique(maintain_order=True).to_list()[:4]
    cases = df["case"].unique(maintain_order=True).to_list()
    levels = df["figure"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(strategies), figsize=(5 * len(strategies), 4), squeeze=False, sharey=True)
    width = 0.8 / max(len(cases), 1)
    for ax, s in zip(axes[0], strategies):
        sub = df.filter(pl.col("strategy") == s)
        for j, (color, c) in enumerate(zip(sns.color_palette("crest", len(cases)), cases)):
            part = sub.filter(pl.col("case") == c)
            x = np.array([levels.index(f) for f in part["figure"].to_list()]) - 0.4 + width * (j + 0.5)
            y = part["value"].to_numpy() * 100
            lo = part["lo"].fill_null(np.nan).to_numpy() * 100
            hi = part["hi"].fill_null(np.nan).to_numpy() * 100
            ax.bar(x, y, width=width, color=color, label=lab(c))
            ax.errorbar(x, y, yerr=_yerr(y, lo, hi), fmt="none", ecolor="black",
                        capsize=2, linewidth=0.8)
        ax.set_xticks(range(len(levels)), [f.split(".", 1)[1] for f in levels])
        rotate_labels(ax, 30)
        ax.set_title(lab(s))
        ax.set_ylabel("share of games (%)")
    legend_outside(axes[0][-1], title=short(over))
    return Figure("Levels", f"share of games at each level of the scale, per solo strategy and {short(over)}, "
                  "with Wilson 95% intervals", _encode(fig))


def estimate_lines(est: pl.DataFrame, figure: str, xlabel: str, ylabel: str, reference: float | str | None = None,
                   scale: float = 1.0) -> Figure | None:
    """One figure of the estimates table for every case (x) with 95% intervals, one colour per group; a
    dotted line at ``reference``, or with ``"fair"`` at each group's fair share 1/P (in its colour when
    the groups' player counts differ)."""
    if est.height == 0 or "figure" not in est.columns:
        return None
    df = est.filter((pl.col("scope") == "cell") & (pl.col("figure") == figure))
    if df.height == 0:
        return None
    cases = df["case"].unique(maintain_order=True).to_list()
    key = "group" if df["group"].n_unique() > 1 else "strategy"
    groups, left_out = first_groups(df[key].unique(maintain_order=True).to_list(), MAX_HUES,
                                    "groups" if key == "group" else "strategies")
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(cases) + 3), 4.5))
    width = 0.8 / max(len(groups), 1)
    for j, (color, g) in enumerate(zip(sns.color_palette("tab10", len(groups)), groups)):
        sub = df.filter(pl.col(key) == g)
        x = np.array([cases.index(c) for c in sub["case"].to_list()]) - 0.4 + width * (j + 0.5)
        y = sub["value"].to_numpy() * scale
        lo, hi = share_bounds(figure, sub, scale)
        ax.errorbar(x, y, yerr=_yerr(y, lo, hi), fmt="o", color=color, label=lab(g),
                    capsize=3)
        if reference == "fair" and df["players"].n_unique() > 1:
            ax.axhline(scale / int(sub["players"][0]), color=color, linestyle=":", linewidth=1)
    if reference == "fair" and df["players"].n_unique() == 1:
        ax.axhline(scale / int(df["players"][0]), color="grey", linestyle=":", linewidth=1)
    elif reference is not None and reference != "fair":
        ax.axhline(reference * scale, color="grey", linestyle=":", linewidth=1)
    names = [lab(c) for c in cases]
    ax.set_xticks(range(len(cases)), names)
    if len(cases) > 5 or max(map(len, names)) > 10:
        rotate_labels(ax, 30)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    legend_outside(ax)
    fair = ("; dotted: the fair share 1/P, in each group's colour" if reference == "fair" and
            df["players"].n_unique() > 1 else "; dotted: the fair share" if reference == "fair" else
            f"; dotted: {reference * scale:g}" + (" (no advantage)" if reference == 0 else "")
            if reference is not None else "")
    return Figure(f"{ylabel} by {xlabel}", f"{ylabel} for each {xlabel}, with 95% intervals over deals" + fair
                  + left_out, _encode(fig))


def seat0_matrices(seats: pl.DataFrame, cells: pl.DataFrame, axes: list[str], over: str) -> list[Figure]:
    """For two-player lineups: seat 0's win share for every (seat 0 strategy, seat 1 strategy) orientation
    played, one matrix per group of cells (the values of ``over`` pooled)."""
    if seats.height == 0 or "win_share" not in seats.columns or int(cells["players"].max()) != 2:
        return []
    group_axes = [a for a in axes if a != over]
    g = group_labels(cells, group_axes).select(["cell", "group"])
    df = seats.select(["cell", "rotation", "seat", "strategy", "win_share", "games"]).join(g, on="cell")
    first = df.filter(pl.col("seat") == 0).rename({"strategy": "white"})
    second = df.filter(pl.col("seat") == 1).select(["cell", "rotation", pl.col("strategy").alias("black")])
    m = first.join(second, on=["cell", "rotation"])
    names = list(dict.fromkeys(m["white"].to_list() + m["black"].to_list()))
    labels = [lab(n) for n in names]
    out = []
    groups, left_out = first_groups(m["group"].unique(maintain_order=True).to_list(), MAX_GROUP_FIGURES)
    for gname in groups:
        # every cell of the group pooled: each orientation's share over all its games
        sub = (m.filter(pl.col("group") == gname).group_by(["white", "black"], maintain_order=True)
               .agg(((pl.col("win_share") * pl.col("games")).sum() / pl.col("games").sum()).alias("win_share")))
        grid = np.full((len(names), len(names)), np.nan)
        for r in sub.iter_rows(named=True):
            grid[names.index(r["white"]), names.index(r["black"])] = r["win_share"] * 100
        fig, ax = plt.subplots(figsize=(1.3 * len(names) + 2.5, 1.0 * len(names) + 1.5))
        sns.heatmap(grid, annot=annotations(grid, 1), fmt="", cmap="RdBu_r", center=50, ax=ax, xticklabels=labels,
                    yticklabels=labels, cbar_kws={"label": "seat 0's win share (%)"})
        ax.grid(False)  # no style grid over the cells
        ax.set_xlabel("seat 1 plays")
        ax.set_ylabel("seat 0 (first player) plays")
        out.append(Figure(f"Seat 0 by orientation: {gname}", f"{gname}: seat 0's win share (%) with the row "
                          "strategy in seat 0 and the column strategy in seat 1 (each orientation of a pairing is "
                          "one rotation of its cell)" + (left_out if gname == groups[-1] else ""), _encode(fig)))
    return out


def metric_families(est: pl.DataFrame, words: dict[str, str] | None = None) -> Figure | None:
    """The balance answer's metrics pooled over every cell, with 95% intervals over deals; one panel each for
    shares and for other figures. ``words`` (the game's ``metric_words``) say in the caption what each name
    drawn means, as the sentences say it."""
    if est.height == 0 or "figure" not in est.columns:
        return None
    df = est.filter((pl.col("scope") == "all") & pl.col("value").is_not_null())
    if df.height == 0:
        return None
    is_share = pl.col("figure").str.contains("share") | pl.col("figure").str.ends_with("_won") | \
        pl.col("figure").str.starts_with("first_")
    parts = [(df.filter(is_share), 100, "share (%)"), (df.filter(~is_share), 1, "mean")]
    parts = [p for p in parts if p[0].height]
    fig, axes = plt.subplots(1, len(parts), figsize=(6.5 * len(parts), 4.5), squeeze=False)
    for ax, (sub, scale, label) in zip(axes[0], parts):
        y = sub["value"].to_numpy() * scale
        lo = sub["lo"].fill_null(np.nan).to_numpy() * scale
        hi = sub["hi"].fill_null(np.nan).to_numpy() * scale
        x = np.arange(sub.height)
        ax.bar(x, y, color="tab:blue", alpha=0.7)
        ax.errorbar(x, y, yerr=_yerr(y, lo, hi), fmt="none", ecolor="black", capsize=3)
        ax.set_xticks(x, sub["figure"].to_list())
        rotate_labels(ax, 40)
        ax.set_ylabel(label)
    said = []
    for name in dict.fromkeys(df["figure"].to_list()):
        key = next((k for k in (words or {}) if k == name or (k.endswith("*") and name.startswith(k[:-1]))), None)
        if key is not None and key not in [k for k, _ in said]:
            # (a sentence's template, its figure written X: "wins the game in X% of games")
            x = "X%" if ("share" in name or name.endswith("_won") or name.startswith("first_")) else "X"
            said.append((key, words[key].replace("{}", x)))
    return Figure("Metrics", "the answer's metrics over every cell (each deal counted once), with 95% intervals "
                  "over deals" + ("; " + "; ".join(f"{k}: {w}" for k, w in said) if said else ""), _encode(fig))


# ------------------------------------------------------------------------ risk and turn order answers
def _pct(name: str) -> bool:
    return "share" in name or name in ("seat_advantage",)


def risk_tradeoff(est: pl.DataFrame, event_figure: str) -> Figure | None:
    """The risk answer's trade-off: each focus's event share (x, e.g. eliminated) against its win share (y),
    with 95% intervals both ways, one panel per group (player count); dotted: the fair share 1/P."""
    if est.height == 0 or "figure" not in est.columns:
        return None
    cell = est.filter(pl.col("scope") == "cell")
    x_df = cell.filter(pl.col("figure") == event_figure)
    y_df = cell.filter(pl.col("figure") == "win_share")
    if x_df.height == 0 or y_df.height == 0:
        return None
    df = x_df.join(y_df.select(["cell", pl.col("value").alias("y"), pl.col("lo").alias("y_lo"),
                                pl.col("hi").alias("y_hi")]), on="cell")
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_PANELS)
    cases = df["case"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(groups), figsize=(5.2 * len(groups), 4.8), squeeze=False)
    palette = sns.color_palette("tab10" if len(cases) <= 10 else "tab20", len(cases))
    hidden = []  # cases drawn on the same spot in a panel (guard's margins 3 and 4 play the same games)
    off = []  # a case far from the others of its panel, shown by an arrow at the panel's edge
    for ax, g in zip(axes[0], groups):
        sub = df.filter(pl.col("group") == g)
        # points closer than a marker's width (1% of the panel's span) hide one another
        xs, ys = sub["value"].to_numpy() * 100, sub["y"].to_numpy() * 100
        tol_x, tol_y = 0.01 * max(np.ptp(xs), 1.0), 0.01 * max(np.ptp(ys), 1.0)
        taken: set[int] = set()
        for i in range(sub.height):
            near = [j for j in range(i + 1, sub.height) if j not in taken
                    and abs(xs[j] - xs[i]) < tol_x and abs(ys[j] - ys[i]) < tol_y]
            if near and i not in taken:
                taken.update(near)
                hidden.append((g, [lab(sub["case"][k]) for k in [i, *near]]))
        for r in sub.iter_rows(named=True):
            c = palette[cases.index(r["case"])]
            x, y = r["value"] * 100, r["y"] * 100
            xerr = _yerr(np.array([x]), np.array([(r["lo"] if r["lo"] is not None else np.nan) * 100]),
                         np.array([(r["hi"] if r["hi"] is not None else np.nan) * 100]))
            yerr = _yerr(np.array([y]), np.array([(r["y_lo"] if r["y_lo"] is not None else np.nan) * 100]),
                         np.array([(r["y_hi"] if r["y_hi"] is not None else np.nan) * 100]))
            ax.errorbar([x], [y], xerr=xerr, yerr=yerr, fmt="o", color=c, capsize=2, label=lab(r["case"]))
        P = sub["players"][0]
        if P:
            ax.axhline(100 / P, color="grey", linestyle=":", linewidth=1)
        far = _far_point(sub, xs, ys)
        if far is not None:  # one point far from the rest would squeeze them together: the panel shows the rest
            k, (x0, x1), (y0, y1) = far
            ax.set_xlim(x0, x1)
            ax.set_ylim(y0, y1)
            name = lab(sub["case"][k])
            off.append((g, name, xs[k], ys[k]))
            cx, cy = min(max(xs[k], x0), x1), min(max(ys[k], y0), y1)
            # the label in the corner the point lies beyond, its arrow to the panel's edge
            tx = 0.97 if xs[k] > x1 else 0.03 if xs[k] < x0 else 0.5
            ty = 0.1 if ys[k] < y0 else 0.9 if ys[k] > y1 else 0.5
            ax.annotate(f"{name}: {xs[k]:.1f}%, {ys[k]:.1f}%", xy=(cx, cy), xytext=(tx, ty),
                        textcoords="axes fraction", fontsize=7, color=palette[cases.index(sub["case"][k])],
                        ha="right" if tx > 0.5 else "left" if tx < 0.5 else "center",
                        arrowprops={"arrowstyle": "->", "color": "grey", "linewidth": 0.8})
        ax.set_title("" if g == "all" else g)
        ax.set_xlabel(event_figure.replace("_share", "").replace("_", " ") + " (% of the focus's games)")
        ax.set_ylabel("win share (%)")
    handles, labels = axes[0][0].get_legend_handles_labels()
    seen = dict(zip(labels, handles))
    fig.tight_layout()
    fig.legend(seen.values(), seen.keys(), loc="upper center", ncols=min(5, len(seen)), fontsize=8,
               bbox_to_anchor=(0.5, 0.0))
    return Figure("Risk against reward", f"each focus strategy's {event_figure.replace('_share', '')} share (x) "
                  "and win share (y) against the field, with Wilson 95% intervals, one panel per group; up and to "
                  "the left is better; dotted: the fair share 1/P"
                  + _same_spot_note(hidden)
                  + "".join(f"; {name} lies off its panel ({'' if g == 'all' else g + ': '}{x:.1f}%, {y:.1f}%), "
                            "shown by an arrow at its edge, so that the others can be told apart"
                            for g, name, x, y in off)
                  + left_out, _encode(fig))


def _far_point(sub: pl.DataFrame, xs: np.ndarray, ys: np.ndarray):
    """A point of a risk panel so far from the others that drawing it squeezes them into a corner (Senshi's
    greedy with 2 players: 71% eliminated where the others lie within 20-27%, its 10% win share where theirs
    lie within 46-52%): its index and the limits that show the others with their intervals, else None. Only
    with four points or more, and only where leaving it out shrinks a span at least fourfold."""
    n = len(xs)
    if n < 4:
        return None

    def bounds(col, scale=100.0):
        return np.array([np.nan if v is None else v * scale for v in sub[col].to_list()], dtype=float)
    xlo, xhi, ylo, yhi = bounds("lo"), bounds("hi"), bounds("y_lo"), bounds("y_hi")
    best = None
    for k in range(n):
        rest = np.arange(n) != k
        sx, sy = np.ptp(xs), np.ptp(ys)
        # the others' span, at least their intervals' width and half a point (three cases that never met the
        # event lie on one x: a span of 0 made any point "far")
        wx = np.nanmax(np.concatenate([[0.5], (xhi - xlo)[rest]]))
        wy = np.nanmax(np.concatenate([[0.5], (yhi - ylo)[rest]]))
        rx, ry = max(np.ptp(xs[rest]), wx), max(np.ptp(ys[rest]), wy)
        ratio = max(sx / rx, sy / ry)
        if ratio >= 4 and (best is None or ratio > best[0]):
            best = (ratio, k)
    if best is None:
        return None
    k = best[1]
    rest = np.arange(n) != k
    lo_x = np.nanmin(np.concatenate([xs[rest], xlo[rest]]))
    hi_x = np.nanmax(np.concatenate([xs[rest], xhi[rest]]))
    lo_y = np.nanmin(np.concatenate([ys[rest], ylo[rest]]))
    hi_y = np.nanmax(np.concatenate([ys[rest], yhi[rest]]))
    mx, my = 0.15 * max(hi_x - lo_x, 0.5), 0.15 * max(hi_y - lo_y, 0.5)
    (x0, x1), (y0, y1) = (lo_x - mx, hi_x + mx), (lo_y - my, hi_y + my)
    if x0 <= xs[k] <= x1 and y0 <= ys[k] <= y1:  # it would be drawn after all: nothing to point at
        return None
    return k, (x0, x1), (y0, y1)


def _same_spot_note(hidden: list[tuple[str, list[str]]]) -> str:
    """The caption's words on points that hide one another: ``; a and b lie on the same spot (2 players and
    4 players), ...``, each set of cases once with every panel it happens in."""
    from experiments.answers.common import and_list

    where: dict[tuple, list[str]] = {}
    for g, names in hidden:
        where.setdefault(tuple(names), []).append(g)
    return "".join(f"; {and_list(names)} lie on the same spot"
                   + ("" if groups == ["all"] else f" ({and_list(groups)})")
                   + ", the last drawn covering the others (their figures are in the tables)"
                   for names, groups in where.items())


def estimate_panels(est: pl.DataFrame, figures: list[str], xlabel: str) -> Figure | None:
    """Several figures of the estimates table side by side: each case (x) with its 95% interval, one colour
    per group."""
    if est.height == 0 or "figure" not in est.columns:
        return None
    df = est.filter((pl.col("scope") == "cell") & pl.col("figure").is_in(figures))
    figures = [f for f in figures if f in set(df["figure"].to_list())]
    if not figures:
        return None
    cases = df["case"].unique(maintain_order=True).to_list()
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_HUES)
    fig, axes = plt.subplots(1, len(figures), figsize=(max(5.5, 0.5 * len(cases) + 2.5) * len(figures), 4.5),
                             squeeze=False)
    width = 0.8 / max(len(groups), 1)
    for ax, name in zip(axes[0], figures):
        scale = 100 if _pct(name) else 1
        for j, (color, g) in enumerate(zip(sns.color_palette("tab10", len(groups)), groups)):
            sub = df.filter((pl.col("figure") == name) & (pl.col("group") == g))
            x = np.array([cases.index(c) for c in sub["case"].to_list()]) - 0.4 + width * (j + 0.5)
            y = sub["value"].fill_null(np.nan).to_numpy() * scale
            lo, hi = share_bounds(name, sub, scale)
            ax.errorbar(x, y, yerr=_yerr(y, lo, hi), fmt="o", color=color, label=g, capsize=2)
        names = [lab(c) for c in cases]
        ax.set_xticks(range(len(cases)), names)
        if len(cases) > 5 or max(map(len, names)) > 8:
            rotate_labels(ax)
        ax.set_title(name.replace("_", " ") + (" (%)" if scale == 100 else ""))
        ax.set_xlabel(xlabel)
    legend_outside(axes[0][-1])
    fig.tight_layout()
    return Figure("Figures by " + xlabel, ", ".join(f.replace("_", " ") for f in figures)
                  + f" for each {xlabel} and group, with 95% intervals" + left_out, _encode(fig))


def seat_figures(est: pl.DataFrame, figures: list[str], over: str) -> Figure | None:
    """The turn_order answer: each seat's figures (rows: win share, event share) per group (columns), one bar
    per value of ``over``, with 95% intervals; dotted: the fair share 1/P."""
    if est.height == 0 or "seat" not in est.columns:
        return None
    df = est.filter((pl.col("scope") == "cell") & pl.col("figure").is_in(figures) & pl.col("seat").is_not_null())
    figures = [f for f in figures if f in set(df["figure"].to_list())]
    if not figures:
        return None
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_PANELS)
    cases = df["case"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(len(figures), len(groups), figsize=(4.6 * len(groups), 3.8 * len(figures)),
                             squeeze=False, sharey="row")
    width = 0.8 / max(len(cases), 1)
    palette = sns.color_palette("crest", len(cases))
    for i, name in enumerate(figures):
        for k, g in enumerate(groups):
            ax = axes[i][k]
            sub = df.filter((pl.col("figure") == name) & (pl.col("group") == g))
            for j, (color, c) in enumerate(zip(palette, cases)):
                part = sub.filter(pl.col("case") == c).sort("seat")
                x = part["seat"].to_numpy() - 0.4 + width * (j + 0.5)
                y = part["value"].fill_null(np.nan).to_numpy() * 100
                lo = part["lo"].fill_null(np.nan).to_numpy() * 100
                hi = part["hi"].fill_null(np.nan).to_numpy() * 100
                ax.bar(x, y, width=width, color=color, label=lab(c))
                ax.errorbar(x, y, yerr=_yerr(y, lo, hi), fmt="none", ecolor="black", capsize=2, linewidth=0.8)
            P = int(sub["players"][0]) if sub.height else 0
            if name == "win_share" and P:
                ax.axhline(100 / P, color="black", linestyle=":", linewidth=1)
            ax.set_xticks(range(P), [str(s) for s in range(P)])
            ax.set_xlabel("seat (0 plays first)")
            ax.set_title("" if g == "all" else g)
            if k == 0:
                ax.set_ylabel(name.replace("_", " ") + " (%)")
    fig.tight_layout()
    legend_outside(axes[0][-1], title=short(over))
    return Figure("Seats", f"each table seat's {' and '.join(f.replace('_', ' ') for f in figures)} per "
                  f"{short(over)} and group, with Wilson 95% intervals; dotted: the fair share 1/P" + left_out,
                  _encode(fig))


def seat_paired_plot(paired: pl.DataFrame, group_axes: list[str]) -> Figure | None:
    """The turn_order answer's paired differences: each value minus the baseline, seat by seat, on the same
    deals (rows: figures, columns: groups)."""
    if paired.height == 0 or "seat" not in paired.columns:
        return None
    df = group_labels(paired, group_axes)
    metrics = df["metric"].unique(maintain_order=True).to_list()
    groups, left_out = first_groups(df["group"].unique(maintain_order=True).to_list(), MAX_PANELS)
    values = df["value"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(len(metrics), len(groups), figsize=(4.6 * len(groups), 3.6 * len(metrics)),
                             squeeze=False, sharey="row")
    width = 0.8 / max(len(values), 1)
    for i, metric in enumerate(metrics):
        scale = 100 if _pct(metric) else 1
        for k, g in enumerate(groups):
            ax = axes[i][k]
            sub = df.filter((pl.col("metric") == metric) & (pl.col("group") == g))
            for j, (color, v) in enumerate(zip(sns.color_palette("tab10", len(values)), values)):
                part = sub.filter(pl.col("value") == v).sort("seat")
                x = part["seat"].to_numpy() - 0.4 + width * (j + 0.5)
                d = part["diff"].to_numpy() * scale
                lo, hi = share_diff_bounds(part, scale)
                ax.errorbar(x, d, yerr=_yerr(d, lo, hi), fmt="o", color=color,
                            label=f"{lab(v)} - {lab(part['versus'][0])}" if part.height else lab(v), capsize=2)
            ax.axhline(0, color="grey", linewidth=1)
            P = int(sub["seat"].max()) + 1 if sub.height else 0
            ax.set_xticks(range(P), [str(s) for s in range(P)])
            ax.set_xlabel("seat")
            ax.set_title("" if g == "all" else g)
            if k == 0:
                ax.set_ylabel(metric.replace("_", " ") + (" (%)" if scale == 100 else ""))
    fig.tight_layout()
    legend_outside(axes[0][-1], fontsize=7)
    return Figure("Paired differences by seat", "each value minus the baseline on the same deals, seat by seat, "
                  "with paired 95% intervals" + left_out, _encode(fig))
