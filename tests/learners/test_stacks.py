"""Stacked forms serve N copies with one array operation; copy i must equal a clone driven alone."""

from __future__ import annotations

import numpy as np
import pytest
from river import linear_model, optim
from sklearn.linear_model import SGDRegressor
from sklearn.tree import DecisionTreeRegressor

import learners
from onlineboost import sets

SETS = [sets.Interval(-1.0, 1.0), sets.Box([0.0, -1.0], [2.0, 1.0]), sets.Ball([0.5, 0.0, 1.0]),
        sets.Simplex(4)]

OCO_LEARNERS = {
    "LinearOGD": lambda: learners.LinearOGD(lr=0.5),
    "LinearOGD-bound": lambda: learners.LinearOGD(lr=2.0, decay="constant", bound=1.0),
    "RegressorOCO(OnlineRidge)": lambda: learners.RegressorOCO(learners.OnlineRidge()),
    "RegressorOCO(OnlineStump)": lambda: learners.RegressorOCO(
        learners.OnlineStump(n_bins=8, warmup=20), lam=0.7),
    "RegressorOCO(TinyMLP)": lambda: learners.RegressorOCO(learners.TinyMLP(lr=0.1), seed=0),
    "RegressorOCO(RefitRegressor)": lambda: learners.RegressorOCO(
        learners.RefitRegressor(DecisionTreeRegressor(max_depth=1, max_features=1), every=5)),
    "RegressorOCO(river LinearRegression)": lambda: learners.RegressorOCO(
        linear_model.LinearRegression(optimizer=optim.SGD(0.05)), lam=2.0),
    "RegressorOCO(SGDRegressor)": lambda: learners.RegressorOCO(SGDRegressor(), seed=3),
}

REGRESSORS = {
    "OnlineRidge": lambda: learners.OnlineRidge(alpha=0.5),
    "OnlineStump": lambda: learners.OnlineStump(n_bins=8, warmup=20),
    "TinyMLP": lambda: learners.TinyMLP(lr=0.1),
    "RefitRegressor": lambda: learners.RefitRegressor(
        DecisionTreeRegressor(max_depth=2, max_features=1)),
}


def _contexts(T, seed):
    """Contexts whose features appear over time and go missing at random."""
    rng = np.random.default_rng(seed)
    for t in range(T):
        x = {f"f{j}": float(rng.normal()) for j in range(4) if t >= 7 * j and rng.random() < 0.85}
        yield x, rng


def _clone(prototype, seed):
    if "seed" in prototype._get_params():
        return prototype.clone({"seed": seed})
    return prototype.clone()


@pytest.mark.parametrize("K", SETS, ids=lambda K: type(K).__name__)
@pytest.mark.parametrize("name", list(OCO_LEARNERS))
def test_stacked_oco_learner_equals_looped_clones(name, K):
    n, T = 4, 30 if ("SGD" in name or "Refit" in name) else 120
    prototype = OCO_LEARNERS[name]().clone({"decision_set": K})
    seeds = [11, 12, 13, 14]
    stack = prototype.stack(n, seeds)
    loop = [_clone(prototype, s) for s in seeds]
    for x, rng in _contexts(T, seed=1):
        P = stack.predict(x)
        assert P.shape == (n, K.dim)
        for i in range(n):
            np.testing.assert_allclose(P[i], loop[i].predict_one(x), rtol=0, atol=1e-12)
        assert np.all(K.contains(P))
        G = rng.normal(scale=2.0, size=(n, K.dim))  # a different gradient for every copy
        stack.learn(x, G)
        for i in range(n):
            loop[i].learn_one(x, G[i])


@pytest.mark.parametrize("name", list(REGRESSORS))
def test_stacked_regressor_equals_looped_clones(name):
    n = 5
    prototype = REGRESSORS[name]()
    seeds = [1, 2, 3, 4, 5]
    stack = prototype.stack(n, seeds)
    loop = [_clone(prototype, s) for s in seeds]
    for x, rng in _contexts(150, seed=2):
        p = stack.predict(x)
        assert p.shape == (n,)
        np.testing.assert_allclose(p, [m.predict_one(x) for m in loop], rtol=0, atol=1e-12)
        y = rng.normal(size=n) + sum(x.values())  # a different target for every copy
        stack.learn(x, y)
        for i in range(n):
            loop[i].learn_one(x, y[i])


@pytest.mark.parametrize("name", list(OCO_LEARNERS))
def test_stack_rejects_bad_gradients_without_changing_state(name):
    import pickle

    stack = OCO_LEARNERS[name]().stack(3)
    stack.learn({"a": 1.0}, np.ones((3, 1)))
    before = pickle.dumps(stack)
    for G in (np.ones((2, 1)), np.ones((3, 2)), np.full((3, 1), np.nan)):
        with pytest.raises(ValueError, match="g"):
            stack.learn({"a": 1.0}, G)
    assert pickle.dumps(stack) == before


def test_every_stack_follows_the_written_protocol():
    from learners.base import LoopedCopies, WeakLearner, WeakStack

    for proto in (learners.LinearOGD(), learners.OnlineStump(), learners.OnlineRidge(),
                  learners.TinyMLP(seed=0), learners.RegressorOCO(learners.OnlineRidge())):
        stack = proto.stack(3)
        assert isinstance(stack, WeakStack), type(stack).__name__
    looped = LoopedCopies([learners.LinearOGD(), learners.LinearOGD()])
    assert isinstance(looped, WeakStack) and isinstance(learners.LinearOGD(), WeakLearner)


def test_learners_without_stack_are_looped_by_the_booster():
    import numpy as np
    from river import base

    from learners.base import LoopedCopies
    from onlineboost import BoOCO, sets

    class Constant(base.Estimator):
        def __init__(self, value: float = 0.5):
            self.value = value

        def predict_one(self, x):
            return np.array([self.value])

        def learn_one(self, x, g):
            pass

    model = BoOCO(Constant(), n_learners=3, decision_set=sets.Interval(-1, 1))
    assert isinstance(model._copies, LoopedCopies) and model._copies.n == 3


def test_linear_ogd_learn_keeps_nothing_from_predict():
    """No hidden forward cache: learning after a prediction on an equal (or mutated) dict is
    learning from the dict as it is at the learn call."""
    import pickle

    import numpy as np

    from onlineboost import sets

    a = learners.LinearOGDStack(2, sets.Interval(-1.0, 1.0), lr=0.5)
    b = learners.LinearOGDStack(2, sets.Interval(-1.0, 1.0), lr=0.5)
    G = np.array([[0.3], [-0.2]])
    for stack in (a, b):
        stack.learn({"c": 1.0, "d": 2.0}, G)
    x = {"c": 1.0, "d": 2.0}
    a.predict(x)
    x["c"] = 5.0  # mutated in place between predict and learn
    a.learn(x, G)
    b.learn({"c": 5.0, "d": 2.0}, G)
    assert pickle.dumps(a) == pickle.dumps(b)
