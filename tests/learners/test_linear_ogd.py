from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import linprog

from learners import LinearOGD
from onlineboost import sets


def _linear_loss_stream(T, seed, d=3):
    rng = np.random.default_rng(seed)
    C = rng.random((T, d))
    g = C @ np.array([1.0, -2.0, 0.5]) + 0.2 + rng.normal(scale=0.5, size=T)  # noisy costs
    return C, g


def _best_surrogate_loss(C, g, bound):
    """min over |theta_j|, |b| <= bound of sum_t g_t z_t + |g_t| Dist(z_t, [-1, 1]),
    z_t = theta . c_t + b: an LP with slacks s_t = Dist(z_t, [-1, 1])."""
    T = len(C)
    A = sparse.csr_array(np.hstack([C, np.ones((T, 1))]))
    eye = sparse.eye_array(T, format="csr")
    res = linprog(
        np.concatenate([g @ A.toarray(), np.abs(g)]),
        A_ub=sparse.vstack([sparse.hstack([A, -eye]), sparse.hstack([-A, -eye])]),
        b_ub=np.ones(2 * T),
        bounds=[(-bound, bound)] * A.shape[1] + [(0, None)] * T,
        method="highs",
    )
    assert res.status == 0
    return res.fun


def _surrogate_regret(T, seed, lr=0.5, bound=2.0):
    C, g = _linear_loss_stream(T, seed)
    learner = LinearOGD(sets.Interval(-1.0, 1.0), lr=lr, bound=bound)
    surrogate = 0.0
    for c, g_t in zip(C, g):
        x = {f"c{j}": v for j, v in enumerate(c)}
        z = learner._stack.raw(x)[0, 0]
        a = learner.predict_one(x)[0]
        assert a == np.clip(z, -1.0, 1.0)
        # the played loss is bounded by the surrogate, which OGD minimises
        assert g_t * a <= g_t * z + abs(g_t) * max(abs(z) - 1.0, 0.0) + 1e-12
        surrogate += g_t * z + abs(g_t) * max(abs(z) - 1.0, 0.0)
        learner.learn_one(x, np.array([g_t]))
    return surrogate - _best_surrogate_loss(C, g, bound)


def test_regret_against_best_fixed_linear_policy_is_sublinear():
    """OGD's guarantee: regret O(sqrt(T)) on the convex surrogate, against the best fixed
    policy in the same parameter box (and so against every linear policy mapping into K)."""
    Ts = [200, 800, 3200]
    regrets = [np.mean([_surrogate_regret(T, seed) for seed in range(2)]) for T in Ts]
    average = [r / T for r, T in zip(regrets, Ts)]
    assert regrets[0] > 0 and average[0] > average[1] > average[2]  # average regret falls ...
    assert average[2] < 0.25 * average[0]  # ... at least like 1 / sqrt(T) (factor 4 here)
    assert max(r / np.sqrt(T) for r, T in zip(regrets, Ts)) < 3.0  # O(sqrt(T))


def test_surrogate_stops_pushing_outward_and_pulls_back():
    learner = LinearOGD(sets.Interval(-1.0, 1.0), lr=1.0, decay="constant")
    learner.learn_one({}, np.array([-3.0]))  # b: 0 -> 3, outside K
    assert learner._stack._b[0, 0] == pytest.approx(3.0)
    learner.learn_one({}, np.array([-3.0]))  # outward loss: gradient g + |g| = 0, no move
    assert learner._stack._b[0, 0] == pytest.approx(3.0)
    learner.learn_one({}, np.array([1.0]))  # inward loss: gradient g + |g| = 2
    assert learner._stack._b[0, 0] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "K", [sets.Interval(-1.0, 1.0), sets.Box([0.0, -1.0], [1.0, 2.0]), sets.Ball([1.0, 0.0, 0.0]),
          sets.Simplex(4)],
    ids=lambda K: type(K).__name__,
)
def test_bound_clips_the_parameters(K):
    rng = np.random.default_rng(0)
    learner = LinearOGD(K, lr=5.0, bound=2.0)
    for _ in range(50):
        learner.learn_one({"a": rng.normal(), "b": rng.normal()}, rng.normal(scale=10, size=K.dim))
        s = learner._stack
        assert np.abs(s._theta).max() <= 2.0 and np.abs(s._b - K.centroid).max() <= 2.0 + 1e-12
        assert K.contains(learner.predict_one({"a": rng.normal(), "b": rng.normal()}))


@pytest.mark.parametrize("g, x", [(np.array([1.0, 2.0]), {"a": 1.0}),
                                  (np.array([np.nan]), {"a": 1.0}),
                                  (np.array([1.0]), {"a": np.inf})])
def test_bad_input_raises_and_leaves_state(g, x):
    learner = LinearOGD()
    learner.learn_one({"a": 0.5}, np.array([0.3]))
    before = pickle.dumps(learner)
    with pytest.raises(ValueError, match="g" if np.all(np.isfinite(list(x.values()))) else "x"):
        learner.learn_one(x, g)
    assert pickle.dumps(learner) == before


@pytest.mark.parametrize("params", [{"lr": 0.0}, {"lr": float("inf")}, {"decay": "log"},
                                    {"bound": -1.0}, {"decision_set": (-1, 1)}])
def test_invalid_parameters(params):
    with pytest.raises(ValueError, match=next(iter(params))):
        LinearOGD(**params)


def _transcribed_ogd(K, lr, decay, bound, stream):
    """Projected OGD on the surrogate <g, z> + |g| Dist(z, K), written out one copy at a time:
    z = Theta c + b, play Pi_K(z); step lr_t (g + |g| n), n = (z - Pi_K z) / |z - Pi_K z| (0
    inside K), on (Theta, b); Theta clipped to [-B, B], b to mu +- B; lr_t = lr / sqrt(t)."""
    n_copies = stream[0][1].shape[0]
    mu = np.asarray(K.centroid, dtype=float)
    theta = np.zeros((n_copies, K.dim, 0))
    b = np.tile(mu, (n_copies, 1))
    keys, played = [], []
    for t, (x, G) in enumerate(stream, start=1):
        c = np.array([x.get(k, 0.0) for k in keys])
        Z = theta @ c + b
        played.append(np.array([K.project(z) for z in Z]))
        new = [k for k in x if k not in keys]
        keys += new
        theta = np.concatenate([theta, np.zeros((n_copies, K.dim, len(new)))], axis=2)
        c = np.array([x[k] for k in keys])
        lr_t = lr / np.sqrt(t) if decay == "sqrt" else lr
        for i in range(n_copies):
            out = Z[i] - K.project(Z[i])
            dist = np.linalg.norm(out)
            n_i = out / dist if dist > 1e-10 * max(1.0, K.diameter) else np.zeros(K.dim)
            step = lr_t * (G[i] + np.linalg.norm(G[i]) * n_i)
            theta[i] -= np.outer(step, c)
            b[i] -= step
        if bound is not None:
            theta = np.clip(theta, -bound, bound)
            b = np.clip(b, mu - bound, mu + bound)
    return played, theta, b


@pytest.mark.parametrize(
    "K", [sets.Interval(-1.0, 1.0), sets.Box([0.0, -1.0], [1.0, 2.0]), sets.Ball([1.0, 0.0, 0.0]),
          sets.Simplex(4)],
    ids=lambda K: type(K).__name__,
)
@pytest.mark.parametrize("decay, bound", [("sqrt", None), ("constant", 0.8)])
def test_the_stack_is_projected_ogd_on_the_surrogate_written_out(K, decay, bound):
    # three copies, their own gradients, large enough steps that the points leave K (the
    # surrogate's pull acts), a feature that appears mid-stream
    rng = np.random.default_rng(21)
    stream = []
    for t in range(120):
        x = {"a": float(rng.normal()), "b": float(rng.normal())}
        if t >= 40:
            x["c"] = float(rng.uniform(-2, 2))
        stream.append((x, rng.normal(scale=2.0, size=(3, K.dim))))
    lr = 0.7
    played, theta, b = _transcribed_ogd(K, lr, decay, bound, stream)
    stack = LinearOGD(K, lr=lr, decay=decay, bound=bound).stack(3)
    outside = 0
    for (x, G), expected in zip(stream, played):
        outside += not np.allclose(stack.raw(x), expected)
        np.testing.assert_allclose(stack.predict(x), expected, atol=1e-10)
        stack.learn(x, G)
    assert outside > 20
    np.testing.assert_allclose(stack._theta, theta, atol=1e-10)
    np.testing.assert_allclose(stack._b, b, atol=1e-10)


def test_the_documented_defaults():
    # K = [-1, 1] (decision_set None), lr 0.1 decaying as 1 / sqrt(t), no bound: the first two
    # steps on g = -1 from b = 0 move b by 0.1 and 0.1 / sqrt(2)
    learner = LinearOGD()
    learner.learn_one({}, np.array([-1.0]))
    learner.learn_one({}, np.array([-1.0]))
    assert learner._stack._b[0, 0] == pytest.approx(0.1 + 0.1 / np.sqrt(2.0))
    assert learner.predict_one({})[0] == pytest.approx(0.1 + 0.1 / np.sqrt(2.0))
    for _ in range(200):  # pushed out: it stops at the upper end of [-1, 1]
        learner.learn_one({}, np.array([-1.0]))
    assert learner.predict_one({})[0] == 1.0
    stack = LinearOGD().stack(2)
    assert stack.lr == 0.1 and stack.decay == "sqrt" and stack.bound is None
