r"""B4CO against a literal transcription of Algorithm 3 (Hazan & Singh 2021), sharing no code
with `onlineboost`.

The transcription scales the targets onto $K = [-1, 1]$ as B4CO documents, and runs Algorithm 3
with the squared loss $f_j(a) = \frac12 (a - z_j)^2$:

* step 4: $g_j = \nabla \hat f_j(h^{i-1}(c_j))$, $\hat f_j = M_\delta[f_j + \kappa\,
  \mathrm{Dist}(\cdot, K)]$, whose proximal point is found here by a case analysis of the
  piecewise-quadratic objective (no closed form shared with the library);
* step 5: the weak optimiser that B4CO documents (the regression reduction: a regressor fit to
  $\mu - g_j / \lambda_i$, $\lambda_i = \eta_i / \gamma$, its predictions clipped to K);
* step 6: $h^i = (1 - \eta_i) h^{i-1} + \frac{\eta_i}{\gamma} W_i$ (K is centred at 0, $h^0 = 0$);
* step 8: $\Pi_K(h^N)$, mapped back to the targets' units.

Every stage's prediction (`staged_predict`), `train_score_` and the targets each weak regressor
is fit to (recorded by the regressor) are compared.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsRegressor

from onlineboost import B4CO

FITS: list = []


class RecordingKNN(KNeighborsRegressor):
    """A k-nearest-neighbour regressor, its predictions multiplied by `gain` (an over-confident
    weak optimiser for `gain` > 1, whose iterates leave K), that records the rows and targets
    it is fit to."""

    def __init__(self, n_neighbors=5, gain=1.0):
        super().__init__(n_neighbors=n_neighbors)
        self.gain = gain

    def fit(self, X, y):
        FITS.append((np.array(X, copy=True), np.array(y, copy=True)))
        return super().fit(X, y)

    def predict(self, X):
        return self.gain * super().predict(X)


def prox_point(x, b, delta, kappa, lo=-1.0, hi=1.0):
    """argmin_p 1/2 (p - b)^2 + kappa Dist(p, [lo, hi]) + (x - p)^2 / (2 delta), by cases."""

    def objective(p):
        return 0.5 * (p - b) ** 2 + kappa * max(lo - p, 0.0, p - hi) + (x - p) ** 2 / (2 * delta)

    left = (x + delta * (b + kappa)) / (1 + delta)
    middle = (x + delta * b) / (1 + delta)
    right = (x + delta * (b - kappa)) / (1 + delta)
    candidates = [lo, hi] + [p for p, ok in ((left, left <= lo), (middle, lo <= middle <= hi),
                                             (right, right >= hi)) if ok]
    return min(candidates, key=objective)


def algorithm3(X, y, make_weak, N, gamma, eta, delta, kappa):
    """Staged predictions Pi_K(h^i) on X (original units), the targets of every stage and how
    far outside K the iterates went."""
    mid, half = (y.max() + y.min()) / 2, (y.max() - y.min()) / 2
    z = (y - mid) / half  # targets on K = [-1, 1]
    h = np.zeros(len(z))  # 2: h^0 = 0, the centre of K
    staged, targets, outside = [], [], 0.0
    for i in range(1, N + 1):  # 3
        g = np.array([(h_j - prox_point(h_j, z_j, delta, kappa)) / delta
                      for h_j, z_j in zip(h, z)])  # 4: grad f^_j(h^{i-1}(c_j))
        lam = eta[i - 1] / gamma
        target = -g / lam  # 5: argmin_a <g, a> + lam/2 |a - 0|^2, fit by the weak regressor
        W = np.clip(make_weak().fit(X, target).predict(X), -1.0, 1.0)
        h = (1 - eta[i - 1]) * h + eta[i - 1] * W / gamma  # 6
        outside = max(outside, float(np.max(np.abs(h))) - 1.0)
        staged.append(mid + half * np.clip(h, -1.0, 1.0))  # 8: Pi_K(h^i), original units
        targets.append(target)
    return staged, targets, outside


def data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 5.0 + 3.0 * np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    return X, y


# (gamma, N, step_size, delta, kappa, gain): the paper's delta = sqrt(D^2 / (gamma N)), D = 2,
# and kappa = G = max_j max_{a in K} |a - z_j| = 2 when left to B4CO
CASES = {
    "theory": (0.3, 6, "theory", "theory", None, 1.0),
    "numeric": (0.5, 5, [0.9, 0.6, 0.4, 0.3, 0.2], 0.15, 1.5, 3.0),
    "proof-delta": (0.4, 4, "theory", "proof", None, 1.0),
    "outside-K": (0.5, 6, "theory", 0.1, None, 3.0),
}


def paper_parameters(gamma, N, step_size, delta, kappa):
    eta = ([min(2.0 / i, 1.0) for i in range(1, N + 1)] if step_size == "theory"
           else list(np.broadcast_to(np.asarray(step_size, dtype=float), (N,))))
    G = 2.0  # the targets span [-1, 1]: max_{a in K} |a - z_j| peaks at 2
    delta = {"theory": np.sqrt(2.0**2 / (gamma * N)),  # Theorem 13 as printed
             "proof": 2.0 / (gamma * G * np.sqrt(N))}.get(delta, delta)  # D / (gamma G sqrt N)
    return eta, float(delta), G if kappa is None else kappa


@pytest.mark.parametrize("case", list(CASES))
def test_b4co_is_algorithm_3(case):
    gamma, N, step_size, delta, kappa, gain = CASES[case]
    X, y = data()
    FITS.clear()
    model = B4CO(RecordingKNN(n_neighbors=7, gain=gain), n_estimators=N, gamma=gamma,
                 step_size=step_size, delta=delta, kappa=kappa, random_state=0).fit(X, y)
    fits = list(FITS)
    eta, delta_, kappa_ = paper_parameters(gamma, N, step_size, delta, kappa)
    staged, targets, outside = algorithm3(X, y, lambda: RecordingKNN(n_neighbors=7, gain=gain),
                                          N, gamma, eta, delta_, kappa_)
    FITS.clear()
    assert model.delta_ == pytest.approx(delta_, rel=1e-12)
    assert len(fits) == N
    for i in range(N):
        np.testing.assert_allclose(fits[i][1], targets[i], rtol=1e-9, atol=1e-9,
                                   err_msg=f"stage {i + 1}")
    np.testing.assert_allclose(np.array(list(model.staged_predict(X))), np.array(staged),
                               rtol=1e-9)
    np.testing.assert_allclose(model.train_score_, [np.mean((s - y) ** 2) for s in staged],
                               rtol=1e-9)
    assert np.ptp(targets[-1]) > 0.1  # the later stages still have something to fit
    if gain > 1:
        assert outside > 0.5  # iterates far outside K: kappa's pull is exercised


@pytest.mark.parametrize("subsample", [0.4, "disjoint"])
def test_fresh_samples_per_stage(subsample):
    """Every stage is fit on its own random rows, to the transcription's targets on those rows,
    reproducibly for a seed."""
    gamma, N = 0.5, 5
    X, y = data(100, seed=1)
    runs = []
    for seed in (3, 3, 4):
        FITS.clear()
        B4CO(RecordingKNN(n_neighbors=3), n_estimators=N, gamma=gamma, step_size="theory",
             delta=0.2, kappa=2.0, subsample=subsample, random_state=seed).fit(X, y)
        runs.append(list(FITS))
    fits = runs[0]
    assert len(fits) == N
    rows = [np.array([int(np.flatnonzero((X == r).all(axis=1))[0]) for r in Xi])
            for Xi, _ in fits]
    if subsample == "disjoint":
        assert sorted(np.concatenate(rows).tolist()) == list(range(len(X)))  # a partition
        assert {len(r) for r in rows} == {20}
    else:
        assert {len(r) for r in rows} == {40} and all(len(set(r)) == 40 for r in rows)
        assert len({tuple(r) for r in rows}) == N  # a fresh draw at every stage
    # the same seed gives the same rows; another seed other rows
    assert all(np.array_equal(a[0], b[0]) for a, b in zip(runs[0], runs[1]))
    assert not all(np.array_equal(a[0], b[0]) for a, b in zip(runs[0], runs[2]))

    # Algorithm 3 on those rows: the gradients are taken at h^{i-1} on every row
    eta = [min(2.0 / i, 1.0) for i in range(1, N + 1)]
    mid, half = (y.max() + y.min()) / 2, (y.max() - y.min()) / 2
    z, h = (y - mid) / half, np.zeros(len(y))
    for i in range(N):
        g = np.array([(a - prox_point(a, b, 0.2, 2.0)) / 0.2 for a, b in zip(h, z)])
        target = -g / (eta[i] / gamma)
        np.testing.assert_allclose(fits[i][1], target[rows[i]], rtol=1e-9, atol=1e-12)
        weak = KNeighborsRegressor(n_neighbors=3).fit(X[rows[i]], target[rows[i]])
        h = (1 - eta[i]) * h + eta[i] * np.clip(weak.predict(X), -1, 1) / gamma


def test_disjoint_needs_n_rows_per_stage():
    X, y = data(4)
    with pytest.raises(ValueError, match="subsample"):
        B4CO(n_estimators=5, subsample="disjoint").fit(X, y)


@pytest.mark.parametrize("kwargs", [{"subsample": 0.0}, {"subsample": 1.5},
                                    {"subsample": "fresh"}, {"delta": "proofs"}])
def test_bad_new_parameters(kwargs):
    X, y = data(20)
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        B4CO(**kwargs).fit(X, y)
