"""Weak learners, online and batch, and adapters to river and scikit-learn models."""

from __future__ import annotations

from .linear_ogd import LinearOGD, LinearOGDStack
from .mlp import MLPStack, TinyMLP
from .recipes import paper_weak_learners
from .reduction import RegressorOCO, RegressorOCOStack
from .refit import RefitRegressor, RefitStack
from .ridge import OnlineRidge, RidgeStack
from .ridge_policy import RidgePolicy, RidgePolicyStack
from .small_tree import SmallTree
from .softmax_policy import SoftmaxPolicy, SoftmaxPolicyStack
from .stump import OnlineStump, StumpStack, warmup_thresholds
from .tree import OnlineTree, OnlineTreeRegressor, TreeRegressorStack, TreeStack
from .weighted_stump import WeightedStump

__all__ = [
    "LinearOGD",
    "LinearOGDStack",
    "MLPStack",
    "OnlineRidge",
    "OnlineStump",
    "OnlineTree",
    "OnlineTreeRegressor",
    "RefitRegressor",
    "RefitStack",
    "RegressorOCO",
    "RegressorOCOStack",
    "RidgePolicy",
    "RidgePolicyStack",
    "RidgeStack",
    "SmallTree",
    "StumpStack",
    "TinyMLP",
    "TreeRegressorStack",
    "TreeStack",
    "SoftmaxPolicy",
    "SoftmaxPolicyStack",
    "WeightedStump",
    "paper_weak_learners",
    "warmup_thresholds",
]
