"""The loss model's confidence width: `"parameter"` sqrt(c'Pc) and `"predictive"` sqrt(1 + c'Pc).

The predictive width is river's `LinUCBDisjoint`'s: its `BayesianLinearRegression(alpha, beta)`
gives the reward the predictive deviation sqrt(1/beta + c'Sc), S = (alpha I + beta X'X)^-1 =
P / beta with P = (lambda I + X'X)^-1, lambda = alpha / beta. So a per-arm ridge of the loss
1 - r with penalty lambda, started at 1 (river's prior mean 0 on the reward), with optimism
1/sqrt(beta) and the predictive width, gives at every round the lower confidence bound
1 - (river's upper one). That is checked against river itself below.
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from river import linear_model

from onlineboost import BoBLO
from onlineboost.loss_model import RidgeMixture, _ArmRidge


def _contexts(n, p, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, p))


@pytest.mark.parametrize("alpha, beta", [(1.0, 1.0), (100.0, 20.0), (1.0, 5.0)])
def test_the_predictive_width_is_river_linucb_upper_bound(alpha, beta):
    """Per arm, the same rounds: our lower bound on the loss equals 1 minus river's
    `mu + sigma` on the reward (river's LinUCB's pull score), to rounding."""
    k, p = 3, 4
    X = _contexts(300, p, 0)
    rng = np.random.default_rng(1)
    model = _ArmRidge(k, alpha / beta, start=1.0, optimism=1.0 / math.sqrt(beta))
    model.width0 = 1.0
    river_models = [linear_model.BayesianLinearRegression(alpha=alpha, beta=beta)
                    for _ in range(k)]
    for t, c in enumerate(X):
        ce = model.extend(c)
        ours, U = model.predict(ce, model.optimism)
        x = {f"x{j}": float(v) for j, v in enumerate(c)} | {"bias": 1.0}
        for a in range(k):
            dist = river_models[a].predict_one(x, with_dist=True)
            if t > 0:  # (river's first prediction ignores unknown features' prior variance)
                assert ours[a] == pytest.approx(1.0 - (dist.mu + dist.sigma), abs=1e-9)
        a = int(rng.integers(k))
        reward = float(rng.random() < 0.3 + 0.4 * (c[a % p] > 0))
        model.learn_loss(ce, a, 1.0 - reward, U)
        river_models[a].learn_one(x, reward)


def test_the_parameter_width_is_unchanged_and_the_two_differ_by_the_constant():
    """`width0 = 0`: m - alpha sqrt(c'Pc), the bound before the option (bit for bit: no
    constant added); `1`: m - alpha sqrt(1 + c'Pc), closed form from the model's own P."""
    X = _contexts(200, 3, 2)
    rng = np.random.default_rng(3)
    for make in (lambda: _ArmRidge(4, 2.0, 0.5, 0.3),
                 lambda: RidgeMixture(4, (1.0, 100.0), 0.5, 0.3)):
        plain, pred = make(), make()
        pred.width0 = 1.0
        for c in X:
            ce = plain.extend(c)
            pred.extend(c)
            lo0, U = plain.predict(ce, 0.3)
            lo1, _ = pred.predict(ce, 0.3)
            m = np.asarray(plain._means(ce))
            if isinstance(plain, RidgeMixture):
                w = plain.weights.dot(np.einsum("mkij,i,j->mk", plain.P, ce, ce))
            else:
                w = np.einsum("kij,i,j->k", plain.P, ce, ce)
            np.testing.assert_allclose(lo0, m - 0.3 * np.sqrt(np.maximum(w, 0)), atol=1e-12)
            np.testing.assert_allclose(lo1, m - 0.3 * np.sqrt(np.maximum(w, 0) + 1), atol=1e-12)
            a, loss = int(rng.integers(4)), float(rng.random())
            plain.learn_loss(ce, a, loss, U)
            pred.learn_loss(ce, a, loss)
        # unseen columns count with their prior precision in both shapes
        c = np.append(X[0], 2.0)
        w_unseen = plain._widths_unseen(np.append(1.0, X[0]), 4.0)
        np.testing.assert_allclose(pred.costs(c) - plain.costs(c),
                                   0.3 * (np.sqrt(np.maximum(w_unseen, 0))
                                          - np.sqrt(np.maximum(w_unseen, 0) + 1)), atol=1e-12)


def test_compiled_and_numpy_rounds_agree_under_the_predictive_width():
    rng = np.random.default_rng(0)
    compiled = BoBLO(seed=3, optimism=0.05, width="predictive")
    plain = BoBLO(seed=3, optimism=0.05, width="predictive")
    plain._JIT = False
    for _ in range(400):
        c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=5))}
        a, b = compiled.pull(["a", "b", "c"], c), plain.pull(["a", "b", "c"], c)
        assert a == b
        np.testing.assert_allclose(compiled.arm_probabilities, plain.arm_probabilities,
                                   atol=1e-12)
        r = float(rng.random() < (0.8 if (a == "a") == (c["x0"] > 0) else 0.3))
        compiled.update(a, c, r)
        plain.update(b, c, r)
    assert compiled._jit and compiled._JIT and plain._JIT is False  # (two different rounds)


def test_the_width_moves_the_play_only_through_the_optimism():
    """With `optimism=0` the width is inert: the same arms as the defaults."""
    rng = np.random.default_rng(5)
    base, pred = BoBLO(seed=1), BoBLO(seed=1, width="predictive")
    for _ in range(200):
        c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=3))}
        a = base.pull([0, 1, 2], c)
        assert pred.pull([0, 1, 2], c) == a
        base.update(a, c, float(a == 0))
        pred.update(a, c, float(a == 0))


@pytest.mark.parametrize("bad", ["Predictive", "", None, 1.0, "lcb"])
def test_bad_width_is_refused_naming_it(bad):
    with pytest.raises(ValueError, match="width"):
        BoBLO(width=bad)


def test_pickles_from_before_the_width_keep_the_parameter_width():
    policy = BoBLO(seed=0, optimism=0.1)
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = {"x": float(rng.normal())}
        policy.update(policy.pull([0, 1], c), c, 1.0)
    old = pickle.loads(pickle.dumps(policy))
    del old.__dict__["width"]
    del old._model.__dict__["width0"]
    old = pickle.loads(pickle.dumps(old))
    assert old.width == "parameter" and old._model.width0 == 0.0
    for _ in range(50):
        c = {"x": float(rng.normal())}
        a = policy.pull([0, 1], c)
        assert old.pull([0, 1], c) == a
        policy.update(a, c, 0.0)
        old.update(a, c, 0.0)
