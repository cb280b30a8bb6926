"""onlineboost: online boosting on streams."""

from __future__ import annotations

from . import extension, losses, sets
from . import evaluate
from .boblo import BoBLO
from .booco import BoOCO, BoOCOClassifier

__version__ = "0.1.0"

__all__ = ["BoBLO", "BoOCO", "BoOCOClassifier", "evaluate", "extension", "losses", "sets"]
