r"""Loaders for the three regression data sets of Hazan & Singh (2021), Table 1.

Each returns `(X, y, feature_names)`: `X` a float64 array `(n, d)`, `y` a float64 array `(n,)`.
Stream them with `river.stream.iter_array(X, y, feature_names=feature_names)`.

Where the data comes from, in this order (`data_dirs`, `find_data_file`):

1. Diabetes ships with scikit-learn: always available, no file needed.
2. `data_dir=` (the command line's `--data-dir`), when given: the only folder looked in.
3. Else `$ONLINEBOOST_DATA`, when set: the only folder looked in.
4. Else the repository's `../shared/data` when running from a checkout: the checkout is found
   from the current directory upwards, or from this package's location when it is a checkout
   (a folder whose `pyproject.toml` names the `onlineboost` project).
5. Else, for California housing only, scikit-learn's `fetch_california_housing` with its own
   cache (`$SCIKIT_LEARN_DATA`, default `~/scikit_learn_data`), downloading once if missing.
   Its copy has 20,640 rows (the CSV file drops the 207 with no `total_bedrooms`).

A folder given explicitly (2, 3) is never second-guessed: a file missing there is an error,
not a reason to read another copy from elsewhere. Boston housing has no fetcher (scikit-learn
removed it): it is read from `boston.csv` only. Data files are never copied into the
repository.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np

__all__ = [
    "DataNotFoundError",
    "data_dirs",
    "default_data_dir",
    "find_data_file",
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


class DataNotFoundError(FileNotFoundError):
    """A data file is in none of the places looked in.

    `filename` is the file's name, `searched` the `(folder, why it was looked in)` pairs, in
    order, and `detail` what else failed (a fetcher), so that a command line can word its own
    message.
    """

    def __init__(self, filename: str, searched: list[tuple[Path, str]], detail: str = ""):
        self.searched = list(searched)
        self.detail = detail
        where = "; ".join(f"{folder} ({why})" for folder, why in self.searched) or "nowhere"
        self.message = (f"{filename} not found (looked in: {where}){detail}; pass data_dir= or "
                        "set ONLINEBOOST_DATA to a folder that holds it")
        super().__init__(self.message)
        self.filename = filename

    def __str__(self) -> str:
        return self.message


def _checkouts() -> list[Path]:
    """Roots of onlineboost checkouts above the current directory and above this file."""
    roots: list[Path] = []
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            project = folder / "pyproject.toml"
            try:
                is_root = project.is_file() and 'name = "onlineboost"' in project.read_text()
            except OSError:  # pragma: no cover - an unreadable pyproject.toml is not ours
                is_root = False
            if is_root and folder not in roots:
                roots.append(folder)
    return roots


def data_dirs(data_dir=None) -> list[tuple[Path, str]]:
    """The folders looked in for a data file, in order, each with the reason it is looked in.

    Examples
    --------
    >>> from streams import data_dirs
    >>> data_dirs("/srv/data")
    [(PosixPath('/srv/data'), 'data_dir')]
    """
    if data_dir is not None:
        return [(Path(data_dir), "data_dir")]
    env = os.environ.get("ONLINEBOOST_DATA")
    if env:
        return [(Path(env), "$ONLINEBOOST_DATA")]
    return [(root.parent / "shared" / "data", f"beside the checkout {root}")
            for root in _checkouts()]


def default_data_dir() -> Path | None:
    """The first folder of `data_dirs()`: `$ONLINEBOOST_DATA` if set, else the checkout's
    `../shared/data`; `None` outside a checkout with the variable unset.

    Examples
    --------
    >>> import os
    >>> from streams import default_data_dir
    >>> folder = default_data_dir()
    >>> folder is None or folder.name == "data" or "ONLINEBOOST_DATA" in os.environ
    True
    """
    dirs = data_dirs()
    return dirs[0][0] if dirs else None


def find_data_file(filename: str, data_dir=None) -> Path:
    r"""The path of `filename` in the first folder of `data_dirs(data_dir)` that holds it.

    Raises `DataNotFoundError` (a `FileNotFoundError`) naming every folder looked in.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from streams import find_data_file
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "boston.csv").write_text("medv\n24.0\n")
    >>> find_data_file("boston.csv", d) == d / "boston.csv"
    True
    >>> find_data_file("boston.csv", d / "nope")
    Traceback (most recent call last):
    ...
    streams.regression_data.DataNotFoundError: boston.csv not found (looked in: .../nope ...
    """
    searched = data_dirs(data_dir)
    for folder, _ in searched:
        path = folder / filename
        if path.is_file():
            return path
    raise DataNotFoundError(filename, searched)


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
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
    header, rows = _read_csv(find_data_file("boston.csv", data_dir))
    data = np.array(rows, dtype=np.float64)
    target = header.index("medv")
    names = [h for i, h in enumerate(header) if i != target]
    return np.delete(data, target, axis=1), data[:, target], names


def load_california(data_dir=None, download: bool = True
                    ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    r"""California housing (`california_housing.csv`) as scikit-learn's 8 features.

    MedInc = median_income, HouseAge = housing_median_age, AveRooms = total_rooms /
    households, AveBedrms = total_bedrooms / households, Population, AveOccup = population /
    households, Latitude, Longitude; target median_house_value / 100000. The 207 rows with a
    missing `total_bedrooms` are dropped (20,433 rows remain); `ocean_proximity` is not used.

    With no `data_dir`, no `$ONLINEBOOST_DATA` and no checkout copy, the data comes from
    scikit-learn's `fetch_california_housing` (its cache, or a download when `download`):
    the same features and target, 20,640 rows.

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
    try:
        path = find_data_file("california_housing.csv", data_dir)
    except DataNotFoundError as e:
        if data_dir is not None or os.environ.get("ONLINEBOOST_DATA"):
            raise
        return _fetch_california(e.searched, download)
    header, rows = _read_csv(path)
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


def _fetch_california(searched, download: bool):
    """scikit-learn's copy of California housing, from its cache (downloaded once if missing)."""
    from sklearn.datasets import fetch_california_housing, get_data_home

    searched = [*searched, (Path(get_data_home()), "scikit-learn's fetch_california_housing")]
    try:
        data = fetch_california_housing(download_if_missing=download)
    except OSError as e:  # not cached, and no download allowed or no network
        raise DataNotFoundError("california_housing.csv", searched,
                                f", and scikit-learn could not fetch it ({e})") from e
    return (np.asarray(data.data, dtype=np.float64), np.asarray(data.target, dtype=np.float64),
            list(data.feature_names))


def load_dataset(name: str, data_dir=None, download: bool = True
                 ) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """`load_diabetes`, `load_boston` or `load_california` (with `download`) by name.

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
        return load_california(data_dir, download)
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
