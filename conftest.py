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
