"""Figures a student can read: integer ticks on k, one legend, both median lines visible, a saved PNG."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import math  # noqa: E402
from pathlib import Path  # noqa: E402

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import dpteach  # noqa: E402
from dpteach import plotting  # noqa: E402
from dpteach.datasets import blog_figure  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_grid_plot_highlight_fades_every_other_query_in_panels_and_legend() -> None:
    figure = blog_figure("bounded_a")
    bright = ("median", "sum")
    fig = plotting.plot_sensitivity_grid(figure.grid(), figure.title, highlight=bright)
    lines = [line for ax in fig.axes for line in ax.get_lines()]
    assert {line.get_label() for line in lines} >= set(bright)
    for line in lines:
        assert (line.get_alpha() == 1.0) == (line.get_label() in bright)
    legend = fig.legends[0]
    for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True):
        assert (handle.get_alpha() == 1.0) == (text.get_text() in bright)
        assert (text.get_alpha() == 1.0) == (text.get_text() in bright)
    plain = plotting.plot_sensitivity_grid(figure.grid(), figure.title)
    assert all(line.get_alpha() != plotting.FADED_LINE_ALPHA for ax in plain.axes for line in ax.get_lines())


def test_grid_plot_has_integer_ticks_one_legend_and_visible_median_lines() -> None:
    figure = blog_figure("unbounded_a")
    fig = plotting.plot_sensitivity_grid(figure.grid(), figure.title)
    assert len(fig.legends) == 1
    assert [t.get_text() for t in fig.legends[0].get_texts()] == list(dpteach.QUERIES)
    with_median = [ax for ax in fig.axes if "median" in {line.get_label() for line in ax.get_lines()}]
    assert len(with_median) == 2  # one panel per column holds the median; sum and var have their own panel
    for ax in fig.axes:
        assert list(ax.get_xticks()) == [1, 2, 3, 4]
        assert ax.get_yscale() == "linear"
        top = max(max(line.get_ydata()) for line in ax.get_lines())
        assert ax.get_ylim()[0] < 0 and ax.get_ylim()[1] > top  # zeros sit above the frame; no marker is cut
    for ax in with_median:
        lines = {line.get_label(): line for line in ax.get_lines()}
        median, p50 = lines["median"], lines["percentile_50"]
        assert (median.get_marker(), median.get_linestyle()) != (p50.get_marker(), p50.get_linestyle())
        assert median.get_linewidth() > p50.get_linewidth()  # the wide line stays visible under the thin one
    assert fig._suptitle.get_text() == figure.title


def test_local_vs_global_shares_y_per_row_and_keeps_zero_visible() -> None:
    local, other = blog_figure("bounded_sensitivity_plot"), blog_figure("bounded_a")
    fig = plotting.plot_local_vs_global(local.grid(), other.grid(), local.title)
    assert len(fig.axes) == 8 and len(fig.legends) == 1  # 2 columns x (local, global) x (other queries, sum+var)
    assert all(ax.get_ylim()[0] < 0 for ax in fig.axes)  # sensitivities of 0 are drawn above the frame
    for local_ax, global_ax in zip(fig.axes[::2], fig.axes[1::2], strict=True):
        assert local_ax.get_ylim() == global_ax.get_ylim()  # each local/global pair is read on one scale


def test_save_fig_writes_png_returns_nothing_and_rejects_bad_names(tmp_path) -> None:
    save_fig = plotting.setup(tmp_path)
    fig, _ = plt.subplots()
    assert save_fig("example", fig) is None  # a cell ending with save_fig(...) echoes nothing
    assert (tmp_path / "example.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(ValueError, match="name must be"):
        save_fig("../escape", fig)


def test_save_fig_writes_beside_the_running_notebook_not_into_the_package(tmp_path, monkeypatch) -> None:
    """A notebook run in another folder saves into that folder's images/, never the course's images/."""
    package_images = Path(plotting.__file__).resolve().parent.parent / "images"
    before = {p.name: p.stat().st_mtime_ns for p in package_images.glob("*.png")}
    monkeypatch.delenv("DPTEACH_IMAGES_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    save_fig = plotting.setup()
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    save_fig("unbounded_b", fig)  # a course figure's name
    assert (tmp_path / "images" / "unbounded_b.png").exists()
    assert {p.name: p.stat().st_mtime_ns for p in package_images.glob("*.png")} == before
    monkeypatch.setenv("DPTEACH_IMAGES_DIR", str(tmp_path / "elsewhere"))
    plotting.setup()("unbounded_b", fig)
    assert (tmp_path / "elsewhere" / "unbounded_b.png").exists()


def test_save_fig_records_the_smallest_text_in_pixels(tmp_path) -> None:
    save_fig = plotting.setup(tmp_path)
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    ax.set_title("title", fontsize=7.5)
    ax.text(0.5, 0.5, "hidden", fontsize=3, visible=False)  # not drawn: not counted
    hidden = fig.add_axes((0.1, 0.1, 0.2, 0.2))
    hidden.set_visible(False)
    hidden.set_title("in a hidden axes", fontsize=2)
    assert plotting.smallest_text_pt(fig) == 7.5
    save_fig("sizes", fig)
    recorded = Image.open(tmp_path / "sizes.png").text[plotting.SMALLEST_TEXT_KEY]
    assert float(recorded) == pytest.approx(7.5 * plt.rcParams["savefig.dpi"] / 72, abs=0.01)


def test_smallest_text_counts_table_cells_and_skips_axes_turned_off() -> None:
    plotting.setup()
    fig, ax = plt.subplots()
    ax.set_xticks([0, 1], ["a", "b"], fontsize=5)
    ax.axis("off")  # its tick labels are not drawn
    table = ax.table(cellText=[["x"]], loc="center")
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    assert plotting.smallest_text_pt(fig) == 8
    with pytest.raises(TypeError, match="fig must be a matplotlib Figure"):
        plotting.smallest_text_pt(ax)


def test_neighbour_table_styler_is_reproducible() -> None:
    table = dpteach.neighbour_table([1, 2, 3, 10, 11], 3, relation="bounded")
    html = plotting.style_neighbour_table(table, uuid="t").to_html()
    assert html == plotting.style_neighbour_table(table, uuid="t").to_html()
    assert plotting.GLOBAL_MAX_COLOUR in html


def test_error_histograms_share_bins_and_label_every_mechanism() -> None:
    fig = plotting.error_histograms({"a": [0.1, 0.2, 0.3], "b": [0.2, 0.4]}, title="t", xlabel="x", ylabel="runs")
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a", "b"]
    edges = [patch.get_path().vertices[:, 0] for patch in ax.patches]
    assert all(e.min() == edges[0].min() and e.max() == edges[0].max() for e in edges)  # one set of bins
    with pytest.raises(ValueError, match="errors_by_label must hold at least one"):
        plotting.error_histograms({}, title="t", xlabel="x", ylabel="y")


def test_privacy_loss_panel_shows_the_log_ratio_inside_the_epsilon_band() -> None:
    z = [-5.0, 0.0, 5.0, 10.0]
    p, q = [0.1, 0.4, 0.2, 0.1], [0.05, 0.2, 0.4, 0.2]
    fig = plotting.plot_privacy_loss(z, {"x": p, "x'": q}, 1.0, "t")
    right = fig.axes[1]
    (loss,) = [line for line in right.get_lines() if line.get_label() == "privacy loss"]
    assert list(loss.get_ydata()) == pytest.approx([math.log(a / b) for a, b in zip(p, q, strict=True)])
    for axes in fig.axes[:2]:  # dotted lines mark each density's peak, on both panels
        assert sorted(line.get_xdata()[0] for line in axes.get_lines() if line.get_linestyle() == ":") == [0.0, 5.0]
    assert right.get_ylim()[0] < -1.0 and right.get_ylim()[1] > 1.0  # the band's edges are inside the view
    with pytest.raises(ValueError, match="densities"):
        plotting.plot_privacy_loss(z, {"x": p, "x'": [0.1, 0.0, 0.2, 0.1]}, 1.0, "t")


def test_k_curves_label_the_values_only_where_the_curves_differ() -> None:
    blog, group = pd.Series([3.0, 2.0, 5.0], [1, 2, 3]), pd.Series([3.0, 4.0, 5.0], [1, 2, 3])
    fig = plotting.plot_k_curves({"blog": blog, "group": group}, ylabel="s", title="t")
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.texts] == ["2.00", "4.00"]  # k = 2 only: at k = 1 and 3 the curves agree
    assert list(ax.get_xticks()) == [1, 2, 3] and ax.get_ylim() == (0.0, pytest.approx(6.0))
    assert [line.get_label() for line in ax.get_lines()] == ["blog", "group"]
    width, height = fig.get_size_inches()
    assert width / height == pytest.approx(16 / 9)
    with pytest.raises(TypeError, match="curves\\['a'\\] must be a pandas Series"):
        plotting.plot_k_curves({"a": [1.0]}, ylabel="s", title="t")


def test_audit_verdicts_draw_a_bar_per_mechanism_coloured_by_verdict_with_the_claim() -> None:
    panels = {"pair 1": {"right": (0.9, 1.0, True), "wrong": (1.9, 1.0, False)}, "pair 2": {"only": (3.0, 2.0, False)}}
    fig = plotting.plot_audit_verdicts(panels, title="t")
    first = fig.axes[0]
    assert [bar.get_height() for bar in first.patches] == [0.9, 1.9]
    assert [bar.get_facecolor()[:3] for bar in first.patches] == [matplotlib.colors.to_rgb("#2ca02c"),
                                                                  matplotlib.colors.to_rgb("#d62728")]
    assert [t.get_text() for t in first.texts] == ["0.90\npass", "1.90\nFAIL"]
    assert [seg[0][1] for seg in first.collections[0].get_segments()] == [1.0, 1.0]
    assert first.get_ylim()[1] > 1.9 and fig.axes[1].get_ylim()[1] > 3.0
    assert sum(ax.get_visible() for ax in fig.axes) == 2
    assert [ax.get_ylabel() for ax in fig.axes[:2]] == [plotting.AUDIT_YLABEL] * 2  # one column of two panels
    three = plotting.plot_audit_verdicts({**panels, "pair 3": {"x": (1.0, 1.0, True)}}, title="t")
    assert [ax.get_ylabel() for ax in three.axes[:3]] == [plotting.AUDIT_YLABEL, "", plotting.AUDIT_YLABEL]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["audit: pass", "audit: FAIL"]


def test_audit_verdicts_hatch_every_bar_whose_claim_theory_finds_violated_so_a_miss_shows() -> None:
    """Notebook 10: the book's PTR at ε on 4 | 5 passes though theory finds it violated; its green bar is hatched."""
    panels = {"p": {"right": (0.9, 1.0, True, True), "miss": (0.95, 1.0, True, False),
                    "caught": (1.9, 1.0, False, False)}}
    fig = plotting.plot_audit_verdicts(panels, title="t")
    bars = fig.axes[0].patches
    assert [bar.get_hatch() for bar in bars] == [None, "//", "//"]
    assert bars[1].get_facecolor()[:3] == matplotlib.colors.to_rgb("#2ca02c")
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["audit: pass", "audit: FAIL",
                                                                  "theory: claim violated on this pair"]


def test_smooth_between_draws_fractions_of_gs_and_notes_a_zero_row() -> None:
    frame = pd.DataFrame({"LS": [1.0, 0.0], "S*, β = 1": [2.0, 0.0], "GS": [4.0, 0.0]}, index=["median", "count"])
    fig = plotting.plot_smooth_between({"col": frame}, title="t")
    ax = fig.axes[0]
    dots = [line.get_xdata()[0] for line in ax.lines if line.get_marker() == "o"]
    assert dots == [0.5]  # S* / GS for the median; the count (GS = 0) gets no marker
    assert "0 everywhere" in [t.get_text() for t in ax.texts]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["S*, β = 1", "LS"]
    with pytest.raises(ValueError, match="columns LS, one per beta, GS"):
        plotting.plot_smooth_between({"col": frame[["GS", "LS"]]}, title="t")


def test_make_figures_writes_the_course_figures_to_images(monkeypatch, tmp_path) -> None:
    """scripts/run_notebooks.py (make figures) runs each notebook with DPTEACH_IMAGES_DIR set to the repository's
    images/, whatever the caller's environment says."""
    import importlib.util

    import nbformat

    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("run_notebooks", root / "scripts" / "run_notebooks.py")
    runner = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(runner)
    seen = {}

    def execute(notebook, env=None):
        seen.update(env)
        return nbformat.v4.new_notebook()

    monkeypatch.setattr(runner, "execute", execute)
    monkeypatch.setenv("DPTEACH_IMAGES_DIR", str(tmp_path / "elsewhere"))
    runner.run(tmp_path / "00_x.ipynb")
    assert seen["DPTEACH_IMAGES_DIR"] == str(root / "images")


def _every_course_figure() -> dict[str, matplotlib.figure.Figure]:
    """One figure from each figure function of dpteach.plotting, on the course's own numbers where there are some."""
    grid, local = blog_figure("unbounded_a").grid(), blog_figure("unbounded_sensitivity_plot").grid()
    table = dpteach.neighbour_table((1, 2, 3, 10, 11), 3, "median", relation="bounded")
    fig, ax = plt.subplots(figsize=(12, 4.4))  # as notebook 02 draws it
    plotting.draw_neighbour_table(ax, table, "bounded DP · median · k = 1")
    series = pd.Series([3.0, 2.0, 4.0], [1, 2, 3])
    frame = pd.DataFrame({"LS": [1.0, 0.0], "S*, β = 1": [2.0, 0.0], "GS": [4.0, 0.0]}, index=["median", "count"])
    z = [0.0, 1.0, 2.0]
    return {
        "sensitivity grid": plotting.plot_sensitivity_grid(grid, "t"),
        "local vs global": plotting.plot_local_vs_global(local[local["column"] == "absence_days"],
                                                         grid[grid["column"] == "absence_days"], "t"),
        "neighbour table": fig,
        "error histograms": plotting.error_histograms({"a": [1.0, 2.0], "b": [2.0, 3.0]}, title="t", xlabel="x",
                                                      ylabel="y"),
        "privacy loss": plotting.plot_privacy_loss(z, {"x": [0.2, 0.3, 0.5], "x'": [0.5, 0.3, 0.2]}, 1.0, "t"),
        "k curves": plotting.plot_k_curves({"blog": series, "group": series + 1}, ylabel="s", title="t"),
        "audit verdicts": plotting.plot_audit_verdicts({"p": {"a, b": (0.9, 1.0, True, False)}}, title="t"),
        "smooth between": plotting.plot_smooth_between({"col": frame}, title="t"),
    }


def test_every_figure_function_draws_its_text_at_the_slide_style_size_or_more(tmp_path) -> None:
    """Drawn for a 1280x720 slide: no text of any course figure is smaller than the style's base size, 13 pt (18 px
    at the inline 100 dpi, so 14 px even when a slide shows the figure at three quarters of its size)."""
    plotting.setup(tmp_path)
    assert plotting.STYLE["font.size"] == 13
    small = {name: plotting.smallest_text_pt(fig) for name, fig in _every_course_figure().items()}
    assert {name: pt for name, pt in small.items() if pt < 13} == {}


def test_two_columns_of_data_make_a_2_by_2_grid_for_a_16_9_slide(tmp_path) -> None:
    """Sensitivity grids and local-vs-global figures of one column: two rows of two panels, wider than tall."""
    plotting.setup(tmp_path)
    figures = _every_course_figure()
    for name in ("sensitivity grid", "local vs global"):
        fig = figures[name]
        assert [ax.get_subplotspec().get_geometry()[:2] for ax in fig.axes] == [(2, 2)] * 4, name
        width, height = fig.get_size_inches()
        assert 1.4 <= width / height <= 2.0, (name, width / height)


def test_the_stretch_figure_shows_the_reverse_order_passing_half_epsilon_at_t() -> None:
    """Lesson 04's figure: in the reverse order (red) the stretch's loss reaches ε/2 at t, where the shaded tail
    starts; in the lesson's order (blue, x′'s noise wider by e^β) it never exceeds β."""
    beta, epsilon = 0.0658, 1.0
    t = (epsilon / 2 + beta) / math.expm1(beta)
    fig = plotting.plot_stretch_loss(beta, t, epsilon, "stretch")
    ax = fig.axes[0]
    red, blue = ax.lines[:2]
    z, loss = red.get_data()
    assert np.interp(t, z[z > 0], loss[z > 0]) == pytest.approx(epsilon / 2, abs=1e-3)
    assert loss[len(z) // 2] == pytest.approx(-beta)
    assert blue.get_data()[1].max() == pytest.approx(beta)
    assert ax.patches[0].get_x() == pytest.approx(t)  # the shaded tail |z| > t
    plt.close(fig)


def test_the_swap_figure_keeps_b_rows_and_moves_the_dropped_one_up() -> None:
    """Lesson 08's swap: b kept rows and one dropped before; after removing row 0, row b is kept."""
    fig = plotting.plot_truncation_swap(2, "swap")
    before, after = ([t.get_text() for t in ax.texts] for ax in fig.axes)
    assert [t.split(" →")[0] for t in before] == ["row 0, kept", "row 1, kept", "row 2, dropped"]
    assert [t.split(" →")[0] for t in after] == ["row 1, kept", "row 2, kept (moved up)"]
    assert before[-1].endswith("none") and after[-1].endswith("≤ a joined rows")
    plt.close(fig)


def test_the_noise_figure_marks_each_gaussian_route_where_it_first_wins() -> None:
    """Appendix A2's figure: each Gaussian route's one marker sits at its crossover G, on its own curve."""
    groups = np.arange(1, 31)
    laplace = np.sqrt(2) * groups
    routes = {"Gaussian via zCDP (loose)": 5.35, "analytic Gaussian (exact)": 4.22}
    gaussian = {name: sigma * np.sqrt(groups) for name, sigma in routes.items()}
    crossover = {name: int(groups[np.argmax(sd < laplace)]) for name, sd in gaussian.items()}
    fig = plotting.plot_noise_vs_groups(groups, laplace, gaussian, routes, crossover, 1.0, 1e-6)
    laplace_line, *route_lines = fig.axes[0].lines
    assert laplace_line.get_ydata() == pytest.approx(laplace)
    for line, g in zip(route_lines, crossover.values(), strict=True):
        assert line.get_markevery() == [g - 1] and line.get_ydata()[g - 1] < laplace[g - 1]
    assert crossover == {"Gaussian via zCDP (loose)": 15, "analytic Gaussian (exact)": 9}
    plt.close(fig)
