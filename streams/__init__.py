"""Data for onlineboost: synthetic streams, data set loaders and bandit environments."""

from __future__ import annotations

from .classification_bandit import ClassificationBandit
from .linear_bandit import LinearBandit
from .nonlinear_bandit import NonlinearBandit
from .regression_data import (
    DataNotFoundError,
    data_dirs,
    default_data_dir,
    find_data_file,
    load_boston,
    load_california,
    load_dataset,
    load_diabetes,
    scale_target,
)
from .stump_mixture import StumpMixture

__all__ = [
    "ClassificationBandit",
    "LinearBandit",
    "NonlinearBandit",
    "DataNotFoundError",
    "StumpMixture",
    "data_dirs",
    "default_data_dir",
    "find_data_file",
    "load_boston",
    "load_california",
    "load_dataset",
    "load_diabetes",
    "scale_target",
]
