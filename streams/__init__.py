"""Data for onlineboost: synthetic streams, data set loaders and bandit environments."""

from __future__ import annotations

from .stump_mixture import StumpMixture

__all__: list[str] = ["StumpMixture"]
