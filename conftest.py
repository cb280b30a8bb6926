"""Shared pytest fixtures: where the reference data lives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """`../shared/data/` beside the repository, or `$ONLINEBOOST_DATA`; skip if absent."""
    path = Path(os.environ.get("ONLINEBOOST_DATA", Path(__file__).parent.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.skip(f"reference data not found at {path}")
    return path


@pytest.fixture
def fourier_later(monkeypatch):
    """`BoBLO(n_learners>1)`'s default learner as it was from the eighth to the fifteenth
    session: later copies over 128 random Fourier features (`boblo.FOURIER_LATER`), so
    `aggregate="auto"` gives `"fit"` and the compiled N > 1 round covers it. For the tests of
    that configuration (the default later copies are neighbours since the sixteenth; copy 1's
    correction's weight, learnt since the twenty-first, is fixed at 1 as it was then)."""
    from onlineboost import boblo

    monkeypatch.setattr(boblo, "DEFAULT_LATER", boblo.FOURIER_LATER)
    monkeypatch.setattr(boblo, "DEFAULT_LEARNER", boblo.FIXED_WEIGHT_LEARNER)
