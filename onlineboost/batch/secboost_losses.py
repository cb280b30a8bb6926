r"""Losses for SecBoost, queried by value only, and the $v$-derivatives built from values.

A SecBoost loss is any vectorised callable $F: \mathbb{R} \to \mathbb{R}$ of the edge
$z = y H(x)$ (it is called on arrays of any shape and must return finite values). It may carry
two optional attributes: `beta`, a smoothness constant (Lemma 5.7 then gives
$\overline{W}_{2,t} = 2\beta$), and `convex`, which allows the convex offset oracle. No loss
here has, or needs, a derivative.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "LogisticLoss",
    "ClippedLogisticLoss",
    "SpringLoss",
    "v_derivative",
    "second_v_derivative",
    "curvature_noise",
]


def v_derivative(F, z, v):
    r"""The $v$-derivative $\delta_v F(z) = (F(z + v) - F(z)) / v$ (Definition 4.1).

    Examples
    --------
    >>> v_derivative(lambda z: z**2, 1.0, 0.5)  # secant slope of z^2 between 1 and 1.5
    2.5
    """
    return (F(z + v) - F(z)) / v


def second_v_derivative(F, z, b, c):
    r"""$\delta_{\{b, c\}} F(z) = \frac{F(z+b+c) - F(z+b) - F(z+c) + F(z)}{bc}$ (Lemma B.1).

    Examples
    --------
    >>> second_v_derivative(lambda z: z**2, 3.0, 0.1, -2.0)  # twice the leading coefficient
    2.0...
    """
    return curvature_noise(F, z, b, c)[0]


#: rounding errors an F value and the numerator's three additions may carry, in units of
#: machine epsilon times the values' magnitudes (a loss computed to a few ulps)
_NOISE_ULPS = 8.0


def curvature_noise(F, z, b, c) -> tuple:
    r"""The second $v$-derivative $\delta_{\{b, c\}} F(z)$ (`second_v_derivative`) and the
    rounding error its numerator may carry, as a derivative:
    $8\epsilon_{\text{mach}}(|F(z+b+c)| + |F(z+b)| + |F(z+c)| + |F(z)|) / |bc|$. Below it a
    second difference is machine zero (`solve_alpha.solve_alpha_extended`'s test of (11)).

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import curvature_noise
    >>> second, noise = curvature_noise(lambda z: 1.0 - z, np.array([0.3]), 0.7, 0.1)
    >>> bool(abs(second[0]) <= noise[0]), bool(noise[0] < 1e-12)  # linear: noise, and tiny
    (True, True)
    """
    f1, f2, f3, f4 = F(z + b + c), F(z + b), F(z + c), F(z)
    bc = b * c
    second = (f1 - f2 - f3 + f4) / bc
    scale = np.abs(f1) + np.abs(f2) + np.abs(f3) + np.abs(f4)
    return second, _NOISE_ULPS * np.finfo(np.float64).eps * scale / np.abs(bc)


def _logistic(z):
    # log(1 + e^{-z}) = log1p(e^{-|z|}) + max(-z, 0): stable, and faster than np.logaddexp
    return np.log1p(np.exp(-np.abs(z))) + np.maximum(-z, 0.0)


class LogisticLoss:
    r"""$F(z) = \log(1 + e^{-z})$, eq. (89): convex and $\tfrac14$-smooth.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import LogisticLoss
    >>> LogisticLoss()(np.array([0.0, 50.0])).round(6)
    array([0.693147, 0.      ])
    """

    beta = 0.25
    convex = True

    def __call__(self, z):
        return _logistic(np.asarray(z, dtype=np.float64))

    def __repr__(self):
        return "LogisticLoss()"


class ClippedLogisticLoss:
    r"""$F_{q}(z) = \min\{\log(1 + e^{-z}), \log(1 + e^{-q})\}$, eq. (90).

    Flat for $z \le q$: non-convex, non-differentiable, Lipschitz. `q` is $q$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import ClippedLogisticLoss
    >>> ClippedLogisticLoss(q=-2.0)(np.array([-10.0, -2.0, 0.0])).round(6)
    array([2.126928, 2.126928, 0.693147])
    """

    beta = None
    convex = False

    def __init__(self, q: float = -2.0):
        if not np.isfinite(q):
            raise ValueError(f"q must be finite, got {q!r}")
        self.q = q

    def __call__(self, z):
        return np.minimum(_logistic(np.asarray(z, dtype=np.float64)), _logistic(self.q))

    def __repr__(self):
        return f"ClippedLogisticLoss(q={self.q!r})"


class SpringLoss:
    r"""Spring loss, eq. (91): the logistic loss plus peaks every $1/Q$.

    $$F_Q(z) = \log(1 + e^{-z}) + \frac{1 - \sqrt{1 - 4(z_Q - [z_Q])^2}}{Q},
    \qquad z_Q = Qz - \tfrac12,$$

    $[\cdot]$ the nearest integer. Peaks of height $1/Q$ sit at $z \in \mathbb{Z}/Q$, where the
    loss is not differentiable; it is non-convex and not Lipschitz. `Q` is $Q$; with $Q = 1$
    this is the spring loss of eq. (75) shifted by $1/2$.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch.secboost_losses import SpringLoss
    >>> F = SpringLoss(Q=500)
    >>> float(F(0.0) - np.log(2)), float(F(0.001) - np.log1p(np.exp(-0.001)))  # peak, valley
    (0.002, 0.0)
    """

    beta = None
    convex = False

    def __init__(self, Q: float = 500.0):
        if not (np.isfinite(Q) and Q > 0):
            raise ValueError(f"Q must be finite and > 0, got {Q!r}")
        self.Q = Q

    def __call__(self, z):
        z = np.asarray(z, dtype=np.float64)
        z_Q = self.Q * z - 0.5
        d = z_Q - np.rint(z_Q)  # [.]: nearest integer
        bump = 1.0 - np.sqrt(np.maximum(1.0 - 4.0 * d * d, 0.0))
        return _logistic(z) + bump / self.Q

    def __repr__(self):
        return f"SpringLoss(Q={self.Q!r})"
