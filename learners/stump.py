r"""Online regression stump over per-feature histograms with warm-up quantile thresholds."""

from __future__ import annotations

import numbers

import numpy as np

from ._features import (
    FeatureIndex,
    check_max_features,
    check_stack,
    check_targets,
)
from ._single import OneCopyRegressor

__all__ = ["OnlineStump", "StumpStack", "warmup_thresholds"]


def warmup_thresholds(values, n_bins: int) -> np.ndarray:
    """At most `n_bins - 1` candidate thresholds from a warm-up sample of one feature.

    Every midpoint between consecutive distinct values when there are few enough of them;
    otherwise the midpoints just above the sample's $k / n_\\text{bins}$ quantiles,
    $k = 1, \\dots, n_\\text{bins} - 1$ (duplicates merged). Sorted increasingly.

    Examples
    --------
    >>> from learners import warmup_thresholds
    >>> warmup_thresholds([3.0, 1.0, 2.0, 2.0], n_bins=8)
    array([1.5, 2.5])
    >>> warmup_thresholds(range(100), n_bins=4)
    array([24.5, 49.5, 74.5])
    """
    v = np.sort(np.asarray(values, dtype=np.float64))
    u = np.unique(v)
    mids = 0.5 * (u[:-1] + u[1:])
    if len(mids) < n_bins:
        return mids
    q = np.quantile(v, np.arange(1, n_bins) / n_bins)
    idx = np.searchsorted(u, q, side="right") - 1  # u[idx] <= q < u[idx + 1]
    return mids[np.unique(np.clip(idx, 0, len(mids) - 1))]


class StumpStack:
    r"""$n$ online regression stumps on one feature stream, differing only in their targets.

    The per-feature bin counts are shared (`(p, n_bins)`); the target sums are per copy
    (`(n, p, n_bins)`). After every update each copy takes the split $(j, k)$ maximising
    $S_L^2 / n_L + S_R^2 / n_R$ (equivalently, minimising the squared error of predicting the
    mean on each side), from cumulative sums over the bins, vectorised over copies and
    features. Ties go to the lowest feature column, then the lowest threshold.

    Parameters
    ----------
    n
        Number of copies.
    n_bins, warmup, max_features
        As in `OnlineStump`.

    Examples
    --------
    >>> from learners import StumpStack
    >>> stack = StumpStack(2, n_bins=4, warmup=4)
    >>> for v in [0.1, 0.2, 0.8, 0.9]:
    ...     stack.learn({"a": v}, [float(v > 0.5), -1.0])
    >>> stack.predict({"a": 0.95})
    array([ 1., -1.])
    """

    def __init__(self, n: int, n_bins: int = 32, warmup: int = 64,
                 max_features: int = 1_000):
        check_stack(n, None)
        self.n = int(n)
        self.n_bins = int(n_bins)
        self.warmup = int(warmup)
        B = self.n_bins
        self._index = FeatureIndex(max_features)
        self._count = 0  # samples seen
        self._sum = np.zeros(self.n)  # (n,) target sums
        self._ready = np.zeros(0, dtype=bool)  # (p,) thresholds fixed
        self._thresholds = np.full((0, B - 1), np.inf)  # (p, B - 1), padded with +inf
        self._counts = np.zeros((0, B))  # (p, B) shared bin counts
        self._sums = np.zeros((self.n, 0, B))  # (n, p, B) per-copy target sums by bin
        self._buffer: dict[int, list] = {}  # warming feature -> [values, targets, before]
        self._feature = np.full(self.n, -1)  # (n,) chosen split feature, -1: none
        self._threshold = np.zeros(self.n)  # (n,)
        self._left = np.zeros(self.n)  # (n,) mean at x_j <= threshold
        self._right = np.zeros(self.n)  # (n,) mean at x_j > threshold

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ predictions, shape `(n,)`; the running mean while no split exists."""
        v, _ = self._index.read(x, grow=False)
        mean = self._sum / max(self._count, 1)
        has = self._feature >= 0
        if not has.any():
            return mean
        value = np.where(has, v[np.maximum(self._feature, 0)] if len(v) else 0.0, 0.0)
        out = np.where(value <= self._threshold, self._left, self._right)
        return np.where(has, out, mean)

    def _bins(self, thresholds: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.sum(thresholds < values[..., None], axis=-1)  # x <= theta_k  <=>  bin <= k

    def learn(self, x: dict, y) -> None:
        """Add the sample to the histograms and re-choose every copy's split; `y` has shape
        `(n,)`."""
        v, new = self._index.read(x)
        y = check_targets(y, (self.n,), "y")
        if new:
            self._index.add(new)
            p, m = len(self._ready), len(new)
            self._ready = np.concatenate([self._ready, np.zeros(m, dtype=bool)])
            self._thresholds = np.vstack([self._thresholds, np.full((m, self.n_bins - 1), np.inf)])
            self._counts = np.vstack([self._counts, np.zeros((m, self.n_bins))])
            self._sums = np.concatenate([self._sums, np.zeros((self.n, m, self.n_bins))], axis=1)
            for j in range(p, p + m):  # every earlier sample had x_j = 0
                self._buffer[j] = [[], [], (self._count, self._sum.copy())]
        self._count += 1
        self._sum += y
        ready = np.flatnonzero(self._ready)
        if len(ready):
            bins = self._bins(self._thresholds[ready], v[ready])
            self._counts[ready, bins] += 1
            self._sums[:, ready, bins] += y[:, None]
        for j in list(self._buffer):
            values, targets, _ = self._buffer[j]
            values.append(v[j])
            targets.append(y.copy())
            if len(values) == self.warmup:
                self._close_warmup(j)
        self._choose_splits()

    def _close_warmup(self, j: int) -> None:
        values, targets, (count0, sum0) = self._buffer.pop(j)
        theta = warmup_thresholds(values, self.n_bins)
        self._thresholds[j, : len(theta)] = theta
        bins = self._bins(self._thresholds[j], np.asarray(values))
        np.add.at(self._counts[j], bins, 1)
        for i in range(self.n):
            np.add.at(self._sums[i, j], bins, np.asarray(targets)[:, i])
        b0 = int(self._bins(self._thresholds[j], np.zeros(1))[0])
        self._counts[j, b0] += count0
        self._sums[:, j, b0] += sum0
        self._ready[j] = True

    def _choose_splits(self) -> None:
        self._feature[:] = -1
        if not self._ready.any():
            return
        n_left = np.cumsum(self._counts, axis=1)[:, :-1]  # (p, B - 1)
        n_right = self._count - n_left
        s_left = np.cumsum(self._sums, axis=2)[:, :, :-1]  # (n, p, B - 1)
        s_right = self._sum[:, None, None] - s_left
        valid = self._ready[:, None] & (n_left > 0) & (n_right > 0)
        if not valid.any():
            return
        with np.errstate(divide="ignore", invalid="ignore"):
            score = np.where(valid, s_left**2 / n_left + s_right**2 / n_right, -np.inf)
        flat = np.argmax(score.reshape(self.n, -1), axis=1)  # first maximum: lowest (j, k)
        j, k = np.divmod(flat, self.n_bins - 1)
        rows = np.arange(self.n)
        self._feature = j
        self._threshold = self._thresholds[j, k]
        self._left = s_left[rows, j, k] / n_left[j, k]
        self._right = s_right[rows, j, k] / n_right[j, k]


class OnlineStump(OneCopyRegressor):
    r"""Online regression stump: $f(x) = m_L$ if $x_j \le \theta$ else $m_R$, re-chosen every
    step among streaming candidate thresholds.

    Candidate thresholds (one of the two options of the design): each feature's first
    `warmup` observed values (counting 0 when it is missing from a dict, from its first
    appearance on) form a warm-up sample, and its candidates are fixed once to at most
    `n_bins - 1` midpoints at that sample's quantiles (`warmup_thresholds`). The warm-up
    samples are then binned, so the histograms count every sample seen, exactly. After each
    update the stump takes the (feature, threshold) pair minimising the squared error of the
    two side means over all samples seen,
    $$\max_{j,k} \; S_L^2 / n_L + S_R^2 / n_R,$$
    with $n_L, S_L$ the count and target sum at or below the threshold. Until a feature has
    finished its warm-up, it predicts the running mean. One of the paper's three weak learners.

    Parameters
    ----------
    n_bins
        At most `n_bins - 1` candidate thresholds a feature ($\ge 2$).
    warmup
        Number of values of a feature used to place its thresholds ($\ge 1$).
    max_features
        At most this many feature names are kept; once full, a new name is ignored as if
        absent (`learners._features.FeatureIndex`), so the state and the cost of a step
        (both $n_\text{bins}$ floats a feature) stay bounded when every record brings a new
        name. The default, 1,000, keeps a step under $3 \cdot 10^4$ bin sums (the rule for
        every learner whose step costs more than a few floats a feature; `LinearOGD` keeps
        `FeatureIndex`'s 10,000).

    Attributes
    ----------
    split
        `(feature, threshold, left_mean, right_mean)`, or `None` before the first split.

    Examples
    --------
    >>> from river import evaluate, metrics
    >>> from learners import OnlineStump
    >>> from streams import StumpMixture
    >>> stream = StumpMixture(n_stumps=1, seed=3)  # y = -1 if x0 > 0.8197 else +1
    >>> model = OnlineStump()
    >>> evaluate.progressive_val_score(stream.take(500), model, metrics.MAE())
    MAE: 0.105761
    >>> model.split  # the candidate threshold nearest to 0.8197
    ('x0', 0.8065..., 1.0, -0.8809...)
    """

    def __init__(self, n_bins: int = 32, warmup: int = 64, max_features: int = 1_000):
        for name, value, low in (("n_bins", n_bins, 2), ("warmup", warmup, 1)):
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        check_max_features(max_features)
        self.n_bins = n_bins
        self.warmup = warmup
        self.max_features = max_features
        self._stack = StumpStack(1, n_bins, warmup, max_features)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"n_bins": 4, "warmup": 5, "max_features": 3}

    def stack(self, n: int, seeds: list | None = None) -> StumpStack:
        """$n$ fresh copies sharing the bin counts (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return StumpStack(n, int(self.n_bins), int(self.warmup), int(self.max_features))

    @property
    def split(self):
        s = self._stack
        j = int(s._feature[0])
        if j < 0:
            return None
        return (s._index.names[j], float(s._threshold[0]), float(s._left[0]), float(s._right[0]))
