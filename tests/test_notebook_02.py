"""Execute notebooks/02_contextual_bandits.ipynb (small sizes) with nbclient, cwd = notebooks/."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).resolve().parent.parent / "notebooks" / "02_contextual_bandits.ipynb"


def test_notebook_02_runs(monkeypatch):
    root = str(NOTEBOOK.parent.parent)  # the kernel imports this checkout's packages
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not any(o.get("output_type") == "error" for o in outputs)
    text = "".join(o.get("text", "") for o in outputs)
    assert "BoBLO, doubly robust over 800 rounds" in text
