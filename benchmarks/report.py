"""Benchmark results: each benchmark writes its own section, BENCHMARKS.md is their concatenation.

Every benchmark script ends with `report.write_section("<topic>", markdown)`. The section lands
in `benchmarks/results/<topic>.md` and `BENCHMARKS.md` is rebuilt from all sections in name
order, so benchmarks never overwrite each other's numbers.
"""

from __future__ import annotations

import platform
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"

HEADER = """# Benchmarks

Measured by the scripts under `benchmarks/` (each section names its command). Timings are
medians over repeats on a shared 2-core machine, with the compared library measured in the
same run; ratios matter more than absolute numbers.
"""


def machine() -> str:
    """One line describing where a section was measured."""
    return (
        f"{time.strftime('%Y-%m-%d')}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{platform.machine()}"
    )


def write_section(topic: str, markdown: str) -> Path:
    """Write `markdown` as the section `topic` and rebuild BENCHMARKS.md."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{topic}.md"
    path.write_text(markdown.rstrip() + "\n")
    rebuild()
    return path


def median_time(fn, repeat: int = 5, number: int = 1) -> float:
    """Median wall time of `fn()` in seconds over `repeat` runs of `number` calls."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return float(np.median(times))


def rebuild() -> None:
    """Rebuild BENCHMARKS.md from the section files (after a merge, say)."""
    sections = [p.read_text() for p in sorted(RESULTS.glob("*.md"))]
    (ROOT / "BENCHMARKS.md").write_text(HEADER + "\n" + "\n".join(sections))


if __name__ == "__main__":
    rebuild()
