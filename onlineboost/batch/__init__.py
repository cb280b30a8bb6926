"""Batch boosters with scikit-learn's fit / predict interface."""

from __future__ import annotations

__all__: list[str] = []
