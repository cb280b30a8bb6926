"""B4CO (Algorithm 3): beats its weak optimiser, improves with N, scikit-learn contract."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_diabetes
from sklearn.model_selection import cross_val_score
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils.estimator_checks import check_estimator

from onlineboost import B4CO


def test_diabetes_stumps_beat_one_stump_and_improve_with_n():
    X, y = load_diabetes(return_X_y=True)
    stump = DecisionTreeRegressor(max_depth=1)
    one = cross_val_score(stump, X, y, cv=5).mean()
    scores = [cross_val_score(B4CO(stump, n_estimators=n, random_state=0), X, y, cv=5).mean()
              for n in (5, 20, 100)]
    assert scores[0] > one
    assert scores[0] < scores[1] < scores[2]
    assert scores[2] > one + 0.2


def test_predictions_in_K_and_staged_matches_train_score():
    X, y = load_diabetes(return_X_y=True)
    model = B4CO(n_estimators=15, step_size=0.3, random_state=0).fit(X, y)
    staged = list(model.staged_predict(X))
    assert len(staged) == 15
    np.testing.assert_allclose([np.mean((s - y) ** 2) for s in staged], model.train_score_)
    assert np.all((staged[-1] >= y.min()) & (staged[-1] <= y.max()))
    np.testing.assert_array_equal(model.predict(X), staged[-1])


def test_extension_gradient_is_the_squared_residual_inside_K_for_small_delta():
    """With delta -> 0 and kappa >= G the first stage fits mu - (mu - z)/lam: the scaled target."""
    X, y = load_diabetes(return_X_y=True)
    model = B4CO(DecisionTreeRegressor(max_depth=None), n_estimators=1, gamma=1.0,
                 step_size=1.0, delta=1e-9).fit(X, y)
    np.testing.assert_allclose(model.predict(X), y, atol=1e-6 * np.ptp(y))


@pytest.mark.parametrize("kwargs", [{"n_estimators": 0}, {"gamma": 0.0}, {"delta": -1.0},
                                    {"kappa": -1.0}, {"step_size": 2.0}, {"gamma": 1.2},
                                    {"delta": 0.0}, {"kappa": -0.1}, {"kappa": float("nan")}])
def test_bad_parameters(kwargs):
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        B4CO(**kwargs).fit(X, y)


@pytest.mark.parametrize("kwargs", [{"gamma": 1.0}, {"kappa": 0.0}, {"kappa": 0.5},
                                    {"delta": 1e-6}, {"step_size": 1.0}])
def test_parameters_at_the_edge_of_their_range_are_taken(kwargs):
    X, y = load_diabetes(return_X_y=True)
    model = B4CO(n_estimators=3, **kwargs).fit(X, y)
    assert np.all(np.isfinite(model.predict(X)))


def test_the_documented_defaults():
    """Ten stages of depth-1 trees (stumps) at gamma = 1/2, the theory's steps and delta,
    kappa = G, every row to every stage."""
    model = B4CO()
    assert (model.n_estimators, model.gamma, model.step_size, model.delta, model.kappa,
            model.subsample) == (10, 0.5, "theory", "theory", None, None)
    X, y = load_diabetes(return_X_y=True)
    model.fit(X, y)
    assert len(model.estimators_) == 10
    assert all(type(e) is DecisionTreeRegressor and e.get_depth() == 1
               and e.max_depth == 1 for e in model.estimators_)


def test_check_estimator():
    check_estimator(B4CO())


def test_disjoint_parts_need_one_row_a_stage():
    """`subsample="disjoint"` splits the rows into N parts: N rows are enough (one a stage),
    fewer are refused by name."""
    X, y = load_diabetes(return_X_y=True)
    model = B4CO(n_estimators=5, subsample="disjoint", random_state=0).fit(X[:5], y[:5])
    assert len(model.estimators_) == 5
    with pytest.raises(ValueError, match="subsample"):
        B4CO(n_estimators=5, subsample="disjoint", random_state=0).fit(X[:4], y[:4])
