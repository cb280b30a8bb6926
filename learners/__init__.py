"""Weak learners, online and batch, and adapters to river and scikit-learn models."""

from __future__ import annotations

from .linear_ogd import LinearOGD, LinearOGDStack
from .reduction import RegressorOCO, RegressorOCOStack
from .ridge import OnlineRidge, RidgeStack
from .softmax_policy import SoftmaxPolicy, SoftmaxPolicyStack
from .weighted_stump import WeightedStump

__all__ = [
    "LinearOGD",
    "LinearOGDStack",
    "OnlineRidge",
    "RegressorOCO",
    "RegressorOCOStack",
    "RidgeStack",
    "SoftmaxPolicy",
    "SoftmaxPolicyStack",
    "WeightedStump",
]
