"""Batch boosters with scikit-learn's fit / predict interface."""

from __future__ import annotations

from . import gb_losses, offset_oracle, secboost_losses
from .adaboost import AdaBoostM1, WeakLearningWarning
from .gradient_boosting import GradientTreeBoostingClassifier, GradientTreeBoostingRegressor
from .maboost import MABoostClassifier
from .maboost_presets import ActiveMadaBoostClassifier, MadaBoostClassifier, SparseBoostClassifier
from .secboost import SecBoostClassifier
from .secboost_losses import ClippedLogisticLoss, LogisticLoss, SpringLoss

__all__: list[str] = [
    "ActiveMadaBoostClassifier",
    "AdaBoostM1",
    "ClippedLogisticLoss",
    "GradientTreeBoostingClassifier",
    "GradientTreeBoostingRegressor",
    "LogisticLoss",
    "MABoostClassifier",
    "MadaBoostClassifier",
    "SecBoostClassifier",
    "SparseBoostClassifier",
    "SpringLoss",
    "WeakLearningWarning",
    "gb_losses",
    "offset_oracle",
    "secboost_losses",
]
