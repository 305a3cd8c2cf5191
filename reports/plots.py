"""Plots for reports (seaborn on matplotlib's Agg backend), each returned as a base64 PNG.

Every function takes result tables (polars DataFrames read from a run folder) and returns a
:class:`Figure` or None when the tables hold nothing to draw. Nothing here plays games.
"""
from __future__ import annotations

import base64
import dataclasses
import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
import seaborn as sns  # noqa: E402

sns.set_theme(style="whitegrid", context="notebook")
MAX_HUES = 10


@dataclasses.dataclass
class Figure:
    title: str
    caption: str
    png: str  # base64


def _encode(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def short(axis: str) -> str:
    return axis.split(".", 1)[1] if "." in axis else axis


def group_labels(cells: pl.DataFrame, axes: list[str]) -> pl.DataFrame:
    """cells with a ``group`` column naming the group of each cell ("all" when there are no axes)."""
    if not axes:
        return cells.with_columns(pl.lit("all").alias("group"))
    parts = []
    for a in axes:
        col = pl.col(a).cast(pl.String)
        parts.append(col + pl.lit("p") if a == "players" else pl.lit(short(a) + " ") + col)
    return cells.with_columns(pl.concat_str(parts, separator=", ").alias("group"))


def _is_numeric(s: pl.Series) -> bool:
    return s.dtype.is_numeric()


def sweep_lines(cells: pl.DataFrame, over: str, group_axes: list[str], y: str, lo: str, hi: str,
                ylabel: str, fair: bool = False) -> Figure | None:
    """The metric against the swept parameter, one line per group, 95% interval bands."""
    if over not in cells.columns or y not in cells.columns or cells[y].null_count() == cells.height:
        return None
    df = group_labels(cells, group_axes).sort(over)
    groups = df["group"].unique(maintain_order=True).to_list()[:MAX_HUES]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    palette = sns.color_palette("tab10", len(groups))
    numeric = _is_numeric(df[over])
    for color, g in zip(palette, groups):
        sub = df.filter(pl.col("group") == g)
        x = sub[over].to_numpy() if numeric else np.arange(sub.height)
        sns.lineplot(x=x, y=sub[y].to_numpy(), ax=ax, color=color, marker="o", label=g)
        if lo in sub.columns and hi in sub.columns:
            ax.fill_between(x, sub[lo].fill_null(np.nan).to_numpy(), sub[hi].fill_null(np.nan).to_numpy(),
                            color=color, alpha=0.18, linewidth=0)
        if fair and "fair_share" in sub.columns:
            ax.axhline(sub["fair_share"][0], color=color, linestyle=":", linewidth=1)
    if not numeric:
        ax.set_xticks(range(df[over].n_unique()), df[over].unique(maintain_order=True).to_list())
    ax.set_xlabel(short(over))
    ax.set_ylabel(ylabel)
    ax.legend(title=", ".join(short(a) for a in group_axes) or None, fontsize=8, ncols=2)
    cap = f"{ylabel} by {short(over)}; bands are 95% intervals" + ("; dotted lines: fair share 1/P" if fair else "")
    return Figure(f"{ylabel} by {short(over)}", cap, _encode(fig))


def sweep_heatmap(cells: pl.DataFrame, over: str, group_axes: list[str], y: str, label: str,
                  percent: bool) -> Figure | None:
    """The metric over the swept parameter (rows) and the groups (columns)."""
    if not group_axes or over not in cells.columns or y not in cells.columns:
        return None
    df = group_labels(cells, group_axes)
    piv = df.select([over, "group", y]).pivot(on="group", index=over, values=y, aggregate_function="mean").sort(over)
    cols = [c for c in piv.columns if c != over]
    data = piv.select(cols).to_numpy().astype(float)
    if percent:
        data = data * 100
    fig, ax = plt.subplots(figsize=(min(2 + 1.1 * len(cols), 14), 0.45 * piv.height + 2))
    sns.heatmap(data, annot=True, fmt=".1f", cmap="viridis", ax=ax, xticklabels=cols,
                yticklabels=[str(v) for v in piv[over].to_list()], cbar_kws={"label": label + (" (%)" if percent else "")})
    ax.set_ylabel(short(over))
    ax.set_xlabel(", ".join(short(a) for a in group_axes))
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    return Figure(f"{label}: every cell", f"{label} for each {short(over)} and group", _encode(fig))


def turns_distribution(turns: pl.DataFrame, cells: pl.DataFrame, axes: list[str]) -> Figure | None:
    """Game length distribution per group (cells of a group pooled)."""
    if turns.height == 0:
        return None
    df = turns.join(group_labels(cells, axes).select(["cell", "group"]), on="cell")
    agg = df.group_by(["group", "turns"]).agg(pl.col("count").sum()).sort("turns")
    groups = df["group"].unique(maintain_order=True).to_list()[:MAX_HUES]
    fig, ax = plt.subplots(figsize=(8, 4))
    for color, g in zip(sns.color_palette("tab10", len(groups)), groups):
        sub = agg.filter(pl.col("group") == g)
        t, c = sub["turns"].to_numpy(), sub["count"].to_numpy().astype(float)
        width = max(1, int(np.ceil((t.max() - t.min() + 1) / 60)))
        bins = (t // width) * width
        uniq, inv = np.unique(bins, return_inverse=True)
        dens = np.bincount(inv, weights=c) / c.sum() / width
        ax.step(uniq, dens, where="post", color=color, label=g)
    ax.set_xlabel("turns per game (all players)")
    ax.set_ylabel("share of games per turn")
    ax.legend(fontsize=8, ncols=2)
    return Figure("Game length", "distribution of the number of turns per game, cells of each group pooled",
                  _encode(fig))


def score_distribution(scores: pl.DataFrame, cells: pl.DataFrame, axes: list[str], who: str) -> Figure | None:
    if scores.height == 0:
        return None
    df = scores.filter(pl.col("who") == who).join(group_labels(cells, axes).select(["cell", "group"]), on="cell")
    if df.height == 0:
        return None
    groups = df["group"].unique(maintain_order=True).to_list()[:MAX_HUES]
    fig, ax = plt.subplots(figsize=(8, 4))
    for color, g in zip(sns.color_palette("tab10", len(groups)), groups):
        sub = df.filter(pl.col("group") == g).group_by("score").agg(pl.col("count").sum()).sort("score")
        sns.kdeplot(x=sub["score"].to_numpy(), weights=sub["count"].to_numpy().astype(float), ax=ax, color=color,
                    label=g, bw_adjust=0.8, warn_singular=False)
    ax.set_xlabel("final score" + (" of the focus seat" if who == "focus" else " (every seat)"))
    ax.set_ylabel("density")
    ax.legend(fontsize=8, ncols=2)
    return Figure("Final scores", "distribution of final scores" + (" of the focus seat" if who == "focus" else
                                                                     ", every seat") + ", cells of each group pooled",
                  _encode(fig))


def seat_shares(seats: pl.DataFrame, cells: pl.DataFrame, axes: list[str]) -> Figure | None:
    """Win share by table seat (whoever sits there), pooled over rotations and the cells of each group."""
    if seats.height == 0:
        return None
    g = group_labels(cells, axes).select(["cell", "group", "players"])
    df = seats.select(["cell", "seat", "games", "win_share"]).join(g, on="cell")
    agg = (df.group_by(["group", "seat"], maintain_order=True)
           .agg((pl.col("win_share") * pl.col("games")).sum().alias("w"), pl.col("games").sum().alias("n"),
                pl.col("players").first()))
    agg = agg.with_columns((pl.col("w") / pl.col("n")).alias("share"))
    groups = agg["group"].unique(maintain_order=True).to_list()[:MAX_HUES]
    agg = agg.filter(pl.col("group").is_in(groups))
    fig, ax = plt.subplots(figsize=(8, 4))
    sns.barplot(data=agg.to_pandas(), x="group", y="share", hue="seat", ax=ax, palette="crest")
    for i, gname in enumerate(groups):
        p = agg.filter(pl.col("group") == gname)["players"][0]
        ax.hlines(1 / p, i - 0.4, i + 0.4, colors="black", linestyles=":")
    ax.set_xlabel("")
    ax.set_ylabel("win share of the seat")
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    ax.legend(title="seat", fontsize=8)
    return Figure("Seat balance", "win share of each table seat (seat 0 starts), lineups rotated; dotted: 1/P",
                  _encode(fig))


def win_matrices(cells: pl.DataFrame, axes: list[str], strategies: list[str]) -> list[Figure]:
    """Tournament win matrix per group: the row strategy's win share per seat against the column's."""
    if "a" not in cells.columns:
        return []
    out = []
    df = group_labels(cells, axes)
    for gname in df["group"].unique(maintain_order=True).to_list()[:6]:
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
        sns.heatmap(m * 100, annot=True, fmt=".1f", cmap="RdBu_r", center=100 / P, ax=ax, xticklabels=strategies,
                    yticklabels=strategies, cbar_kws={"label": "row's win share (%)"})
        ax.set_xlabel("against (field)")
        ax.set_ylabel("strategy (alone)" if P > 2 else "strategy")
        out.append(Figure(f"Win matrix: {gname}",
                          f"{gname}: win share (%) of the row strategy"
                          + (f" alone against {P - 1} copies of the column strategy" if P > 2 else
                             " against the column strategy") + f"; fair share {100 / P:.1f}%", _encode(fig)))
    return out


def ratings_plot(ratings: pl.DataFrame, axes: list[str]) -> Figure | None:
    if ratings.height == 0:
        return None
    df = group_labels(ratings, axes)
    fig, ax = plt.subplots(figsize=(8, 4))
    groups = df["group"].unique(maintain_order=True).to_list()[:MAX_HUES]
    strategies = df["strategy"].unique(maintain_order=True).to_list()
    width = 0.8 / max(len(groups), 1)
    for j, (color, g) in enumerate(zip(sns.color_palette("tab10", len(groups)), groups)):
        sub = df.filter(pl.col("group") == g)
        x = np.array([strategies.index(s) for s in sub["strategy"].to_list()]) - 0.4 + width * (j + 0.5)
        e = sub["elo"].to_numpy()
        ax.errorbar(x, e, yerr=[e - sub["elo_lo"].to_numpy(), sub["elo_hi"].to_numpy() - e], fmt="o", color=color,
                    label=g, capsize=3)
    ax.axhline(0, color="grey", linewidth=1)
    ax.set_xticks(range(len(strategies)), strategies)
    ax.set_ylabel(f"Elo relative to {df['reference'][0]}")
    ax.legend(fontsize=8, ncols=2)
    return Figure("Ratings", "Bradley-Terry ratings (Elo scale) with 95% intervals, per group", _encode(fig))


def paired_plot(paired: pl.DataFrame, group_axes: list[str]) -> Figure | None:
    """Paired differences against the reference cell (best value or baseline), 95% intervals."""
    if paired.height == 0:
        return None
    df = group_labels(paired, group_axes)
    metrics = paired["metric"].unique(maintain_order=True).to_list()
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.5 * len(metrics), 4), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        sub = df.filter(pl.col("metric") == metric)
        scale = 100 if metric in ("win_share", "seat_advantage") else 1
        raw = sub["value"].unique(maintain_order=True)
        values = [str(v) for v in (raw.sort() if raw.dtype.is_numeric() else raw).to_list()]
        groups = sub["group"].unique(maintain_order=True).to_list()[:MAX_HUES]
        width = 0.8 / max(len(groups), 1)
        for j, (color, g) in enumerate(zip(sns.color_palette("tab10", len(groups)), groups)):
            s = sub.filter(pl.col("group") == g)
            x = np.array([values.index(v) for v in s["value"].cast(pl.String).to_list()]) - 0.4 + width * (j + 0.5)
            d = s["diff"].to_numpy() * scale
            lo = s["lo"].fill_null(np.nan).to_numpy() * scale
            hi = s["hi"].fill_null(np.nan).to_numpy() * scale
            ax.errorbar(x, d, yerr=[d - lo, hi - d], fmt="o", color=color, label=g, capsize=3)
        ax.axhline(0, color="grey", linewidth=1)
        ax.set_xticks(range(len(values)), values)
        ax.set_title(metric.replace("_", " ") + (" (points)" if scale == 100 else ""))
        ax.set_xlabel(short(sub["over"][0]))
        ax.legend(fontsize=7)
    return Figure("Paired differences", "difference from the reference cell on the same deals (common random "
                  "numbers), with paired 95% intervals", _encode(fig))


def sprt_plot(sprt: pl.DataFrame) -> Figure | None:
    if sprt.height == 0:
        return None
    fig, ax = plt.subplots(figsize=(8, 0.4 * sprt.height + 2))
    labels = [f"{r['focus']} vs {r['field']} ({r['players']}p)" for r in sprt.iter_rows(named=True)]
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
    plt.setp(ax.get_xticklabels(), rotation=30, ha="right")
    return Figure("Lead changes", "mean number of changes of the leading seat per game (drama)", _encode(fig))
