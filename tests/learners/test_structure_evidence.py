"""`learners.structure_evidence.StructureEvidence`: the Bayes factor of structure beyond a
linear model, against the joint Gaussian densities (scipy) and a batch transcription, and the
learnt weight it scales (`FeaturePolicy(structure_odds=...)`, BoBLO's default learner)."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from scipy import stats

from learners import FeaturePolicy, _stack_kernels
from learners.structure_evidence import MAX_ROW, StructureEvidence, auto_cuts
from onlineboost import BoBLO
from onlineboost.boblo import DEFAULT_LEARNER, LEARNT_WEIGHT_LEARNER, STRUCTURE
from streams import LinearBandit, NonlinearBandit

PATHS = [True, False] if _stack_kernels.AVAILABLE else [False]


def _structured(**kwargs) -> BoBLO:
    """`BoBLO()`: its default learner weighs its correction by the evidence of structure."""
    return BoBLO(**kwargs)


def _rows(rng, n, D, p, structured):
    """n rows (1, psi(c), c) of a fixed random map, arms, and losses in [0, 1]."""
    W, b = rng.normal(size=(D, p)), rng.uniform(0, 2 * np.pi, D)
    C = rng.normal(size=(n, p))
    X = np.column_stack([np.ones(n), np.sqrt(2) * np.cos(C @ W.T + b), C])
    arms = rng.integers(3, size=n)
    mean = 0.5 + 0.1 * C[:, 0] * (arms - 1)
    if structured:
        mean = mean + 0.3 * np.sin(2 * C[:, 1]) * (arms == 0)
    return X, arms, np.clip(mean + 0.1 * rng.normal(size=n), 0, 1)


def _evidence(X, arms, y, jit, **kw):
    ev = StructureEvidence(3, kw.pop("D"), **kw)
    ev._JIT = jit
    for x, a, v in zip(X, arms, y):
        ev.update(x, int(a), float(v))
    return ev


def _design(X, D, p, cuts):
    """M_1's rows built here: (1, psi, c) and the stumps 1{c_j > cut} column by column."""
    C = X[:, 1 + D:]
    stumps = (C[:, :, None] > np.asarray(cuts, dtype=float)[None, None, :]).reshape(len(X), -1)
    return np.column_stack([X, stumps.astype(float)])


@pytest.mark.parametrize("jit", PATHS, ids=lambda j: "compiled" if j else "numpy")
@pytest.mark.parametrize("structured", [False, True])
@pytest.mark.parametrize("cuts", [(), (-0.5, 0.0, 0.7)], ids=["features", "stumps"])
def test_with_a_known_noise_the_log_factor_is_the_log_ratio_of_the_marginal_likelihoods(
        jit, structured, cuts):
    """Per arm, the losses are jointly Gaussian under each model: $N(0, \\sigma^2(I + X
    \\Lambda^{-1} X^\\top))$ with $\\Lambda^{-1}$ = 1 on $(1, c)$ and snr / (D + M p) on the
    random features and the M p stumps (scipy's density, no recursion): the summed prequential
    log ratios equal it."""
    rng = np.random.default_rng(1)
    D, p, s2, snr = 6, 2, 0.04, 2.5
    X, arms, y = _rows(rng, 240, D, p, structured)
    ev = _evidence(X, arms, y, jit, D=D, snr=snr, noise=s2, cuts=cuts)
    X1 = _design(X, D, p, cuts)
    S = len(cuts) * p
    prior1 = np.r_[1.0, np.full(D, snr / (D + S)), np.ones(p), np.full(S, snr / (D + S))]
    keep0 = np.r_[0, np.arange(1 + D, 1 + D + p)]
    want = 0.0
    for a in range(3):
        Xa, ya = X1[arms == a], y[arms == a]
        X0 = Xa[:, keep0]
        cov1 = s2 * (np.eye(len(ya)) + (Xa * prior1) @ Xa.T)
        cov0 = s2 * (np.eye(len(ya)) + X0 @ X0.T)
        want += (stats.multivariate_normal(np.zeros(len(ya)), cov1).logpdf(ya)
                 - stats.multivariate_normal(np.zeros(len(ya)), cov0).logpdf(ya))
    assert ev.log_factor == pytest.approx(want, rel=1e-8, abs=1e-8)
    assert (ev.log_factor > 5) == structured  # (and it tells the two apart)


@pytest.mark.parametrize("jit", PATHS, ids=lambda j: "compiled" if j else "numpy")
def test_the_running_noise_estimate_is_the_documented_one(jit):
    """A batch transcription: each round both models' posteriors solved from scratch
    (np.linalg.solve over the arm's earlier rows), the noise variance the mean of the linear
    model's standardised squared errors so far started at 0.25 with weight 4, and the log
    predictive densities' ratio summed."""
    rng = np.random.default_rng(2)
    D, p, snr, cuts = 5, 3, 3.0, (-1.0, 0.0, 1.0)
    X, arms, y = _rows(rng, 150, D, p, True)
    ev = _evidence(X, arms, y, jit, D=D, snr=snr, cuts=cuts)
    X1 = _design(X, D, p, cuts)
    S = len(cuts) * p
    keep0 = np.r_[0, np.arange(1 + D, 1 + D + p)]
    prec1 = 1.0 / np.r_[1.0, np.full(D, snr / (D + S)), np.ones(p), np.full(S, snr / (D + S))]
    total, sq, count = 0.0, 1.0, 4.0
    for t in range(len(y)):
        past = np.flatnonzero(arms[:t] == arms[t])
        s2 = sq / count
        dens = []
        for cols, prec in ((keep0, np.ones(1 + p)), (slice(None), prec1)):
            Xp, x = X1[past][:, cols], X1[t, cols]
            A = np.diag(prec) + Xp.T @ Xp
            mean = x @ np.linalg.solve(A, Xp.T @ y[past])
            var = 1.0 + x @ np.linalg.solve(A, x)
            dens.append((mean, var))
        (m0, v0), (m1, v1) = dens
        total += (stats.norm(m1, math.sqrt(s2 * v1)).logpdf(y[t])
                  - stats.norm(m0, math.sqrt(s2 * v0)).logpdf(y[t]))
        sq += (y[t] - m0) ** 2 / v0
        count += 1.0
    assert ev.log_factor == pytest.approx(total, rel=1e-8, abs=1e-8)
    assert ev.noise_variance == pytest.approx(sq / count, rel=1e-10)


def test_the_compiled_step_gives_the_numpy_steps_numbers():
    if not _stack_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(3)
    X, arms, y = _rows(rng, 500, 16, 4, True)
    fast, slow = (_evidence(X, arms, y, jit, D=16) for jit in (True, False))
    assert fast.log_factor == pytest.approx(slow.log_factor, rel=1e-10, abs=1e-10)
    for name in ("_P0", "_P1", "_theta0", "_theta1"):
        np.testing.assert_allclose(getattr(fast, name), getattr(slow, name), rtol=1e-9,
                                   atol=1e-12)


def test_a_context_column_that_appears_later_is_a_column_of_zeros_before():
    """Without stumps, growing the context columns mid-stream gives the numbers of rows padded
    with zeros from the start: an unseen column keeps its prior and changes no prediction."""
    rng = np.random.default_rng(4)
    X, arms, y = _rows(rng, 200, 8, 3, True)
    short = X[:, :-1].copy()
    grown = StructureEvidence(3, 8, cuts=())
    padded = StructureEvidence(3, 8, cuts=())
    for t, (x, a, v) in enumerate(zip(X, arms, y)):
        grown.update(short[t] if t < 80 else x, int(a), float(v))
        padded.update(np.r_[short[t], 0.0] if t < 80 else x, int(a), float(v))
    assert grown.log_factor == pytest.approx(padded.log_factor, rel=1e-12, abs=1e-12)
    np.testing.assert_allclose(grown._P1, padded._P1, rtol=1e-12, atol=1e-15)


def test_growing_keeps_every_old_column_and_its_stumps_where_they_belong():
    """With stumps, a new context column enters M_1 after the old context columns and before
    the old stumps; every old entry of the inverse Gram matrices and the means is kept, and
    the new columns (the context column, its stumps) start at their priors, uncorrelated."""
    rng = np.random.default_rng(6)
    D, cuts = 4, (-1.0, 0.0, 1.0)
    X, arms, y = _rows(rng, 60, D, 3, True)
    ev = StructureEvidence(3, D, snr=2.0, cuts=cuts)
    for x, a, v in zip(X[:, :-1], arms, y):  # two context columns
        ev.update(x, int(a), float(v))
    P1, theta1, P0 = ev._P1.copy(), ev._theta1.copy(), ev._P0.copy()
    ev._grow(3)
    # old layout (1, psi, c1, c2, 6 stumps) -> (1, psi, c1, c2, c3, 6 old stumps, 3 new)
    keep = np.r_[np.arange(1 + D + 2), np.arange(1 + D + 3, 1 + D + 3 + 6)]
    np.testing.assert_array_equal(ev._P1[:, keep[:, None], keep[None, :]], P1)
    np.testing.assert_array_equal(ev._theta1[:, keep], theta1)
    new = np.setdiff1d(np.arange(ev._P1.shape[1]), keep)
    prior = 2.0 / (D + len(cuts) * 2)  # (the first row's share)
    np.testing.assert_array_equal(ev._P1[:, new][:, :, new],
                                  np.broadcast_to(np.diag([1.0, prior, prior, prior]), (3, 4, 4)))
    assert not ev._P1[:, new][:, :, keep].any() and not ev._theta1[:, new].any()
    np.testing.assert_array_equal(ev._P0[:, :3, :3], P0)
    assert ev.row(X[0]).shape == (1 + D + 3 + 9,)


def test_the_posterior_goes_to_0_without_structure_and_to_1_with_it():
    for seed in range(5):
        rng = np.random.default_rng(100 + seed)
        flat = _evidence(*_rows(rng, 1500, 32, 3, False), jit=PATHS[0], D=32)
        rng = np.random.default_rng(100 + seed)
        bent = _evidence(*_rows(rng, 1500, 32, 3, True), jit=PATHS[0], D=32)
        assert flat.probability() < 1e-6 < 1 - 1e-6 < bent.probability()
    fresh = StructureEvidence(3, 4, prior_odds=3.0)
    assert fresh.probability() == pytest.approx(0.75) and fresh.log_odds() == math.log(3.0)


def test_a_row_beyond_max_row_changes_nothing_and_discount_scales_the_past():
    rng = np.random.default_rng(5)
    X, arms, y = _rows(rng, 50, 4, 2, True)
    ev = _evidence(X, arms, y, PATHS[0], D=4)
    before = pickle.dumps(ev)
    ev.update(np.r_[X[0][:-1], 2 * MAX_ROW], 0, 0.5)
    ev.update(np.r_[X[0][:-1], np.nan], 0, 0.5)
    assert pickle.dumps(ev) == before
    P1, L, s2 = ev._P1.copy(), ev.log_factor, ev.noise_variance
    ev.discount(4.0)
    np.testing.assert_array_equal(ev._P1, 4.0 * P1)
    assert ev.log_factor == L / 4.0 and ev.noise_variance == pytest.approx(s2)


@pytest.mark.parametrize("kwargs, name", [
    (dict(structure_odds=10.0), "structure_odds"),  # (no learnt weight)
    (dict(structure_odds=0.0, learn_weight=0.2, on_model=True), "structure_odds"),
    (dict(structure_odds=10.0, learn_weight=0.2, on_model=True, n_features=0), "structure_odds"),
    (dict(structure_snr=0.0), "structure_snr"),
    (dict(structure_snr=float("nan")), "structure_snr"),
])
def test_invalid_settings_are_refused_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FeaturePolicy(**kwargs)


def _play(policy, stream, rounds, check=None):
    for t, (context, arms) in enumerate(stream):
        if t == rounds:
            break
        arm = policy.pull(arms, context)
        policy.update(arm, context, stream.reward(arm))
        if check is not None:
            check(policy)


def test_boblo_plays_the_learnt_weight_times_the_probability_of_structure():
    """Every round of `BoBLO()`: the played weight is the learnt one
    times the posterior probability, the learnt one in [0, max_weight]; on `LinearBandit` the
    probability falls below 1e-6 and the correction is off, on `NonlinearBandit` it stays
    above 1 - 1e-6."""
    def check(policy):
        copies = policy.booco.copies
        assert 0.0 <= copies.learnt_weight <= copies.max_weight
        assert copies.weight == copies.learnt_weight * copies.structure.probability()

    linear = _structured(seed=0)
    _play(linear, LinearBandit(d=10, k=5, noise=0.5, seed=0, n_rounds=1500), 1500, check)
    assert linear.booco.copies.structure.probability() < 1e-6
    assert linear.booco.copies.weight < 1e-6
    bent = _structured(seed=0)
    _play(bent, NonlinearBandit(d=2, k=3, seed=0, n_rounds=1500), 1500, check)
    assert bent.booco.copies.structure.probability() > 1 - 1e-6
    # (the learnt weight took the policy gradient's steps: where the correction earns they
    # stretch it towards its cap, 1.87 here, from its start at 1)
    assert bent.booco.copies.learnt_weight == bent.booco.copies.weight > 1.5


def test_the_evidence_sees_the_played_arms_losses_on_the_copys_own_features():
    """The evidence `BoBLO` keeps is the one a fresh `StructureEvidence` computes from the
    rounds it played (copy 1's features of each context vector, the played arm, its loss)."""
    policy = _structured(seed=1)
    stream = LinearBandit(d=4, k=3, noise=0.5, seed=1, n_rounds=300)
    copies = None
    replay = StructureEvidence(3, DEFAULT_LEARNER["n_features"], STRUCTURE["structure_odds"],
                               STRUCTURE["structure_snr"])
    for context, arms in stream:
        arm = policy.pull(arms, context)
        x = policy._pending[1]
        reward = stream.reward(arm)
        policy.update(arm, context, reward)
        copies = policy.booco.copies
        replay.update(copies.features(x)[0], arms.index(arm), 1.0 - reward)
    assert copies.structure.log_factor == pytest.approx(replay.log_factor, rel=1e-9)


def test_without_structure_odds_the_learner_is_the_previous_default():
    """`structure_odds=None` is the learnt weight alone (the default to the thirtieth session):
    no evidence, the played weight the learnt one."""
    policy = BoBLO(learner=FeaturePolicy(**LEARNT_WEIGHT_LEARNER), seed=2)
    _play(policy, LinearBandit(d=4, k=3, noise=0.5, seed=2, n_rounds=200), 200)
    copies = policy.booco.copies
    assert copies.structure is None and copies.structure_odds is None
    assert DEFAULT_LEARNER == {**LEARNT_WEIGHT_LEARNER, **STRUCTURE}


def test_the_default_cuts_are_a_budget_of_stumps():
    """`cuts="auto"`: five per column up to 12 columns, at most 64 stumps in all, fixed at the
    first row (a column that appears later gets the same cuts)."""
    for p in (1, 2, 5, 12, 13, 18, 21, 22, 32, 33, 64, 100):
        cuts = auto_cuts(p)
        assert len(cuts) == min(5, max(1, 64 // p)) and len(cuts) * p <= max(64, p)
        assert np.all(np.diff(cuts) > 0) and abs(cuts.mean()) < 1e-12
    ev = StructureEvidence(2, 4)
    ev.update(np.r_[1.0, np.zeros(4), np.zeros(20)], 0, 0.5)
    assert ev.cuts.tolist() == [-1.2, 0.0, 1.2] and ev._P1.shape[1] == 1 + 4 + 20 + 60
    ev.update(np.r_[1.0, np.zeros(4), np.zeros(21)], 1, 0.5)
    assert len(ev.cuts) == 3 and ev._P1.shape[1] == 1 + 4 + 21 + 63


def test_a_drift_alarm_discounts_the_evidence_too():
    policy = _structured(seed=3)
    _play(policy, LinearBandit(d=4, k=3, noise=0.5, seed=3, n_rounds=300), 300)
    ev = policy.booco.copies.structure
    L, P1 = ev.log_factor, ev._P1.copy()
    policy._discount_past()
    assert ev.log_factor == L / policy.drift_discount
    np.testing.assert_array_equal(ev._P1, P1 * policy.drift_discount)


def test_n_learners_5_weighs_copy_1_as_n_learners_1_does():
    """The boosted stack keeps the evidence for copy 1's weight: on `LinearBandit`, where no
    later stage leads, N = 5 plays N = 1's arms and ends with its evidence."""
    one = _structured(seed=4)
    five = BoBLO(seed=4, n_learners=5)
    stream = LinearBandit(d=5, k=3, noise=0.5, seed=4, n_rounds=400)
    for context, arms in stream:
        a, b = one.pull(arms, context), five.pull(arms, context)
        assert a == b
        reward = stream.reward(a)
        one.update(a, context, reward)
        five.update(b, context, reward)
    assert five.booco.copies.structure.log_factor == pytest.approx(
        one.booco.copies.structure.log_factor, rel=1e-9)
