r"""Online ridge regression: exact recursive least squares with Sherman–Morrison updates."""

from __future__ import annotations

import numpy as np

from onlineboost._checks import check_real

from ._features import FeatureIndex, check_max_features, check_stack, check_targets
from ._single import OneCopyRegressor

__all__ = ["OnlineRidge", "RidgeStack"]


class RidgeStack:
    r"""$n$ ridge regressions that see one feature stream and differ only in their targets.

    All copies share the inverse covariance $P_t = (\alpha I + \sum_{s \le t} z_s z_s^\top)^{-1}$
    (it depends on the features only), so a step costs one Sherman–Morrison update of $P$ and
    an $n$-vector of residuals:

    $$k_t = \frac{P_{t-1} z_t}{1 + z_t^\top P_{t-1} z_t}, \qquad
    w^{(i)}_t = w^{(i)}_{t-1} + k_t \, (y^{(i)}_t - z_t^\top w^{(i)}_{t-1}), \qquad
    P_t = P_{t-1} - k_t \, z_t^\top P_{t-1}$$

    $z_t$ is the feature vector, with a leading 1 when `intercept`. A feature first seen at time
    $t$ was 0 in every earlier row, so $P$ grows by the block $1/\alpha$ and the weights by 0:
    the solution stays exactly the batch one.

    Parameters
    ----------
    n
        Number of copies.
    alpha
        Ridge penalty $\alpha > 0$.
    intercept
        Whether to fit an intercept (penalised like the weights).
    max_features
        At most this many feature names are kept (later new names are ignored, as absent).

    Examples
    --------
    >>> from learners import RidgeStack
    >>> stack = RidgeStack(2, alpha=1.0)
    >>> stack.learn({"a": 1.0}, [1.0, -2.0])
    >>> stack.predict({"a": 1.0})
    array([ 0.6666..., -1.3333...])
    """

    def __init__(self, n: int, alpha: float = 1.0, intercept: bool = True,
                 max_features: int = 1_000):
        check_stack(n, None)
        self.n = int(n)
        self.alpha = alpha
        self.intercept = intercept
        self._index = FeatureIndex(max_features)
        k = 1 if intercept else 0
        self._P = np.eye(k) / alpha  # (p, p), p = number of columns of z
        self._W = np.zeros((self.n, k))  # (n, p)

    def _z(self, vector: np.ndarray) -> np.ndarray:
        return np.concatenate([[1.0], vector]) if self.intercept else vector

    def predict(self, x: dict) -> np.ndarray:
        """The $n$ predictions $z^\\top w^{(i)}$, shape `(n,)`; unseen features count as 0."""
        vector, _ = self._index.read(x, grow=False)
        return self._W @ self._z(vector)

    def learn(self, x: dict, y) -> None:
        """One exact recursive least-squares step for every copy; `y` has shape `(n,)`."""
        vector, new = self._index.read(x)
        y = check_targets(y, (self.n,), "y")
        if new:  # validated: now grow the state
            self._index.add(new)
            p, m = self._P.shape[0], len(new)
            P = np.zeros((p + m, p + m))
            P[:p, :p] = self._P
            P[p:, p:] = np.eye(m) / self.alpha
            self._P = P
            self._W = np.concatenate([self._W, np.zeros((self.n, m))], axis=1)
        z = self._z(vector)
        Pz = self._P @ z
        k = Pz / (1.0 + z @ Pz)  # Sherman–Morrison gain
        residual = y - self._W @ z  # (n,) a-priori errors
        self._W += residual[:, None] * k[None, :]
        P = self._P - np.outer(k, Pz)
        self._P = 0.5 * (P + P.T)  # keep P exactly symmetric against rounding drift


class OnlineRidge(OneCopyRegressor):
    r"""Ridge regression updated exactly, one sample at a time (recursive least squares).

    After $t$ samples the weights equal the batch ridge solution
    $$w_t = \Big(\alpha I + \sum_{s \le t} z_s z_s^\top\Big)^{-1} \sum_{s \le t} y_s z_s,$$
    maintained by Sherman–Morrison rank-one updates of the inverse in $O(p^2)$ a step ($p$
    features); see `RidgeStack`. `alpha` is $\alpha$. One of the paper's three weak learners.

    Parameters
    ----------
    alpha
        Ridge penalty $\alpha > 0$ (the prior precision of the weights).
    intercept
        Whether to fit an intercept; it is penalised like the weights (a constant feature 1).
    max_features
        At most this many feature names are kept; once full, a new name is ignored as if
        absent (`learners._features.FeatureIndex`). The state is quadratic in the number of
        features ($p^2$ floats, $O(p^2)$ a step), so the default cap, 1,000, bounds it by
        8 MB and ~1 ms a step when every record brings a new name.

    Attributes
    ----------
    weights
        The weights by feature name.
    bias
        The intercept (0 when `intercept=False`).

    Examples
    --------
    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from learners import OnlineRidge
    >>> model = preprocessing.StandardScaler() | OnlineRidge(alpha=1.0)
    >>> evaluate.progressive_val_score(datasets.TrumpApproval(), model, metrics.MAE())
    MAE: 1.137677
    """

    def __init__(self, alpha: float = 1.0, intercept: bool = True, max_features: int = 1_000):
        check_real("alpha", alpha, 0.0, low_open=True)
        if not isinstance(intercept, (bool, np.bool_)):
            raise ValueError(f"intercept must be a bool, got {intercept!r}")
        check_max_features(max_features)
        self.alpha = alpha
        self.intercept = intercept
        self.max_features = max_features
        self._stack = RidgeStack(1, float(alpha), bool(intercept), int(max_features))

    @classmethod
    def _unit_test_params(cls):
        yield {"alpha": 1.0}
        yield {"alpha": 0.1, "intercept": False, "max_features": 2}

    def stack(self, n: int, seeds: list | None = None) -> RidgeStack:
        """$n$ fresh copies sharing one inverse covariance (`seeds` ignored: not random)."""
        check_stack(n, seeds)
        return RidgeStack(n, float(self.alpha), bool(self.intercept), int(self.max_features))

    @property
    def weights(self) -> dict:
        w = self._stack._W[0, 1:] if self.intercept else self._stack._W[0]
        return dict(zip(self._stack._index.names, w.tolist()))

    @property
    def bias(self) -> float:
        return float(self._stack._W[0, 0]) if self.intercept else 0.0
