"""Bandit environments: the one-query protocol, reproducibility, exact means and regret."""

from __future__ import annotations

import numpy as np
import pytest
from river import datasets
from sklearn.datasets import load_digits

from streams import ClassificationBandit, LinearBandit


def test_classification_bandit_rewards_the_true_class_only():
    digits = load_digits()
    stream = ClassificationBandit(digits, seed=3)
    assert stream.arm_ids == list(range(10)) and stream.n_rounds == 1797
    labels = []
    for context, arm_ids in stream:
        full = stream._round_rewards()
        assert full.sum() == 1.0
        labels.append(arm_ids[int(np.argmax(full))])
        assert stream.reward(labels[-1]) == 1.0
    assert sorted(labels) == sorted(digits.target.tolist())  # each row exactly once


def test_classification_bandit_same_seed_same_order_and_river_data():
    a = [tuple(sorted(c.items())) for c, _ in ClassificationBandit(datasets.ImageSegments(), 1)]
    b = [tuple(sorted(c.items())) for c, _ in ClassificationBandit(datasets.ImageSegments(), 1)]
    c = [tuple(sorted(c.items())) for c, _ in ClassificationBandit(datasets.ImageSegments(), 2)]
    assert a == b and a != c and sorted(a) == sorted(c)


def test_one_reward_query_per_round_and_unknown_arms():
    stream = LinearBandit(d=3, k=3, seed=0, n_rounds=5)
    with pytest.raises(ValueError, match="no round"):
        stream.reward(0)
    for _, arm_ids in stream:
        with pytest.raises(ValueError, match="arm_id"):
            stream.reward("nope")
        stream.reward(arm_ids[1])
        with pytest.raises(ValueError, match="already"):
            stream.reward(arm_ids[0])


def test_linear_bandit_reward_mean_is_linear_payoff():
    """Averaged over many rounds, observed minus expected reward is zero (unbiased noise)."""
    stream = LinearBandit(d=4, k=3, noise=1.0, seed=5, n_rounds=20_000)
    diffs = []
    for _ in stream:
        diffs.append(stream._round_rewards() - stream._round_expected())
        assert np.all((stream._round_rewards() >= 0) & (stream._round_rewards() <= 1))
    diffs = np.array(diffs)
    assert np.all(np.abs(diffs.mean(axis=0)) < 4 * diffs.std(axis=0) / np.sqrt(len(diffs)))


def test_linear_bandit_switching_changes_the_best_arm_map():
    stream = LinearBandit(d=2, k=3, noise=0.0, seed=0, n_rounds=400, switch_every=200)
    contexts, mus = [], []
    for c, _ in stream:
        contexts.append([c["x0"], c["x1"]])
        mus.append(stream._round_expected())
    C, M = np.array(contexts), np.array(mus)
    # within a segment mu is affine in c: fit it on the first segment, it fails on the second
    A = np.hstack([C, np.ones((400, 1))])
    coef = np.linalg.lstsq(A[:200], M[:200], rcond=None)[0]
    assert np.allclose(A[:200] @ coef, M[:200])
    assert not np.allclose(A[200:] @ coef, M[200:], atol=1e-3)


@pytest.mark.parametrize("kwargs", [{"d": 0}, {"k": 1}, {"noise": 1.5}, {"n_rounds": 0},
                                    {"switch_every": 0}, {"seed": 1.5}])
def test_linear_bandit_bad_parameters(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        LinearBandit(**kwargs)


def test_classification_bandit_bad_dataset():
    with pytest.raises(ValueError, match="dataset"):
        ClassificationBandit((np.array([[np.nan]]), [0]))
    with pytest.raises(ValueError, match="dataset"):
        ClassificationBandit(42)


def test_classification_bandit_from_an_x_y_pair():
    """`(X, y)` arrays: columns named x0, x1, ..., one arm per label, each row once."""
    X = np.array([[0.5, -1.0], [2.0, 3.0], [1.0, 1.0]])
    stream = ClassificationBandit((X, ["b", "a", "b"]), seed=0)
    assert stream.arm_ids == ["a", "b"] and stream.n_rounds == 3
    seen = []
    for context, _ in stream:
        label = stream.arm_ids[int(np.argmax(stream._round_rewards()))]
        seen.append((context["x0"], context["x1"], label))
    assert sorted(seen) == [(0.5, -1.0, "b"), (1.0, 1.0, "b"), (2.0, 3.0, "a")]


@pytest.mark.parametrize("dataset", [
    (np.zeros((2, 1)), [0, 1], "extra"),  # not an (X, y) pair
    [],  # an empty river-style data set
    [({"a": 1.0}, 0, "extra")],  # not (dict, label) pairs
    [({"a": 1.0}, 0), ([1.0], 1)],  # a context that is not a dict
])
def test_classification_bandit_refuses_what_is_not_a_data_set(dataset):
    with pytest.raises(ValueError, match="dataset must"):
        ClassificationBandit(dataset)


@pytest.mark.parametrize("X, y", [(np.zeros(3), [0, 1, 2]), (np.zeros((2, 1)), [0]),
                                  (np.zeros((0, 1)), [])])
def test_classification_bandit_needs_one_2d_row_per_label(X, y):
    with pytest.raises(ValueError, match="X must be 2-D with one row per label"):
        ClassificationBandit((X, y))
