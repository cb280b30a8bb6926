"""onlineboost: online boosting on streams."""

from __future__ import annotations

from . import bregman, evaluate, extension, losses, mirror, sets
from .b4co import B4CO
from .boblo import BoBLO
from .booco import BoOCO
from .booco_classifier import BoOCOClassifier
from .booco_multiclass import BoOCOMultiClassifier
from .online_maboost import OnlineMABoostClassifier
from .online_maboost_multiclass import OnlineMABoostMultiClassifier

__version__ = "0.1.0"

__all__ = [
    "B4CO",
    "BoBLO",
    "BoOCO",
    "BoOCOClassifier",
    "BoOCOMultiClassifier",
    "OnlineMABoostClassifier",
    "OnlineMABoostMultiClassifier",
    "bregman",
    "evaluate",
    "extension",
    "losses",
    "mirror",
    "sets",
]
