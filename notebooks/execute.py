"""Execute the notebooks and store them with their outputs (figures as small PNGs).

Run from the repository root: `python -m notebooks.execute` (all of them) or
`python -m notebooks.execute 02_contextual_bandits` (some). Each notebook runs in a fresh
kernel with `notebooks/` as its working directory and this checkout first on `PYTHONPATH`;
notebook 04 reads `tic-tac-toe.csv` from `../shared/data` or `$ONLINEBOOST_DATA`.
`tests/test_notebooks.py` executes them the same way (`execute`), without writing them.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

__all__ = ["FIGURE_OUTPUT", "NOTEBOOKS", "execute", "main"]

HERE = Path(__file__).resolve().parent
NOTEBOOKS = sorted(HERE.glob("*.ipynb"))
#: the MIME type of a displayed figure
FIGURE_OUTPUT = "image/png"


def execute(path: Path, timeout: int = 600) -> nbformat.NotebookNode:
    """`path` executed top to bottom in a fresh `python3` kernel (cwd: its folder)."""
    nb = nbformat.read(path, as_version=4)
    root = str(path.resolve().parent.parent)  # the kernel imports this checkout's packages
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (root, saved) if p)
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    finally:
        if saved is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = saved
    return nb


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names or stems (default: all)")
    args = parser.parse_args(argv)
    chosen = [p for p in NOTEBOOKS
              if not args.names or p.name in args.names or p.stem in args.names]
    for path in chosen:
        nb = execute(path)
        nb.metadata.pop("widgets", None)
        nbformat.write(nb, path)
        figures = sum(FIGURE_OUTPUT in o.get("data", {})
                      for c in nb.cells if c.cell_type == "code" for o in c.outputs)
        print(f"{path.name}: {figures} figures, {path.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    main()
