"""BoBLO (Algorithm 2): plays in K, unbiased estimators, equals BoOCO, learns, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from river import bandit as river_bandit
from river import preprocessing

import learners
from onlineboost import BoBLO, BoOCO, evaluate, losses, sets
from streams import LinearBandit

warnings.filterwarnings("ignore", category=RuntimeWarning)


def contexts(n, seed, d=3):
    rng = np.random.default_rng(seed)
    return [{f"c{j}": float(v) for j, v in enumerate(rng.normal(size=d))} for _ in range(n)]


@pytest.mark.parametrize("estimator", ["paper", "ips"])
@pytest.mark.parametrize("K", [sets.Simplex(4), sets.Box([-0.5] * 4, [1.5] * 4)],
                         ids=["simplex", "box"])
def test_played_points_in_K_and_arm_law_sums_to_one(estimator, K):
    policy = BoBLO(learners.LinearOGD(lr=1.0), n_learners=4, gamma=0.3, exploration=0.2,
                   estimator=estimator, decision_set=K, seed=0)
    rng = np.random.default_rng(1)
    f = rng.random(4)
    for c in contexts(300, 2):
        x_t = policy.predict_one(c)
        assert K.contains(x_t)
        p = policy.arm_probabilities
        assert np.all(p >= 0.2 / 4 - 1e-12) and np.isclose(p.sum(), 1.0)
        policy.learn_one(c, float(f @ x_t))


@pytest.mark.parametrize("estimator, baseline", [("paper", 0.0), ("paper", 0.5), ("ips", 0.0),
                                                 ("ips", 0.3), ("dr", 0.3)])
def test_estimators_are_unbiased(estimator, baseline):
    """Mean of the cost vectors passed to BoOCO = the true cost vector (minus the baseline)."""
    d, T = 3, 6_000
    f = np.array([0.2, 0.9, 0.5])
    policy = BoBLO(learners.SoftmaxPolicy(sets.Simplex(d), lr=1e-9), n_learners=1,
                   exploration=0.5, estimator=estimator, baseline=baseline,
                   decision_set=sets.Simplex(d), seed=3)
    costs = np.empty((T, d))
    for t in range(T):
        x_t = policy.predict_one({})
        policy.learn_one({}, float(f @ x_t))
        costs[t] = policy.last_cost_vector
    mean, se = costs.mean(axis=0), costs.std(axis=0) / np.sqrt(T)
    target = f if estimator == "dr" else f - baseline  # DR: unbiased for f whatever its model
    assert np.all(np.abs(mean - target) <= 4.5 * se + 1e-12), (mean, target, se)


def test_lean_algorithm_1_equals_booco():
    """BoBLO's linear-loss round is BoOCO's: same weak points after the same cost vectors."""
    K = sets.Simplex(4)
    kw = dict(n_learners=5, gamma=0.4, step_size=0.3, delta=0.2)
    policy = BoBLO(learners.LinearOGD(lr=0.5), estimator="ips", exploration=0.1,
                   decision_set=K, seed=0, **kw)
    twin = BoOCO(learners.LinearOGD(lr=0.5), decision_set=K, loss=losses.Linear(), **kw)
    rng = np.random.default_rng(0)
    for c in contexts(40, 5):  # (rounding differences grow through OGD's kinks over long runs)
        x_t = policy.predict_one(c)
        np.testing.assert_allclose(policy.booco._staged_actions(c), twin._staged_actions(c),
                                   atol=1e-10)
        policy.learn_one(c, float(rng.random() * x_t.sum()))
        twin.learn_one(c, policy.last_cost_vector)
    assert policy.booco.parameters_in_use["kappa"] == twin.parameters_in_use["kappa"] > 0


def run(policy, T, seed=1):
    return evaluate.bandit(policy, LinearBandit(d=5, k=4, noise=0.5, seed=seed, n_rounds=T),
                           skyline=None)


def test_learns_on_the_synthetic_bandit():
    def make():
        return BoBLO(learners.SoftmaxPolicy(lr=0.05), n_learners=1, gamma=0.5, delta=0.01,
                     exploration=0.05, estimator="ips", baseline=0.5, seed=0)

    short, long = run(make(), 1000), run(make(), 4000)
    random = run(river_bandit.RandomPolicy(seed=0), 4000)
    assert long.regret[-1] / 4000 < 0.7 * short.regret[-1] / 1000  # average regret falls
    assert long.average_reward > random.average_reward + 0.1


def test_seeded_and_any_hashable_arms():
    arms = ["a", ("b", 1), 7]

    def trace(seed):
        policy = BoBLO(learners.SoftmaxPolicy(lr=0.1), n_learners=2, estimator="paper",
                       exploration=0.3, transformer=preprocessing.StandardScaler(), seed=seed)
        out = []
        for t, c in enumerate(contexts(100, 0)):
            arm = policy.pull(arms, c)
            out.append(arm)
            policy.update(arm, c, float(arm == arms[t % 3]))
        return out

    assert trace(4) == trace(4) != trace(5)
    assert set(trace(4)) == set(arms)


def test_bad_input_raises_and_changes_nothing():
    arms = [0, 1, 2]
    make = lambda: BoBLO(learners.SoftmaxPolicy(lr=0.5), n_learners=2, estimator="ips",  # noqa
                         transformer=preprocessing.StandardScaler(), seed=1)
    policy, twin = make(), make()
    cs = contexts(60, 7)
    with pytest.raises(ValueError, match="arm_id"):
        policy.update(0, cs[0], 1.0)  # before any pull
    for t, c in enumerate(cs):
        arm, arm_twin = policy.pull(arms, c), twin.pull(arms, c)
        assert arm == arm_twin
        if t % 10 == 3:
            for bad in [("zz", c, 1.0), (arm, c, 1.5), (arm, c, float("nan")),
                        ((arm + 1) % 3, c, 1.0), (arm, {"c0": 9.0}, 1.0)]:
                with pytest.raises(ValueError):
                    policy.update(*bad)
        policy.update(arm, c, float(arm == t % 3))
        twin.update(arm, c, float(arm == t % 3))
        if t % 10 == 5:
            with pytest.raises(ValueError, match="pending"):
                policy.update(arm, c, 1.0)  # no matching pull
    np.testing.assert_array_equal(policy.booco._copies.predict(cs[0]),
                                  twin.booco._copies.predict(cs[0]))
    with pytest.raises(ValueError, match="context"):
        policy.pull(arms, {"c0": float("inf")})
    with pytest.raises(ValueError, match="arm_ids"):
        policy.pull([0, 1], cs[0])


@pytest.mark.parametrize("kwargs", [{"exploration": 0.0}, {"exploration": 1.5},
                                    {"estimator": "tree"}, {"model_lr": 0.0}, {"baseline": 2.0},
                                    {"implicit": -1.0},
                                    {"decision_set": sets.Ball([0.0, 0.0], 0.5)},
                                    {"transformer": 3}, {"n_learners": 0}, {"gamma": 0.0}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        BoBLO(**kwargs)
