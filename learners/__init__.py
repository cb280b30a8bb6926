"""Weak learners, online and batch, and adapters to river and scikit-learn models."""

from __future__ import annotations

from .small_tree import SmallTree
from .weighted_stump import WeightedStump

__all__ = ["SmallTree", "WeightedStump"]
