"""The correction's learnt weight (`FeaturePolicy(learn_weight=...)`, issue 13): its gradient is
the derivative of the law's doubly robust estimated loss, its steps are projected AdaGrad
steps, it learns the direction the data call for, and bad input is refused."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from benchmarks.bandit_headroom import linear_classes
from learners import FeaturePolicy
from onlineboost import BoBLO, evaluate, sets
from onlineboost.boblo import DEFAULT_LATER, DEFAULT_LEARNER, FIXED_WEIGHT_LEARNER
from streams import LinearBandit, NonlinearBandit


class _Model:
    """A fixed linear loss model m(c) = A c + b (what BoBLO hands its stack)."""

    def __init__(self, k: int, p: int, rng):
        self.A = 0.1 * rng.normal(size=(k, p))
        self.b = rng.uniform(0.3, 0.7, k)

    def costs(self, c):
        return self.A @ c + self.b


def _trained_stack(seed: int, k: int = 4, p: int = 3, learn_weight: float = 0.2,
                   n_features: int = 8):
    rng = np.random.default_rng(seed)
    stack = FeaturePolicy(sets.Simplex(k), l2=1.0, temperature=0.05, n_features=n_features,
                          t0=50.0,
                          on_model=True, learn_weight=learn_weight, seed=seed).stack(1)
    stack.model = _Model(k, p, rng)
    for _ in range(60):
        stack.learn_vector(rng.normal(size=p), rng.uniform(size=(1, k)))
    return stack, rng


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _numeric_gradient(m, g, beta, law, arm, loss, h=1e-6):
    """The oracle: central differences at w = 1 of w -> sum_a pi_a(w) l_a, pi(w) =
    softmax(-beta (m + w g)), l the doubly robust estimate m + e_arm (loss - m_arm) / law_arm
    of the played law `law`."""
    estimate = m.copy()
    estimate[arm] += (loss - m[arm]) / law[arm]

    def expected(w):
        return _softmax(-beta * (m + w * g)) @ estimate

    return (expected(1.0 + h) - expected(1.0 - h)) / (2 * h)


@pytest.mark.parametrize("seed", range(5))
def test_weight_gradient_is_the_estimated_loss_derivative(seed):
    # oracle: `_numeric_gradient`, at the stack's own law pi(1) as the played law
    stack, rng = _trained_stack(seed)
    c = rng.normal(size=3)
    costs = stack.predicted_costs(c)[0]  # w = 1: m + g
    m = stack.model.costs(c)
    g = costs - m
    beta = stack.inverse_temperature()
    law = _softmax(-beta * costs)
    arm, loss = int(rng.integers(4)), float(rng.uniform())
    assert stack.weight_gradient(c, arm, loss, law) == pytest.approx(
        _numeric_gradient(m, g, beta, law, arm, loss), rel=1e-5, abs=1e-9)


def test_weight_steps_are_projected_adagrad():
    stack, rng = _trained_stack(0, learn_weight=0.3)
    stack.max_weight = 1.5
    total = 1e-12
    w = 1.0
    for grad in [2.0, -0.5, -4.0, -3.0, -3.0, 10.0, 0.0]:
        stack.step_weight(grad)
        total += grad * grad
        w = min(max(w - 0.3 * grad / np.sqrt(total), 0.0), 1.5)
        assert stack.weight == w
        assert 0.0 <= stack.weight <= 1.5
    # the first step moves by the rate itself: 1 - 0.3 * sign(2)
    fresh, _ = _trained_stack(1, learn_weight=0.3)
    fresh.step_weight(2.0)
    assert fresh.weight == pytest.approx(0.7)
    # steps of gradient 5 drive it past 0: the projection holds it at exactly 0, never below
    # (a floor elsewhere, or none, fails it)
    hits = 0
    for _ in range(6):
        fresh.step_weight(5.0)
        assert fresh.weight >= 0.0
        hits += fresh.weight == 0.0
    assert hits >= 2 and fresh.weight == 0.0


def test_gradient_changes_nothing_and_the_play_uses_the_weight():
    stack, rng = _trained_stack(2)
    c = rng.normal(size=3)
    before = stack.predicted_costs(c).copy()
    law = _softmax(-stack.inverse_temperature() * before[0])
    stack.weight_gradient(c, 1, 0.4, law)
    np.testing.assert_array_equal(stack.predicted_costs(c), before)
    m = stack.model.costs(c)
    stack.weight = 0.25
    np.testing.assert_allclose(stack.predicted_costs(c)[0], m + 0.25 * (before[0] - m),
                               rtol=1e-12, atol=1e-12)


def test_on_the_context_alone_the_play_is_the_model_plus_the_weighted_ridge():
    """With no random features (one map phi = (1, c) shared by the arms) the weighted costs
    are m(c) + w Theta (1, c), Theta the ridge fit of what the model leaves."""
    stack, rng = _trained_stack(4, n_features=0)
    c = rng.normal(size=3)
    stack.weight = 0.6
    theta = stack._theta[0]
    assert theta.shape == (4, 4) and np.abs(theta).max() > 0  # (k arms, phi = (1, c))
    want = stack.model.costs(c) + 0.6 * (theta @ np.concatenate([[1.0], c]))
    np.testing.assert_allclose(stack.predicted_costs(c)[0], want, rtol=1e-12, atol=1e-12)


def _run(stream, seed, learn_weight=0.2):
    learner = FeaturePolicy(**FIXED_WEIGHT_LEARNER, learn_weight=learn_weight)
    policy = BoBLO(learner=learner, seed=seed)
    return policy, evaluate.bandit(policy, stream, skyline=None).average_reward


def test_weight_falls_where_the_best_policy_is_linear_and_rises_where_it_is_not():
    # linear classes: the correction adds variance, its weight falls (seeds 0, 1, 3 end below
    # 0.3, seed 2 near 1); NonlinearBandit: the correction is the policy, its weight rises to
    # the cap and the reward beats the fixed weight's on every seed (+0.01 to +0.05)
    linear = [_run(linear_classes(s, k=2), s)[0]._booco.copies.weight for s in range(4)]
    assert np.median(linear) < 0.5
    for s in range(4):
        policy, reward = _run(NonlinearBandit(d=2, k=3, seed=s, n_rounds=3000), s)
        assert policy._booco.copies.weight > 1.5
        fixed = BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER), seed=s)
        plain = evaluate.bandit(fixed, NonlinearBandit(d=2, k=3, seed=s, n_rounds=3000),
                                skyline=None).average_reward
        assert reward > plain


def test_weight_stays_in_bounds_and_runs_reproduce():
    stream = NonlinearBandit(d=2, k=2, seed=5, n_rounds=400)
    learner = FeaturePolicy(**FIXED_WEIGHT_LEARNER, learn_weight=1.0, max_weight=1.2)
    policy = BoBLO(learner=learner, seed=5)
    weights = []
    for context, arms in stream:
        arm = policy.pull(arms, context)
        policy.update(arm, context, stream.reward(arm))
        weights.append(policy._booco.copies.weight)
    assert min(weights) >= 0.0 and max(weights) <= 1.2
    assert len(set(weights)) > 10  # it moves
    again = BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER, learn_weight=1.0, max_weight=1.2),
                  seed=5)
    a = evaluate.bandit(again, NonlinearBandit(d=2, k=2, seed=5, n_rounds=400), skyline=None)
    b = evaluate.bandit(BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER, learn_weight=1.0,
                                                    max_weight=1.2), seed=5),
                        NonlinearBandit(d=2, k=2, seed=5, n_rounds=400), skyline=None)
    np.testing.assert_array_equal(a.rewards, b.rewards)


def test_pickled_mid_stream_continues_alike():
    stream = NonlinearBandit(d=2, k=3, seed=7, n_rounds=300)
    policy = BoBLO(learner=FeaturePolicy(**DEFAULT_LEARNER), seed=7)
    rounds = list(stream)
    for context, arms in rounds[:200]:
        arm = policy.pull(arms, context)
        policy.update(arm, context, float(arm == 0))
    twin = pickle.loads(pickle.dumps(policy))
    assert twin._booco.copies.weight == policy._booco.copies.weight
    for context, arms in rounds[200:]:
        a, b = policy.pull(arms, context), twin.pull(arms, context)
        assert a == b
        policy.update(a, context, float(a == 1))
        twin.update(b, context, float(b == 1))
    assert twin._booco.copies.weight == policy._booco.copies.weight


def test_refused_update_moves_no_weight():
    stream = NonlinearBandit(d=2, k=3, seed=3, n_rounds=50)
    policy = BoBLO(learner=FeaturePolicy(**FIXED_WEIGHT_LEARNER, learn_weight=0.5), seed=3)
    for context, arms in list(stream)[:30]:
        arm = policy.pull(arms, context)
        policy.update(arm, context, 0.3)
    context = {"x0": 0.1, "x1": -0.2}
    arm = policy.pull([0, 1, 2], context)
    state = pickle.dumps(policy._booco.copies)
    for bad in (float("nan"), 2.0, "a"):
        with pytest.raises(ValueError, match="reward"):
            policy.update(arm, context, bad)
    assert pickle.dumps(policy._booco.copies) == state


@pytest.mark.parametrize("kwargs, name", [
    ({"on_model": True, "learn_weight": 0.0}, "learn_weight"),
    ({"on_model": True, "learn_weight": -1.0}, "learn_weight"),
    ({"on_model": True, "learn_weight": float("nan")}, "learn_weight"),
    ({"on_model": True, "learn_weight": "0.2"}, "learn_weight"),
    ({"on_model": False, "learn_weight": 0.2}, "learn_weight"),
    ({"on_model": True, "learn_weight": 0.2, "link": "igw"}, "learn_weight"),
    ({"on_model": True, "learn_weight": 0.2, "max_weight": 0.5}, "max_weight"),
    ({"on_model": True, "learn_weight": 0.2, "max_weight": float("inf")}, "max_weight"),
])
def test_bad_settings_are_refused(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FeaturePolicy(**kwargs)


def test_several_copies_need_a_boosted_stack():
    # copy 1's weight is learnt by the boosted stack (later neighbours or features); a plain
    # stack of several copies has no copy 1 apart, so it refuses (BoBLO: when it builds them)
    plain = FeaturePolicy(**DEFAULT_LEARNER)
    with pytest.raises(ValueError, match="learn_weight"):
        plain.stack(2)
    with pytest.raises(ValueError, match="learn_weight"):
        BoBLO(learner=plain, n_learners=2, seed=0).pull([0, 1], {"x": 0.5})
    boosted = FeaturePolicy(**DEFAULT_LEARNER, **DEFAULT_LATER).stack(3)
    assert boosted.learn_weight == 0.2 and boosted.first.learn_weight is None


def _boosted(seed: int, k: int = 3, p: int = 2):
    rng = np.random.default_rng(seed)
    learner = FeaturePolicy(sets.Simplex(k), l2=1.0, temperature=0.05, n_features=8, t0=50.0,
                            on_model=True, residual=True, later_neighbours=3,
                            later_fit="residual", learn_weight=0.2, seed=seed)
    stack = learner.stack(3)
    stack.model = _Model(k, p, rng)
    for _ in range(40):
        stack.learn_vector(rng.normal(size=p), rng.uniform(size=(3, k)))
    return stack, rng


def test_boosted_stages_sum_the_weighted_first_correction():
    # stage i plays m + w g_1 + g_2 + ... + g_i: copy 1's correction times the weight in
    # every stage, the later copies' own predictions as they are
    stack, rng = _boosted(0)
    c = rng.normal(size=2)
    g1 = stack.first.predicted_costs(c)[0]
    later = stack.rest.predicted_costs(c)
    m = stack.model.costs(c)
    for w in (1.0, 0.3, 1.7):
        stack.weight = w
        stack._last = None
        expected = m + np.cumsum(np.vstack([w * g1, later]), axis=0)
        np.testing.assert_allclose(stack.predicted_costs(c), expected, rtol=1e-12, atol=1e-12)


def test_boosted_later_copies_fit_what_the_weighted_stage_leaves():
    # fit="residual": copy 2's target is copy 1's target less m and less w g_1 (not g_1)
    stack, rng = _boosted(1)
    stack.weight = 0.4
    c = rng.normal(size=2)
    g1 = stack.first.predicted_costs(c)[0].copy()
    m = stack.model.costs(c)
    G = rng.uniform(size=(3, 3))
    seen = {}
    real = stack.rest.learn_vector

    def spy(c_, G_):
        seen["G"] = G_.copy()
        return real(c_, G_)
    stack.rest.learn_vector = spy
    stack.learn_vector(c, G)
    np.testing.assert_allclose(seen["G"][0], G[0] - m - 0.4 * g1, rtol=1e-12, atol=1e-12)


def test_boosted_gradient_is_the_stage_one_derivative():
    # the boosted stack's gradient is the one-copy formula on m and copy 1's unweighted g_1
    stack, rng = _boosted(2)
    c = rng.normal(size=2)
    m = stack.model.costs(c)
    g = stack.first.predicted_costs(c)[0]
    beta = stack.first.inverse_temperature()
    law = _softmax(-beta * (m + g))
    arm, loss = 1, 0.7
    assert stack.weight_gradient(c, arm, loss, law) == pytest.approx(
        _numeric_gradient(m, g, beta, law, arm, loss), rel=1e-5, abs=1e-9)


def test_five_copies_play_the_first_copy_until_a_stage_leads():
    # target 2's structure kept: with the learnt weight N = 5 plays N = 1's arms where no
    # later stage leads (LinearBandit), as without it
    for seed in (0, 1):
        one = BoBLO(learner=FeaturePolicy(**DEFAULT_LEARNER), seed=seed)
        five = BoBLO(learner=FeaturePolicy(**DEFAULT_LEARNER, **DEFAULT_LATER),
                     n_learners=5, seed=seed)
        a = evaluate.bandit(one, LinearBandit(d=10, k=5, seed=seed, n_rounds=1500),
                            skyline=None)
        b = evaluate.bandit(five, LinearBandit(d=10, k=5, seed=seed, n_rounds=1500),
                            skyline=None)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        assert five._booco.copies.weight == pytest.approx(one._booco.copies.weight, rel=1e-9)
        assert one._booco.copies.weight != 1.0


@pytest.mark.parametrize("stream, seed, options", [
    (lambda s: NonlinearBandit(d=2, k=3, seed=s, n_rounds=800), 2, {}),
    (lambda s: linear_classes(s, k=4, n_rows=800), 3, {}),
    # one ridge penalty (the `_ArmRidge` kernels) and the model's optimism in the costs
    (lambda s: NonlinearBandit(d=2, k=3, seed=s, n_rounds=800), 4,
     {"model_l2": 20.0, "optimism": 0.05}),
    (lambda s: linear_classes(s, k=2, n_rows=800), 5, {"optimism": 0.05}),
])
def test_compiled_round_plays_the_numpy_round(stream, seed, options):
    # the features kernels carry the weight (its play, gradient and step): the same arms as
    # the numpy round (`_JIT = False`), the weight equal to rounding, its state alike
    runs = []
    for jit in (True, False):
        policy = BoBLO(learner=FeaturePolicy(**DEFAULT_LEARNER), seed=seed,
                       **options)
        policy._JIT = jit
        runs.append((evaluate.bandit(policy, stream(seed), skyline=None).rewards, policy))
    (fast, compiled), (slow, numpy) = runs
    np.testing.assert_array_equal(fast, slow)
    a, b = compiled._booco.copies, numpy._booco.copies
    assert a.weight == pytest.approx(b.weight, rel=1e-9)
    assert a._weight_sq == pytest.approx(b._weight_sq, rel=1e-9)
    assert a.weight != 1.0


def test_compiled_round_covers_the_learnt_weight(monkeypatch):
    # past the first round every update of a copy that learns its weight is the features
    # kernel's (none falls back to numpy), and the weight moves through it
    from onlineboost import _kernels

    statuses = []
    real = _kernels.update_round_features

    def spy(*args):
        out = real(*args)
        statuses.append(out[0])
        return out
    # (built first: the first BoBLO of a process warms the kernels up on rounds of its own)
    policy = BoBLO(learner=FeaturePolicy(**DEFAULT_LEARNER), seed=0)
    monkeypatch.setattr(_kernels, "update_round_features", spy)
    stream = NonlinearBandit(d=2, k=3, seed=0, n_rounds=300)
    evaluate.bandit(policy, stream, skyline=None)
    # (round 1's update finds a learner that knows no column yet: numpy, which grows it)
    assert len(statuses) == 300 and all(statuses[1:]) and not statuses[0]
    assert policy._booco.copies.weight != 1.0


def test_kernel_update_without_the_law_leaves_the_round_to_numpy():
    # a copy that learns its weight needs the pull's arm law: without it (or with one of the
    # wrong length) the compiled update refuses before writing, and BoBLO's numpy round learns
    from onlineboost import _kernels

    policy = BoBLO(learner=FeaturePolicy(**DEFAULT_LEARNER), seed=1)
    stream = NonlinearBandit(d=2, k=3, seed=1, n_rounds=40)
    rounds = list(stream)
    for context, arms in rounds[:30]:
        arm = policy.pull(arms, context)
        policy.update(arm, context, 0.5)
    context, arms = rounds[30]
    arm = policy.pull(arms, context)
    x, i, (phi, _), prob = policy._pending[1], policy._pending[2], policy._pending[3], \
        policy._pending[4]
    state = pickle.dumps((policy._booco, policy._model))
    for law in (None, [0.5, 0.5]):
        assert _kernels.update(policy._booco, policy._model, x, i, 0.5, prob, 1.0, phi,
                               None, law) is None
        assert _kernels.update_lane(policy._lane, x, i, 0.5, prob, 1.0, phi, law) is None
    assert pickle.dumps((policy._booco, policy._model)) == state
    policy.update(arm, context, 0.5)  # (then the round is learnt, the weight stepped)
