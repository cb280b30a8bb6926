"""BoBLO's fused round (issue 13, speed): the defaults' configuration takes `_pull_fused` /
`_feedback_fused` and the one-copy fast paths of `FeaturePolicyStack`, `BoOCO` and the loss
model, which must compute exactly what the general paths compute."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest
from river import datasets, preprocessing
from sklearn.datasets import load_digits

import learners
from learners import FeaturePolicyStack
from onlineboost import BoBLO, extension, losses, sets
from onlineboost.boblo import DEFAULT_LEARNER
from onlineboost.loss_model import _ArmRidge
from streams import ClassificationBandit, LinearBandit

warnings.filterwarnings("ignore", category=RuntimeWarning)

# the development streams' shapes: (d, k) = (10, 5), (19, 7), (64, 10)
STREAMS = {
    "LinearBandit": lambda: LinearBandit(d=10, k=5, noise=0.5, seed=3, n_rounds=400),
    "ImageSegments": lambda: ClassificationBandit(datasets.ImageSegments(), seed=3),
    "digits": lambda: ClassificationBandit(load_digits(), seed=3),
}


def _general(policy):
    """`policy` with the fused path switched off (every round through `_play` / `_feedback`)."""
    policy._FUSE = False
    return policy


def _numpy(policy):
    """`policy` with the compiled round switched off (the fused round on numpy; the kernels'
    own agreement with it is `test_boblo_kernel.py`'s)."""
    policy._JIT = False
    return policy


def _play_twins(make, stream, rounds=400):
    """Play `make()` fused (on numpy) and general side by side on `stream`; every arm, arm law
    and cost estimate must be the same bit for bit, and so must the final states."""
    fused, general = _numpy(make()), _general(make())
    n = 0
    for context, arm_ids in stream:
        arm = fused.pull(arm_ids, context)
        assert general.pull(arm_ids, context) == arm
        np.testing.assert_array_equal(fused.arm_probabilities, general.arm_probabilities)
        reward = stream.reward(arm)
        fused.update(arm, context, reward)
        general.update(arm, context, reward)
        np.testing.assert_array_equal(fused.last_cost_vector, general.last_cost_vector)
        n += 1
        if n >= rounds:
            break
    assert fused._fused and not general._fused
    assert pickle.dumps(fused.booco) == pickle.dumps(general.booco)  # the weak learner, kappa
    np.testing.assert_array_equal(fused._model.theta, general._model.theta)
    np.testing.assert_array_equal(fused._model.P, general._model.P)
    return fused


@pytest.mark.parametrize("name", list(STREAMS))
@pytest.mark.parametrize("kw", [{}, {"optimism": 0.05}, {"implicit": "sqrt", "exploration": 0.05},
                                {"transformer": None}],
                         ids=["defaults", "optimism", "sqrt", "no-scaler"])
def test_the_fused_round_plays_and_learns_what_the_general_round_does(name, kw):
    """On the three development shapes (d, k) = (10, 5), (19, 7), (64, 10): the defaults,
    with optimism (the loss model's bounds and rows U), with the `"sqrt"` schedule and without
    a scaler (raw contexts)."""
    policy = _play_twins(lambda: BoBLO(seed=1, **kw), STREAMS[name]())
    assert policy.arm_probabilities.min() >= policy.exploration / policy.booco.domain.dim - 1e-15


@pytest.mark.parametrize("learner", [learners.RidgePolicy(l2=20.0, temperature=0.02),
                                     learners.SoftmaxPolicy(lr=0.2, update="gradient"),
                                     learners.FeaturePolicy(n_features=8, on_model=True)],
                         ids=["ridge", "softmax", "feature-rff"])
def test_other_vector_learners_take_the_fused_round_with_the_same_numbers(learner):
    """The fused round is BoBLO's bookkeeping only: any weak learner with vector entry points
    takes it (its own arithmetic is its own), with the same numbers as the general round."""
    _play_twins(lambda: BoBLO(learner, seed=1), STREAMS["LinearBandit"](), rounds=200)


@pytest.mark.parametrize("kw", [dict(estimator="ips"), dict(estimator="paper"),
                                dict(n_learners=5),
                                dict(transformer=preprocessing.MinMaxScaler()),
                                dict(learner=learners.LinearOGD())])
def test_other_configurations_take_the_general_round(kw):
    policy = BoBLO(seed=0, **kw)
    c = {"a": 0.5, "b": -1.0}
    for _ in range(3):
        arm = policy.pull([0, 1, 2], c)
        policy.update(arm, c, 0.5)
    assert not policy._fused
    default = BoBLO(seed=0)
    default.pull([0, 1, 2], c)
    assert default._fused


def test_the_fused_round_refuses_bad_input_and_changes_nothing():
    """A refused pull or update on the fused path leaves the whole state as it was (pickles
    equal), and the policy goes on as its twin that never saw the bad input."""
    make = lambda: BoBLO(seed=0)  # noqa: E731
    policy, twin = make(), make()
    rng = np.random.default_rng(0)
    for t in range(60):
        c = {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=4))}
        if t > 20 and t % 7 == 0:
            before = pickle.dumps(policy)
            for bad in (math.nan, math.inf, 1e300, "1", None):
                with pytest.raises(ValueError, match="context"):
                    policy.pull([0, 1, 2], {**c, "c1": bad})
                assert pickle.dumps(policy) == before
        arm = policy.pull([0, 1, 2], c)
        assert twin.pull([0, 1, 2], c) == arm
        if t > 20 and t % 5 == 0:
            before = pickle.dumps(policy)
            for args, match in [((arm, c, math.nan), "reward"), ((arm, c, 1.5), "reward"),
                                ((arm, c, "1"), "reward"), ((7, c, 1.0), "arm_id"),
                                (((arm + 1) % 3, c, 1.0), "arm_id"),
                                ((arm, {"other": 1.0}, 1.0), "context")]:
                with pytest.raises(ValueError, match=match):
                    policy.update(*args)
                assert pickle.dumps(policy) == before
        reward = float(rng.random())
        policy.update(arm, c, reward)
        twin.update(arm, c, reward)
        assert policy._fused
    assert pickle.dumps(policy) == pickle.dumps(twin)


class _CostsOnly:
    """A model with `costs` only (the stack's protocol; no row to lend)."""

    def __init__(self, model):
        self.model = model

    def costs(self, c):
        return self.model.costs(c)

    def lower(self, c):
        return self.model.lower(c)

    def learn_loss(self, *args):
        self.model.learn_loss(*args)


@pytest.mark.parametrize("lends", [True, False], ids=["row-lent", "costs-only"])
def test_the_one_copy_stack_path_is_the_general_stack_path(lends):
    """`FeaturePolicyStack` with one copy and no random features (the fast branch of
    `predicted_costs` / `learn_vector`) computes what copy 1 of a two-copy stack computes
    through the general batched branch, bit for bit (the laws to an ulp), with a model (lending
    its row (1, c) or not) and forgetting."""
    K = sets.Simplex(5)
    rng = np.random.default_rng(0)
    kw = dict(l2=20.0, temperature=0.02, forget=0.995, n_features=0, residual=False,
              on_model=True)
    one, two = FeaturePolicyStack(1, K, **kw), FeaturePolicyStack(2, K, **kw)
    model_one, model_two = _ArmRidge(5, 20.0, 0.5), _ArmRidge(5, 20.0, 0.5)
    if not lends:
        model_one = _CostsOnly(model_one)
    one.model, two.model = model_one, model_two
    for t in range(300):
        c = rng.normal(size=7)
        np.testing.assert_array_equal(one.predicted_costs(c)[0], two.predicted_costs(c)[0])
        # the laws: the same operations on a (1, k) and a (2, k) array; numpy's exp and row sums
        # may take other SIMD lanes for them (AVX-512), so to an ulp, not bit for bit
        np.testing.assert_array_max_ulp(one.predict_vector(c)[0], two.predict_vector(c)[0],
                                        maxulp=2)
        G = rng.normal(size=(1, 5))
        one.learn_vector(c, G)
        two.learn_vector(c, np.vstack([G, rng.normal(size=(1, 5))]))
        loss = float(rng.random())
        for model in (model_one, model_two):
            ce, _, U = model.lower(c)
            model.learn_loss(ce, t % 5, loss, U)
    np.testing.assert_array_equal(one._theta[0], two._theta[0])
    np.testing.assert_array_equal(one._P[0], two._P[0])
    assert hasattr(model_one, "costs_and_row") == lends


@pytest.mark.parametrize("optimism", [0.0, 0.3])
def test_the_loss_model_fast_methods_are_its_general_ones(optimism):
    """`_ArmRidge`: `learn_loss` is `learn` on the residual, `costs_and_row` gives `costs` and
    the row `extend` builds (None where the model would have to grow)."""
    rng = np.random.default_rng(1)
    a, b = _ArmRidge(4, 5.0, 0.5, optimism), _ArmRidge(4, 5.0, 0.5, optimism)
    for t in range(200):
        v = rng.normal(size=6)
        if t == 0:
            m, row = a.costs_and_row(v)
            assert row is None and len(a.theta[0]) == 1  # (not grown by a prediction)
            np.testing.assert_array_equal(m, b.costs(v))
        ce_a, bounds_a, U_a = a.lower(v)
        ce_b, bounds_b, U_b = b.lower(v)
        m, row = a.costs_and_row(v)
        np.testing.assert_array_equal(row, ce_b)
        np.testing.assert_array_equal(m, np.array(bounds_b))
        np.testing.assert_array_equal(m, b.costs(v.copy()))
        arm, loss = t % 4, float(rng.random())
        a.learn_loss(ce_a, arm, loss, U_a)
        b.learn(ce_b, arm, loss - float(b.theta[arm] @ ce_b), U_b)
    np.testing.assert_array_equal(a.theta, b.theta)
    np.testing.assert_array_equal(a.P, b.P)


@pytest.mark.parametrize("d", [2, 5, 10, 30])
def test_the_one_row_linear_gradient_is_the_extension_gradient(d):
    """`Extension.linear_gradient_row` (BoOCO's one-copy step 4, plain floats) against the
    numpy path of the same closed form on a stack of rows (`prox_distance`): equal up to the
    last bits of the sums (the projection's numpy kernel sorts and sums otherwise)."""
    rng = np.random.default_rng(d)
    K = sets.Simplex(d)
    for kappa in (0.0, 0.5, 3.0):
        ext = extension.Extension(losses.Linear(), K, delta=0.1, kappa=kappa)
        for _ in range(50):
            x = K.sample(1, rng)[0] if rng.random() < 0.7 else rng.normal(size=d)
            y = rng.normal(size=d) * rng.choice([0.1, 1.0, 30.0])
            got = ext.linear_gradient_row(x.tolist(), y.tolist())
            want = (np.vstack([x, x]) - extension.prox_distance(
                np.vstack([x, x]) - 0.1 * y, K, 0.1 * kappa)) / 0.1
            np.testing.assert_allclose(got, want[0], rtol=0, atol=1e-12)
            np.testing.assert_array_equal(got, ext.gradient_unchecked(x[None], y)[0])


def test_a_pickled_fused_policy_goes_on_with_the_same_numbers():
    rng = np.random.default_rng(4)
    theta = rng.normal(size=(5, 10))
    rounds = [{f"x{j}": float(v) for j, v in enumerate(rng.normal(size=10))} for _ in range(200)]

    def reward(t, c, arm):
        return float(1 / (1 + np.exp(-theta[arm] @ np.array(list(c.values())))) > 0.5)

    policy = BoBLO(seed=2)
    clone, laws = None, []
    for t, c in enumerate(rounds):
        if t == 100:
            clone = pickle.loads(pickle.dumps(policy))
        arm = policy.pull(list(range(5)), c)
        laws.append(policy.arm_probabilities)
        policy.update(arm, c, reward(t, c, arm))
    assert clone._fused
    for t, c in enumerate(rounds[100:], start=100):
        arm = clone.pull(list(range(5)), c)
        np.testing.assert_array_equal(clone.arm_probabilities, laws[t])
        clone.update(arm, c, reward(t, c, arm))
    np.testing.assert_array_equal(clone.last_cost_vector, policy.last_cost_vector)
    assert policy.booco.copies.n_features == DEFAULT_LEARNER["n_features"] > 0  # (the default:
    # a copy with its own random features, whose round cache a pickle leaves out)


def test_booco_iterate_one_and_learning_without_the_iterates():
    """`BoOCO.iterate_one` is `iterates(x)[0]`; `learn_iterates(x, None, y)` learns a one-copy
    round as `learn_iterates(x, iterates(x), y)` does, and is refused (naming X, nothing
    moved) with more copies."""
    from onlineboost import BoOCO

    rng = np.random.default_rng(5)
    make = lambda n: BoOCO(learners.FeaturePolicy(n_features=0), n_learners=n,  # noqa: E731
                           decision_set=sets.Simplex(4), loss=losses.Linear())
    a, b = make(1), make(1)
    for _ in range(100):
        c, y = rng.normal(size=3), rng.normal(size=4)
        assert a.iterate_one(c) == b.iterates(c)[0].tolist()
        a.learn_iterates(c, None, y)
        b.learn_iterates(c, b.iterates(c), y)
    assert pickle.dumps(a) == pickle.dumps(b)
    five = make(5)
    c = rng.normal(size=3)
    np.testing.assert_array_equal(five.iterate_one(c), five.iterates(c)[0])
    before = pickle.dumps(five)
    with pytest.raises(ValueError, match="^X"):
        five.learn_iterates(c, None, rng.normal(size=4))
    assert pickle.dumps(five) == before
