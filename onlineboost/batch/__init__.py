"""Batch boosters with scikit-learn's fit / predict interface."""

from __future__ import annotations

from .maboost import MABoostClassifier
from .maboost_presets import MadaBoostClassifier, SparseBoostClassifier

__all__: list[str] = ["MABoostClassifier", "MadaBoostClassifier", "SparseBoostClassifier"]
