"""`onlineboost.app.metrics`: the running means `onlineboost run` reports, against the formulas
written out (MAE and RMSE of the answer's Euclidean error, accuracy and clipped log loss, mean
reward) on records of every shape an answer takes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from onlineboost.app.metrics import BanditMetrics, ClassificationMetrics, RegressionMetrics


def test_regression_metrics_are_the_mae_and_rmse_of_the_euclidean_error():
    # answers as floats, ints, 0-d arrays and vectors (a target broadcast over a box's
    # coordinates): one running mean each, whatever the path
    records = [(1.0, 0.5), (2.0, 5), (-1.0, np.array(3.0)), (0.0, np.array([3.0, 4.0])),
               (1.0, np.float32(-2.0)), (0.5, [0.5, 1.5, 2.5])]
    errors = [0.5, 3.0, 4.0, 5.0, 3.0, math.sqrt(0 + 1 + 4)]
    m = RegressionMetrics()
    assert m.get() == {"MAE": 0.0, "RMSE": 0.0}  # (nothing read yet)
    for (y, answer), e in zip(records, errors):
        m.update(y, answer)
    got = m.get()
    assert got["MAE"] == pytest.approx(np.mean(errors), rel=1e-14)
    assert got["RMSE"] == pytest.approx(math.sqrt(np.mean(np.square(errors))), rel=1e-14)
    assert m.n == 6 and "skipped" not in got


def test_classification_metrics_are_accuracy_and_the_clipped_log_loss():
    # answer = (label, probability of True); the loss is -log of the probability of the true
    # label, clipped below at 1e-15
    records = [(True, (True, 0.9)), (False, (False, 0.2)), (False, (True, 0.7)),
               (True, (False, 0.0)), (False, (False, 0.0))]
    m = ClassificationMetrics()
    for y, answer in records:
        m.update(y, answer)
    losses = [-math.log(0.9), -math.log(0.8), -math.log(0.3), -math.log(1e-15), 0.0]
    got = m.get()
    assert got["accuracy"] == pytest.approx(3 / 5)
    assert got["log_loss"] == pytest.approx(np.mean(losses), rel=1e-14)


def test_bandit_metrics_are_the_mean_reward_and_skip_what_is_not_finite():
    m = BanditMetrics()
    for reward in (1.0, 0.0, 0.5, float("inf"), 1):
        m.update(reward, None)
    assert m.get() == {"mean_reward": pytest.approx(2.5 / 4), "skipped": 1}
