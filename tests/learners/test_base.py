"""`learners.base`: the learner argument's resolution and the stacks it makes."""
from __future__ import annotations

import numpy as np
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
