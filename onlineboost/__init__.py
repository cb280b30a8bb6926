"""onlineboost: online boosting on streams.

The public names below are imported on first use (module `__getattr__`), so that
`import onlineboost` and the `onlineboost` command start fast: scikit-learn, scipy.stats and
matplotlib are loaded only by the parts that use them; and importing one module (say
`onlineboost.sets`, which the weak learners in `learners` build on) runs that module alone, so the
geometry never pulls in the boosters and the boosters may import `learners` without an import
cycle (`tests/test_import_graph.py`).

Examples
--------
>>> import onlineboost
>>> onlineboost.BoOCO.__name__, onlineboost.sets.__name__
('BoOCO', 'onlineboost.sets')
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

#: public name -> the submodule that defines it (a submodule itself when the value is None).
_LAZY = {
    "B4CO": "b4co",
    "BoBLO": "boblo",
    "BoOCO": "booco",
    "BoOCOClassifier": "booco_classifier",
    "BoOCOMultiClassifier": "booco_multiclass",
    "Exp4": "exp4",
    "NeighbourBoBLO": "neighbours",
    "OnlineMABoostClassifier": "online_maboost",
    "OnlineMABoostMultiClassifier": "online_maboost_multiclass",
    "bregman": None,
    "evaluate": None,
    "extension": None,
    "losses": None,
    "mirror": None,
    "sets": None,
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f".{_LAZY[name] or name}", __name__)
    value = module if _LAZY[name] is None else getattr(module, name)
    globals()[name] = value  # the next access skips __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
