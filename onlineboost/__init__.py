"""onlineboost: online boosting on streams.

The package's names are loaded on first use (PEP 562), so that importing one module — say
`onlineboost.sets`, which the weak learners in `learners` build on — runs that module alone:
the geometry (`sets`, `losses`, `extension`, `_checks`) never pulls in the boosters, and the
boosters may import `learners` without an import cycle (`tests/test_import_graph.py`).
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_MODULES = ["bregman", "evaluate", "extension", "losses", "mirror", "sets"]
_CLASSES = {"B4CO": "b4co", "BoBLO": "boblo", "BoOCO": "booco",
            "BoOCOClassifier": "booco_classifier",
            "OnlineMABoostClassifier": "online_maboost"}

__all__ = sorted([*_CLASSES, *_MODULES])


def __getattr__(name: str):
    if name in _CLASSES:
        value = getattr(importlib.import_module(f".{_CLASSES[name]}", __name__), name)
    elif name in _MODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *__all__])
