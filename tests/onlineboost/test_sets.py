from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from onlineboost import sets

DIMS = [1, 2, 5, 20]


def make_sets(d, rng):
    lo = rng.normal(size=d)
    yield sets.Box(lo, lo + rng.uniform(0.1, 3.0, size=d))
    yield sets.Ball(rng.normal(size=d), rng.uniform(0.5, 2.0))
    yield sets.Simplex(d)
    if d >= 2:
        yield sets.CappedSimplex(d, cap=rng.uniform(1.0 / d, 1.0))
        yield sets.CappedSimplex(d, cap=1.0 / d)  # a single point: the uniform vector
    if d == 1:
        yield sets.Interval(-1.0, 2.0)


def all_sets():
    rng = np.random.default_rng(0)
    return [K for d in DIMS for K in make_sets(d, rng)]


@pytest.fixture(params=all_sets(), ids=repr)
def K(request):
    return request.param


@pytest.mark.parametrize("scale", [1e-9, 1.0, 1e3, 1e9])
def test_projection_lands_in_K_and_is_idempotent(K, scale):
    rng = np.random.default_rng(1)
    x = K.centroid + scale * rng.normal(size=(500, K.dim))
    p = K.project(x)
    assert p.shape == x.shape
    assert np.all(K.contains(p, atol=1e-9))
    np.testing.assert_allclose(K.project(p), p, atol=1e-9 * max(1.0, K.diameter))


def test_projection_is_non_expansive(K):
    rng = np.random.default_rng(2)
    x, y = rng.normal(scale=3, size=(2, 1000, K.dim)) + K.centroid
    lhs = np.linalg.norm(K.project(x) - K.project(y), axis=-1)
    assert np.all(lhs <= np.linalg.norm(x - y, axis=-1) + 1e-10)


def test_variational_inequality(K):
    """<x - P(x), k - P(x)> <= 0 for every k in K: P(x) is the optimal point."""
    rng = np.random.default_rng(3)
    x = K.centroid + rng.normal(scale=5, size=(200, K.dim))
    p = K.project(x)
    k = K.sample(300, rng)
    inner = np.einsum("nd,mnd->mn", x - p, k[:, None, :] - p[None, :, :])
    assert inner.max() <= 1e-9 * max(1.0, np.abs(x).max()) ** 2


def _scipy_projection(K, x):
    d = K.dim
    cons = []
    bounds = None
    if isinstance(K, sets.Box):
        bounds = list(zip(K._lo, K._hi))
    elif isinstance(K, sets.Ball):
        cons = [{"type": "ineq", "fun": lambda p: K.radius**2 - np.sum((p - K._center) ** 2)}]
    else:  # (capped) simplex
        bounds = [(0.0, min(K.cap, 1.0))] * d
        cons = [{"type": "eq", "fun": lambda p: p.sum() - 1.0}]
    res = optimize.minimize(
        lambda p: 0.5 * np.sum((p - x) ** 2), K.centroid, jac=lambda p: p - x,
        bounds=bounds, constraints=cons, method="SLSQP", options={"ftol": 1e-14, "maxiter": 500},
    )
    return res.x


def test_projection_agrees_with_scipy(K):
    rng = np.random.default_rng(4)
    for _ in range(5):
        x = K.centroid + rng.normal(scale=2, size=K.dim)
        p = K.project(x)
        q = _scipy_projection(K, x)
        # ours is optimal, so it is never farther than scipy's (which may step 1e-8 outside K)
        assert np.sum((p - x) ** 2) <= np.sum((q - x) ** 2) + 1e-6
        np.testing.assert_allclose(p, q, atol=1e-5)


def test_ties_and_single_points():
    # all-equal input: the projection onto the simplex is the uniform vector
    np.testing.assert_allclose(sets.projection_simplex(np.full(7, 3.3)), np.full(7, 1 / 7))
    x = np.array([5.0, 5.0, 5.0, 0.0])
    np.testing.assert_allclose(sets.projection_capped_simplex(x, cap=0.4), np.r_[[1 / 3] * 3, 0])
    np.testing.assert_allclose(sets.projection_capped_simplex(x, cap=0.3), [0.3, 0.3, 0.3, 0.1])
    # a scalar on an interval stays a scalar
    assert sets.Interval(0, 1).project(2.0).shape == ()


def test_distance_matches_projection(K):
    rng = np.random.default_rng(5)
    x = rng.normal(scale=4, size=(50, K.dim))
    np.testing.assert_allclose(K.distance(x), np.linalg.norm(x - K.project(x), axis=-1))
    assert np.all(K.distance(K.sample(50, rng)) <= 1e-9)


def test_diameter_and_centroid(K):
    rng = np.random.default_rng(6)
    pts = K.sample(600, rng)
    assert np.all(K.contains(pts))
    spread = np.linalg.norm(pts[:, None] - pts[None], axis=-1).max()
    assert spread <= K.diameter + 1e-9
    np.testing.assert_allclose(pts.mean(0), K.centroid, atol=0.1 * max(K.diameter, 1e-3))


def _capped_simplex_vertices(d, cap):
    """Every vertex of {w : 0 <= w_i <= cap, sum w = 1}, by enumeration (not `_vertex`): d - 1
    coordinates at one of their bounds, the last fixed by the sum and kept if within its own."""
    import itertools

    out = set()
    for free in range(d):
        others = [i for i in range(d) if i != free]
        for at in itertools.product((0.0, cap), repeat=d - 1):
            w = np.zeros(d)
            w[others] = at
            w[free] = 1.0 - sum(at)
            if -1e-12 <= w[free] <= cap + 1e-12:
                out.add(tuple(np.round(w, 12)))
    return out


@pytest.mark.parametrize("d, cap", [(3, 0.4), (4, 0.3), (5, 0.25), (5, 0.5), (4, 1.0),
                                    (3, 1.5), (4, 0.25), (3, 0.34), (6, 0.45)])
def test_capped_simplex_diameter_brute_force(d, cap):
    """The diameter is the largest distance between two vertices, the vertices enumerated from
    the constraints (a cap above 1 is the simplex; cap 1/d the single point)."""
    verts = np.array(sorted(_capped_simplex_vertices(d, cap)))
    brute = np.linalg.norm(verts[:, None] - verts[None], axis=-1).max()
    assert sets.CappedSimplex(d, cap).diameter == pytest.approx(brute, abs=1e-12)


@pytest.mark.parametrize("cap", [0.4, 0.7])
def test_capped_simplex_samples_are_uniform(cap, monkeypatch):
    """Uniform on the capped simplex: against a rejection sample from the uniform simplex
    (Dirichlet(1)), by two-sample Kolmogorov-Smirnov on seeded draws, every coordinate's law
    and the laws of the distance from the centre (Euclidean and largest coordinate). At cap 0.4
    only 4% of the simplex is in the set, so `sample` walks (hit and run; its draws are
    correlated, hence the lower bar for the coordinates); at 0.7, 73%, so it rejects."""
    from scipy import stats

    K = sets.CappedSimplex(3, cap)
    walks = []
    walk = K._hit_and_run
    monkeypatch.setattr(K, "_hit_and_run", lambda *a, **k: walks.append(1) or walk(*a, **k))
    X = K.sample(4000, np.random.default_rng(0))
    assert len(walks) == (cap < 0.5)
    assert X.shape == (4000, 3) and np.all(K.contains(X))
    Z = np.random.default_rng(1).dirichlet(np.ones(3), 400_000)
    Z = Z[(Z <= cap).all(axis=1)]
    for j in range(3):
        assert stats.ks_2samp(X[:, j], Z[:, j]).pvalue > 0.005
    for spread in (lambda W: np.linalg.norm(W - 1 / 3, axis=1),
                   lambda W: np.abs(W - 1 / 3).max(axis=1)):
        assert stats.ks_2samp(spread(X), spread(Z)).pvalue > 0.01


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: sets.Interval(1.0, 0.0), "lo"),
        (lambda: sets.Interval(float("nan"), 0.0), "lo"),
        (lambda: sets.Box([0.0, 0.0], [1.0]), "lo and hi"),
        (lambda: sets.Ball([0.0], 0.0), "radius"),
        (lambda: sets.Ball([0.0], -1.0), "radius"),
        (lambda: sets.Simplex(0), "d"),
        (lambda: sets.CappedSimplex(4, 0.2), "cap"),
    ],
)
def test_invalid_sets_raise(make, match):
    with pytest.raises(ValueError, match=match):
        make()


@pytest.mark.parametrize("bad", [[np.nan, 0.0], [np.inf, 0.0], [0.0, 0.0, 0.0]])
def test_bad_points_raise(bad):
    K = sets.Box([0.0, 0.0], [1.0, 1.0])
    with pytest.raises(ValueError, match="x"):
        K.project(bad)
    with pytest.raises(ValueError, match="x"):
        K.distance(bad)


# -- every finite input, up to the largest double (issue 14, item 11) ---------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

HUGE_SETS = [sets.Simplex(3), sets.Simplex(5), sets.CappedSimplex(4, 0.3),
             sets.CappedSimplex(3, 0.5), sets.CappedSimplex(5, 0.2), sets.Ball([0.0, 0.0], 1.0),
             sets.Ball([1.0, -2.0, 0.5], 3.0), sets.Box([0.0, -1.0], [1.0, 1.0]),
             sets.Interval(-2.0, 5.0)]
finite = st.floats(allow_nan=False, allow_infinity=False)  # every magnitude up to 1.8e308
magnitudes = st.sampled_from([0.0, 1.0, -1.0, 1e16, -1e16, 1e300, -1e300, 1.7976931348623157e308,
                              -1.7976931348623157e308, 5e-324])


@pytest.mark.parametrize("K", HUGE_SETS, ids=repr)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_projection_of_any_finite_point_is_finite_and_in_K(K, data):
    x = np.array(data.draw(st.lists(st.one_of(finite, magnitudes), min_size=K.dim,
                                    max_size=K.dim)), dtype=np.float64)
    p = K.project(x)
    assert np.all(np.isfinite(p))
    assert K.contains(p, atol=1e-9)
    np.testing.assert_allclose(K.project(p), p, atol=1e-9 * max(1.0, K.diameter))


@pytest.mark.parametrize("x, expected", [
    ([1e16, 0.0, 0.0], [1.0, 0.0, 0.0]),
    ([1e308, -1e308, 0.0], [1.0, 0.0, 0.0]),
    ([1.7e308, 1.7e308, -1.7e308], [0.5, 0.5, 0.0]),
    ([1e16 + 2.0, 1e16, 0.0], [1.0, 0.0, 0.0]),  # 1e16 + 2 - 1e16 = 2 > 1: the first only
])
def test_simplex_projection_of_huge_points_is_exact(x, expected):
    np.testing.assert_allclose(sets.Simplex(3).project(x), expected, atol=1e-15)


def test_capped_simplex_and_ball_at_1e300():
    np.testing.assert_allclose(sets.CappedSimplex(4, 0.3).project([1e300, 0.0, 0.0, 0.0]),
                               [0.3, 0.7 / 3, 0.7 / 3, 0.7 / 3], atol=1e-12)
    np.testing.assert_allclose(sets.CappedSimplex(3, 0.5).project([1e308, 1e308, -1e308]),
                               [0.5, 0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(sets.Ball([0.0, 0.0], 2.0).project([1e300, -1e300]),
                               [np.sqrt(2.0), -np.sqrt(2.0)], rtol=1e-12)


def test_public_bounds_and_unchecked_projection():
    K = sets.Box([0.0, -1.0], [1.0, 2.0])
    np.testing.assert_array_equal(K.lower, [0.0, -1.0])
    np.testing.assert_array_equal(K.upper, [1.0, 2.0])
    with pytest.raises(ValueError):
        K.lower[0] = 5.0  # read-only: the set cannot be changed through it
    assert sets.Interval(-1, 3).bounds == (-1.0, 3.0)
    x = np.array([[2.0, 5.0], [-1.0, 0.0]])
    np.testing.assert_array_equal(K.project_unchecked(x), K.project(x))


# -- the simplex's plain-float kernel on a few short rows (issue 15, item 5) --------------------


def _kernel_rows(rng, d, n):
    """`n` rows of dimension `d` of one of seven kinds: near the simplex at four spreads, ties
    (one decimal), zeros, all-equal rows, points of the simplex, huge entries, a few values."""
    kind = int(rng.integers(7))
    X = 1.0 / d + rng.normal(size=(n, d)) * rng.choice([0.01, 0.3, 1.0, 30.0])
    if kind == 1:
        X = np.round(X, 1)
    elif kind == 2:
        X[:, rng.random(d) < 0.5] = 0.0
    elif kind == 3:
        X = np.tile(X[:, :1], (1, d))
    elif kind == 4:
        X = rng.dirichlet(np.ones(d), size=n)
    elif kind == 5:
        X = rng.normal(size=(n, d)) * 1e16
    elif kind == 6:
        X = rng.choice([0.0, 1.0, -1.0, 0.5], size=(n, d))
    return X


def _numpy_path(X):
    """The vectorised path of `projection_simplex` for every row of `X`: each row repeated so
    that the stack has more rows than the plain-float kernel takes."""
    k = sets._ROWS + 1
    return sets.projection_simplex(np.repeat(X, k, axis=0))[::k]


def test_simplex_kernel_agrees_with_the_numpy_path_on_a_few_short_rows():
    """Up to 10 rows and 100 entries `projection_simplex` runs the plain-float kernel row by row
    (its numbers bit for bit); they are the numpy path's to the last bit (one ulp of 1), in the
    simplex, for dims 2..70 with ties, zeros, points of K and huge entries. A capped simplex
    with cap >= 1 is the simplex (same numbers); with cap < 1 it keeps its own kernel."""
    rng = np.random.default_rng(15)
    for d in range(2, 71):
        for _ in range(4):
            n = int(rng.integers(1, min(sets._ROWS, sets._SMALL // d) + 1))
            X = _kernel_rows(rng, d, n)
            P = sets.projection_simplex(X)
            rows = [sets._projection_simplex_row(z, 1.0) for z in X.tolist()]
            np.testing.assert_array_equal(P, rows)
            np.testing.assert_allclose(P, _numpy_path(X), rtol=0, atol=2.0**-52)
            assert np.all(P >= 0.0)
            np.testing.assert_allclose(P.sum(axis=-1), 1.0, rtol=0, atol=d * 2.0**-52)
            np.testing.assert_array_equal(sets.CappedSimplex(d, 1.5).project_unchecked(X), P)
            np.testing.assert_array_equal(sets.CappedSimplex(d, 1.5).project_row_unchecked(
                X[0].tolist()), P[0])
            cap = 1.5 / d
            Q = sets.CappedSimplex(d, cap).project_unchecked(X)
            np.testing.assert_array_equal(Q, sets.projection_capped_simplex(X, cap))
            assert np.all(Q <= cap * (1 + 1e-12))


def test_simplex_kernel_agrees_with_scipy_on_stacks():
    """The oracle beside the numpy path: scipy's SLSQP on the rows of small stacks."""
    rng = np.random.default_rng(16)
    for d, n in [(2, 10), (7, 5), (10, 5), (33, 3), (70, 1)]:
        K = sets.Simplex(d)
        X = K.centroid + rng.normal(size=(n, d)) * 0.5
        X[0, : d // 2] = X[0, 0]  # ties
        P = K.project_unchecked(X)
        for x, p in zip(X, P):
            np.testing.assert_allclose(p, _scipy_projection(K, x), atol=1e-6)


@pytest.mark.parametrize("shape, kernel", [
    ((100,), True), ((1, 100), True), ((10, 10), True), ((5, 20), True), ((5, 10), True),
    ((48, 1), True), ((16, 3), True),
    ((101,), False), ((11, 9), False), ((2, 51), False), ((25, 2), False), ((2, 3, 4), False),
])
def test_simplex_kernel_takes_a_few_short_rows_only(monkeypatch, shape, kernel):
    """The dispatch that BoBLO's speed rests on: N = 5 copies on 10 arms (5 x 10, three
    projections a round) and up to 10 rows of 100 entries go to the plain-float kernel, larger
    stacks to numpy (where its dozen calls cost less than the Python loop), except that any
    stack of at most 48 entries stays with the kernel (the rule before: its numbers kept)."""
    calls = []
    small = sets._projection_simplex_small
    monkeypatch.setattr(sets, "_projection_simplex_small",
                        lambda x, scale: calls.append(x.shape) or small(x, scale))
    x = np.random.default_rng(0).normal(size=shape)
    p = sets.projection_simplex(x)
    assert bool(calls) is kernel
    np.testing.assert_allclose(p.sum(axis=-1), 1.0, atol=1e-14)


def test_a_degenerate_box_coordinate_and_a_one_point_interval_are_sets():
    # lo <= hi coordinate-wise, equality included: a coordinate pinned to one value
    K = sets.Box([0.0, 1.0], [0.0, 2.0])
    np.testing.assert_array_equal(K.project([5.0, 5.0]), [0.0, 2.0])
    assert float(sets.Interval(1.0, 1.0).project(-3.0)) == 1.0


@pytest.mark.parametrize("lo, hi", [([0.0], 1.0), (0.0, [1.0]), ([0.0], [1.0])])
def test_an_interval_takes_scalars_only(lo, hi):
    with pytest.raises(ValueError, match="scalars"):
        sets.Interval(lo, hi)


def test_membership_tolerance_scales_with_the_set():
    """`contains` allows `atol` times the set's scale (its diameter here): a point 1e-8
    outside a ball of diameter 100 is in it, one 1e-6 outside is not."""
    K = sets.Ball([0.0, 0.0], 50.0)
    assert K.diameter == 100.0  # (2 R)
    assert K.contains([50.0 + 1e-8, 0.0]) and not K.contains([50.0 + 1e-6, 0.0])


@pytest.mark.parametrize("d", [1, 3, 6])
def test_ball_samples_are_uniform_in_the_ball(d):
    """Uniform in a ball of radius R: P(|x - c| <= s R) = s^d, and every direction alike
    (a seeded draw, so the p-values are fixed numbers, not a chance failure)."""
    from scipy import stats

    K = sets.Ball(np.full(d, 2.0), 3.0)
    X = K.sample(4000, np.random.default_rng(d))
    r = np.linalg.norm(X - 2.0, axis=1) / 3.0
    assert r.max() <= 1.0
    assert stats.kstest(r, lambda s: np.clip(s, 0.0, 1.0) ** d).pvalue > 0.01
    if d > 1:  # directions: the mean unit vector is near 0
        u = (X - 2.0) / (r[:, None] * 3.0)
        assert np.abs(u.mean(axis=0)).max() < 4.0 / np.sqrt(4000)


@pytest.mark.parametrize("scale, cap", [(1.0, 0.3), (2.0, 0.5), (1.0, 1.0)])
def test_capped_projection_breakpoints_solve_ordinary_rows_and_bisection_agrees(scale, cap,
                                                                               monkeypatch):
    """The capped projection's exact breakpoint search solves ordinary rows on its own (the
    bisection is the fallback for breakpoints rounded together only), and the bisection, a
    different algorithm, gives the same projection."""
    X = np.random.default_rng(7).normal(scale=3.0, size=(300, 6))
    P = sets._bisect_capped(X, scale, cap)
    np.testing.assert_allclose(P.sum(axis=1), scale)
    assert np.all((P >= 0.0) & (P <= cap))

    def refuse(*args):
        raise AssertionError("the bisection ran on an ordinary row")

    monkeypatch.setattr(sets, "_bisect_capped", refuse)
    np.testing.assert_allclose(sets.projection_capped_simplex(X, cap, scale), P, atol=1e-12)
