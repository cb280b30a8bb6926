"""Every online estimator, pickled mid-stream and loaded, then answers exactly as the original
does for the rest of the stream (what a checkpoint of `onlineboost run` relies on).

Estimators are found as in `test_estimators.py`: every river estimator (and bandit policy) in
`onlineboost.__all__` and `learners.__all__` with `_unit_test_params`, so estimators added
later are covered."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest
from river import base

import learners
import onlineboost
from tests.helpers import same_state

N_BEFORE, N_AFTER = 120, 120


def _estimators():
    for module in (onlineboost, learners):
        for name in module.__all__:
            cls = getattr(module, name)
            online = inspect.isclass(cls) and (issubclass(cls, base.Estimator)
                                               or hasattr(cls, "pull"))  # bandit policies
            if online and "_unit_test_params" in cls.__dict__:
                for i, params in enumerate(cls._unit_test_params()):
                    yield pytest.param(cls, params, id=f"{name}-{i}")


def _kind(model) -> str:
    if hasattr(model, "pull") and hasattr(model, "update"):
        return "policy"
    if isinstance(model, base.Classifier):
        return "classifier"
    if isinstance(model, base.Regressor):
        return "regressor"
    if "decision_set" in model._get_params():  # a weak OCO learner: learns from a gradient
        return "oco"
    raise AssertionError(f"no stream for {type(model).__name__}: teach this test its kind")


def _steps(model, seed=0):
    """A seeded stream suited to the estimator: (x, target) pairs; a feature appears late."""
    rng = np.random.default_rng(seed)
    kind = _kind(model)
    dim = None
    if kind == "oco":  # the dimension of K, read off the point it plays before learning
        dim = np.atleast_1d(model.clone().predict_one({})).shape[-1]
    for t in range(N_BEFORE + N_AFTER):
        x = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=3))}
        if t >= N_BEFORE // 2:
            x["late"] = float(rng.normal())
        s = np.tanh(x["x0"] - x["x1"] * x["x2"])
        if kind == "classifier":
            yield x, bool(s + 0.1 * rng.normal() > 0)
        elif kind == "regressor":
            yield x, float(s)
        elif kind == "oco":
            yield x, rng.normal(size=dim)
        else:
            yield x, {"a": float(rng.random() < 0.3), "b": float(rng.random() < 0.6)}


def _answer(model, x, kind):
    if kind == "policy":
        return model.pull(["a", "b"], x)
    if kind == "classifier":
        return model.predict_proba_one(x)
    return model.predict_one(x)


def _learn(model, x, target, kind, answer):
    if kind == "policy":
        model.update(answer, x, target[answer])
    else:
        model.learn_one(x, target)


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return np.array_equal(np.asarray(a), np.asarray(b))


@pytest.mark.parametrize("cls, params", list(_estimators()))
def test_pickle_mid_stream_then_identical_answers(cls, params):
    model = cls(**params)
    kind = _kind(model)
    steps = list(_steps(model))
    for x, target in steps[:N_BEFORE]:
        _learn(model, x, target, kind, _answer(model, x, kind))
    copy = pickle.loads(pickle.dumps(model))
    assert copy is not model and same_state(copy, model)  # RNG states included
    answers = []
    for x, target in steps[N_BEFORE:]:
        a, b = _answer(model, x, kind), _answer(copy, x, kind)
        assert _same(a, b), f"{cls.__name__}: answers differ after the round trip: {a} != {b}"
        answers.append(a)
        _learn(model, x, target, kind, a)
        _learn(copy, x, target, kind, b)
    # (no state comparison here: river's Hoeffding trees give new leaves unseeded RNGs)
    if kind != "policy":  # the rest of the stream was not answered by a frozen model
        assert not all(_same(answers[0], a) for a in answers[1:])
