"""Batch boosters with scikit-learn's fit / predict interface."""

from __future__ import annotations

from .adaboost import AdaBoostM1, WeakLearningWarning

__all__: list[str] = ["AdaBoostM1", "WeakLearningWarning"]
