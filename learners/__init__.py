"""Weak learners, online and batch, and adapters to river and scikit-learn models.

The names below are imported on first use (module `__getattr__`, PEP 562), so that importing
one learner (or `learners.base`, which the boosters import) does not load scikit-learn through
the batch learners beside it.
"""

from __future__ import annotations

import importlib

#: public name -> the submodule that defines it
_LAZY = {
    "FeaturePolicy": "feature_policy",
    "FeaturePolicyStack": "feature_policy",
    "LinearOGD": "linear_ogd",
    "LinearOGDStack": "linear_ogd",
    "MLPStack": "mlp",
    "OnlineRidge": "ridge",
    "OnlineStump": "stump",
    "OnlineTree": "tree",
    "OnlineTreeRegressor": "tree",
    "RefitRegressor": "refit",
    "RefitStack": "refit",
    "RegressorOCO": "reduction",
    "RegressorOCOStack": "reduction",
    "RidgePolicy": "ridge_policy",
    "RidgePolicyStack": "ridge_policy",
    "RidgeStack": "ridge",
    "SmallTree": "small_tree",
    "SoftmaxPolicy": "softmax_policy",
    "SoftmaxPolicyStack": "softmax_policy",
    "StumpStack": "stump",
    "TinyMLP": "mlp",
    "TreeRegressorStack": "tree",
    "TreeStack": "tree",
    "WeightedStump": "weighted_stump",
    "paper_weak_learners": "recipes",
    "warmup_thresholds": "stump",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    globals()[name] = value  # the next access skips __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
