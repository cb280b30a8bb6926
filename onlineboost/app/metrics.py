r"""Running prequential metrics of a run, one class a task.

* regression: MAE and RMSE of the answer's error $e_t = a_t - y_t$, measured by its Euclidean
  norm $\|e_t\|_2$ (the absolute error for a number; for a vector answer — a box, ball or
  simplex decision set — the target is broadcast over the coordinates as the loss does);
* classification: accuracy and log loss (probabilities clipped to $[10^{-15}, 1]$);
* bandits: mean reward of the pulled arms.

Means are running means ($m \leftarrow m + (v - m)/n$), never sums, so they stay finite for
every finite contribution; a contribution that is not finite (an error of $10^{200}$ squared)
is not averaged but counted in `skipped`. (Plain floats rather than `river.metrics`, whose
import costs a second at start-up.)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["BanditMetrics", "ClassificationMetrics", "Metrics", "RegressionMetrics"]


class Metrics:
    """Running means of named values; `update` feeds one record, `get` reads them.

    >>> from onlineboost.app.metrics import RegressionMetrics
    >>> m = RegressionMetrics()
    >>> m.update(1.0, 0.5); m.update(-1.0, 0.5); m.update(0.0, [3.0, 4.0])
    >>> m.get()
    {'MAE': 2.333..., 'RMSE': 3.027...}
    >>> m.update(1e200, -1e200); m.get()["RMSE"], m.skipped
    (3.027..., 1)
    """

    names: tuple = ()

    def __init__(self):
        self.n = 0
        self.means = [0.0] * len(self.names)
        self.skipped = 0

    def _add(self, *values) -> None:
        if not all(math.isfinite(v) for v in values):
            self.skipped += 1
            return
        self.n += 1
        for i, v in enumerate(values):
            self.means[i] += (v - self.means[i]) / self.n

    def get(self) -> dict:
        out = dict(zip(self.names, self.means))
        if self.skipped:
            out["skipped"] = self.skipped
        return out


class RegressionMetrics(Metrics):
    names = ("MAE", "MSE")

    def update(self, y, answer) -> None:
        if isinstance(answer, float):
            e = abs(answer - y)  # float arithmetic: inf on overflow, never an exception
            self._add(e, e * e)
            return
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.asarray(answer, dtype=np.float64) - np.float64(y)
            if e.ndim == 0:
                norm = abs(float(e))
                self._add(norm, norm * norm)
            else:
                sq = float(np.dot(e.ravel(), e.ravel()))
                self._add(math.sqrt(sq), sq)

    def get(self) -> dict:
        out = {"MAE": self.means[0], "RMSE": math.sqrt(self.means[1])}
        if self.skipped:
            out["skipped"] = self.skipped
        return out


class ClassificationMetrics(Metrics):
    names = ("accuracy", "log_loss")

    def update(self, y, answer) -> None:
        label, p = answer
        q = min(max(p if y else 1.0 - p, 1e-15), 1.0)
        self._add(float(label == y), -math.log(q))


class BanditMetrics(Metrics):
    names = ("mean_reward",)

    def update(self, reward, answer) -> None:
        del answer
        self._add(float(reward))
