"""clirkit.plots: valid PNG files written atomically, and a difference plot that hides no non-zero difference."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from clirkit.errors import ClirkitError
from clirkit.plots import DPI, difference_layout, difference_title

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
QIDS_50 = np.array([f"Gen.{i}" for i in range(1, 51)])


def _many_small_differences(n: int = 5_000, seed: int = 0):
    """Baseline and run values over n queries: a fifth tied, a fifth differing by +-1e-6, the rest spread."""
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    run = np.clip(base + rng.normal(0.02, 0.1, n), 0, 1)
    kind = rng.integers(0, 5, n)
    run[kind == 0] = base[kind == 0]
    tiny = kind == 1
    run[tiny] = base[tiny] + rng.choice([-1e-6, 1e-6], tiny.sum())
    return np.array([f"q{i}" for i in range(n)]), run, base


def _read_png(path):
    mpimg = pytest.importorskip("matplotlib.image")
    with open(path, "rb") as f:
        assert f.read(8) == PNG_SIGNATURE
    return mpimg.imread(path)


def _no_temp_files(folder):
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []


# ---- pure helpers (no matplotlib) ------------------------------------------------------------------------


def test_layout_sorts_differences_descending_and_counts_exact_zeros_as_tied():
    qids = np.array(["a", "b", "c", "d", "e"])
    base = np.array([0.5, 0.2, 0.3, 0.4, 0.1])
    run = np.array([0.5, 0.4, 0.3 + 1e-9, 0.1, 0.1])
    layout = difference_layout(qids, run, base)
    np.testing.assert_allclose(layout.differences, [0.2, 1e-9, 0.0, 0.0, -0.3], atol=1e-15)
    assert layout.qids.tolist() == ["b", "c", "a", "e", "d"]  # ties keep the input order
    assert (layout.better, layout.tied, layout.worse) == (2, 2, 1)
    assert layout.mean == pytest.approx((0.2 + (1e-9) + 0 + 0 - 0.3) / 5)


def test_layout_separates_the_groups_by_a_gap_and_keeps_queries_in_order():
    qids, run, base = _many_small_differences()
    layout = difference_layout(qids, run, base)
    assert layout.better + layout.worse + layout.tied == 5_000
    assert layout.gap == 50  # 1% of the queries
    assert np.all(np.diff(layout.x) >= 1)
    s = layout.group_slices()
    assert np.all(layout.differences[s["better"]] > 0)
    assert np.all(layout.differences[s["tied"]] == 0)
    assert np.all(layout.differences[s["worse"]] < 0)
    # between groups: gap + 1 slots; the separators sit in the gaps
    assert layout.x[s["tied"].start] - layout.x[s["better"].stop - 1] == layout.gap + 1
    assert layout.x[s["worse"].start] - layout.x[s["tied"].stop - 1] == layout.gap + 1
    b1, b2 = layout.boundaries
    assert layout.x[s["better"].stop - 1] < b1 < layout.x[s["tied"].start]
    assert layout.x[s["tied"].stop - 1] < b2 < layout.x[s["worse"].start]


def test_layout_without_ties_has_one_boundary_and_all_tied_has_none():
    one = difference_layout(["a", "b"], [0.6, 0.1], [0.5, 0.2])
    assert (one.better, one.tied, one.worse, len(one.boundaries)) == (1, 0, 1, 1)
    none = difference_layout(["a", "b"], [0.5, 0.2], [0.5, 0.2])
    assert (none.tied, none.boundaries, none.mean) == (2, (), 0.0)


def test_layout_rejects_misaligned_empty_or_nan_input():
    with pytest.raises(ClirkitError, match="3 query ids, 2 values"):
        difference_layout(["a", "b", "c"], [0.1, 0.2], [0.1, 0.2, 0.3])
    with pytest.raises(ClirkitError, match="no queries"):
        difference_layout([], [], [])
    with pytest.raises(ClirkitError, match="NaN"):
        difference_layout(["a"], [np.nan], [0.1])


def test_title_names_runs_and_states_mean_p_value_and_counts():
    qids, run, base = _many_small_differences(1_280)
    layout = difference_layout(qids, run, base)
    title = difference_title(layout, name="PSQ-Boost", baseline="PSQ", measure="AP", p_value=0.0001)
    first, second = title.split("\n")
    assert first == f"PSQ-Boost \u2212 PSQ, AP: mean {layout.mean:+.4f}, p = 0.0001 (paired randomization)"
    assert second == (f"1,280 queries: {layout.better:,} better, {layout.worse:,} worse, {layout.tied:,} tied")
    assert "/" not in title and "\\" not in title


def test_title_p_value_forms_and_a_tiny_mean_is_not_rounded_to_zero():
    layout = difference_layout(["a", "b"], [0.5 + 4e-5, 0.2], [0.5, 0.2])
    t = lambda **kw: difference_title(layout, name="B", baseline="A", measure="AP", **kw).split("\n")[0]
    assert "mean +2.0e-05" in t(p_value=0.5)
    assert t(p_value=1 / 10_001).endswith("p < 0.0001 (paired randomization)")
    assert t(p_value=0.0432, test="t-test").endswith("p = 0.043 (paired t-test)")
    assert t(p_value=float("nan"), test="t-test").endswith("p undefined (paired t-test)")
    assert t(p_value=None).endswith("no significance test")


def test_import_does_not_import_matplotlib():
    code = "import sys, clirkit.plots; sys.exit('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


# ---- rendering --------------------------------------------------------------------------------------------


def _colour_at_each_dot(layout):
    """Render the difference figure; the RGB (0-255) of the pixel under each query's dot centre."""
    from clirkit import plots

    fig = plots._difference_figure(layout, title="t", measure="AP")
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(int)
    xy = fig.axes[0].transData.transform(np.column_stack([layout.x, layout.differences]))
    cols = np.floor(xy[:, 0]).astype(int)
    rows = np.floor(pixels.shape[0] - xy[:, 1]).astype(int)
    return pixels[rows, cols]


def _assert_every_nonzero_difference_shows_its_colour(layout):
    from matplotlib.colors import to_rgb

    from clirkit import plots

    seen = _colour_at_each_dot(layout)
    s = layout.group_slices()
    for group, color in (("better", plots.BETTER_COLOR), ("worse", plots.WORSE_COLOR)):
        expected = np.round(np.array(to_rgb(color)) * 255).astype(int)
        off = np.abs(seen[s[group]] - expected).max(axis=1)
        assert (off <= 2).all(), f"{(off > 2).sum()} {group} queries not drawn in their colour"


def test_no_nonzero_difference_is_invisible_at_5000_queries():
    """Render the figure and look at each query's dot: it must carry its group's colour."""
    pytest.importorskip("matplotlib")
    qids, run, base = _many_small_differences()
    layout = difference_layout(qids, run, base)
    assert layout.worse > 900 and layout.better > 900 and layout.tied > 900
    # the 1e-6 differences are among them: they sit on the zero line, yet show as coloured dots
    assert np.isclose(np.abs(layout.differences), 1e-6, rtol=1e-3, atol=0).sum() > 900
    _assert_every_nonzero_difference_shows_its_colour(layout)


def test_tiny_gains_next_to_tiny_losses_do_not_cover_each_other():
    """No tied query between them: +1e-6 and -1e-6 dots would overlap without the gap between groups."""
    pytest.importorskip("matplotlib")
    n = 5_000
    base = np.full(n, 0.5)
    run = base + np.where(np.arange(n) % 2 == 0, 1e-6, -1e-6)
    run[:2] = [1.0, 0.0]  # +-0.5 set the y scale: the tiny differences all sit on the zero line
    layout = difference_layout(np.arange(n), run, base)
    assert (layout.better, layout.tied, layout.worse) == (2_500, 0, 2_500)
    _assert_every_nonzero_difference_shows_its_colour(layout)


def test_per_query_difference_writes_a_png_at_50_and_5000_queries(tmp_path):
    from clirkit.plots import per_query_difference

    for n in (50, 5_000):
        qids, run, base = _many_small_differences(n)
        path = tmp_path / f"diff-{n}.png"
        out = per_query_difference(
            qids, run, base, name="PSQ-Boost", baseline="PSQ", measure="AP", p_value=0.0123, path=path
        )
        assert out == path
        image = _read_png(path)
        assert image.shape[:2] == (round(4.4 * DPI), round(8.0 * DPI))
        assert image[:, :, :3].std() > 0.05  # something was drawn
    _no_temp_files(tmp_path)


def test_same_inputs_give_byte_identical_pngs(tmp_path):
    pytest.importorskip("matplotlib")
    from clirkit.plots import per_query_difference

    qids, run, base = _many_small_differences(300)
    kw = dict(name="PSQ-Boost", baseline="PSQ", measure="AP", p_value=0.2)
    a = per_query_difference(qids, run, base, path=tmp_path / "a.png", **kw)
    b = per_query_difference(qids, run, base, path=tmp_path / "b.png", **kw)
    assert a.read_bytes() == b.read_bytes()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from clirkit.plots import training_curves

    path = tmp_path / "curve.png"
    path.write_bytes(b"old")

    def broken(self, *args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(Figure, "savefig", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        training_curves({"a": ([1, 2], [0.1, 0.2])}, xlabel="rounds", ylabel="dev MAP", path=path)
    assert path.read_bytes() == b"old"
    _no_temp_files(tmp_path)


def test_bad_suffix_and_missing_folder_are_user_errors(tmp_path):
    from clirkit.plots import kappa_sweep

    sweep = {"PSQ+SCS": ([0.0, 0.5, 1.0], [0.3, 0.4, 0.35])}
    with pytest.raises(ClirkitError, match=r"must end in \.png"):
        kappa_sweep(sweep, measure="AP", path=tmp_path / "k.jpg")
    pytest.importorskip("matplotlib")
    with pytest.raises(ClirkitError, match="does not exist"):
        kappa_sweep(sweep, measure="AP", path=tmp_path / "missing" / "k.png")


def _capture_figure(monkeypatch):
    """Replace the writer with one that keeps the figure; returns the list the figures go to."""
    from clirkit import plots

    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: figures.append(fig) or path)
    return figures


def test_kappa_sweep_writes_a_png_with_one_line_per_fusion_and_the_first_best_kappa(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from clirkit.plots import kappa_sweep

    kappas = np.round(np.linspace(0, 1, 11), 2)
    sweeps = {
        "PSQ+SCS": (kappas, 0.30 + 0.1 * kappas * (1 - kappas)),
        "DT+SCS": (kappas, np.where(kappas >= 0.3, 0.41, 0.40)),
    }  # a plateau: first kappa wins
    path = kappa_sweep(sweeps, measure="AP", path=tmp_path / "kappa.png")
    image = _read_png(path)
    assert image.shape[:2] == (round(4.0 * DPI), round(6.4 * DPI))

    figures = _capture_figure(monkeypatch)
    kappa_sweep(sweeps, measure="AP", path=tmp_path / "again.png")
    labels = [t.get_text() for t in figures[0].axes[0].get_legend().get_texts()]
    assert labels == ["PSQ+SCS (best at 0.5: 0.3250)", "DT+SCS (best at 0.3: 0.4100)"]
    assert figures[0].axes[0].get_xlabel() == "kappa (weight of the first run)"


def test_kappa_sweep_names_weight_vectors_of_three_run_fusions(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from clirkit.plots import kappa_sweep

    figures = _capture_figure(monkeypatch)
    vectors = ["1/0/0", "0.5/0.5/0", "0.4/0.3/0.3"]
    kappa_sweep(
        {"PSQ+DT+SCS": ([0, 1, 2], [0.30, 0.33, 0.35])},
        measure="AP",
        path=tmp_path / "k.png",
        xlabel="weight vector (index)",
        xlabels={"PSQ+DT+SCS": vectors},
    )
    ax = figures[0].axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["PSQ+DT+SCS (best at 0.4/0.3/0.3: 0.3500)"]
    assert ax.get_xlabel() == "weight vector (index)"
    with pytest.raises(ClirkitError, match="2 x labels for 3 points"):
        kappa_sweep(
            {"F": ([0, 1, 2], [0.3, 0.3, 0.3])}, measure="AP", path=tmp_path / "k.png", xlabels={"F": vectors[:2]}
        )
    with pytest.raises(ClirkitError, match="not one of the sweeps"):
        kappa_sweep({"F": ([0, 1], [0.3, 0.3])}, measure="AP", path=tmp_path / "k.png", xlabels={"G": vectors[:2]})


def test_training_curves_mark_the_max_of_a_measure_and_the_min_of_a_loss(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from clirkit.plots import training_curves

    rounds = np.arange(0, 100, 10)
    dev_map = 0.3 + 0.01 * rounds - 0.0001 * rounds**2  # maximum at round 50
    path = training_curves(
        {"PSQ-Boost beta 5": (rounds, dev_map)},
        xlabel="boosting rounds",
        ylabel="dev MAP",
        path=tmp_path / "rounds.png",
        reference=("PSQ", 0.31),
    )
    _read_png(path)
    _no_temp_files(tmp_path)

    figures = _capture_figure(monkeypatch)
    training_curves(
        {"PSQ-Boost beta 5": (rounds, dev_map)},
        xlabel="boosting rounds",
        ylabel="dev MAP",
        path=tmp_path / "x.png",
        reference=("PSQ", 0.31),
    )
    epochs, loss = np.arange(1, 6), np.array([0.9, 0.5, 0.4, 0.45, 0.41])
    training_curves({"SCS": (epochs, loss)}, xlabel="epochs", ylabel="training loss", path=tmp_path / "y.png")
    texts = [[t.get_text() for t in f.axes[0].get_legend().get_texts()] for f in figures]
    assert texts == [["PSQ-Boost beta 5 (best 0.5500 at 50)", "PSQ (0.3100)"], ["SCS (best 0.4000 at 3)"]]


def test_curves_reject_mismatched_or_empty_input(tmp_path):
    from clirkit.plots import training_curves

    with pytest.raises(ClirkitError, match="'a': 2 x values but 3 y values"):
        training_curves({"a": ([1, 2], [0.1, 0.2, 0.3])}, xlabel="x", ylabel="y", path=tmp_path / "c.png")
    with pytest.raises(ClirkitError, match="no curve"):
        training_curves({}, xlabel="x", ylabel="y", path=tmp_path / "c.png")
    with pytest.raises(ClirkitError, match="best must be"):
        training_curves({"a": ([1], [0.1])}, xlabel="x", ylabel="y", path=tmp_path / "c.png", best="top")
    assert os.listdir(tmp_path) == []
