"""BoBLO (Algorithm 2): plays in K, unbiased estimators, equals BoOCO, learns, bad input."""

from __future__ import annotations

import pickle
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
                   exploration=0.5, estimator=estimator, baseline=baseline, implicit=0.0,
                   decision_set=sets.Simplex(d), seed=3)
    costs = np.empty((T, d))
    for t in range(T):
        x_t = policy.predict_one({})
        policy.learn_one({}, float(f @ x_t))
        costs[t] = policy.last_cost_vector
    mean, se = costs.mean(axis=0), costs.std(axis=0) / np.sqrt(T)
    target = f if estimator == "dr" else f - baseline  # DR: unbiased for f whatever its model
    assert np.all(np.abs(mean - target) <= 4.5 * se + 1e-12), (mean, target, se)


@pytest.mark.parametrize("learner, estimator, n, aggregate", [
    (learners.RidgePolicy(temperature=0.05), "dr", 5, "exp4"),
    (learners.RidgePolicy(temperature=0.05), "dr", 1, None),
    (learners.SoftmaxPolicy(lr=0.2, update="gradient"), "ips", 3, None),
    (learners.LinearOGD(lr=0.5), "paper", 4, "exp4"),
], ids=["ridge-dr-N5-exp4", "ridge-dr-N1", "softmax-ips-N3", "ogd-paper-N4"])
def test_boblo_is_booco_driven_by_hand_for_the_whole_stream(learner, estimator, n, aggregate):
    """Every round, BoBLO's BoOCO and a twin BoOCO fed by hand (`iterates`, then
    `learn_iterates` with BoBLO's cost vector) give bit-identical iterates x^1..x^N, and
    without aggregation BoBLO's arm law is (1 - eta) Pi_K(x^N) + eta / k of the twin's (to
    rounding: BoBLO does not project an x^N already in the simplex)."""
    T, k, eta = 3000, 5, 0.05
    kw = dict(n_learners=n, gamma=0.6, step_size="theory", delta=0.2)
    policy = BoBLO(learner, estimator=estimator, exploration=eta, aggregate=aggregate,
                   transformer=None, seed=0, **kw)
    twin = BoOCO(learner.clone(), decision_set=sets.Simplex(k), loss=losses.Linear(), seed=0,
                 **kw)
    vector = twin.takes_vectors
    stream = LinearBandit(d=4, k=k, seed=3, n_rounds=T)
    for context, arm_ids in stream:
        x = np.array(list(context.values())) if vector else context
        X = twin.iterates(x)
        arm = policy.pull(arm_ids, context)
        if aggregate is None:
            K = sets.Simplex(k)
            np.testing.assert_allclose(policy.arm_probabilities,  # (Pi_K of a point of K
                                       (1.0 - eta) * K.project(X[-1]) + eta / k,  # is itself,
                                       rtol=1e-14, atol=1e-16)  # skipped: rounding only)
        policy.update(arm, context, stream.reward(arm))
        twin.learn_iterates(x, X, policy.last_cost_vector)
        np.testing.assert_array_equal(policy.booco.iterates(x), twin.iterates(x))
    assert policy.booco.parameters_in_use["kappa"] == twin.parameters_in_use["kappa"] > 0


def run(policy, T, seed=1):
    return evaluate.bandit(policy, LinearBandit(d=5, k=4, noise=0.5, seed=seed, n_rounds=T),
                           skyline=None)


def test_defaults_regret_falls_with_T():
    short, long = run(BoBLO(seed=0), 1000), run(BoBLO(seed=0), 4000)
    assert long.regret[-1] / 4000 < 0.7 * short.regret[-1] / 1000  # average regret falls
    random = run(river_bandit.RandomPolicy(seed=0), 4000)
    assert long.average_reward > random.average_reward + 0.15


def test_learns_on_the_synthetic_bandit():
    def make():
        return BoBLO(learners.SoftmaxPolicy(lr=0.05), n_learners=1, gamma=0.5, delta=0.01,
                     exploration=0.05, estimator="ips", baseline=0.5, implicit=0.0,
                     aggregate=None, seed=0)

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
    assert policy.pull(arms, cs[0]) == twin.pull(arms, cs[0])
    np.testing.assert_array_equal(policy.arm_probabilities, twin.arm_probabilities)
    policy.update(policy._arms[policy._pending[2]], cs[0], 1.0)  # (pending pull settled)
    with pytest.raises(ValueError, match="context"):
        policy.pull(arms, {"c0": float("inf")})
    with pytest.raises(ValueError, match="arm_ids"):
        policy.pull([0, 1], cs[0])


@pytest.mark.parametrize("kwargs", [{"exploration": 0.0}, {"exploration": 1.5},
                                    {"estimator": "tree"}, {"model_l2": 0.0}, {"baseline": 2.0},
                                    {"optimism": -0.1}, {"aggregate": "hedge"}, {"seed": "1"},
                                    {"seed": 1.5}, {"exploration": True},
                                    {"implicit": -1.0},
                                    {"decision_set": sets.Ball([0.0, 0.0], 0.5)},
                                    {"transformer": 3}, {"n_learners": 0}, {"gamma": 0.0}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        BoBLO(**kwargs)


class _DictOnlySoftmax(learners.SoftmaxPolicy):
    """SoftmaxPolicy whose stack offers the dict methods only (BoBLO's generic path)."""

    def stack(self, n, seeds=None):
        import types

        inner = super().stack(n, seeds)
        return types.SimpleNamespace(predict=inner.predict, learn=inner.learn)


@pytest.mark.parametrize("estimator, n", [("ips", 1), ("dr", 1), ("dr", 3), ("paper", 2)])
def test_vector_path_equals_dict_path(estimator, n):
    """One dict-to-vector conversion per round with the numpy scaler (learners with vector
    methods) plays exactly as river's StandardScaler and the learners' dict methods."""
    arms = list(range(4))
    rng = np.random.default_rng(8)

    def make(proto):
        return BoBLO(proto, n_learners=n, gamma=0.7, step_size=0.5, delta=0.1,
                     exploration=0.1, estimator=estimator, baseline=0.4,
                     transformer=preprocessing.StandardScaler(), seed=2)

    fast = make(learners.SoftmaxPolicy(lr=0.3, update="gradient"))
    slow = make(_DictOnlySoftmax(lr=0.3, update="gradient"))
    for t, c in enumerate(contexts(400, 9, d=4)):
        if t % 5 == 0:
            del c["c1"]  # a feature sometimes missing
        arm = fast.pull(arms, c)
        assert arm == slow.pull(arms, c)
        np.testing.assert_allclose(fast.arm_probabilities, slow.arm_probabilities, atol=1e-9)
        r = float(rng.random() < 0.2 + 0.2 * arm)
        fast.update(arm, c, r)
        slow.update(arm, c, r)
        np.testing.assert_allclose(fast.last_cost_vector, slow.last_cost_vector, atol=1e-9)
    assert fast._vector and not slow._vector


def _state(policy):
    return pickle.dumps(policy)


BAD_CONTEXTS = [({"c0": 1e308, "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": -1e308, "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": 10**400, "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": float("nan"), "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": float("-inf"), "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": "1.5", "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": b"1", "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": None, "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": True, "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ({"c0": [1.0], "c1": 0.0, "c2": 0.0}, "context\\['c0'\\]"),
                ([1.0, 2.0], "context")]
BAD_UPDATES = [("zz", "arm_id"), ([0], "arm_id"), ({"a": 1}, "arm_id"),
               (1.5, "reward"), (-0.1, "reward"), (float("nan"), "reward"), (10**400, "reward"),
               ("0.5", "reward"), (None, "reward"), (True, "reward"), (complex(0.5, 0), "reward")]


@pytest.mark.parametrize("make", [
    lambda: BoBLO(seed=1),
    lambda: BoBLO(learners.SoftmaxPolicy(lr=0.5), n_learners=2, estimator="ips", seed=1),
    lambda: BoBLO(learners.LinearOGD(), n_learners=2, estimator="paper", seed=1),
], ids=["defaults", "softmax-ips", "ogd-paper-river-scaler"])
def test_bad_input_raises_naming_it_and_changes_nothing(make):
    """Every refusal is a ValueError naming context / arm_id / reward, and the pickled state
    is byte-identical before and after; the run then goes on exactly as an untouched twin's."""
    arms = [0, 1, 2]
    policy, twin = make(), make()
    cs = contexts(60, 7)
    with pytest.raises(ValueError, match="arm_id"):
        policy.update(0, cs[0], 1.0)  # before any pull
    for t, c in enumerate(cs):
        if t % 10 == 2:
            for bad, match in BAD_CONTEXTS:
                before = _state(policy)
                with pytest.raises(ValueError, match=match):
                    policy.pull(arms, bad)
                assert _state(policy) == before
            for bad_arms in ([0, 1], [[0], 1, 2], 5):
                before = _state(policy)
                with pytest.raises(ValueError, match="arm_ids"):
                    policy.pull(bad_arms, c)
                assert _state(policy) == before
        arm = policy.pull(arms, c)
        assert arm == twin.pull(arms, c)
        if t % 10 == 3:
            for bad, match in BAD_UPDATES:
                args = (bad, c, 1.0) if match == "arm_id" else (arm, c, bad)
                before = _state(policy)
                with pytest.raises(ValueError, match=match):
                    policy.update(*args)
                assert _state(policy) == before
            with pytest.raises(ValueError, match="arm_id"):
                policy.update((arm + 1) % 3, c, 1.0)  # not the pulled arm
            with pytest.raises(ValueError, match="context"):
                policy.update(arm, {"c0": 9.0}, 1.0)  # not the pulled context
        policy.update(arm, c, float(arm == t % 3))
        twin.update(arm, c, float(arm == t % 3))
        if t % 10 == 5:
            with pytest.raises(ValueError, match="pending"):
                policy.update(arm, c, 1.0)  # no matching pull
    assert _state(policy) == _state(twin)


@pytest.mark.parametrize("transformer", [preprocessing.StandardScaler(), None],
                         ids=["scaled", "raw"])
def test_huge_finite_contexts_never_make_probabilities_nan(transformer):
    """Contexts up to the documented cap 1e100 are accepted and every later arm law is finite
    (or, for raw contexts, the round is refused with the state unchanged); beyond the cap they
    are refused."""
    policy = BoBLO(transformer=transformer, seed=0)
    rng = np.random.default_rng(0)
    arms = list(range(4))
    for t in range(300):
        c = {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=3))}
        if t % 37 == 5:
            c["c1"] = float(rng.choice([1e100, -1e100, 3e99, 1e50]))
        before = _state(policy)
        try:
            arm = policy.pull(arms, c)
        except ValueError as e:
            assert transformer is None and "context" in str(e)
            assert _state(policy) == before
            continue
        p = policy.arm_probabilities
        assert np.all(np.isfinite(p)) and np.isclose(p.sum(), 1.0)
        policy.update(arm, c, float(rng.random()))
    with pytest.raises(ValueError, match="context"):
        policy.pull(arms, {"c0": 0.0, "c1": 1.1e100, "c2": 0.0})


@pytest.mark.parametrize("kwargs", [
    {}, {"n_learners": 5}, {"estimator": "ips", "n_learners": 3, "implicit": 0.0},
    {"estimator": "paper", "exploration": 0.3},
    {"learner": learners.SoftmaxPolicy(update="gradient"), "gamma": 0.5, "step_size": "theory"},
], ids=["defaults", "N5", "ips-N3", "paper", "softmax-gamma-0.5"])
def test_arm_law_sums_to_one_and_keeps_the_exploration_floor_every_round(kwargs):
    policy = BoBLO(seed=4, **kwargs)
    eta = policy.exploration
    stream = LinearBandit(d=6, k=5, seed=2, n_rounds=1500)
    for context, arm_ids in stream:
        arm = policy.pull(arm_ids, context)
        p = policy.arm_probabilities
        assert abs(p.sum() - 1.0) <= 1e-12
        assert p.min() >= eta / 5 * (1 - 1e-12)
        policy.update(arm, context, stream.reward(arm))


def test_n5_staged_policies_aggregated_within_the_exp4_bound():
    """On the seeded LinearBandit, the played arms' expected reward is within Exp4's bound
    2 sqrt(T k ln M) of the best staged policy's (the experts' laws, scored with the true mean
    rewards of every round)."""
    T, k = 3000, 5
    policy = BoBLO(n_learners=5, seed=0)
    stream = LinearBandit(d=6, k=k, seed=5, n_rounds=T)
    advice_log = []
    inner = policy.exp4 if policy.exp4 is not None else None
    assert inner is None  # built at the first pull
    played = 0.0
    for context, arm_ids in stream:
        arm = policy.pull(arm_ids, context)
        agg = policy.exp4
        mu = stream._round_expected()
        advice = agg.last_advice
        advice_log.append(advice @ mu)
        played += float(policy.arm_probabilities @ mu)
        policy.update(arm, context, stream.reward(arm))
    experts = np.sum(advice_log, axis=0)
    M = len(experts)
    assert M == policy.n_learners + (policy.gamma != 1.0)  # W_1 = x^1 when gamma = eta_1 = 1
    for j in range(M):  # against every staged policy, with its prior weight
        assert experts[j] - played <= policy.exp4.bound(T, j)
    assert policy.exp4.bound(T, 0) < 2 * np.sqrt(T * k * np.log(M))  # the half-prior stage
