r"""Loaders for the three regression data sets of Hazan & Singh (2021), Table 1.

Each returns `(X, y, feature_names)`: `X` a float64 array `(n, d)`, `y` a float64 array `(n,)`.
Diabetes ships with scikit-learn; Boston and California housing are read from CSV files in a
data directory (`default_data_dir()`), never downloaded. Stream them with
`river.stream.iter_array(X, y, feature_names=feature_names)`.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

__all__ = [
    "default_data_dir",
    "load_boston",
    "load_california",
    "load_dataset",
    "load_diabetes",
    "scale_target",
]

CALIFORNIA_FEATURES = [
    "MedInc", "HouseAge", "AveRooms", "AveBedrms", "Population", "AveOccup", "Latitude",
    "Longitude",
]


def default_data_dir() -> Path:
    """`$ONLINEBOOST_DATA` if set, else `shared/data` beside the repository.

    Examples
    --------
    >>> import os
    >>> from streams import default_data_dir
    >>> default_data_dir().name == "data" or "ONLINEBOOST_DATA" in os.environ
    True
    """
    env = os.environ.get("ONLINEBOOST_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def _read_csv(data_dir, filename: str) -> tuple[list[str], list[list[str]]]:
    path = Path(data_dir if data_dir is not None else default_data_dir()) / filename
    if not path.is_file():
        raise FileNotFoundError(
            f"{filename} not found in {path.parent}; pass data_dir= or set ONLINEBOOST_DATA "
            "to the directory holding the reference data (see shared/data/README.md)"
        )
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def load_diabetes() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """scikit-learn's Diabetes data: 442 rows, 10 (scaled) features, disease progression.

    Examples
    --------
    >>> from streams import load_diabetes
    >>> X, y, names = load_diabetes()
    >>> X.shape, y[:2], names[:3]
    ((442, 10), array([151.,  75.]), ['age', 'sex', 'bmi'])
    """
    from sklearn.datasets import load_diabetes as sk_load

    data = sk_load()
    return (np.asarray(data.data, dtype=np.float64), np.asarray(data.target, dtype=np.float64),
            list(data.feature_names))


def load_boston(data_dir=None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    r"""Boston housing (`<data_dir>/boston.csv`): 506 rows, 13 features, target `medv`.

    Examples
    --------
    With the real file, `load_boston()` gives 506 rows and 13 features; here a two-row file:

    >>> import pathlib, tempfile
    >>> from streams import load_boston
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "boston.csv").write_text("crim,zn,medv\n0.1,18,24.0\n0.2,0,21.6\n")
    >>> load_boston(d)
    (array([[ 0.1, 18. ],
           [ 0.2,  0. ]]), array([24. , 21.6]), ['crim', 'zn'])
    """
    header, rows = _read_csv(data_dir, "boston.csv")
    data = np.array(rows, dtype=np.float64)
    target = header.index("medv")
    names = [h for i, h in enumerate(header) if i != target]
    return np.delete(data, target, axis=1), data[:, target], names


def load_california(data_dir=None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    r"""California housing (`<data_dir>/california_housing.csv`) as scikit-learn's 8 features.

    MedInc = median_income, HouseAge = housing_median_age, AveRooms = total_rooms /
    households, AveBedrms = total_bedrooms / households, Population, AveOccup = population /
    households, Latitude, Longitude; target median_house_value / 100000. The 207 rows with a
    missing `total_bedrooms` are dropped (20,433 rows remain); `ocean_proximity` is not used.

    Examples
    --------
    With the real file, `load_california()` gives 20,433 rows; here a two-row file, the
    second with `total_bedrooms` missing:

    >>> import pathlib, tempfile
    >>> from streams import load_california
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "california_housing.csv").write_text(
    ...     "longitude,latitude,housing_median_age,total_rooms,total_bedrooms,population,"
    ...     "households,median_income,median_house_value,ocean_proximity\n"
    ...     "-122.23,37.88,41.0,880.0,129.0,322.0,126.0,8.3252,452600.0,NEAR BAY\n"
    ...     "-122.22,37.86,21.0,7099.0,,2401.0,1138.0,8.3014,358500.0,NEAR BAY\n")
    >>> X, y, names = load_california(d)
    >>> X.round(4), y, names[:3]
    (array([[   8.3252,   41.    ,    6.9841,    1.0238,  322.    ,    2.5556,
               37.88  , -122.23  ]]), array([4.526]), ['MedInc', 'HouseAge', 'AveRooms'])
    """
    header, rows = _read_csv(data_dir, "california_housing.csv")
    col = {h: i for i, h in enumerate(header)}
    rows = [r for r in rows if r[col["total_bedrooms"]].strip() != ""]
    wanted = ["median_income", "housing_median_age", "total_rooms", "total_bedrooms",
              "population", "households", "latitude", "longitude", "median_house_value"]
    raw = {h: np.array([r[col[h]] for r in rows], dtype=np.float64) for h in wanted}
    households = raw["households"]
    X = np.column_stack([
        raw["median_income"],
        raw["housing_median_age"],
        raw["total_rooms"] / households,
        raw["total_bedrooms"] / households,
        raw["population"],
        raw["population"] / households,
        raw["latitude"],
        raw["longitude"],
    ])
    return X, raw["median_house_value"] / 100000.0, list(CALIFORNIA_FEATURES)


def load_dataset(name: str, data_dir=None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`load_diabetes`, `load_boston` or `load_california` by name.

    Examples
    --------
    >>> from streams import load_dataset
    >>> load_dataset("diabetes")[0].shape
    (442, 10)
    """
    if name == "diabetes":
        return load_diabetes()
    if name == "boston":
        return load_boston(data_dir)
    if name == "california":
        return load_california(data_dir)
    raise ValueError(f"name must be 'diabetes', 'boston' or 'california', got {name!r}")


def scale_target(y) -> np.ndarray:
    r"""Map targets affinely onto $[-1, 1]$ by their range: $\min \mapsto -1$, $\max \mapsto +1$.

    A constant target maps to 0.

    Examples
    --------
    >>> from streams import scale_target
    >>> scale_target([10.0, 15.0, 30.0])
    array([-1. , -0.5,  1. ])
    """
    y = np.asarray(y, dtype=np.float64)
    if y.size == 0 or not np.all(np.isfinite(y)):
        raise ValueError("y must be a non-empty array of finite numbers")
    lo, hi = y.min(), y.max()
    if hi == lo:
        return np.zeros_like(y)
    return np.clip(2.0 * (y - lo) / (hi - lo) - 1.0, -1.0, 1.0)
