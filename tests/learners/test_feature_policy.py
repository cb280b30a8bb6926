"""FeaturePolicy: per-copy random-feature ridge equals a batch transcription, residual stacks sum
their copies' cost models, no features is RidgePolicy, and as BoBLO's weak learner the arm law
keeps its floor and regret falls with T."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from learners import FeaturePolicy, RidgePolicy
from onlineboost import BoBLO, evaluate, sets
from streams import LinearBandit


def rounds(n, seed, d=3, k=4):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, k))


def transcribed_map(seed, D, p, kind, bandwidth):
    """The documented map, drawn independently: b first, then W ~ N(0, 1/(sigma^2 p))."""
    rng = np.random.default_rng(seed)
    b = rng.uniform(0.0, 2 * math.pi, D) if kind == "fourier" else rng.normal(0.0, 1.0, D)
    W = rng.normal(0.0, 1.0 / (bandwidth * math.sqrt(p)), (D, p))
    act = np.cos if kind == "fourier" else (lambda z: np.maximum(z, 0.0))
    return lambda c: np.concatenate([[1.0], math.sqrt(2.0) * act(W @ c + b), c])


def batch_ridge(Phi, Y, lam, rho):
    """argmin sum_s rho^(T-s) |y_s - theta phi_s|^2 + rho^T lam |theta|^2, per arm: (k, q)."""
    T = len(Phi)
    w = rho ** np.arange(T - 1, -1, -1)
    A = rho**T * lam * np.eye(Phi.shape[1]) + (Phi * w[:, None]).T @ Phi
    return np.linalg.solve(A, (Phi * w[:, None]).T @ Y).T


def softmax(costs, tau):
    e = np.exp(-(costs - costs.min()) / tau)
    return e / e.sum()


@pytest.mark.parametrize("kind", ["fourier", "relu"])
def test_each_copy_is_batch_ridge_on_its_own_random_features(kind):
    """Copy i: discounted batch ridge of row i of the costs on phi_i(c) (its own seed), played
    by softmax. A shared map, a wrong scale of W, a missing sqrt 2 or a wrong forgetting fail."""
    C, G = rounds(200, 0, d=3, k=4)
    lam, rho, tau, D, bw = 0.7, 0.98, 0.3, 6, 0.8
    stack = FeaturePolicy(sets.Simplex(4), l2=lam, temperature=tau, forget=rho, n_features=D,
                          kind=kind, bandwidth=bw).stack(2, seeds=[11, 12])
    for c, g in zip(C, G):
        stack.learn_vector(c, np.vstack([g, -2.0 * g]))
    probe = np.array([0.3, -1.0, 2.0])
    for i, (seed, sign) in enumerate([(11, 1.0), (12, -2.0)]):
        phi = transcribed_map(seed, D, 3, kind, bw)
        theta = batch_ridge(np.array([phi(c) for c in C]), sign * G, lam, rho)
        costs = theta @ phi(probe)
        np.testing.assert_allclose(stack.predicted_costs(probe)[i], costs, rtol=1e-7,
                                   atol=1e-9)
        np.testing.assert_allclose(stack.predict_vector(probe)[i], softmax(costs, tau),
                                   rtol=1e-6, atol=1e-12)


def test_residual_copy_plays_the_sum_of_the_cost_models_up_to_it():
    """residual=True: copy i plays softmax(-(g^_1 + ... + g^_i)/tau), each g^_j fitted on row j
    only (a stack that fits row i to the summed targets, or plays its own model, fails)."""
    C, G = rounds(150, 1, d=2, k=3)
    rng = np.random.default_rng(5)
    Gs = [G, rng.normal(size=G.shape), rng.normal(size=G.shape)]
    stack = FeaturePolicy(sets.Simplex(3), l2=2.0, temperature=0.5, n_features=4,
                          residual=True).stack(3, seeds=[1, 2, 3])
    for t, c in enumerate(C):
        stack.learn_vector(c, np.vstack([g[t] for g in Gs]))
    probe = np.array([0.5, -0.4])
    total = np.zeros(3)
    for i, seed in enumerate([1, 2, 3]):
        phi = transcribed_map(seed, 4, 2, "fourier", 1.0)
        total = total + batch_ridge(np.array([phi(c) for c in C]), Gs[i], 2.0, 1.0) @ phi(probe)
        np.testing.assert_allclose(stack.predicted_costs(probe)[i], total, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(stack.predict_vector(probe)[i], softmax(total, 0.5),
                                   rtol=1e-6)


@pytest.mark.parametrize("residual", [False, True])
def test_no_random_features_is_ridge_policy(residual):
    """n_features=0 (one shared Gram matrix): copy 1 is RidgePolicy, to rounding; with
    residual copy 2 adds its own ridge model of row 2."""
    C, G = rounds(120, 2, d=3, k=3)
    fp = FeaturePolicy(sets.Simplex(3), l2=3.0, temperature=0.2, forget=0.99, n_features=0,
                       residual=residual).stack(2)
    rp = RidgePolicy(sets.Simplex(3), l2=3.0, temperature=0.2, forget=0.99).stack(2)
    for t, (c, g) in enumerate(zip(C, G)):
        x = {f"x{j}": v for j, v in enumerate(c[: 2 if t < 40 else 3])}  # a feature appears
        G2 = np.vstack([g, 0.5 * g[::-1]])
        fp.learn(x, G2)
        rp.learn(x, G2)
    probe = np.array([0.1, 0.7, -1.2])
    expected = rp.predicted_costs(probe)
    if residual:
        expected = np.cumsum(expected, axis=0)
    np.testing.assert_allclose(fp.predicted_costs(probe), expected, rtol=1e-9, atol=1e-12)


def test_stack_copies_equal_single_learners_with_their_seeds_and_dict_equals_vector():
    C, G = rounds(80, 3, d=2, k=3)
    proto = FeaturePolicy(sets.Simplex(3), n_features=5, seed=7)
    stack = proto.stack(2)  # seeds 7 and 8
    singles = [proto.clone(), proto.clone({"seed": 8})]
    vec = proto.stack(2)
    for c, g in zip(C, G):
        x = {"u": c[0], "v": c[1]}
        G2 = np.vstack([g, -g])
        stack.learn(x, G2)
        vec.learn_vector(c, G2)
        for w, row in zip(singles, G2):
            w.learn_one(x, row)
    x = {"u": 0.2, "v": -0.9}
    np.testing.assert_allclose(stack.predict(x), np.vstack([w.predict_one(x) for w in singles]),
                               rtol=1e-12)
    np.testing.assert_array_equal(stack.predict(x), vec.predict_vector(np.array([0.2, -0.9])))
    assert not np.allclose(stack.predicted_costs(np.array([0.2, -0.9]))[0],
                           -stack.predicted_costs(np.array([0.2, -0.9]))[1])  # maps differ


@pytest.mark.parametrize("x, g, match", [
    ({"x": float("nan")}, [0.0, 0.0], "x"), ({"x": "a"}, [0.0, 0.0], "x"),
    ({"x": 1.0}, [0.0, float("inf")], "g"), ({"x": 1.0}, [0.0, 0.0, 0.0], "g"),
])
def test_bad_input_changes_nothing(x, g, match):
    policy = FeaturePolicy(n_features=4)
    policy.learn_one({"x": 0.5}, np.array([0.2, 0.4]))
    before = pickle.dumps(policy)
    with pytest.raises(ValueError, match=match):
        policy.learn_one(x, g)
    assert pickle.dumps(policy) == before


@pytest.mark.parametrize("kwargs", [{"l2": 0.0}, {"temperature": -1.0}, {"forget": 1.5},
                                    {"n_features": -1}, {"n_features": 2.5}, {"kind": "tanh"},
                                    {"bandwidth": 0.0}, {"seed": -1},
                                    {"decision_set": sets.Ball([0.0, 0.0], 1.0)}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        FeaturePolicy(**kwargs)


@pytest.mark.parametrize("kwargs", [
    {"l2": 1e-9}, {"temperature": 1e-9}, {"forget": 1e-9}, {"forget": 1.0},
    {"n_features": 0}, {"bandwidth": 1e-9}, {"later_features": 0}, {"later_neighbours": 1},
    {"later_shrink": 1e-9}, {"later_shrink": 1e6}, {"later_window": 1},
    {"link": "igw", "gamma0": 1e-9}, {"t0": 1e-9},
    {"temperature": 0.05, "t0": 10.0, "min_temperature": 0.05},  # (a floor at the start)
    {"on_model": True, "learn_weight": 1e-9, "max_weight": 1.0},
])
def test_the_smallest_and_largest_valid_parameters_are_taken(kwargs):
    """Each bound is where the docs put it: open at 0 for the reals that must be positive,
    1 for the integers that count neighbours and window rows, `forget` up to 1, a floor of
    the annealed temperature up to the temperature itself, the weight's cap from 1."""
    policy = FeaturePolicy(**kwargs)
    assert all(getattr(policy, key) == value for key, value in kwargs.items())


@pytest.mark.parametrize("kwargs", [
    {"later_features": -1}, {"later_neighbours": 0}, {"later_shrink": 1e6 * (1 + 1e-12)},
    {"later_window": 0}, {"link": "igw", "gamma0": 0.0}, {"t0": 0.0},
    {"temperature": 0.05, "t0": 10.0, "min_temperature": 0.05 * (1 + 1e-12)},
    {"on_model": True, "learn_weight": 0.2, "max_weight": 1.0 - 1e-12},
])
def test_one_past_each_bound_is_refused(kwargs):
    with pytest.raises(ValueError, match=list(kwargs)[-1]):
        FeaturePolicy(**kwargs)


def residual_boblo(n, seed=0, **kw):
    learner = FeaturePolicy(l2=20.0, temperature=0.02, forget=0.995, n_features=0,
                            residual=True)
    return BoBLO(learner=learner, n_learners=n, step_size=1.0, seed=seed, **kw)


@pytest.mark.parametrize("n, features", [(5, 0), (3, 8)])
def test_in_boblo_the_arm_law_sums_to_one_and_keeps_the_floor_every_round(n, features):
    """With the residual stack as BoBLO's weak learner (Exp4 over the stages), every round's
    law is a distribution with every arm at least eta / k."""
    eta, k = 0.05, 4
    learner = FeaturePolicy(temperature=0.02, n_features=features, residual=True)
    policy = BoBLO(learner=learner, n_learners=n, step_size=1.0, exploration=eta, seed=1)
    stream = LinearBandit(d=3, k=k, seed=2, n_rounds=400)
    for context, arms in stream:
        arm = policy.pull(arms, context)
        p = policy.arm_probabilities
        assert np.isclose(p.sum(), 1.0, atol=1e-12) and p.min() >= eta / k - 1e-12
        policy.update(arm, context, stream.reward(arm))


def test_in_boblo_regret_falls_with_T_on_linear_bandit():
    """Average regret per round of the residual N = 5 booster on LinearBandit falls as T
    grows (a stack that never learns, or learns the wrong sign, stays flat or grows)."""
    per_round = []
    for T in (300, 3000):
        regrets = [evaluate.bandit(residual_boblo(5, seed=s),
                                   LinearBandit(d=5, k=4, seed=s, n_rounds=T)).regret[-1] / T
                   for s in range(2)]
        per_round.append(np.mean(regrets))
    assert per_round[1] < 0.6 * per_round[0], per_round


class _LinearModel:
    """A fixed cost model c -> B c + b0 standing for BoBLO's loss model."""

    def __init__(self, k, p, seed):
        rng = np.random.default_rng(seed)
        self.B, self.b0 = rng.normal(size=(k, p)), rng.normal(size=k)
        self.calls = 0

    def costs(self, c):
        self.calls += 1
        return self.B @ c + self.b0


@pytest.mark.parametrize("residual", [False, True])
def test_on_model_plays_the_model_plus_corrections_fitted_on_the_rest(residual):
    """on_model: copy i plays softmax(-(m(c) + its costs)/tau), where the copies that carry m
    (all of them; in a residual stack copy 1) fit G_i - m(c) and the others G_i. A stack that
    ignores the model, subtracts it from every residual copy, or from none, fails."""
    C, G = rounds(150, 4, d=2, k=3)
    G2 = np.random.default_rng(6).normal(size=G.shape)
    model = _LinearModel(3, 2, 7)
    stack = FeaturePolicy(sets.Simplex(3), l2=2.0, temperature=0.5, n_features=0,
                          residual=residual, on_model=True).stack(2)
    assert stack.on_model and stack.model is None  # its owner hands it the model
    stack.model = model
    for t, c in enumerate(C):
        stack.learn_vector(c, np.vstack([G[t], G2[t]]))
    Phi = np.hstack([np.ones((len(C), 1)), C])
    M = np.array([model.costs(c) for c in C])
    fits = [batch_ridge(Phi, G - M, 2.0, 1.0),
            batch_ridge(Phi, G2 if residual else G2 - M, 2.0, 1.0)]
    probe = np.array([0.5, -0.4])
    phi = np.concatenate([[1.0], probe])
    own = [f @ phi for f in fits]
    expected = [model.costs(probe) + own[0],
                model.costs(probe) + (own[0] + own[1] if residual else own[1])]
    for i in range(2):
        np.testing.assert_allclose(stack.predicted_costs(probe)[i], expected[i], rtol=1e-9,
                                   atol=1e-12)
        np.testing.assert_allclose(stack.predict_vector(probe)[i], softmax(expected[i], 0.5),
                                   rtol=1e-9)


def test_on_model_without_a_model_is_the_plain_stack():
    C, G = rounds(60, 5, d=2, k=3)
    a = FeaturePolicy(sets.Simplex(3), n_features=0, residual=True, on_model=True).stack(2)
    b = FeaturePolicy(sets.Simplex(3), n_features=0, residual=True).stack(2)
    for c, g in zip(C, G):
        a.learn_vector(c, np.vstack([g, -g]))
        b.learn_vector(c, np.vstack([g, -g]))
    np.testing.assert_array_equal(a.predict_vector(C[0]), b.predict_vector(C[0]))
