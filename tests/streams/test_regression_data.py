from __future__ import annotations

import numpy as np
import pytest

from streams import (
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
    assert scale_target([7.5]).tolist() == [0.0]  # one target is a constant one
    with pytest.raises(ValueError, match="y"):
        scale_target([1.0, np.nan])
    with pytest.raises(ValueError, match="non-empty"):
        scale_target([])


# --- where the data is found (streams.regression_data's documented order) -------------------

BOSTON = "crim,medv\n0.1,24.0\n0.2,21.6\n"


def _checkout(root, with_data=True):
    """A fake checkout at root/repo with (optionally) boston.csv in root/shared/data."""
    (root / "repo" / "sub").mkdir(parents=True)
    (root / "repo" / "pyproject.toml").write_text('[project]\nname = "onlineboost"\n')
    if with_data:
        (root / "shared" / "data").mkdir(parents=True)
        (root / "shared" / "data" / "boston.csv").write_text(BOSTON)
    return root / "repo"


def test_a_checkout_is_found_from_the_current_directory_upwards(monkeypatch, tmp_path):
    monkeypatch.delenv("ONLINEBOOST_DATA", raising=False)
    monkeypatch.chdir(_checkout(tmp_path) / "sub")
    assert data_dirs()[0] == (tmp_path / "shared" / "data",
                              f"beside the checkout {tmp_path / 'repo'}")
    assert find_data_file("boston.csv") == tmp_path / "shared" / "data" / "boston.csv"
    assert load_boston()[1].tolist() == [24.0, 21.6]


def test_a_folder_without_the_projects_pyproject_is_no_checkout(monkeypatch, tmp_path):
    monkeypatch.delenv("ONLINEBOOST_DATA", raising=False)
    repo = _checkout(tmp_path)
    (repo / "pyproject.toml").write_text('[project]\nname = "someone-else"\n')
    monkeypatch.chdir(repo / "sub")
    assert tmp_path / "shared" / "data" not in [folder for folder, _ in data_dirs()]


def test_explicit_folders_come_first_and_are_never_second_guessed(monkeypatch, tmp_path):
    monkeypatch.chdir(_checkout(tmp_path) / "sub")  # a checkout whose shared/data has the file
    env = tmp_path / "env"
    env.mkdir()
    monkeypatch.setenv("ONLINEBOOST_DATA", str(env))
    assert data_dirs() == [(env, "$ONLINEBOOST_DATA")]
    with pytest.raises(DataNotFoundError, match=r"boston.csv not found .*\$ONLINEBOOST_DATA"):
        load_boston()  # not read from the checkout behind the user's back
    (env / "boston.csv").write_text("crim,medv\n1.0,7.0\n")
    assert load_boston()[1].tolist() == [7.0]
    with pytest.raises(DataNotFoundError) as error:
        load_boston(tmp_path / "nope")  # data_dir wins over the variable, and alone
    assert error.value.searched == [(tmp_path / "nope", "data_dir")]
    assert isinstance(error.value, FileNotFoundError) and error.value.filename == "boston.csv"


def _scikit_learn_cache(folder, rows):
    """scikit-learn's fetch_california_housing cache: target first, then the raw columns."""
    import joblib

    folder.mkdir(parents=True, exist_ok=True)
    joblib.dump(np.asarray(rows, dtype=np.float64), folder / "cal_housing_py3.pkz", compress=6)


def test_california_falls_back_to_scikit_learns_cache(monkeypatch, tmp_path):
    from streams import regression_data

    monkeypatch.delenv("ONLINEBOOST_DATA", raising=False)
    monkeypatch.setattr(regression_data, "_checkouts", lambda: [])  # no checkout copy
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "skl"))
    # median_house_value, median_income, age, rooms, bedrooms, population, households, lat, lon
    _scikit_learn_cache(tmp_path / "skl",
                        [[452600.0, 8.3252, 41.0, 880.0, 129.0, 322.0, 126.0, 37.88, -122.23]])
    X, y, names = load_california(download=False)
    np.testing.assert_allclose(
        X, [[8.3252, 41.0, 6.98412698, 1.02380952, 322.0, 2.55555556, 37.88, -122.23]])
    assert y.tolist() == [4.526] and names[0] == "MedInc" and X.dtype == np.float64
    assert load_dataset("california", download=False)[0].shape == (1, 8)


def test_california_not_cached_nor_downloadable_names_every_place(monkeypatch, tmp_path):
    from streams import regression_data

    monkeypatch.delenv("ONLINEBOOST_DATA", raising=False)
    monkeypatch.setattr(regression_data, "_checkouts", lambda: [])
    monkeypatch.setenv("SCIKIT_LEARN_DATA", str(tmp_path / "empty"))
    with pytest.raises(DataNotFoundError, match="scikit-learn could not fetch it") as error:
        load_california(download=False)
    assert error.value.searched == [(tmp_path / "empty", "scikit-learn's fetch_california_housing")]
    # an explicit folder is never replaced by scikit-learn's copy
    _scikit_learn_cache(tmp_path / "empty", [[1e5, 1, 1, 1, 1, 1, 1, 1, 1]])
    with pytest.raises(DataNotFoundError):
        load_california(tmp_path, download=False)
