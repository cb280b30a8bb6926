"""onlineboost: online boosting on streams."""

from __future__ import annotations

from . import bregman, extension, losses, mirror, sets
from .booco import BoOCO, BoOCOClassifier
from .online_maboost import OnlineMABoostClassifier

__version__ = "0.1.0"

__all__ = [
    "BoOCO",
    "BoOCOClassifier",
    "OnlineMABoostClassifier",
    "bregman",
    "extension",
    "losses",
    "mirror",
    "sets",
]
