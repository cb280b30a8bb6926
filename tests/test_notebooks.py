"""The notebooks: each runs end to end in a fresh kernel (cwd = notebooks/) and displays every
figure it draws; the stored files carry those outputs (small PNGs), written by
`python -m notebooks.execute`."""

from __future__ import annotations

import nbformat
import pytest

from notebooks.execute import FIGURE_OUTPUT, NOTEBOOKS, execute


def _figures_drawn(source: str) -> int:
    return source.count("plt.subplots(") + source.count("plt.figure(")


def _figures_shown(cell) -> int:
    return sum(FIGURE_OUTPUT in o.get("data", {}) for o in cell.get("outputs", []))


def _check_outputs(nb):
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))  # top to bottom
    drawing = [c for c in code if _figures_drawn(c.source)]
    assert drawing  # every notebook draws
    for cell in drawing:  # no silent figure (e.g. an Agg-only backend)
        assert _figures_shown(cell) == _figures_drawn(cell.source), cell.source


def test_there_are_notebooks():
    assert NOTEBOOKS  # a wrong glob would otherwise run no notebook test at all


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs_and_shows_every_figure(path):
    _check_outputs(execute(path, timeout=300))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_stored_notebook_has_its_outputs_and_stays_small(path):
    assert path.stat().st_size < 600 * 1024
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    _check_outputs(nb)
    assert not any('matplotlib.use("Agg")' in c.source for c in nb.cells)
