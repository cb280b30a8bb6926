from __future__ import annotations

import numpy as np
import pytest

from streams import (
    default_data_dir,
    load_boston,
    load_california,
    load_dataset,
    load_diabetes,
    scale_target,
)


def test_diabetes():
    X, y, names = load_diabetes()
    assert X.shape == (442, 10) and y.shape == (442,) and len(names) == 10
    assert X.dtype == np.float64 and y.dtype == np.float64


def test_boston(data_dir):
    X, y, names = load_boston(data_dir)
    assert X.shape == (506, 13) and y.shape == (506,) and "medv" not in names
    assert names[0] == "crim" and names[-1] == "lstat"
    np.testing.assert_allclose(X[0, :3], [0.00632, 18.0, 2.31])
    assert y[0] == 24.0 and y.min() == 5.0 and y.max() == 50.0


def test_california_matches_scikit_learn_features(data_dir):
    X, y, names = load_california(data_dir)
    assert X.shape == (20640 - 207, 8) and y.shape == (20433,)
    assert names == ["MedInc", "HouseAge", "AveRooms", "AveBedrms", "Population", "AveOccup",
                     "Latitude", "Longitude"]
    # first row of scikit-learn's fetch_california_housing
    np.testing.assert_allclose(
        X[0], [8.3252, 41.0, 6.98412698, 1.02380952, 322.0, 2.55555556, 37.88, -122.23],
        rtol=1e-8,
    )
    assert y[0] == pytest.approx(4.526)
    assert np.all(np.isfinite(X)) and np.all(np.isfinite(y))


def test_load_dataset_by_name(data_dir):
    for name, n in [("diabetes", 442), ("boston", 506), ("california", 20433)]:
        assert load_dataset(name, data_dir)[0].shape[0] == n
    with pytest.raises(ValueError, match="name"):
        load_dataset("iris")


def test_missing_file_raises_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="boston.csv"):
        load_boston(tmp_path)
    with pytest.raises(FileNotFoundError, match="california_housing.csv"):
        load_california(tmp_path)


def test_default_data_dir_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ONLINEBOOST_DATA", str(tmp_path))
    assert default_data_dir() == tmp_path
    monkeypatch.delenv("ONLINEBOOST_DATA")
    assert default_data_dir().parts[-2:] == ("shared", "data")


def test_scale_target():
    rng = np.random.default_rng(0)
    y = rng.normal(50, 20, size=100)
    s = scale_target(y)
    assert s.min() == -1.0 and s.max() == 1.0
    assert np.all(np.diff(s[np.argsort(y)]) >= 0)  # order kept
    np.testing.assert_allclose(s, 2 * (y - y.min()) / (y.max() - y.min()) - 1)  # affine
    assert np.all(scale_target([3.0, 3.0]) == 0.0)
    with pytest.raises(ValueError, match="y"):
        scale_target([1.0, np.nan])
