"""Data for onlineboost: synthetic streams, data set loaders and bandit environments."""

from __future__ import annotations

from .classification_bandit import ClassificationBandit
from .linear_bandit import LinearBandit

__all__ = ["ClassificationBandit", "LinearBandit"]
