"""Execute notebooks/04_boosting_any_loss.ipynb end to end."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOK = Path(__file__).parent.parent / "notebooks" / "04_boosting_any_loss.ipynb"


def test_notebook_04_runs(data_dir):
    del data_dir  # skips when the Tic-Tac-Toe data are absent
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")
    client = NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    client.execute()
    text = "".join(
        out.get("text", "") for cell in nb.cells for out in cell.get("outputs", [])
    )
    assert "step 2.7: all weights zero" in text


if __name__ == "__main__":
    pytest.main([__file__])
