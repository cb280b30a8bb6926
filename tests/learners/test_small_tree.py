"""SmallTree: the node cap, weights, and the +-1 hypothesis the boosters rely on."""

from __future__ import annotations

import numpy as np
import pytest

from learners import SmallTree, WeightedStump


@pytest.mark.parametrize("max_nodes", [3, 4, 7, 20])
def test_node_cap_and_outputs(max_nodes):
    rng = np.random.default_rng(max_nodes)
    for _ in range(20):
        X = rng.normal(size=(80, 4))
        y = (np.sin(3 * X[:, 0]) + X[:, 1] * X[:, 2] > 0).astype(int)
        w = rng.exponential(size=80)
        tree = SmallTree(max_nodes=max_nodes, random_state=0).fit(X, y, sample_weight=w)
        assert tree.tree_.tree_.node_count <= max_nodes
        h = tree.decision_function(X)
        assert set(np.unique(h)) <= {-1.0, 1.0}
        np.testing.assert_array_equal(tree.classes_[(h > 0).astype(int)], tree.predict(X))


def test_zero_weights_are_ignored_and_the_stump_case():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    w = (rng.uniform(size=100) < 0.5).astype(float)
    a = SmallTree(max_nodes=9, random_state=0).fit(X, y, sample_weight=w)
    b = SmallTree(max_nodes=9, random_state=0).fit(X[w > 0], y[w > 0])
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    stump = SmallTree(max_nodes=3).fit(X, y)
    assert stump.tree_.tree_.node_count == 3
    # a Gini stump is never better than the exact 0-1 stump
    assert np.mean(stump.predict(X) != y) >= np.mean(WeightedStump().fit(X, y).predict(X) != y)


def test_invalid_max_nodes():
    with pytest.raises(ValueError, match="max_nodes"):
        SmallTree(max_nodes=2).fit(np.zeros((4, 1)), np.array([0, 1, 0, 1]))


def test_the_default_cap_is_twenty_nodes_ten_leaves():
    # Nock & Mansour's "trees of at most 20 nodes": 10 leaves, 19 nodes on data that would
    # take more
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 3))
    y = (np.sin(4 * X[:, 0]) * np.cos(3 * X[:, 1]) > 0).astype(int)
    tree = SmallTree(random_state=0).fit(X, y)
    assert tree.tree_.get_n_leaves() == 10 and tree.tree_.tree_.node_count == 19


def test_three_classes_are_refused_and_one_class_scores_minus_one():
    X = np.arange(6.0)[:, None]
    with pytest.raises(ValueError, match="binary"):
        SmallTree().fit(X, np.array([0, 1, 2, 0, 1, 2]))
    tree = SmallTree().fit(X, np.array([4, 4, 4, 4, 4, 4]))
    np.testing.assert_array_equal(tree.decision_function(X), np.full(6, -1.0))
    np.testing.assert_array_equal(tree.predict(X), np.full(6, 4))
