"""`BoBLO(n_learners>1)`'s compiled round (`onlineboost._deep_kernels`, issue 13, speed)
against the general path it transcribes: the same arms on full seeded passes of the development
streams and on `NonlinearBandit` (where `FitLead` switches: the same switch rounds, then Exp4's
laws), laws and estimates to rounding, the paths interchangeable round by round and through
pickles (old pickles load and play), bad input refused with the state unchanged."""

from __future__ import annotations

import math
import pickle
import warnings

import numpy as np
import pytest

import learners
from benchmarks.bandit_compare import DATASETS, NONLINEAR
from onlineboost import BoBLO, _deep_kernels
from onlineboost.boblo import FIXED_WEIGHT_LEARNER, FOURIER_LATER
from streams import LinearBandit
from tests.helpers import LINEAR_LEARNER, shifting_context

warnings.filterwarnings("ignore", category=RuntimeWarning)

pytestmark = pytest.mark.skipif(not _deep_kernels.AVAILABLE, reason="numba is not installed")

TOL = 1e-9  # (laws and estimates: the dot products sum in another order than numpy's BLAS)


@pytest.fixture(autouse=True)
def _fourier(fourier_later):
    """These tests are about the compiled round of the Fourier later copies."""


def _general(policy):
    policy._DEEP = False
    return policy


def _linear5(seed, **kw):
    """`BoBLO(n_learners=5)` over the linear first copy (the default learner until the eighth
    session: no random features of its own), where `FitLead` switches on `NonlinearBandit`
    (over the default first copy, which has the later stages' class, it does not)."""
    learner = learners.FeaturePolicy(**LINEAR_LEARNER, **FOURIER_LATER)
    return BoBLO(learner, seed=seed, n_learners=5, **kw)


def _pass(stream, fast, slow, check=None):
    """Both policies on their own copy of `stream` (the same seed): the arms, the rounds the
    compiled pull played, the largest law and estimate gaps."""
    streams = (stream(), stream())
    arms, deep, law, cost = [], 0, 0.0, 0.0
    fast.laws = []  # (every round's law gap)
    for t, ((c1, ids1), (c2, ids2)) in enumerate(zip(*streams)):
        a = fast.pull(ids1, c1)
        deep += fast._scratch is not None
        b = slow.pull(ids2, c2)
        assert a == b, f"round {t}: arm {a} against {b}"
        fast.laws.append(float(np.abs(fast.arm_probabilities - slow.arm_probabilities).max()))
        law = max(law, fast.laws[-1])
        r = streams[0].reward(a)
        assert streams[1].reward(b) == r
        fast.update(a, c1, r)
        slow.update(b, c2, r)
        cost = max(cost, float(np.abs(fast.last_cost_vector - slow.last_cost_vector).max()))
        arms.append(a)
        if check is not None:
            check(t)
    return arms, deep, law, cost


@pytest.mark.parametrize("first", ["features", "linear"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", ["LinearBandit", "ImageSegments", "digits"])
def test_the_compiled_round_plays_the_general_paths_arms_on_the_development_streams(name,
                                                                                     seed, first):
    """Full passes: every arm the same, laws and estimates to 1e-9, every round past the
    scaler's warm-up compiled; `FitLead` never switches there, on either path. Over the
    default first copy (its own random features) and over the linear one."""
    make = (lambda: BoBLO(seed=seed, n_learners=5)) if first == "features" else (
        lambda: _linear5(seed))
    fast, slow = make(), _general(make())
    assert fast._deep is False and fast._scratch is None  # (set at the first pull)
    arms, deep, law, cost = _pass(lambda: DATASETS[name](seed), fast, slow)
    assert fast._deep and not slow._deep
    assert deep >= len(arms) - 11  # (the first round and the scaler's warm-up: general)
    assert law <= TOL and cost <= TOL
    assert fast.exp4.switch_round is None and slow.exp4.switch_round is None
    np.testing.assert_allclose(fast.exp4.lead, slow.exp4.lead, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(fast._model.G, slow._model.G, rtol=1e-9, atol=1e-9)


CONFIGS = {
    "optimism": dict(optimism=0.1),
    "predictive width": dict(optimism=0.05, width="predictive"),
    "three penalties": dict(model_l2=(1.0, 5.0, 20.0)),
    "no scaler": dict(transformer=None),
    "implicit sqrt": dict(implicit="sqrt"),
    "reward range": dict(reward_range=(-1.0, 2.0)),
    "N = 2": dict(n_learners=2),
    "kappa": dict(kappa=2.0),
    "fixed temperature": dict(learner=learners.FeaturePolicy(
        **{**FIXED_WEIGHT_LEARNER, "t0": None}, **FOURIER_LATER)),
    "relu, floored": dict(learner=learners.FeaturePolicy(
        **FIXED_WEIGHT_LEARNER, **FOURIER_LATER, kind="relu", min_temperature=0.01)),
    # (the eighth session's default: 64 features and forgetting, which the default no longer
    # takes: the kernels' forgetting steps)
    "64 features, forgetting": dict(learner=learners.FeaturePolicy(
        **{**FIXED_WEIGHT_LEARNER, "n_features": 64, "forget": 0.995}, **FOURIER_LATER)),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_compiled_round_takes_every_parameter_from_the_state(name):
    """Every covered configuration plays its general path's arms, laws to 1e-9."""
    kw = dict(CONFIGS[name])
    n = kw.pop("n_learners", 5)
    fast = BoBLO(seed=2, n_learners=n, **kw)
    slow = _general(BoBLO(seed=2, n_learners=n, **kw))
    arms, deep, law, cost = _pass(
        lambda: LinearBandit(d=6, k=4, noise=0.5, seed=1, n_rounds=800), fast, slow)
    assert fast._deep and deep >= len(arms) - 11
    assert law <= TOL and cost <= TOL


@pytest.mark.parametrize("seed", [100, 101, 102, 103, 104])
def test_the_same_switch_rounds_and_arms_on_nonlinear_bandit(seed):
    """`benchmarks.bandit_compare.NONLINEAR`: `FitLead` switches at the same round on both
    paths, and Exp4's phase after it plays the same arms. Laws to 1e-9 until the switch; after
    it the later copies' predictions are played, whose inverse Gram matrices grow as
    0.995^-t along the directions two context columns never reach, so the features' rounding
    (the kernel's cosine, within an ulp of the C library's) grows there: to 1e-6, as between
    the general path's numpy and compiled steps (`test_stack_kernels`)."""
    fast = _linear5(seed)
    slow = _general(_linear5(seed))
    arms, deep, law, cost = _pass(lambda: NONLINEAR(seed), fast, slow)
    tau = fast.exp4.switch_round
    assert tau is not None and tau == slow.exp4.switch_round
    assert fast.exp4.expert == slow.exp4.expert
    assert deep >= len(arms) - 11 and max(fast.laws[:tau + 1]) <= TOL
    assert law <= 1e-6 and cost <= 1e-6
    np.testing.assert_allclose(fast.exp4.weights, slow.exp4.weights, rtol=1e-6, atol=1e-9)


def test_phase_one_plays_the_first_copys_law_as_one_copy_does():
    """Before `FitLead`'s switch (never, on the development streams) N = 5's compiled round
    plays N = 1's compiled round's law: the same arms, laws to rounding (the scaler's warm-up
    rounds run the general path for N = 5 and a warm-up kernel for N = 1)."""
    one, five = BoBLO(seed=3), BoBLO(n_learners=5, seed=3)
    arms, deep, law, cost = _pass(lambda: DATASETS["ImageSegments"](0), five, one)
    assert five._deep and one._jit and five.exp4.switch_round is None
    assert law <= TOL


def test_the_paths_are_interchangeable_round_by_round_after_the_switch():
    """One policy switching between the compiled round and the general path every few rounds
    (and an update on the other path than its pull), before and after `FitLead`'s switch,
    plays what the general path plays."""
    seed = 100
    mixed = _linear5(seed)
    slow = _general(_linear5(seed))

    def toggle(t):
        mixed._deep = (t // 5) % 2 == 0
        if t % 7 == 3:
            mixed._scratch = None  # (the next update: the general path after a compiled pull)

    arms, deep, law, cost = _pass(lambda: NONLINEAR(seed), mixed, slow, toggle)
    tau = mixed.exp4.switch_round
    assert tau is not None and tau == slow.exp4.switch_round
    assert 0 < deep < len(arms) - 1000 and max(mixed.laws[:tau + 1]) <= TOL
    assert law <= 1e-6 and cost <= 1e-6  # (after the switch: as above)


def test_the_compiled_round_moves_the_same_state():
    """After a `NonlinearBandit` pass on either path, every array the general path keeps agrees
    to rounding (copy 1, the later copies norm-wise, the model, kappa, FitLead's leads and
    bounds, Exp4's clock)."""
    seed = 101
    fast = _linear5(seed)
    slow = _general(_linear5(seed))
    _pass(lambda: NONLINEAR(seed), fast, slow)
    a, b = fast.booco.copies, slow.booco.copies
    gap = np.abs(a.rest._theta - b.rest._theta).max() / np.abs(b.rest._theta).max()
    assert gap <= 1e-6  # (norm-wise: the directions the contexts never reach, as above)
    np.testing.assert_allclose(a.rest._P, b.rest._P, rtol=0.0, atol=1e-6 * a.rest._P.max())
    for x, y in [(a.first._P, b.first._P), (a.first._theta, b.first._theta),
                 (fast._model.G, slow._model.G),
                 (fast._model.weights, slow._model.weights),
                 (fast.exp4._psi, slow.exp4._psi), (fast.exp4.lead, slow.exp4.lead)]:
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-8)
    assert a.first._t == b.first._t == a.rest._t == b.rest._t
    assert fast.booco.parameters_in_use["kappa"] == pytest.approx(
        slow.booco.parameters_in_use["kappa"], rel=1e-12)
    assert fast.exp4._exp4._t == slow.exp4._exp4._t
    assert fast._rounds == slow._rounds


def test_pickles_mid_round_and_old_pickles():
    """A policy pickled between a compiled pull and its update goes on as the original does;
    a pickle without the compiled round's attributes (as before it), taken mid-round too,
    loads, learns its pending round on the general path and then plays the compiled round
    with the original's arms."""
    stream = DATASETS["LinearBandit"](2)
    policy = BoBLO(seed=1, n_learners=5)
    rounds = iter(stream)
    for _ in range(200):
        context, ids = next(rounds)
        arm = policy.pull(ids, context)
        policy.update(arm, context, stream.reward(arm))
    context, ids = next(rounds)
    arm = policy.pull(ids, context)
    assert policy._scratch is not None
    copy = pickle.loads(pickle.dumps(policy))
    state = policy.__dict__.copy()
    del state["_deep"], state["_scratch"]  # (a policy pickled before the compiled round)
    old = BoBLO.__new__(BoBLO)
    old.__dict__.update(state)
    old = pickle.loads(pickle.dumps(old))
    assert "_scratch" not in vars(old) and old._scratch is None and old._deep
    reward = stream.reward(arm)
    for p in (policy, copy, old):
        p.update(arm, context, reward)
    for t, (context, ids) in enumerate(rounds):
        if t == 300:
            break
        a = policy.pull(ids, context)
        assert copy.pull(ids, context) == a and old.pull(ids, context) == a
        assert copy._scratch is not None and old._scratch is not None
        reward = stream.reward(a)
        for p in (policy, copy, old):
            p.update(a, context, reward)
    np.testing.assert_array_equal(copy.arm_probabilities, policy.arm_probabilities)
    assert float(np.abs(old.arm_probabilities - policy.arm_probabilities).max()) <= TOL
    # (older still: no aggregate state the kernels read, the general path)
    state = dict(vars(policy))
    del state["_deep"]
    bare = BoBLO.__new__(BoBLO)
    bare.__dict__.update(state)
    bare._exp4 = None
    assert pickle.loads(pickle.dumps(bare))._deep is False


def test_bad_input_on_the_compiled_round_changes_nothing():
    """Past the warm-up, on the compiled round: bad context values, unknown arms, rewards out
    of range and a law that is not finite are refused with the general path's ValueError,
    the pickled state unchanged."""
    rng = np.random.default_rng(1)
    policy = BoBLO(seed=5, n_learners=5)

    def context():
        return {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=4))}

    for _ in range(40):
        c = context()
        policy.update(policy.pull([0, 1, 2], c), c, float(rng.random()))
    assert policy._deep
    c = context()
    before = pickle.dumps(policy)
    for bad in (math.nan, math.inf, -math.inf, -1e101, 10**400, "1", None):
        with pytest.raises(ValueError, match=r"context\['c1'\]"):
            policy.pull([0, 1, 2], {**c, "c1": bad})
        assert pickle.dumps(policy) == before
    with pytest.raises(ValueError, match="arm_ids"):
        policy.pull([0, 1, 5], c)
    assert pickle.dumps(policy) == before
    arm = policy.pull([0, 1, 2], c)
    assert policy._scratch is not None
    state = pickle.dumps(policy)
    with pytest.raises(ValueError, match="arm_id"):
        policy.update(7, c, 0.5)
    with pytest.raises(ValueError, match="reward"):
        policy.update(arm, c, math.nan)
    with pytest.raises(ValueError, match="reward"):
        policy.update(arm, c, 1.5)
    assert pickle.dumps(policy) == state
    policy.update(arm, c, 0.5)
    # a law that is not finite (the loss model's costs are): the general path's refusal
    # a law that is not finite (the loss model's costs are): the general path's refusal,
    # every learnt array unchanged
    policy._model.G[:, :, -1, 0] = np.inf
    before = _learnt(policy)
    with pytest.raises(ValueError, match="not finite"):
        policy.pull([0, 1, 2], c)
    for x, y in zip(before, _learnt(policy)):
        np.testing.assert_array_equal(x, y)


def _learnt(policy) -> list:
    """Copies of every array a round learns (and the scaler's statistics)."""
    copies, st = policy.booco.copies, policy._reader._current_stats()
    arrays = [policy._model.G, policy._model.weights, policy._model.loss, copies.first._P,
              copies.first._theta, copies.rest._P, copies.rest._theta, policy.exp4.lead,
              policy.exp4._psi, st.count, st.mean, st.var, st.dev, st.buf,
              [policy._rounds, policy.booco.parameters_in_use["kappa"]]]
    return [np.array(a, dtype=np.float64) for a in arrays]


def test_which_configurations_the_kernels_cover():
    """The default N > 1 configuration (any N > 1; its first copy with random features of its
    own or, as until the eighth session, without) is covered; other aggregates, learners,
    estimators, the BLO face and the switched-off compiled pieces are not."""
    def built(**kw):
        policy = BoBLO(seed=0, **kw)
        policy.pull([0, 1, 2], {"a": 0.5})
        return policy._deep

    assert built(n_learners=5) and built(n_learners=2)
    assert built(n_learners=5, learner=learners.FeaturePolicy(**LINEAR_LEARNER, **FOURIER_LATER))
    assert not built()  # (N = 1: `_kernels`)
    assert not built(n_learners=5, aggregate="exp4")
    assert not built(n_learners=5, aggregate=None)
    assert not built(n_learners=5, model_l2=20.0)  # (one penalty's model: not transcribed)
    assert not built(n_learners=5, learner=learners.FeaturePolicy(**FIXED_WEIGHT_LEARNER))
    learnt = dict(FIXED_WEIGHT_LEARNER, **FOURIER_LATER, learn_weight=0.2)
    assert not built(n_learners=5, learner=learners.FeaturePolicy(**learnt))  # (general path)
    later = dict(FIXED_WEIGHT_LEARNER, **FOURIER_LATER, later_fit="residual")
    assert not built(n_learners=5, learner=learners.FeaturePolicy(**later))
    assert not built(n_learners=5, gamma=0.5)  # (the first copy is not x^1)
    assert built(n_learners=5, transformer=None)  # (no scaler: covered too)
    switched = BoBLO(seed=0, n_learners=5)
    switched._DEEP = False
    switched.pull([0, 1, 2], {"a": 0.5})
    assert not switched._deep


def test_fitleads_bounds_by_doubling_agree_with_its_numpy_steps():
    """`_deep_kernels._psi_step` (phi at the 40 rates by doubling from the smallest) against
    `FitLead.update`'s numpy steps (`expm1(y) - y` at every rate, then the p-weighted sum):
    to 1e-12 relative, or the numpy steps' own absolute error (about an ulp of y) where phi is
    below it; stages equal to the first add 0."""
    from onlineboost.depth import FitLead
    from onlineboost.exp4 import ville_grid

    lam, _ = ville_grid(4, 0.05)
    rng = np.random.default_rng(4)
    for k in (3, 5, 10):
        for spread in (1.0, 0.03):
            Y = np.clip(rng.random(k) + spread * rng.normal(size=(5, k)), 0.0, 1.0)
            Y[2] = Y[0]
            p = rng.dirichlet(np.ones(k))
            psi = np.zeros((5, len(lam)))
            _deep_kernels._psi_step(Y, p, lam, psi)
            d, s = (Y - Y[0])[1:], (Y + Y[0])[1:]
            X = np.stack([(d * (2.0 - s))[..., None] * lam, (-d * s)[..., None] * lam])
            F = np.expm1(X) - X
            ref = p @ np.maximum(F[0], F[1])
            assert np.all(np.abs(psi[1:] - ref) <= 1e-12 * ref + 1e-15 * lam)
            assert not psi[0].any() and not psi[2].any()
    assert FitLead(5, 3)._lam.tolist() == lam.tolist()  # (the doubling grid `covers` checks)


def test_new_and_missing_features_take_the_general_path_then_the_kernels():
    """A context with a new feature (the model and every copy grow), one with a feature
    missing, one in another key order, values as numpy scalars: the general path plays those
    rounds, the kernels the next usual ones, and the two policies stay together."""
    rng = np.random.default_rng(0)
    fast = BoBLO(seed=4, n_learners=5)
    slow = _general(BoBLO(seed=4, n_learners=5))
    deep = 0
    for t in range(500):
        c = shifting_context(rng, t)
        arm = fast.pull([0, 1, 2], c)
        deep += fast._scratch is not None
        assert slow.pull([0, 1, 2], c) == arm
        assert float(np.abs(fast.arm_probabilities - slow.arm_probabilities).max()) <= TOL
        reward = float(rng.random() < 0.3 + 0.2 * arm)
        fast.update(arm, c, reward)
        slow.update(arm, c, reward)
    assert fast.booco.copies.rest._W.shape[2] == 4 and fast._model.G.shape[-1] == 5
    assert deep > 400  # (not: the warm-ups, each changed key order and the round after it)


def test_a_refused_pull_leaves_the_pending_compiled_round_to_learn():
    """A compiled pull, then a pull refused for a bad context: the update learns the first
    pull's round on the compiled path, as the general path learns it."""
    rng = np.random.default_rng(3)
    fast = BoBLO(seed=6, n_learners=5)
    slow = _general(BoBLO(seed=6, n_learners=5))
    for t in range(60):
        c = {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=3))}
        arm = fast.pull([0, 1, 2], c)
        assert slow.pull([0, 1, 2], c) == arm
        if t > 30:
            for p in (fast, slow):
                with pytest.raises(ValueError, match=r"context\['c0'\]"):
                    p.pull([0, 1, 2], {**c, "c0": math.nan})
            assert fast._scratch is not None
        reward = float(rng.random())
        fast.update(arm, c, reward)
        slow.update(arm, c, reward)
        assert float(np.abs(fast.last_cost_vector - slow.last_cost_vector).max()) <= TOL
    assert fast._deep and fast._rounds == slow._rounds == 60
