"""Regularisers, exact Bregman projections (against scipy) and the mirror-descent updater."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import optimize

from onlineboost import bregman, mirror, sets
from onlineboost.mirror import Box, CappedSimplex, Simplex

ENTROPY, QUADRATIC = mirror.NegativeEntropy(), mirror.Quadratic()


def _scipy_projection(R, y, constraint):
    """Independent oracle: minimise B_R(w, y) over the constraint with trust-constr + SLSQP."""
    n = y.shape[0]
    lo, hi = constraint.bounds(n)
    hi = None if not np.isfinite(hi) else hi
    cons = [] if constraint.scale is None else [optimize.LinearConstraint(np.ones((1, n)),
                                                                          constraint.scale,
                                                                          constraint.scale)]
    lo_eps = max(lo, 1e-14) if R is ENTROPY else lo
    start = np.clip(np.full(n, 1.0 / n if constraint.scale else 0.5), lo_eps, hi)
    res = optimize.minimize(lambda w: float(R.bregman(w, y)), start,
                            jac=lambda w: R.grad(w) - R.grad(y), bounds=[(lo_eps, hi)] * n,
                            constraints=cons, method="SLSQP",
                            options={"ftol": 1e-15, "maxiter": 2000})
    return res.x


def _random_point(rng, n, R):
    return np.exp(rng.normal(scale=2.0, size=n)) if R is ENTROPY else rng.normal(scale=0.5, size=n)


def _cid(c):
    return type(c).__name__ + "-" + "-".join(f"{v:g}" for v in c._get_params().values())


CONSTRAINTS = [
    Simplex(), Simplex(scale=3.0), Box(0.0, 1.0), Box(0.2, 0.7), CappedSimplex(cap=0.3),
    CappedSimplex(cap=0.15), CappedSimplex(cap=2.0, scale=5.0),
]


@pytest.mark.parametrize("R", [ENTROPY, QUADRATIC], ids=["entropy", "quadratic"])
@pytest.mark.parametrize("constraint", CONSTRAINTS, ids=_cid)
def test_projection_matches_scipy(R, constraint):
    rng = np.random.default_rng(0)
    for _ in range(15):
        n = int(rng.integers(7, 12))
        y = _random_point(rng, n, R)
        w = R.project(y, constraint)
        assert constraint.contains(w)
        oracle = _scipy_projection(R, y, constraint)
        # exact kernel is at least as good as the solver, and lands on the same point
        assert R.bregman(w, y) <= R.bregman(oracle, y) + 1e-9
        np.testing.assert_allclose(w, oracle, atol=2e-5)


@pytest.mark.parametrize("R", [ENTROPY, QUADRATIC], ids=["entropy", "quadratic"])
@pytest.mark.parametrize("constraint", CONSTRAINTS, ids=_cid)
def test_generalised_pythagorean_lemma1(R, constraint):
    """B(x, y) >= B(x, P(y)) + B(P(y), y) for every x in S (Lemma 1), and P is idempotent."""
    rng = np.random.default_rng(1)
    for _ in range(30):
        n = int(rng.integers(2, 30))
        try:
            constraint.bounds(n)
        except ValueError:
            continue
        y = _random_point(rng, n, R)
        p = R.project(y, constraint)
        np.testing.assert_allclose(R.project(p, constraint), p, atol=1e-12)
        for x in (R.project(_random_point(rng, n, R), constraint) for _ in range(5)):
            lhs, rhs = R.bregman(x, y), R.bregman(x, p) + R.bregman(p, y)
            assert lhs >= rhs - 1e-9 * max(1.0, abs(lhs))


def test_capped_simplex_kl_is_min_of_cap_and_scaled_z():
    """KKT form: w_i = min(u, c z_i) for one c, with the exact tie and boundary cases."""
    rng = np.random.default_rng(2)
    for n in (1, 2, 5, 50):
        for cap in (1.0 / n, 1.5 / n, 0.5, 1.0):
            if n * cap < 1:
                continue
            z = np.exp(rng.normal(scale=3.0, size=n))
            w = bregman.kl_projection_capped_simplex(np.log(z), cap)
            assert np.isclose(w.sum(), 1.0) and np.all(w <= cap + 1e-12) and np.all(w >= 0)
            free = w < cap - 1e-12
            if free.any():
                c = w[free] / z[free]
                np.testing.assert_allclose(c, c[0], rtol=1e-9)
                assert np.all(c[0] * z[~free] >= cap * (1 - 1e-9))  # capped ones would exceed
    ties = bregman.kl_projection_capped_simplex(np.zeros(4), cap=0.25)
    np.testing.assert_allclose(ties, 0.25)
    # the top j tied and filling the cap exactly (j u = s: u = 1/3, three of six far ahead),
    # where rounding put the largest uncapped weight a hair above u for every j and every
    # coordinate went to the cap (sum 2); the mirror descent test found it
    for n_top, n in ((3, 6), (2, 5), (4, 9), (5, 7)):
        log_z = np.r_[np.full(n_top, -1.0), np.full(n - n_top, -41.0)]
        w = bregman.kl_projection_capped_simplex(log_z, cap=1.0 / n_top)
        assert np.isclose(w.sum(), 1.0, atol=1e-12)
        np.testing.assert_allclose(w[:n_top], 1.0 / n_top, rtol=1e-12)
        assert np.all(w[n_top:] < 1e-15)


def test_kernels_are_vectorised_over_stacks():
    rng = np.random.default_rng(3)
    log_z = rng.normal(scale=4.0, size=(3, 4, 9))
    for kernel, args in [(bregman.kl_projection_simplex, (2.0,)),
                         (bregman.kl_projection_box, (0.01, 0.5)),
                         (bregman.kl_projection_capped_simplex, (0.2,))]:
        stacked = kernel(log_z, *args)
        rows = np.stack([[kernel(r, *args) for r in block] for block in log_z])
        np.testing.assert_allclose(stacked, rows, rtol=1e-12)


def test_kl_kernels_survive_extreme_log_inputs():
    log_z = np.array([1e300, -1e300, 5e299, -np.inf])
    for w in (bregman.kl_projection_simplex(log_z),
              bregman.kl_projection_capped_simplex(log_z, cap=0.4)):
        assert np.all(np.isfinite(w)) and np.isclose(w.sum(), 1.0)
    np.testing.assert_allclose(bregman.kl_projection_capped_simplex(log_z, 0.4), [0.4, 0.2, 0.4, 0])


class _WeightedQuadratic(mirror.Regulariser):
    """A user-written R: 1/2 sum_i c_i w_i^2, nothing but value / grad / grad_conj."""

    def __init__(self, c=(1.0, 2.0, 3.0)):
        self.c = c

    def value(self, w):
        return 0.5 * np.sum(np.asarray(self.c) * np.asarray(w) ** 2, axis=-1)

    def grad(self, w):
        return np.asarray(self.c) * np.asarray(w, dtype=np.float64)

    def grad_conj(self, theta):
        return np.asarray(theta, dtype=np.float64) / np.asarray(self.c)


def test_user_regulariser_gets_bregman_and_projection_from_the_interface():
    R = _WeightedQuadratic()
    x, y = np.array([0.2, 0.3, 0.5]), np.array([1.0, -1.0, 0.5])
    assert np.isclose(R.bregman(x, y), 0.5 * np.sum(np.array(R.c) * (x - y) ** 2))
    np.testing.assert_allclose(R.grad_conj(R.grad(y)), y)
    p = R.project(y, Simplex())
    # KKT for min 1/2 sum c_i (w_i - y_i)^2 on the simplex: c_i (y_i - w_i) = tau on the support
    assert Simplex().contains(p, atol=1e-7)
    tau = R.c[0] * (y[0] - p[0])
    support = p > 1e-7
    np.testing.assert_allclose(np.array(R.c)[support] * (y - p)[support], tau, atol=1e-6)
    md = mirror.MirrorDescent(R, Simplex())
    state = md.update(md.init(3), np.array([1.0, -1.0, 0.0]), 0.1)
    assert Simplex().contains(state.w, atol=1e-7)


@pytest.mark.parametrize("R", [ENTROPY, QUADRATIC], ids=["entropy", "quadratic"])
def test_mirror_map_inverse_and_bregman_definition(R):
    rng = np.random.default_rng(4)
    x, y = np.exp(rng.normal(size=(5, 6))), np.exp(rng.normal(size=(5, 6)))
    np.testing.assert_allclose(R.grad_conj(R.grad(x)), x)
    generic = mirror.Regulariser.bregman(R, x, y)  # from value and grad only
    np.testing.assert_allclose(R.bregman(x, y), generic, rtol=1e-10, atol=1e-12)
    assert np.all(R.bregman(x, y) >= 0)
    # the closed forms: half the squared distance, the generalised KL divergence
    closed = (0.5 * np.sum((x - y) ** 2, axis=-1) if R is QUADRATIC
              else np.sum(x * np.log(x / y) - x + y, axis=-1))
    np.testing.assert_allclose(R.bregman(x, y), closed, rtol=1e-10, atol=1e-12)


def test_lemma4_double_projection_is_an_approximate_projection():
    """B(x, y) >= B(x, P_S(P_C(y))) for x in S, C ⊇ S (box then simplex / capped simplex)."""
    rng = np.random.default_rng(5)
    for R in (ENTROPY, QUADRATIC):
        for _ in range(40):
            n, u = 10, rng.uniform(0.1, 0.6)
            S = CappedSimplex(cap=u)
            md = mirror.MirrorDescent(R, S, mode="active", pre_constraint=Box(0.0, u))
            y = _random_point(rng, n, R)
            p = md.project(R.grad(y))
            assert S.contains(p, atol=1e-9)
            for _ in range(5):
                x = R.project(_random_point(rng, n, R), S)
                assert R.bregman(x, y) >= R.bregman(x, p) - 1e-9


def test_entropy_lazy_equals_active_equals_exponentiated_gradient():
    rng = np.random.default_rng(6)
    lazy = mirror.MirrorDescent(ENTROPY, Simplex(), mode="lazy")
    active = mirror.MirrorDescent(ENTROPY, Simplex(), mode="active")
    s_lazy, s_active, total = lazy.init(8), active.init(8), np.zeros(8)
    for _ in range(50):
        d, eta = rng.uniform(-1, 1, size=8), rng.uniform(0, 2)
        s_lazy, s_active = lazy.update(s_lazy, d, eta), active.update(s_active, d, eta)
        total += eta * d
        closed_form = np.exp(total) / np.exp(total).sum()  # exponentiated gradient
        np.testing.assert_allclose(s_lazy.w, closed_form, rtol=1e-10)
        np.testing.assert_allclose(s_active.w, closed_form, rtol=1e-10)


def test_quadratic_lazy_and_active_differ_and_lazy_dual_is_unbounded():
    """On the simplex the Euclidean projection is not a shift in the dual, so the modes part;
    the lazy auxiliary point z_t drifts without bound, the active one stays near S."""
    lazy = mirror.MirrorDescent(QUADRATIC, Simplex(), mode="lazy")
    active = mirror.MirrorDescent(QUADRATIC, Simplex(), mode="active")
    s_lazy, s_active = lazy.init(3), active.init(3)
    d = np.array([1.0, -1.0, -1.0])
    for _ in range(20):
        s_lazy, s_active = lazy.update(s_lazy, d, 0.5), active.update(s_active, d, 0.5)
    np.testing.assert_allclose(s_lazy.w, s_active.w)  # both at the vertex e_1 ...
    assert np.linalg.norm(s_lazy.theta) > 10 and np.linalg.norm(s_active.theta) < 3
    for _ in range(3):  # ... until the loss turns: active reacts at once, lazy must unwind
        s_lazy, s_active = lazy.update(s_lazy, -d, 0.5), active.update(s_active, -d, 0.5)
    assert s_lazy.w[0] == 1.0 and s_active.w[0] < 0.5


def test_lazy_double_projection_only_in_madaboosts_case():
    """The paper's conclusion: the double projection works in the lazy mode for MadaBoost
    (entropy, box [0, u] then simplex), where w is min(u, e^{theta - 1}) normalised; any other
    lazy double projection is refused."""
    rng = np.random.default_rng(9)
    md = mirror.MirrorDescent(ENTROPY, Simplex(), mode="lazy", pre_constraint=Box(0.0, 0.5))
    state, total = md.init(6), np.zeros(6)
    for _ in range(30):
        d, eta = rng.uniform(-1, 1, size=6), rng.uniform(0, 1)
        state, total = md.update(state, d, eta), total + eta * d
        capped = np.minimum(0.5, np.exp(total - 1.0))
        np.testing.assert_allclose(state.w, capped / capped.sum(), rtol=1e-10)
    for R, S, C in [(QUADRATIC, Simplex(), Box(0.0, 0.5)),
                    (ENTROPY, CappedSimplex(cap=0.5), Box(0.0, 0.5)),
                    (ENTROPY, Simplex(), Box(0.1, 0.5))]:
        with pytest.raises(ValueError, match="pre_constraint"):
            mirror.MirrorDescent(R, S, mode="lazy", pre_constraint=C)
        mirror.MirrorDescent(R, S, mode="active", pre_constraint=C)  # Lemma 4: fine
    with pytest.raises(ValueError, match="mode"):
        mirror.MirrorDescent(ENTROPY, Simplex(), mode="eager")


@pytest.mark.parametrize("R", [ENTROPY, QUADRATIC], ids=["entropy", "quadratic"])
@pytest.mark.parametrize("mode", ["active", "lazy"])
def test_the_decision_sets_of_the_same_kind_are_accepted(R, mode):
    """`sets.Simplex(3)` etc. (same names as the weight constraints) work, fix the dimension,
    and give the same weights; a set of another kind is refused naming the argument."""
    from onlineboost import sets

    rng = np.random.default_rng(10)
    for ours, theirs in [(Simplex(), sets.Simplex(4)),
                         (CappedSimplex(cap=0.4), sets.CappedSimplex(4, 0.4)),
                         (Box(0.0, 0.5), sets.Box([0.0] * 4, [0.5] * 4))]:
        a, b = mirror.MirrorDescent(R, ours, mode), mirror.MirrorDescent(R, theirs, mode)
        s_a, s_b = a.init(4), b.init(4)
        for _ in range(10):
            d, eta = rng.uniform(-1, 1, size=4), rng.uniform(0, 2)
            s_a, s_b = a.update(s_a, d, eta), b.update(s_b, d, eta)
            np.testing.assert_array_equal(s_a.w, s_b.w)
        np.testing.assert_array_equal(R.project(s_a.w + 0.1, theirs), R.project(s_a.w + 0.1,
                                                                                  ours))
        with pytest.raises(ValueError, match="n must be 4"):
            b.init(5)
    for bad, name in [(sets.Ball([0.0, 0.0], 1.0), "constraint"), ("simplex", "constraint"),
                      (sets.Box([0.0, 0.0], [1.0, 2.0]), "constraint")]:
        with pytest.raises(ValueError, match=name):
            mirror.MirrorDescent(R, bad, mode)
    with pytest.raises(ValueError, match="pre_constraint"):
        mirror.MirrorDescent(R, Simplex(), "active", pre_constraint=sets.Ball([0.0], 1.0))


@pytest.mark.parametrize("constraint", [Simplex(), CappedSimplex(cap=0.4), Simplex(scale=3.0)],
                         ids=_cid)
@pytest.mark.parametrize("mode", ["active", "lazy"])
def test_quadratic_weights_stay_in_the_set_for_any_finite_step(constraint, mode):
    """Issue 14 item 11: a step of 1e16 used to round the mass away (weights [0, 0, 0])."""
    rng = np.random.default_rng(11)
    md = mirror.MirrorDescent(QUADRATIC, constraint, mode)
    state = md.init(5)
    for eta in (1e16, 1e100, 1e300, 1.0, 1e-300, 1e16):
        d = rng.uniform(-1, 1, size=5)
        state = md.update(state, d, eta)
        assert constraint.contains(state.w)
        np.testing.assert_allclose(state.w.sum(), constraint.scale, rtol=1e-12)
    md = mirror.MirrorDescent(QUADRATIC, Simplex(), mode)
    state = md.update(md.init(3), np.array([1.0, -1.0, 1.0]), 1e16)
    np.testing.assert_allclose(state.w, [0.5, 0.0, 0.5])
    with pytest.raises(ValueError, match="eta"):  # eta * d overflows: refused, state unchanged
        md.update(state, np.array([2.0, -1.0, 1.0]), 1e308)


def test_long_lazy_entropy_run_with_large_edges_stays_finite():
    md = mirror.MirrorDescent(ENTROPY, CappedSimplex(cap=0.3), mode="lazy")
    state = md.init(5)
    d = np.array([1.0, 1.0, -1.0, 1.0, -1.0])
    for _ in range(10_000):  # |theta| grows to 1e7, as 1e6 steps with edges of 10 would
        state = md.update(state, d, 1000.0)
    assert np.abs(state.theta).max() >= 1e7
    assert np.all(np.isfinite(state.w)) and np.isclose(state.w.sum(), 1.0)
    np.testing.assert_allclose(state.w, [0.3, 0.3, 0.05, 0.3, 0.05])


def test_bad_update_leaves_state_untouched_and_updater_pickles():
    md = mirror.MirrorDescent(QUADRATIC, CappedSimplex(cap=0.5), mode="active",
                              pre_constraint=Box(0.0, 0.5))
    state = md.init(4)
    before = (state.t, state.theta.copy(), state.w.copy())
    assert before[0] == 0
    for d, eta, name in [([np.nan, 0, 0, 0], 1.0, "d must be finite with shape \\(4,\\)"),
                         ([1, 0, 0], 1.0, "d must be finite with shape \\(4,\\), got shape"),
                         ([1, 0, 0, 0], np.inf, "eta must be finite")]:
        with pytest.raises(ValueError, match=name):
            md.update(state, np.array(d, dtype=float), eta)
    assert state.t == before[0] and np.array_equal(state.theta, before[1])
    with pytest.raises(ValueError, match="cap"):
        md.init(1)  # the capped simplex is empty for n = 1, cap = 0.5
    for n in (0, 2.5, "4", True, np.True_):  # (a bool is not a count)
        with pytest.raises(ValueError, match="n must be an integer >= 1"):
            md.init(n)
        with pytest.raises(ValueError, match="n must be an integer >= 1"):
            mirror.MirrorDescent(ENTROPY, Simplex(), "lazy").init(n)
    clone = pickle.loads(pickle.dumps(md))
    d = np.array([1.0, -1.0, 0.5, 0.0])
    np.testing.assert_array_equal(clone.update(state, d, 0.3).w, md.update(state, d, 0.3).w)
    assert md.update(md.update(state, d, 0.3), d, 0.3).t == 2  # (one step a round)


def test_the_exact_capped_simplex_projection_is_the_projection():
    """The fallback for coordinates too far apart for y - tau (`_euclidean_capped_simplex_exact`)
    is the Euclidean projection onto {w : sum w = s, 0 <= w <= u}: on ordinary rows it is the
    sorting kernel of `onlineboost.sets`; on rows spanning 1e300 it still sums to s within
    bounds, with the largest coordinates at the cap, the smallest at 0 and the free ones
    differing as the y do (w = clip(y - tau, 0, u))."""
    from onlineboost.mirror import _euclidean_capped_simplex_exact as exact

    rng = np.random.default_rng(9)
    for _ in range(50):
        n = int(rng.integers(2, 9))
        scale = float(rng.uniform(0.5, 3.0))
        cap = float(rng.uniform(scale / n, scale)) * 1.0001
        y = rng.normal(size=n) * rng.choice([0.1, 1.0, 10.0])
        want = (sets.projection_capped_simplex(y, cap, scale) if cap < scale
                else sets.projection_simplex(y, scale))
        np.testing.assert_allclose(exact(y, min(cap, scale), scale), want, rtol=0, atol=1e-9)
    y = np.array([1e300, 2.5, 2.4, 1.0, -1e300, 0.9])
    w = exact(y, 0.4, 1.0)
    np.testing.assert_allclose(w, [0.4, 0.35, 0.25, 0.0, 0.0, 0.0], rtol=0, atol=1e-12)
    assert abs(w.sum() - 1.0) < 1e-12  # (tau = 2.15: 2.5 - tau and 2.4 - tau are free)
    # many coordinates between the far ends: those take the ordinary projection of what the
    # ends leave (the top one at the cap, the bottom one at 0), the split found by bisection
    for seed in range(5):
        mid = np.random.default_rng(seed).normal(size=60)
        y = np.concatenate([[1e300], mid, [-1e300]])
        w = exact(y, 0.05, 1.0)
        want = sets.projection_capped_simplex(mid, 0.05, 0.95)
        np.testing.assert_allclose(w, np.concatenate([[0.05], want, [0.0]]), rtol=0,
                                   atol=1e-12)


def test_a_pre_constraint_of_another_dimension_is_refused():
    """Sets that know their dimension must agree: a box over 4 coordinates before a simplex
    over 3 is refused by name; over 3 it is taken and the weights stay in both."""
    R = mirror.NegativeEntropy()
    with pytest.raises(ValueError, match="pre_constraint has dimension 4, constraint 3"):
        mirror.MirrorDescent(R, sets.Simplex(3), pre_constraint=sets.Box([0.0] * 4, [1.0] * 4))
    md = mirror.MirrorDescent(R, sets.Simplex(3), pre_constraint=sets.Box([0.0] * 3, [0.5] * 3))
    state = md.update(md.init(3), np.array([1.0, -1.0, 0.0]), 0.5)
    assert abs(state.w.sum() - 1.0) < 1e-9 and state.w.min() >= 0.0


@pytest.mark.parametrize("lo, hi", [(0.0, 0.3), (0.05, 0.6), (0.01, np.inf)])
def test_the_entropy_double_projection_is_clip_then_normalise(lo, hi):
    """Negative entropy with a box before the simplex (MadaBoost's double projection): the KL
    projection onto a box clips each coordinate of the mirror image exp(theta - 1), and the
    KL projection onto the simplex normalises; the log-domain path gives exactly that, for
    images far apart too."""
    md = mirror.MirrorDescent(mirror.NegativeEntropy(), Simplex(), mode="active",
                              pre_constraint=Box(lo, hi))
    rng = np.random.default_rng(12)
    for scale in (0.5, 3.0, 30.0):
        theta = rng.normal(size=5) * scale
        z = np.clip(np.exp(theta - 1.0), lo, hi)
        np.testing.assert_allclose(md.project(theta), z / z.sum(), rtol=1e-9, atol=1e-15)


def test_the_quadratic_double_projection_is_clip_then_the_euclidean_projection():
    """The quadratic regulariser's mirror image is theta itself: a box before the simplex
    clips it, then the Euclidean projection onto the simplex (the sorting kernel of
    `onlineboost.sets`)."""
    md = mirror.MirrorDescent(mirror.Quadratic(), Simplex(), mode="active",
                              pre_constraint=Box(0.1, 0.8))
    rng = np.random.default_rng(13)
    for _ in range(5):
        theta = rng.normal(size=5)
        want = sets.projection_simplex(np.clip(theta, 0.1, 0.8), 1.0)
        np.testing.assert_allclose(md.project(theta), want, rtol=1e-9, atol=1e-12)
