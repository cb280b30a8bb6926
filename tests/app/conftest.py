"""Every test of the application layer signs its checkpoints with a test key (no key file is
made in the home directory)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def checkpoint_key(monkeypatch):
    monkeypatch.setenv("ONLINEBOOST_CHECKPOINT_KEY", "a test key of at least 16 bytes")
    monkeypatch.delenv("ONLINEBOOST_CHECKPOINT_KEY_FILE", raising=False)
