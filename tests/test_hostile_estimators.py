"""Every public online estimator against hostile input (issue 14, model side).

One property for all of them: a feature value or a label the model cannot digest is refused
with a `ValueError` that names the argument, and the model's state is exactly what it was; a
finite input the model accepts, however large, gives a finite answer. The models are trained
on a few rows first, so that the refusal has state to protect.
"""

from __future__ import annotations

import copy
import decimal
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from learners import LinearOGD
from onlineboost import (
    BoBLO,
    BoOCO,
    BoOCOClassifier,
    BoOCOMultiClassifier,
    OnlineMABoostClassifier,
    OnlineMABoostMultiClassifier,
)
from tests.helpers import same_state

# values that are not numbers a model can learn from, whatever their type says
NOT_NUMBERS = [math.nan, math.inf, -math.inf, 10**400, -(10**400), "1.5", b"1", None,
               decimal.Decimal("1.5"), 1 + 2j, [1.0]]


def _rows(n=40, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return [{"a": float(r[0]), "b": float(r[1]), "c": float(r[2])} for r in X]


def _regressor():
    model = BoOCO(LinearOGD(), n_learners=3, seed=1)
    for t, x in enumerate(_rows()):
        model.learn_one(x, 40.0 + x["a"] + 0.1 * t)
    return model


def _binary(cls):
    def make():
        model = cls(seed=1)
        for x in _rows():
            model.learn_one(x, x["a"] + x["b"] > 0)
        return model
    return make


def _multiclass(cls):
    def make():
        model = cls(seed=1)
        for x in _rows():
            model.learn_one(x, ["red", "green", "blue"][int(x["a"] > 0) + int(x["b"] > 0)])
        return model
    return make


SUPERVISED = {
    "BoOCO": (_regressor, 1.0),
    "BoOCOClassifier": (_binary(BoOCOClassifier), True),
    "BoOCOMultiClassifier": (_multiclass(BoOCOMultiClassifier), "red"),
    "OnlineMABoostClassifier": (_binary(OnlineMABoostClassifier), True),
    "OnlineMABoostMultiClassifier": (_multiclass(OnlineMABoostMultiClassifier), "red"),
}
BAD_LABELS = {
    "BoOCO": [math.nan, math.inf, 10**400, "1.5", None, 1 + 2j, [1.0, 2.0]],
    "BoOCOClassifier": [math.nan, "yes", None, 1 + 2j, [1], 2],
    # (any hashable value is a class label to a multiclass model, as in river: 1 + 2j included)
    "BoOCOMultiClassifier": [math.nan, None, [1], {"a": 1}],
    "OnlineMABoostClassifier": [math.nan, "yes", None, 1 + 2j, [1], 2],
    "OnlineMABoostMultiClassifier": [math.nan, None, [1], {"a": 1}],
}


def _refuses(call, model, name: str):
    before = copy.deepcopy(model)
    with pytest.raises(ValueError, match=name):
        call()
    assert same_state(model, before), "a refused call changed the state"


@pytest.mark.parametrize("value", NOT_NUMBERS, ids=repr)
@pytest.mark.parametrize("which", sorted(SUPERVISED))
def test_a_feature_that_is_no_number_is_refused_and_changes_nothing(which, value):
    make, label = SUPERVISED[which]
    model = make()
    x = {"a": 0.5, "b": value, "c": -0.5}
    _refuses(lambda: model.learn_one(x, label), model, r"\bx\b|x\[")


@pytest.mark.parametrize("which", sorted(SUPERVISED))
def test_a_label_the_model_cannot_read_is_refused_and_changes_nothing(which):
    make, _ = SUPERVISED[which]
    model = make()
    for y in BAD_LABELS[which]:
        _refuses(lambda y=y: model.learn_one({"a": 0.5, "b": 0.1, "c": 0.0}, y), model, r"\by\b")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exponent=st.floats(0, 308), sign=st.sampled_from([-1.0, 1.0]),
       which=st.sampled_from(sorted(SUPERVISED)))
def test_any_finite_feature_gives_a_finite_answer_or_a_clean_refusal(exponent, sign, which):
    make, label = SUPERVISED[which]
    model = make()
    x = {"a": sign * 10.0**exponent, "b": 0.3, "c": -0.2}
    before = copy.deepcopy(model)
    try:
        answer = (model.predict_proba_one(x) if hasattr(model, "predict_proba_one")
                  else model.predict_one(x))
        model.learn_one(x, label)
    except ValueError as e:
        assert "x" in str(e)
        assert same_state(model, before)
        return
    values = list(answer.values()) if isinstance(answer, dict) else [answer]
    assert all(np.all(np.isfinite(v)) for v in values)
    if isinstance(answer, dict):
        assert math.isclose(sum(answer.values()), 1.0, rel_tol=1e-9, abs_tol=1e-9)
    after = (model.predict_proba_one({"a": 0.1, "b": 0.3, "c": -0.2})
             if hasattr(model, "predict_proba_one") else model.predict_one({"a": 0.1}))
    after = list(after.values()) if isinstance(after, dict) else [after]
    assert all(np.all(np.isfinite(v)) for v in after), "a huge input poisoned the model"


def _policy():
    policy = BoBLO(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = {"u": float(rng.normal()), "v": float(rng.normal())}
        arm = policy.pull(["x", "y", "z"], c)
        policy.update(arm, c, float(rng.random()))
    return policy


@pytest.mark.parametrize("value", NOT_NUMBERS, ids=repr)
def test_boblo_refuses_a_context_that_is_no_number(value):
    policy = _policy()
    _refuses(lambda: policy.pull(["x", "y", "z"], {"u": value, "v": 0.0}), policy, "context")


def test_boblo_refuses_unknown_arms_and_bad_rewards_and_changes_nothing():
    policy = _policy()
    c = {"u": 0.1, "v": 0.2}
    arm = policy.pull(["x", "y", "z"], c)
    for bad in ("w", ["x"]):
        _refuses(lambda bad=bad: policy.update(bad, c, 0.5), policy, "arm_id")
    for reward in (math.nan, 1.5, -0.1, "0.5", None, 10**400):
        _refuses(lambda r=reward: policy.update(arm, c, r), policy, "reward")
    policy.update(arm, c, 0.5)  # the pending round survives the refusals


@pytest.mark.parametrize("exponent", [10, 50, 99, 150, 300, 308])
def test_boblo_probabilities_stay_finite_or_the_context_is_refused(exponent):
    policy = _policy()
    c = {"u": 10.0**exponent, "v": -(10.0**exponent)}
    before = copy.deepcopy(policy)
    try:
        arm = policy.pull(["x", "y", "z"], c)
    except ValueError as e:
        assert "context" in str(e)
        assert same_state(policy, before)
        return
    p = policy.arm_probabilities
    assert np.all(np.isfinite(p)) and math.isclose(p.sum(), 1.0)
    policy.update(arm, c, 1.0)
    policy.pull(["x", "y", "z"], {"u": 0.0, "v": 0.0})
    assert np.all(np.isfinite(policy.arm_probabilities))


@pytest.mark.parametrize("cls", [BoOCO, BoOCOClassifier, BoOCOMultiClassifier,
                                 OnlineMABoostClassifier, OnlineMABoostMultiClassifier, BoBLO])
@pytest.mark.parametrize("seed", ["1", 1.5, True, [1]], ids=repr)
def test_a_bad_seed_is_refused_by_name(cls, seed):
    with pytest.raises(ValueError, match="seed"):
        cls(seed=seed)


@pytest.mark.parametrize("bound", [1e300, math.inf, 0.0, -1.0, True], ids=repr)
def test_classifier_bound_is_refused_by_its_own_name(bound):
    # issue 14 item 12: bound=1e300 used to fail with a message about delta, never set
    with pytest.raises(ValueError, match="^bound"):
        BoOCOClassifier(bound=bound)
