"""The figures of an experiment report, written as PNG files.

Three figures, one function each; every function writes one image atomically
(a temporary file beside ``path``, renamed onto it, see
:func:`clirkit.fileio.atomic_writer`) and returns ``path`` as a :class:`~pathlib.Path`:

- :func:`per_query_difference`: one run minus the baseline on each query,
  sorted, with the mean difference, the p-value and how many queries got
  better, worse or stayed tied;
- :func:`kappa_sweep`: the dev measure of each fusion against its
  interpolation weight, the chosen weight marked;
- :func:`training_curves`: a measure (or a loss) against rounds or epochs,
  the best point of each curve marked.

matplotlib (a dependency) is imported by the
functions, not by ``import clirkit.plots``. The figures are drawn on a bare
:class:`matplotlib.figure.Figure` with the Agg canvas: no display is needed and
pyplot's global state (and the user's chosen backend) is left alone. The image
format follows the name's suffix: ``.png`` (what the report uses), or
``.pdf``/``.svg``; PNG files carry no software-version metadata, so the same
inputs give the same bytes with the same matplotlib.

:func:`difference_layout` and :func:`difference_title` compute what the
difference plot draws (positions, sorted differences, counts, title text)
without matplotlib, so it can be checked directly.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from clirkit.errors import ClirkitError
from clirkit.fileio import atomic_writer

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

DPI = 150
"""Resolution of the written images (dots per inch)."""

MAX_LABELLED_QUERIES = 60
"""Up to this many queries, the difference plot names each query on the x axis."""

BETTER_COLOR = "#0072B2"  # Okabe-Ito blue and vermillion: distinct for colour-blind readers too
WORSE_COLOR = "#D55E00"
TIED_COLOR = "#9a9a9a"

_FORMATS = {".png": "png", ".pdf": "pdf", ".svg": "svg"}
_METADATA = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "svg": {"Creator": None, "Date": None},
}
_TEST_NAMES = {"randomization": "paired randomization", "t-test": "paired t-test"}


# ----------------------------------------------------------------------------------------------------------
# per-query differences


@dataclass(frozen=True)
class DifferenceLayout:
    """What :func:`per_query_difference` draws, computed without matplotlib.

    The queries are sorted by difference, largest first (ties keep the input
    order), and placed in three groups from left to right: better, tied,
    worse. Neighbouring non-empty groups are separated by ``gap`` empty query
    slots, so that the markers of the last improved and the first degraded
    query can never cover each other.

    Attributes:
        qids: query ids in drawing order (shape (n,)).
        differences: ``values - baseline_values`` in drawing order (measure units, shape (n,)).
        x: x position of each query (query slots; float, shape (n,)).
        better, worse, tied: how many differences are > 0, < 0 and == 0 (exactly).
        mean: mean difference over all n queries (measure units).
        gap: empty slots between two neighbouring non-empty groups.
        boundaries: x positions of the separators between neighbouring non-empty groups.
    """

    qids: np.ndarray
    differences: np.ndarray
    x: np.ndarray
    better: int
    worse: int
    tied: int
    mean: float
    gap: int
    boundaries: tuple[float, ...]

    @property
    def n(self) -> int:
        """Number of queries."""
        return len(self.differences)

    def group_slices(self) -> dict[str, slice]:
        """``{"better"|"tied"|"worse": slice}`` of the drawing order."""
        b, t = self.better, self.tied
        return {"better": slice(0, b), "tied": slice(b, b + t), "worse": slice(b + t, self.n)}


def difference_layout(qids, values, baseline_values) -> DifferenceLayout:
    """Sort the per-query differences ``values - baseline_values`` and place them for drawing.

    Args:
        qids: query ids, shape (n,), n >= 1.
        values: the run's per-query values of one measure, aligned with ``qids``.
        baseline_values: the baseline's per-query values of the same measure, aligned with ``qids``.

    Returns:
        A :class:`DifferenceLayout`. A difference counts as tied only when it is
        exactly 0: a difference of 1e-9 is drawn and counted as better.

    Raises:
        ClirkitError: if the three arrays differ in length, are empty, or a value is NaN or infinite.
    """
    qids = np.asarray(qids).ravel()
    a = np.asarray(baseline_values, dtype=np.float64).ravel()
    b = np.asarray(values, dtype=np.float64).ravel()
    if not (len(qids) == len(a) == len(b)):
        raise ClirkitError(
            f"per-query difference: {len(qids)} query ids, {len(b)} values and "
            f"{len(a)} baseline values; expected one value of each per query"
        )
    if len(qids) == 0:
        raise ClirkitError("per-query difference: no queries")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ClirkitError("per-query difference: a per-query value is NaN or infinite")
    d = b - a
    order = np.argsort(-d, kind="stable")
    d = d[order]
    better, worse = int((d > 0).sum()), int((d < 0).sum())
    tied = len(d) - better - worse
    gap = max(1, int(math.ceil(0.01 * len(d))))  # ~1% of the width: wider than a marker at any n
    x = np.arange(len(d), dtype=np.float64)
    boundaries = []
    shift = 0
    start = 0
    groups = [g for g in (better, tied, worse) if g > 0]
    for k, size in enumerate(groups):
        x[start : start + size] += shift
        if k + 1 < len(groups):
            boundaries.append(start + size + shift - 0.5 + gap / 2)
            shift += gap
        start += size
    return DifferenceLayout(
        qids=qids[order],
        differences=d,
        x=x,
        better=better,
        worse=worse,
        tied=tied,
        mean=float(np.mean(b - a)),
        gap=gap,
        boundaries=tuple(boundaries),
    )


def _signed(x: float) -> str:
    """A signed number with 4 decimals, or 2 significant digits when 4 decimals would round it to 0."""
    if x != 0 and abs(x) < 5e-5:
        return f"{x:+.1e}"
    return f"{x:+.4f}"


def _p_text(p_value: float | None, test: str | None) -> str:
    if p_value is None:
        return "no significance test"
    how = _TEST_NAMES.get(test, test) if test else None
    suffix = f" ({how})" if how else ""
    if math.isnan(p_value):
        return f"p undefined{suffix}"
    if p_value < 1e-4:
        return f"p < 0.0001{suffix}"
    return f"p = {p_value:.2g}{suffix}"


def difference_title(
    layout: DifferenceLayout,
    *,
    name: str,
    baseline: str,
    measure: str,
    p_value: float | None,
    test: str | None = "randomization",
) -> str:
    """The two-line title of the difference plot.

    Example: ``"PSQ-Boost − PSQ, AP: mean +0.0430, p = 0.0001 (paired randomization)"`` then
    ``"1,280 queries: 612 better, 401 worse, 267 tied"``. ``name`` and ``baseline`` are run names
    (shown as given); ``p_value`` None says "no significance test", NaN "p undefined"; ``test`` is
    the method of :func:`clirkit.significance.paired_test` (``"randomization"``, ``"t-test"``) or
    any text to show in the parentheses, None for none.
    """
    first = f"{name} \u2212 {baseline}, {measure}: mean {_signed(layout.mean)}, {_p_text(p_value, test)}"
    second = f"{layout.n:,} queries: {layout.better:,} better, {layout.worse:,} worse, {layout.tied:,} tied"
    return f"{first}\n{second}"


def _difference_figure(layout: DifferenceLayout, *, title: str, measure: str) -> Figure:
    """Draw ``layout`` as stems from 0 with a dot on every query (better/tied/worse coloured)."""
    fig = _figure((8.0, 4.4))
    ax = fig.add_subplot()
    n, d, x = layout.n, layout.differences, layout.x
    width = x[-1] + 1.0  # query slots on the axis, gaps included
    axes_pt = 0.85 * 8.0 * 72  # approximate width of the axes in points
    pitch = axes_pt / width  # points per query slot
    stem_width = float(np.clip(0.7 * pitch, 0.75, 6.0))
    marker = float(np.clip(0.9 * pitch, 2.0, 5.0))  # diameter in points: >= 4 px at 150 dpi, at any n
    groups = layout.group_slices()
    colors = {"better": BETTER_COLOR, "tied": TIED_COLOR, "worse": WORSE_COLOR}

    ax.axhline(0.0, color="black", linewidth=0.8, zorder=1)
    for b in layout.boundaries:
        ax.axvline(b, color="0.6", linewidth=0.8, linestyle=":", zorder=1)
    mean_line = ax.axhline(
        layout.mean, color="black", linewidth=1.0, linestyle="--", zorder=2, label=f"mean {_signed(layout.mean)}"
    )
    for group in ("better", "worse"):
        s = groups[group]
        ax.vlines(x[s], 0.0, d[s], colors=colors[group], linewidth=stem_width, zorder=2)
    dots = {}
    for group, z in (("tied", 3), ("better", 4), ("worse", 4)):  # tied under the others: never covers a gain/loss
        s = groups[group]
        (dots[group],) = ax.plot(
            x[s],
            d[s],
            linestyle="none",
            marker="o",
            markersize=marker,
            markeredgewidth=0,
            color=colors[group],
            zorder=z,
            label=f"{s.stop - s.start:,} {group}",
        )
    handles = [dots[g] for g in ("better", "tied", "worse") if groups[g].stop > groups[g].start] + [mean_line]

    m = float(np.max(np.abs(d)))
    m = m if m > 0 else 1.0
    ax.set_ylim(-1.1 * m, 1.1 * m)  # symmetric: gains and losses on the same scale
    ax.set_xlim(-0.5 - layout.gap, width - 0.5 + layout.gap)
    if n <= MAX_LABELLED_QUERIES:
        ax.set_xticks(x)
        ax.set_xticklabels([str(q) for q in layout.qids.tolist()], rotation=90, fontsize=7)
    else:
        ax.set_xticks([])
    parts = [f"{c:,} {g}" for g, c in (("better", layout.better), ("tied", layout.tied), ("worse", layout.worse)) if c]
    ax.set_xlabel("queries, sorted by difference: " + " | ".join(parts))
    ax.set_ylabel(f"{measure} difference")
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    legend = dict(handles=handles, ncol=4, fontsize=8, frameon=False, markerscale=5.0 / marker)
    try:  # below the axes, never over a query (matplotlib >= 3.7)
        fig.legend(loc="outside lower center", **legend)
    except ValueError:  # older matplotlib: below the x label, the qid labels' height estimated
        longest = max((len(str(q)) for q in layout.qids.tolist()), default=0) if n <= MAX_LABELLED_QUERIES else 0
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1 - 0.018 * longest), **legend)
    return fig


def per_query_difference(
    qids,
    values,
    baseline_values,
    *,
    name: str,
    baseline: str,
    measure: str,
    p_value: float | None,
    path: str | os.PathLike[str],
    test: str | None = "randomization",
) -> Path:
    """Plot one run's per-query difference against the baseline and write it to ``path``.

    Each query is a stem from 0 to ``values - baseline_values`` with a dot at its end, the queries
    sorted by difference (better on the left, then tied, then worse, each group coloured). The dot has
    a fixed size in points (at least 4 pixels), so every non-zero difference stays visible at 5,000
    queries however small it is; the groups are separated by a small gap and the counts are in the
    title, the x label and the legend. A dashed line marks the mean difference. Up to
    :data:`MAX_LABELLED_QUERIES` queries, the x axis names each query.

    Args:
        qids: query ids, shape (n,).
        values: the run's per-query values of ``measure`` (numpy array aligned with ``qids``).
        baseline_values: the baseline's per-query values of ``measure``, aligned with ``qids``.
        name: the run's name (shown in the title; pass a name, not a file path).
        baseline: the baseline's name.
        measure: the measure's name as users write it (``"AP"``, ``"nDCG@10"``).
        p_value: two-sided p-value of the paired test of the mean difference, or None if none was run.
        path: the image file; its folder must exist; ``.png`` (or ``.pdf``, ``.svg``).
        test: the paired test that gave ``p_value`` (see :func:`difference_title`).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ClirkitError: inconsistent or non-finite inputs, an unsupported suffix, a missing folder, or
            matplotlib not installed.
    """
    layout = difference_layout(qids, values, baseline_values)
    title = difference_title(layout, name=name, baseline=baseline, measure=measure, p_value=p_value, test=test)
    _check_target(path)
    return _save(_difference_figure(layout, title=title, measure=measure), path)


# ----------------------------------------------------------------------------------------------------------
# kappa sweeps and training curves


def _curve(label: str, x, y, what: str) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=np.float64).ravel()
    y = np.asarray(y, dtype=np.float64).ravel()
    if len(x) != len(y):
        raise ClirkitError(f"{what} {label!r}: {len(x)} x values but {len(y)} y values")
    if len(x) == 0:
        raise ClirkitError(f"{what} {label!r}: no points")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise ClirkitError(f"{what} {label!r}: a value is NaN or infinite")
    return x, y


def _pairs(curves: Mapping[str, tuple], what: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    if not curves:
        raise ClirkitError(f"no {what} to plot")
    out = {}
    for label, pair in curves.items():
        try:
            x, y = pair
        except (TypeError, ValueError):
            raise ClirkitError(f"{what} {label!r}: expected a pair (x values, y values)") from None
        out[str(label)] = _curve(str(label), x, y, what)
    return out


def kappa_sweep(
    sweeps: Mapping[str, tuple],
    *,
    measure: str | Mapping[str, str],
    path: str | os.PathLike[str],
    title: str | None = None,
    xlabel: str = "kappa (weight of the first run)",
    xlabels: Mapping[str, Sequence[str]] | None = None,
) -> Path:
    """Plot the dev measure of each fusion against its interpolation weight and write it to ``path``.

    One line per fusion, named in the legend with its chosen point; the chosen point (the first x
    reaching the maximum: ties go to the smaller kappa, as the kappa tuning breaks them) is marked
    with a star.

    Args:
        sweeps: ``{fusion name: (kappas, scores)}``; for a fusion of two runs ``kappas`` is the weight
            of the first run in [0, 1]; ``scores`` is the mean dev ``measure`` at each kappa.
            For a fusion of 3 or more runs, pass the index of each weight vector tried as x, with
            ``xlabel`` saying so and ``xlabels`` giving the vectors.
        measure: the measure's name (y axis: "``measure`` (mean over queries)"), or ``{fusion name: measure}``
            for sweeps on different measures: each curve's legend then names its own (``FB, dev nDCG@10 (best
            at ...)``) and the y axis and title say "dev score".
        path: the image file; its folder must exist; ``.png`` (or ``.pdf``, ``.svg``).
        title: the figure title, or None for "dev ``measure`` by interpolation weight".
        xlabel: the x axis label.
        xlabels: optional ``{fusion name: text per x}`` (e.g. ``"0.2/0.3/0.5"``), used to name the
            chosen point in the legend instead of its x value.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ClirkitError: an empty sweep, x and scores of different lengths, a NaN, ``xlabels`` of the
            wrong length, an unsupported suffix, a missing folder, or matplotlib not installed.
    """
    data = _pairs(sweeps, "sweep")
    measures = {label: measure for label in data} if isinstance(measure, str) else dict(measure)
    lacking = sorted(set(data) - set(measures))
    if lacking:
        raise ClirkitError(f"measure names no measure for the sweep {lacking[0]!r}")
    shared = measures[next(iter(data))] if len(set(measures[label] for label in data)) == 1 else None
    xlabels = dict(xlabels or {})
    for label, texts in xlabels.items():
        if label not in data:
            raise ClirkitError(f"xlabels names {label!r}, which is not one of the sweeps {sorted(data)}")
        if len(texts) != len(data[label][0]):
            raise ClirkitError(f"sweep {label!r}: {len(texts)} x labels for {len(data[label][0])} points")
    _check_target(path)
    fig = _figure((6.4, 4.0))
    ax = fig.add_subplot()
    for label, (x, y) in data.items():
        best = int(np.argmax(y))
        where = xlabels[label][best] if label in xlabels else f"{x[best]:g}"
        named = label if shared is not None else f"{label}, dev {measures[label]}"
        (line,) = ax.plot(x, y, marker=".", label=f"{named} (best at {where}: {y[best]:.4f})")
        ax.plot(
            [x[best]],
            [y[best]],
            marker="*",
            markersize=12,
            color=line.get_color(),
            markeredgecolor="black",
            markeredgewidth=0.6,
            linestyle="none",
            zorder=3,
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{shared or 'dev score'} (mean over queries)")
    ax.set_title(title if title is not None else f"dev {shared or 'score'} by interpolation weight", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


def _number(v: float) -> str:
    """4 decimals for values like a measure or a loss near 1, 4 significant digits otherwise."""
    return f"{v:.4f}" if 1e-3 <= abs(v) < 1e4 else f"{v:.4g}"


def _best_direction(best: str | None, ylabel: str) -> str:
    if best is None:
        low = ylabel.lower()
        return "min" if ("loss" in low or "error" in low) else "max"
    if best not in ("max", "min", "none"):
        raise ClirkitError(f"best must be 'max', 'min' or 'none', got {best!r}")
    return best


def training_curves(
    curves: Mapping[str, tuple],
    *,
    xlabel: str,
    ylabel: str,
    path: str | os.PathLike[str],
    title: str | None = None,
    best: str | None = None,
    reference: tuple[str, float] | None = None,
) -> Path:
    """Plot one or more training curves and write them to ``path``, the best point of each marked.

    Args:
        curves: ``{label: (x, y)}``, e.g. ``{"PSQ-Boost beta 5": (rounds, dev MAP)}`` or
            ``{"SCS": (epochs, loss)}``.
        xlabel, ylabel: the axis labels (with units, e.g. "boosting rounds", "dev MAP").
        path: the image file; its folder must exist; ``.png`` (or ``.pdf``, ``.svg``).
        title: the figure title, or None for none.
        best: which point is best: ``"max"``, ``"min"`` or ``"none"`` (no mark); None (default) means
            ``"min"`` when ``ylabel`` names a loss or an error, ``"max"`` otherwise. The first x
            reaching the extreme is marked.
        reference: optional ``(label, y)`` drawn as a horizontal dashed line (e.g. the baseline's dev MAP).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        ClirkitError: an empty curve, x and y of different lengths, a NaN, an unknown ``best``, an
            unsupported suffix, a missing folder, or matplotlib not installed.
    """
    data = _pairs(curves, "curve")
    direction = _best_direction(best, ylabel)
    _check_target(path)
    fig = _figure((6.4, 4.0))
    ax = fig.add_subplot()
    for label, (x, y) in data.items():
        if direction == "none":
            ax.plot(x, y, marker="." if len(x) <= 100 else None, label=label)
            continue
        i = int(np.argmax(y) if direction == "max" else np.argmin(y))
        (line,) = ax.plot(
            x, y, marker="." if len(x) <= 100 else None, label=f"{label} (best {_number(y[i])} at {x[i]:g})"
        )
        ax.plot(
            [x[i]],
            [y[i]],
            marker="*",
            markersize=12,
            color=line.get_color(),
            markeredgecolor="black",
            markeredgewidth=0.6,
            linestyle="none",
            zorder=3,
        )
    if reference is not None:
        ref_label, ref_y = reference
        ax.axhline(
            float(ref_y), color="0.4", linestyle="--", linewidth=1.0, label=f"{ref_label} ({_number(float(ref_y))})"
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, path)


# ----------------------------------------------------------------------------------------------------------
# matplotlib, lazily


def _figure(size: tuple[float, float]) -> Figure:
    """A new figure of ``size`` inches on an Agg canvas, constrained layout, :data:`DPI` dots per inch."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ClirkitError("plots need matplotlib: pip install matplotlib") from None
    fig = Figure(figsize=size, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _check_target(path: str | os.PathLike[str]) -> str:
    fmt = _FORMATS.get(Path(path).suffix.lower())
    if fmt is None:
        raise ClirkitError(f"{path}: an image name must end in .png, .pdf or .svg")
    return fmt


def _save(fig: Figure, path: str | os.PathLike[str]) -> Path:
    """Write ``fig`` to ``path`` atomically in the format of its suffix; return ``Path(path)``."""
    fmt = _check_target(path)
    with atomic_writer(path, binary=True) as fh:
        fig.savefig(fh, format=fmt, dpi=DPI, metadata=_METADATA[fmt])
    return Path(path)
