"""Data for onlineboost: synthetic streams, data set loaders and bandit environments."""

from __future__ import annotations

__all__: list[str] = []
