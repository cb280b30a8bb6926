"""No import cycle between `onlineboost` and `learners`, at module or function level.

The graph is read from the source (every `import` statement anywhere in a module, inside
functions too), not from what happens to be imported at run time, so a cycle hidden behind a
function-level import still fails. Edges: `import a.b.c` and `from a.b import c` reach the
module (`a.b.c` when it is a module, else `a.b`) and every package `__init__` on the way
(Python runs those first; a module's own parent packages are already running);
`from onlineboost import BoOCO` reaches the module the package's lazy `__getattr__` loads
(`onlineboost.booco`).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("onlineboost", "learners")


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _lazy_names() -> dict[str, str]:
    """`onlineboost.<name>` → the module `onlineboost.__getattr__` loads for it."""
    import onlineboost

    return {f"onlineboost.{k}": f"onlineboost.{v}" for k, v in onlineboost._LAZY.items()
            if v is not None}  # (a None entry is a submodule of the same name)


def _with_parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    lazy = _lazy_names()
    graph: dict[str, set[str]] = {m: set() for m in modules}

    def target(name: str) -> str | None:
        name = lazy.get(name, name)
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    for mod, path in modules.items():
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):  # every import, at any depth
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = mod if is_package else mod.rpartition(".")[0]
                    for _ in range(node.level - 1):
                        base = base.rpartition(".")[0]
                    prefix = f"{base}.{node.module}" if node.module else base
                else:
                    prefix = node.module
                names = [f"{prefix}.{a.name}" for a in node.names]
            own = set(_with_parents(mod))  # running already when `mod` runs
            for name in names:
                t = target(name)
                if t is not None:
                    graph[mod].update(p for p in _with_parents(t)
                                      if p in modules and p not in own)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_sees_function_level_imports():
    """A learner importing a booster inside a function would close a cycle: it is found."""
    graph = import_graph()
    graph["learners.linear_ogd"].add("onlineboost.booco")
    assert find_cycle(graph) is not None


def test_geometry_does_not_import_learners_or_boosters():
    graph = import_graph()
    for mod in ("onlineboost.sets", "onlineboost.losses", "onlineboost._checks",
                "onlineboost.extension"):
        reached = graph[mod]
        assert not any(m.startswith("learners") for m in reached), (mod, reached)
        assert "onlineboost.booco" not in reached


@pytest.mark.parametrize("statement", [
    "import learners; from onlineboost import BoOCO; BoOCO()",
    "from onlineboost import BoOCO; import learners; BoOCO(learners.OnlineRidge())",
    "import onlineboost.sets, sys; assert 'onlineboost.booco' not in sys.modules",
    "from learners.base import resolve_learner",
])
def test_every_import_order_works(statement):
    subprocess.run([sys.executable, "-c", statement], check=True, cwd=ROOT,
                   env={"PYTHONPATH": str(ROOT), "PATH": ""})
