"""SecBoost (Nock & Mansour, Algorithm 1): boosting any loss from its values alone."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, has_fit_parameter, validate_data

from . import offset_oracle
from ._common import check_int, check_real, validate_binary
from .secboost_losses import ClippedLogisticLoss, LogisticLoss, SpringLoss, v_derivative
from .solve_alpha import alpha_from_smoothness, solve_alpha_extended

__all__ = ["SecBoostClassifier"]

_LOSSES = {"logistic": LogisticLoss, "clipped_logistic": ClippedLogisticLoss, "spring": SpringLoss}


class SecBoostClassifier(ClassifierMixin, BaseEstimator):
    r"""SecBoost: boosting a loss $F$ known only through its values (v-derivatives).

    With edges $\tilde e_{ti} = y_i H_t(x_i)$ and $H_0 = h_0$, each round $t$ (Algorithm 1):

    * 2.1 $h_t$ = weak learner on labels $y_i \operatorname{sign}(w_{ti})$, weights $|w_{ti}|$;
    * 2.2 $\eta_t = \frac1m \sum_i w_{ti} y_i h_t(x_i)$;
    * 2.3 $\alpha_t$ from `Solve_α` (appendix C.1) or, with `alpha_rule="smoothness"`, from
      Lemma 5.7's $\overline{W}_{2,t} = 2\beta$;
    * 2.4 $H_t = H_{t-1} + \alpha_t h_t$;
    * 2.5 offsets $v_{ti} \in \mathbb{I}_{ti}(\varepsilon_t \alpha_t^2 M_t^2
      \overline{W}_{2,t})$ from the offset oracle; if one is empty, stop and return $H_t$;
    * 2.6 $w_{(t+1)i} = -\delta_{v_{ti}} F(y_i H_t(x_i))$;
    * 2.7 if $w_{t+1} = 0$, stop.

    Initial weights $w_{1i} = -\delta_{v_0} F(y_i h_0)$ (Step 1; equal to the paper's
    $-\delta_{v_0} F(h_0)$ for the default $h_0 = 0$). The classifier is
    $\operatorname{sign}_+(H_T)$, ties to `classes_[1]`.

    Assumption 5.1 (weak hypotheses non-zero on the sample) is enforced as in appendix B.2: a
    hypothesis with zeros on the training sample is shifted by the constant $c_t = 10^{-3}
    \min\{|h_t(x_i)| : h_t(x_i) \ne 0\}$, kept at prediction time (`shifts_`). Stumps and trees
    output $\pm 1$ and are never shifted. Following C.3, an offset that is machine zero is
    replaced by a tiny random one (`random_state`), so no derivative is ever approximated in
    the limit. The loss is only ever called on arrays of edges.

    Step 2.5 is implemented as printed: $v_{ti}$ limits the OBI over the step just taken,
    $Q^*_F(\tilde e_{ti}, \tilde e_{(t-1)i}, v)$. The proof of Theorem 5.3 (eq. (31), (41))
    bounds the OBI of $v_{ti}$ over the *next* step, unknown when $v_{ti}$ is chosen; so the
    per-round decrease of the proof is not guaranteed, and on the spring loss the training loss
    can rise on some rounds. With `oo_simple` the OBI is measured on a grid of at least 1025
    loss values per example; finer structure of the loss is not seen.

    SecBoost stops at step 2.5 only when the paper's condition holds: some
    $\mathbb{I}_{ti}(z)$ is empty. By Lemma B.4 that needs a jump of $F$ larger than $z$, so
    for a continuous loss it never happens. Where C.2's regular grid finds no offset (its step
    stays too coarse for the limit $z$ even at $Z = 64\,$`oo_precision`), the least-slope
    secant is located to machine precision (`offset_oracle.offsets_bracketed`: grid, bracket,
    golden section, with its own rounding tolerance), which has OBI 0 up to that tolerance
    whenever F is continuous; only examples it cannot resolve either (a jump larger than $z$
    at the edge, or structure finer than $|\tilde e_{ti} - \tilde e_{(t-1)i}| / 2^{16}$) stop
    the run.

    Parameters
    ----------
    loss
        `"logistic"`, `"clipped_logistic"` ($q = -2$), `"spring"` ($Q = 500$), a loss object
        from `secboost_losses`, or any vectorised callable $F$.
    estimator
        Binary weak learner taking `sample_weight`; its `decision_function` (if it has one)
        or its $\pm 1$ predictions are $h_t$. Default: `learners.WeightedStump()`.
    n_estimators
        Number of rounds $T$.
    delta
        Initial $\delta$ of `Solve_α`, eq. (84).
    alpha_rule
        `"solve"` (`Solve_α`, any loss) or `"smoothness"` (needs `loss.beta`).
    epsilon
        $\varepsilon_t$ for `alpha_rule="smoothness"` (with $\pi_t = 0$).
    offset_oracle
        `"simple"` (C.2's `oo_simple`, any loss) or `"convex"` (B.7's dichotomic search,
        needs `loss.convex`).
    oo_precision
        Initial precision $Z$ of `oo_simple`, doubled up to 64 Z while the OBI is too large
        (then `offsets_bracketed` takes over for the examples still without an offset).
    h0, v0
        Initial constant classifier $h_0$ and offset $v_0 \ne 0$.
    random_state
        Seed for the replacement of machine-zero offsets.

    Attributes
    ----------
    alphas_, edges_, W2_, epsilons_, obi_limits_
        Per round: $\alpha_t$, $\eta_t$, $\overline{W}_{2,t}$, $\varepsilon_t$ and the OBI limit
        $z_t = \varepsilon_t \alpha_t^2 M_t^2 \overline{W}_{2,t}$ given to the oracle.
    train_loss_
        $F(S, H_t) = \frac1m \sum_i F(y_i H_t(x_i))$ for $t = 0, 1, \dots$
    stop_reason_
        `"completed"`, `"step 2.5: empty offset set"` (no offset within the OBI limit, which by
        Lemma B.4 takes a jump of $F$), `"step 2.7: all weights zero"`,
        `"zero edge"` (the weak learner found no edge), `"no alpha"` (`Solve_α` failed: $F$
        discontinuous at an edge) or `"zero hypothesis"`.

    Examples
    --------
    >>> import numpy as np
    >>> from onlineboost.batch import SecBoostClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> model = SecBoostClassifier("spring", n_estimators=30, random_state=0).fit(X, y)
    >>> model.stop_reason_, bool(model.train_loss_[-1] < model.train_loss_[0])
    ('completed', True)
    >>> float(model.score(X, y)) > 0.95
    True

    References
    ----------
    [^1]: Nock & Mansour, *How to Boost Any Loss Function*, NeurIPS 2024 (arXiv:2407.02279),
        Algorithms 1-4 and appendices B.2, B.7, C.1-C.3.
    """

    def __init__(
        self,
        loss="logistic",
        estimator=None,
        n_estimators: int = 50,
        delta: float = 1.0,
        alpha_rule: str = "solve",
        epsilon: float = 1.0,
        offset_oracle: str = "simple",
        oo_precision: int = 16,
        h0: float = 0.0,
        v0: float = 0.1,
        random_state=None,
    ):
        self.loss = loss
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.delta = delta
        self.alpha_rule = alpha_rule
        self.epsilon = epsilon
        self.offset_oracle = offset_oracle
        self.oo_precision = oo_precision
        self.h0 = h0
        self.v0 = v0
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags

    def _check_params(self):
        check_int("n_estimators", self.n_estimators, 0)
        check_real("delta", self.delta, 0.0, low_open=True)
        check_real("epsilon", self.epsilon, 0.0, low_open=True)
        check_int("oo_precision", self.oo_precision, 2)
        check_real("h0", self.h0, -np.inf)
        if check_real("v0", self.v0, -np.inf) == 0.0:
            raise ValueError("v0 must be non-zero, got 0")
        F = _LOSSES[self.loss]() if isinstance(self.loss, str) and self.loss in _LOSSES else None
        if F is None and callable(self.loss):
            F = self.loss
        if F is None:
            raise ValueError(f"loss must be one of {sorted(_LOSSES)} or a callable")
        if self.alpha_rule not in ("solve", "smoothness"):
            raise ValueError(f"alpha_rule must be 'solve' or 'smoothness', got {self.alpha_rule!r}")
        if self.alpha_rule == "smoothness" and getattr(F, "beta", None) is None:
            raise ValueError("alpha_rule='smoothness' needs a loss with a smoothness `beta`")
        if self.offset_oracle not in ("simple", "convex"):
            raise ValueError(
                f"offset_oracle must be 'simple' or 'convex', got {self.offset_oracle!r}"
            )
        if self.offset_oracle == "convex" and not getattr(F, "convex", False):
            raise ValueError("offset_oracle='convex' needs a loss with `convex = True`")
        if self.estimator is not None and not has_fit_parameter(self.estimator, "sample_weight"):
            raise ValueError("estimator must accept sample_weight in fit")
        return F

    @staticmethod
    def _h(learner, X) -> np.ndarray:
        if hasattr(learner, "decision_function") and list(learner.classes_) == [-1.0, 1.0]:
            return np.asarray(learner.decision_function(X), dtype=np.float64)
        return np.where(learner.predict(X) > 0, 1.0, -1.0)

    def fit(self, X, y):
        F = self._check_params()
        X, classes, y_pm = validate_binary(self, X, y)
        self.classes_ = classes
        if self.estimator is None:
            from learners import WeightedStump  # the default weak learner (DESIGN §2)

            prototype = WeightedStump()
        else:
            prototype = self.estimator
        rng = check_random_state(self.random_state)
        m = X.shape[0]
        e = y_pm * self.h0  # edges e~_0i = y_i H_0(x_i)
        v = np.full(m, float(self.v0))
        w = -v_derivative(F, e, v)  # Step 1
        if not np.all(np.isfinite(F(e))) or not np.any(w != 0):
            raise ValueError("loss must be finite with a non-zero v0-derivative at h0")
        self.loss_, self.estimators_, self.shifts_ = F, [], []
        alphas, edges, W2s, epsilons, limits = [], [], [], [], []
        self.train_loss_ = [float(np.mean(F(e)))]
        self.stop_reason_ = "completed"
        for _ in range(self.n_estimators):
            y_t = np.where(w < 0, -y_pm, y_pm)  # Step 2.1: labels corrected by sign(w)
            learner = clone(prototype).fit(X, y_t, sample_weight=np.abs(w) / np.abs(w).sum())
            h = self._h(learner, X)
            shift = 0.0
            if np.any(h == 0):  # Assumption 5.1 via B.2: h + c, c below every |h_i| > 0
                if not np.any(h != 0):
                    self.stop_reason_ = "zero hypothesis"
                    break
                shift = 1e-3 * np.abs(h[h != 0]).min()
                h = h + shift
            M = float(np.abs(h).max())
            yh = y_pm * h
            eta = float(np.mean(w * yh))  # Step 2.2
            if eta == 0.0:
                self.stop_reason_ = "zero edge"
                break
            if self.alpha_rule == "solve":  # Step 2.3
                step = solve_alpha_extended(F, w, yh, e, v, M, delta=float(self.delta))
            else:
                step = alpha_from_smoothness(eta, M, F.beta, float(self.epsilon))
            if not np.isfinite(step.alpha):
                self.stop_reason_ = "no alpha"
                break
            e_new = e + step.alpha * yh  # Step 2.4: H_t = H_{t-1} + alpha_t h_t
            z = step.epsilon * step.alpha**2 * M**2 * step.W2  # OBI limit of Step 2.5
            self.estimators_.append(learner)
            self.shifts_.append(shift)
            alphas.append(step.alpha)
            edges.append(eta)
            W2s.append(step.W2)
            epsilons.append(step.epsilon)
            limits.append(z)
            self.train_loss_.append(float(np.mean(F(e_new))))
            if self.offset_oracle == "simple":
                v_new, found = offset_oracle.offsets_simple(
                    F, e_new, e, z, Z=int(self.oo_precision), Z_max=64 * int(self.oo_precision)
                )
                if not found.all():  # the regular grid was too coarse: locate the secant
                    miss = np.flatnonzero(~found)
                    v_new[miss], found[miss] = offset_oracle.offsets_bracketed(
                        F, e_new[miss], e[miss], z)
            else:
                v_new, found = offset_oracle.offsets_convex(F, e_new, e, z)
            same = e_new == e  # h_t(x_i) = 0 after all: any offset has OBI 0 (I_{a,a} = {a})
            v_new[same], found[same] = v[same], True
            if not found.all():  # Step 2.5: some I_ti(z) is empty: return H_t
                self.stop_reason_ = "step 2.5: empty offset set"
                break
            tiny = np.abs(v_new) <= 1e-12 * np.maximum(1.0, np.abs(e_new))
            if tiny.any():  # machine-zero offsets -> small random ones (appendix C.3)
                scale = 1e-8 * np.maximum(1.0, np.abs(e_new[tiny]))
                side = np.where(e[tiny] >= e_new[tiny], 1.0, -1.0)
                v_new[tiny] = side * scale * (1.0 + rng.uniform(size=int(tiny.sum())))
            e, v = e_new, v_new
            w = -v_derivative(F, e, v)  # Step 2.6
            if not np.any(w != 0):  # Step 2.7
                self.stop_reason_ = "step 2.7: all weights zero"
                break
        self.alphas_ = np.asarray(alphas)
        self.edges_ = np.asarray(edges)
        self.W2_ = np.asarray(W2s)
        self.epsilons_ = np.asarray(epsilons)
        self.obi_limits_ = np.asarray(limits)
        self.train_loss_ = np.asarray(self.train_loss_)
        return self

    def decision_function(self, X):
        """$H_T(x) = h_0 + \\sum_t \\alpha_t (h_t(x) + c_t)$."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        H = np.full(X.shape[0], float(self.h0))
        for alpha, learner, shift in zip(self.alphas_, self.estimators_, self.shifts_):
            H += alpha * (self._h(learner, X) + shift)
        return H

    def predict(self, X):
        H = self.decision_function(X)
        return self.classes_[(H >= 0).astype(int)]
