"""streams.NonlinearBandit: radial rings whose best policy no per-arm linear model expresses."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from streams import LinearBandit, NonlinearBandit


def _log(stream):
    C, R, M = [], [], []
    for c, arm_ids in stream:
        assert arm_ids == stream.arm_ids
        C.append([c[f"x{j}"] for j in range(stream.d)])
        R.append(stream._round_rewards().copy())
        M.append(stream._round_expected().copy())
    return np.array(C), np.array(R), np.array(M)


def test_expected_reward_is_the_ring_formula_and_rewards_are_unbiased():
    stream = NonlinearBandit(d=3, k=4, gap=0.6, noise=1.0, seed=7, n_rounds=20_000)
    C, R, M = _log(stream)
    rho = stats.chi2.cdf((C ** 2).sum(axis=1), df=3)  # an independent CDF
    centres = (np.arange(4) + 0.5) / 4
    np.testing.assert_allclose(M, 0.5 + 0.3 * np.cos(2 * np.pi * (rho[:, None] - centres)),
                               atol=1e-12)
    assert set(np.unique(R)) <= {0.0, 1.0}  # noise 1: Bernoulli rewards
    diff = R - M
    assert np.all(np.abs(diff.mean(axis=0)) < 4 * diff.std(axis=0) / np.sqrt(len(diff)))
    assert np.all(np.abs(C.mean(axis=0)) < 0.05) and np.all(np.abs(C.std(axis=0) - 1) < 0.05)


def test_no_linear_model_sees_the_rings_but_the_best_arm_pays():
    """Per-arm least squares on (1, c): flat (slopes ~ 0, every arm's mean ~ 1/2), so its
    greedy policy is about as good as a fixed arm; the optimal policy is far better. On
    `LinearBandit` the same fit is exact (the contrast the stream exists for)."""
    stream = NonlinearBandit(d=2, k=3, noise=0.0, seed=1, n_rounds=20_000)
    C, _, M = _log(stream)
    X = np.hstack([np.ones((len(C), 1)), C])
    coef = np.linalg.lstsq(X, M, rcond=None)[0]
    np.testing.assert_allclose(coef[0], 0.5, atol=0.01)
    assert np.abs(coef[1:]).max() < 0.01
    greedy = M[np.arange(len(M)), np.argmax(X @ coef, axis=1)].mean()
    assert greedy < 0.55 and M.max(axis=1).mean() > 0.82
    lin = LinearBandit(d=2, k=3, noise=0.0, seed=1, n_rounds=2_000)
    Cl, _, Ml = _log(lin)
    Xl = np.hstack([np.ones((len(Cl), 1)), Cl])
    np.testing.assert_allclose(Xl @ np.linalg.lstsq(Xl, Ml, rcond=None)[0], Ml, atol=1e-12)


def test_same_seed_same_stream_and_noise_zero_is_deterministic():
    a = _log(NonlinearBandit(seed=3, n_rounds=1500))
    b = _log(NonlinearBandit(seed=3, n_rounds=1500))
    c = _log(NonlinearBandit(seed=4, n_rounds=1500))
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a[0], c[0])
    _, R, M = _log(NonlinearBandit(noise=0.0, seed=3, n_rounds=100))
    np.testing.assert_array_equal(R, M)


def test_one_reward_query_per_round():
    stream = NonlinearBandit(seed=0, n_rounds=3)
    for _, arm_ids in stream:
        stream.reward(arm_ids[0])
        with pytest.raises(ValueError, match="already"):
            stream.reward(arm_ids[1])


def test_switching_rings_move_one_arm_on_per_segment():
    """`switch_every=m`: the same contexts and noise draws as the stationary stream; in
    segment s arm a pays what arm (a + s) mod k pays there (checked against the stationary
    stream's own expected rewards, column for column), and its rewards stay unbiased."""
    still = NonlinearBandit(d=2, k=3, noise=1.0, seed=5, n_rounds=2_500)
    moving = NonlinearBandit(d=2, k=3, noise=1.0, seed=5, n_rounds=2_500, switch_every=1_000)
    C0, R0, M0 = _log(still)
    C1, R1, M1 = _log(moving)
    np.testing.assert_array_equal(C1, C0)
    segment = np.arange(2_500) // 1_000
    for s in range(3):
        rows = segment == s
        np.testing.assert_array_equal(M1[rows], M0[rows][:, (np.arange(3) + s) % 3])
    assert not np.array_equal(M1[1_000:], M0[1_000:])
    np.testing.assert_array_equal(M1[:1_000], M0[:1_000])
    # the best arm moves: the arm best in segment 0 on a context is best for arm - 1 next
    best0 = M0.argmax(axis=1)
    np.testing.assert_array_equal(M1[1_000:2_000].argmax(axis=1), (best0[1_000:2_000] - 1) % 3)
    diff = R1 - M1  # Bernoulli around the moved means
    assert np.all(np.abs(diff.mean(axis=0)) < 4 * diff.std(axis=0) / np.sqrt(len(diff)))
    assert "switch_every=1000" in repr(moving) and "switch_every" not in repr(still)


@pytest.mark.parametrize("kwargs", [{"d": 0}, {"d": 1.5}, {"k": 1}, {"k": True}, {"gap": 0.0},
                                    {"gap": 1.5}, {"gap": float("nan")}, {"noise": -0.1},
                                    {"noise": 1.2},
                                    {"noise": "a"}, {"n_rounds": 0}, {"seed": 1.5},
                                    {"switch_every": 0}, {"switch_every": 2.5},
                                    {"switch_every": True}])
def test_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        NonlinearBandit(**kwargs)


def test_the_smallest_settings_are_taken():
    """Each parameter's lowest allowed value builds a stream that plays (the checks refuse
    only what the tests above name)."""
    for cls, extra in ((NonlinearBandit, {"gap": 1.0}), (NonlinearBandit, {"gap": 0.05}),
                       (LinearBandit, {})):
        for kwargs in ({"d": 1}, {"k": 2}, {"n_rounds": 1}, {"switch_every": 1},
                       {"noise": 0.0}, {"noise": 1.0}, extra):
            stream = cls(**{"seed": 0, "n_rounds": 3, **kwargs})
            assert len(list(stream)) == stream.n_rounds


def test_expected_without_a_segment_is_the_stationary_streams_means():
    stream = NonlinearBandit(d=2, k=3, seed=4, n_rounds=50)
    C, _, M = _log(stream)
    np.testing.assert_array_equal(stream.expected(C), M)
    assert not np.allclose(stream.expected(C, 1), M)  # segment 1's rings moved on


def test_linear_switches_fall_on_their_rounds_past_the_first_block():
    """The switching `LinearBandit` draws contexts in blocks of 1,024 rounds; its arm
    parameters change exactly at every multiple of `switch_every`, the ones past the first
    block too: within a segment the mean rewards are one affine map of the context, and
    adjacent segments have different maps."""
    stream = LinearBandit(d=3, k=2, noise=0.0, seed=0, n_rounds=2_100, switch_every=700)
    C, _, M = _log(stream)
    A = np.hstack([C, np.ones((len(C), 1))])
    fits = []
    for s in range(3):
        rows = slice(700 * s, 700 * (s + 1))
        coef, *_ = np.linalg.lstsq(A[rows], M[rows], rcond=None)
        np.testing.assert_allclose(A[rows] @ coef, M[rows], atol=1e-12)
        fits.append(coef)
    assert not np.allclose(fits[0], fits[1]) and not np.allclose(fits[1], fits[2])
