"""onlineboost: online boosting on streams."""

from __future__ import annotations

from . import evaluate, extension, losses, sets
from .b4co import B4CO
from .boblo import BoBLO
from .booco import BoOCO, BoOCOClassifier

__version__ = "0.1.0"

__all__ = ["B4CO", "BoBLO", "BoOCO", "BoOCOClassifier", "evaluate", "extension", "losses", "sets"]
