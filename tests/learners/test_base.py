"""`learners.base`: the learner argument's resolution and the stacks it makes."""
from __future__ import annotations

import numpy as np
import pytest
from river import base

import learners
from learners.base import _has_param, make_stack, resolve_learner
from onlineboost import sets


class _Kwargs(base.Estimator):  # a parameter only the instance names (`**kwargs`)
    def __init__(self, **kw):
        self.kw = kw

    def predict_one(self, x):
        return np.zeros(1)

    def learn_one(self, x, g):
        pass


class _Listed(learners.LinearOGD):  # its own `_get_params`: asked, not the signature
    def _get_params(self):
        return {**super()._get_params(), "seed": None}


def test_has_param_is_river_s_get_params_membership():
    cases = [learners.FeaturePolicy(), learners.LinearOGD(), learners.TinyMLP(),
             _Kwargs(seed=3), _Kwargs(), _Listed()]
    for model in cases:
        for name in ("seed", "decision_set", "lr", "kw", "self"):
            assert _has_param(model, name) == (name in model._get_params()), (model, name)


def test_resolve_and_stack_seed_copies_as_before():
    K = sets.Simplex(3)
    proto, reduced = resolve_learner(learners.FeaturePolicy(), K)
    assert not reduced and proto.decision_set.dim == 3
    a, b = make_stack(proto, 2, seed=4), make_stack(proto, 2, seed=4)
    x = {"u": 1.0, "v": -2.0}
    np.testing.assert_array_equal(a.predict(x), b.predict(x))
    looped = make_stack(_Kwargs(seed=3), 2, seed=4)  # (the seed a `**kwargs` parameter)
    assert [w.kw["seed"] for w in looped.copies] == [
        int(s) for s in np.random.default_rng(4).integers(0, 2**31 - 1, 2)]


def test_a_prototype_on_the_set_is_used_as_it_is_and_never_learns():
    """`resolve_learner` clones a learner onto the booster's set, except one already on that
    very set: that one is only stacked, so the booster's copies learn and it does not."""
    K = sets.Simplex(3)
    mine = learners.FeaturePolicy(K, n_features=4)
    proto, _ = resolve_learner(mine, K)
    assert proto is mine
    other, _ = resolve_learner(mine, sets.Simplex(3))  # an equal set, not this one: a clone
    assert other is not mine and other.decision_set is not K and other.decision_set.dim == 3
    stack = make_stack(proto, 2, seed=1)
    x = {"u": 1.0}
    before = mine.predict_one(x).copy()
    for _ in range(20):
        stack.learn(x, np.array([[0.9, 0.1, 0.5], [0.9, 0.1, 0.5]]))
    np.testing.assert_array_equal(mine.predict_one(x), before)
    assert not np.allclose(stack.predict(x)[0], before)


def test_feature_policy_builds_its_own_stack_at_first_use_and_keeps_it():
    """The learner's one-copy stack is built lazily, kept, and pickled with it (in its
    `__dict__`, where eagerly built learners kept it)."""
    import pickle

    policy = learners.FeaturePolicy(n_features=4)
    assert "_stack" not in policy.__dict__  # (BoBLO only calls `stack`)
    policy.learn_one({"u": 1.0}, np.array([0.2, 0.8]))
    first = policy._stack
    assert policy._stack is first and first._t == 1
    back = pickle.loads(pickle.dumps(policy))
    assert back._stack._t == 1
    np.testing.assert_array_equal(back.predict_one({"u": 0.5}), policy.predict_one({"u": 0.5}))


def test_only_learners_and_incremental_regressors_are_resolved():
    from sklearn.linear_model import SGDRegressor
    from sklearn.tree import DecisionTreeRegressor

    K = sets.Interval(-1.0, 1.0)

    class PredictOnly:
        def predict_one(self, x):
            return np.zeros(1)

    class LearnOnly:
        def learn_one(self, x, g):
            pass

    # a batch scikit-learn regressor (no partial_fit) is neither: refused naming the learner
    for bad in (DecisionTreeRegressor(), PredictOnly(), LearnOnly()):
        with pytest.raises(ValueError, match="learner must be"):
            resolve_learner(bad, K)
    for regressor in (SGDRegressor(), learners.OnlineRidge()):  # through the reduction, lam 1
        proto, reduced = resolve_learner(regressor, K)
        assert reduced and isinstance(proto, learners.RegressorOCO) and proto.lam == 1.0
        assert proto.regressor is regressor and proto.decision_set is K
