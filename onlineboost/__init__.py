"""onlineboost: online boosting on streams."""

from __future__ import annotations

__version__ = "0.1.0"

from . import bregman, mirror  # noqa: F401  (module access: onlineboost.mirror)
from .online_maboost import OnlineMABoostClassifier

__all__: list[str] = ["OnlineMABoostClassifier"]
