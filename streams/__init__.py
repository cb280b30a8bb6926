"""Data for onlineboost: synthetic streams, data set loaders and bandit environments."""

from __future__ import annotations

from .regression_data import (
    default_data_dir,
    load_boston,
    load_california,
    load_dataset,
    load_diabetes,
    scale_target,
)
from .stump_mixture import StumpMixture

__all__: list[str] = [
    "StumpMixture",
    "default_data_dir",
    "load_boston",
    "load_california",
    "load_dataset",
    "load_diabetes",
    "scale_target",
]
