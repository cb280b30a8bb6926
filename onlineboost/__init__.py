"""onlineboost: online boosting on streams."""

from __future__ import annotations

from . import extension, losses, sets
from .booco import BoOCO, BoOCOClassifier

__version__ = "0.1.0"

__all__ = ["BoOCO", "BoOCOClassifier", "extension", "losses", "sets"]
