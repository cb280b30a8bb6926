"""Batch boosters with scikit-learn's fit / predict interface."""

from __future__ import annotations

from . import gb_losses
from .adaboost import AdaBoostM1, WeakLearningWarning
from .gradient_boosting import GradientTreeBoostingClassifier, GradientTreeBoostingRegressor

__all__: list[str] = [
    "AdaBoostM1",
    "GradientTreeBoostingClassifier",
    "GradientTreeBoostingRegressor",
    "WeakLearningWarning",
    "gb_losses",
]
