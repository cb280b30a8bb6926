"""BoBLO's compiled round (`onlineboost._kernels`, issue 13, speed) against the numpy fused
round it transcribes: the same laws, estimates and states to rounding (the dot products sum in
another order than numpy's BLAS), the same arms on seeded passes, the same refusals with the
state unchanged, and the paths interchangeable from round to round."""

from __future__ import annotations

import copy
import math
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
from river import datasets
from sklearn.datasets import load_digits

import learners
from onlineboost import BoBLO, _kernels, sets
from onlineboost.boblo import DEFAULT_LEARNER, FIXED_WEIGHT_LEARNER
from streams import ClassificationBandit, LinearBandit
from tests.helpers import shifting_context

warnings.filterwarnings("ignore", category=RuntimeWarning)

pytestmark = pytest.mark.skipif(not _kernels.AVAILABLE, reason="numba is not installed")

# the development streams' shapes, (d, k) = (10, 5), (19, 7), (64, 10), over full passes
STREAMS = {
    "LinearBandit": lambda seed: LinearBandit(d=10, k=5, noise=0.5, seed=seed, n_rounds=3000),
    "ImageSegments": lambda seed: ClassificationBandit(datasets.ImageSegments(), seed=seed),
    "digits": lambda seed: ClassificationBandit(load_digits(), seed=seed),
}
TOL = 1e-12
#: a copy with its own random features: its correction over (1, 64 Fourier features of c, c),
#: forgetting 0.995 (the eighth session's default; `BoBLO()`'s own, 128 features without
#: forgetting, runs in the "defaults" cases: both of the kernels' ridge steps are covered)
_RFF = {**FIXED_WEIGHT_LEARNER, "n_features": 64, "bandwidth": 1.0, "forget": 0.995}
#: the pull kernel of the defaults (a copy with its own features, on the penalty mixture)
PULL = "pull_round_features"


def _numpy(policy):
    policy._JIT = False
    return policy


def _rel(a, b) -> float:
    """Norm-wise relative difference, max |a - b| / max |b|."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if not b.size:
        return 0.0 if not a.size else math.inf
    scale = np.abs(b).max()
    return float(np.abs(a - b).max() / scale) if scale else float(np.abs(a).max())


def _state_gaps(a, b) -> dict:
    """The relative gaps between two policies' learnt states."""
    ma, mb = a._model, b._model
    ca, cb = a.booco.copies, b.booco.copies
    sa, sb = a._reader._current_stats(), b._reader._current_stats()
    model = ({"model G": _rel(ma.G, mb.G), "model weights": _rel(ma.weights, mb.weights),
              "model errors": _rel(ma.loss, mb.loss)} if hasattr(ma, "G") else
             {"model P": _rel(ma.P, mb.P), "model theta": _rel(ma.theta, mb.theta)})
    weight = ({"learnt weight": _rel([ca.weight, ca._weight_sq], [cb.weight, cb._weight_sq])}
              if getattr(ca, "learn_weight", None) is not None else {})
    return {**model, "learner P": _rel(ca._P, cb._P),
            "learner theta": _rel(ca._theta, cb._theta),
            "kappa": _rel(a.booco._kappa, b.booco._kappa),
            "scaler": max(_rel(sa.mean, sb.mean), _rel(sa.var, sb.var)), **weight}


def _play_side_by_side(kernel, numpy, stream, rounds=None, check=None):
    """Both policies play `stream`, fed the same arm (the kernel's; the numpy twin's pending arm
    is set to it if its own draw differs). Returns the largest law and estimate gaps and how
    many draws differed; `check(t)` runs after round t."""
    law = cost = 0.0
    flips = n = 0
    for context, arm_ids in stream:
        arm = kernel.pull(arm_ids, context)
        if numpy.pull(arm_ids, context) != arm:
            flips += 1
            i = arm_ids.index(arm)
            numpy._pending = (numpy._pending[:2] + (i, None, numpy._arm_probabilities[i])
                              + numpy._pending[5:])
        law = max(law, _rel(kernel.arm_probabilities, numpy.arm_probabilities))
        reward = stream.reward(arm)
        kernel.update(arm, context, reward)
        numpy.update(arm, context, reward)
        cost = max(cost, _rel(kernel.last_cost_vector, numpy.last_cost_vector))
        n += 1
        if check is not None:
            check(n)
        if rounds is not None and n >= rounds:
            break
    return law, cost, flips


@pytest.mark.parametrize("name", ["LinearBandit", "digits", "ImageSegments"])
def test_the_kernel_agrees_with_the_numpy_round_over_full_passes(name):
    """Defaults (the annealed softmax, t0 = 50: the kernel plays at the copy's clock), seed 0
    of each stream, every round: laws and estimates to 1e-12 (norm-wise relative), the same
    arm every round, the learnt states to 1e-12. On ImageSegments only the
    first 1,000 rounds are held to 1e-12: its contexts have collinear columns, whose directions
    the forgetting learner never sees, so its inverse Gram matrix grows there as 0.995^-t and
    any rounding difference grows with it. One ulp added to one entry of the numpy round's own
    state at round 200 moves its law by 4e-11 and its weights by 1e-10 by the end of the pass,
    as the kernel's summation order does; the full pass is held to 1e-9 there. The learner is
    `BoBLO()`'s to the twentieth session, its correction's weight fixed at 1; the weight learnt
    (the default since): `test_the_default_with_its_learnt_weight_agrees_over_full_passes`."""
    fixed = learners.FeaturePolicy(**FIXED_WEIGHT_LEARNER)
    kernel, numpy = BoBLO(fixed, seed=1), _numpy(BoBLO(fixed, seed=1))
    early = {}

    def check(t):
        if t == 1000:
            early.update(_state_gaps(kernel, numpy))

    law, cost, flips = _play_side_by_side(kernel, numpy, STREAMS[name](0), check=check)
    assert kernel._jit and kernel._rounds == numpy._rounds
    copies = kernel.booco.copies
    assert copies.t0 == FIXED_WEIGHT_LEARNER["t0"] == 50.0 and copies.min_temperature is None
    assert copies._t == numpy.booco.copies._t == kernel._rounds  # (the clock moved every round)
    assert flips == 0
    assert early and max(early.values()) <= TOL, early
    final = _state_gaps(kernel, numpy)
    tol = 1e-9 if name == "ImageSegments" else TOL
    assert law <= tol and cost <= tol, (law, cost)
    assert max(final.values()) <= tol, final
    assert final["scaler"] == 0.0  # (element-wise: the same operations, the same floats)


@pytest.mark.parametrize("name", ["LinearBandit", "digits", "ImageSegments"])
def test_the_default_with_its_learnt_weight_agrees_over_full_passes(name):
    """`BoBLO()` itself, its correction's weight learnt: the same arm every round, the weight and
    its AdaGrad sum to 1e-9, laws and estimates to 1e-7. Looser than the fixed weight's 1e-12
    for a measured reason: the weight's gradient is a difference of nearly equal costs
    ($\\hat g_a - \\bar g$), so the two summation orders' rounding reaches it at 1e-13 in
    the first rounds and its AdaGrad steps carry it (1e-10 by round 600 on digits), and the law
    is $1/\\tau_t$-sensitive to the weight ($\\tau_t$ falls to 0.006 by round 500): 1e-9 over 600
    rounds of digits (seed 2, one penalty, optimism 0.1) where the fixed weight gives 4e-14."""
    kernel, numpy = BoBLO(seed=1), _numpy(BoBLO(seed=1))
    law, cost, flips = _play_side_by_side(kernel, numpy, STREAMS[name](0))
    a, b = kernel.booco.copies, numpy.booco.copies
    assert kernel._jit and flips == 0 and a.learn_weight == DEFAULT_LEARNER["learn_weight"]
    assert a.weight != 1.0
    assert a.weight == pytest.approx(b.weight, rel=1e-9, abs=1e-12)
    assert a._weight_sq == pytest.approx(b._weight_sq, rel=1e-9)
    assert law <= 1e-7 and cost <= 1e-7, (law, cost)


@pytest.mark.parametrize("kw", [{"optimism": 0.05}, {"implicit": "sqrt", "exploration": 0.05},
                                {"transformer": None}, {"model_l2": (1.0, 5.0, 20.0)},
                                {"model_l2": 20.0}, {"model_l2": 5.0, "optimism": 0.1},
                                {"learner": learners.FeaturePolicy(
                                    l2=5.0, temperature=0.1, forget=1.0, n_features=0,
                                    on_model=True)},
                                {"learner": learners.FeaturePolicy(
                                    **{**DEFAULT_LEARNER, "min_temperature": 0.01})},
                                {"learner": learners.FeaturePolicy(
                                    **{**DEFAULT_LEARNER, "t0": None})},
                                {"learner": learners.FeaturePolicy(**_RFF)},
                                {"learner": learners.FeaturePolicy(**{**_RFF, "kind": "relu"}),
                                 "optimism": 0.05},
                                {"learner": learners.FeaturePolicy(**_RFF), "model_l2": 20.0}],
                         ids=["optimism", "sqrt", "no-scaler", "three-penalties",
                              "one-penalty", "one-penalty-optimism",
                              "other-learner-parameters", "annealed-floored",
                              "fixed-temperature", "fourier-features", "relu-features",
                              "fourier-features-one-penalty"])
@pytest.mark.parametrize("name", ["LinearBandit", "digits"])
def test_the_kernel_takes_every_parameter_from_the_state(name, kw):
    """Other values of what the kernels take as inputs (optimism, the implicit exploration's
    schedule and the exploration, no scaler, three penalties, one penalty (the
    `_ArmRidge` kernels), the learner's penalty, temperature and forgetting, the default's
    annealed softmax with a floor, reached at t = 50 ((0.02 / 0.01)^2 - 1) = 150, and at a
    fixed temperature, t0 None; a copy with its own 64 random Fourier or ReLU features, the
    `*_features` kernels, on the mixture or one penalty): the same agreement over 600 rounds."""
    kernel, numpy = BoBLO(seed=2, **kw), _numpy(BoBLO(seed=2, **kw))
    law, cost, flips = _play_side_by_side(kernel, numpy, STREAMS[name](1), rounds=600)
    copies = kernel.booco.copies
    # (a copy with its own features takes the model's costs, whose sums differ from numpy's
    # in order, into 75 columns learnt under forgetting: the rounding drifts further there)
    tol = TOL if copies._shared else 1e-10
    if copies.learn_weight is not None:  # (the default's learnt weight: the full passes' reason)
        tol = 1e-7
    assert kernel._jit and flips == 0
    assert law <= tol and cost <= tol
    assert max(_state_gaps(kernel, numpy).values()) <= tol
    assert copies._t == numpy.booco.copies._t == 600
    if copies.min_temperature is not None:  # (the floor reached: the kernel played at it)
        assert copies.inverse_temperature() == 1.0 / copies.min_temperature
    assert copies._shared == (copies.n_features == 0)  # (the features' kernels ran otherwise)


@pytest.mark.parametrize("kw", [{}, {"learner": learners.FeaturePolicy(**_RFF)}],
                         ids=["defaults", "fourier-features"])
def test_the_paths_are_interchangeable_round_by_round_and_through_pickles(kw):
    """Switching the kernels off and on every few rounds, and a pickle round trip mid-stream,
    play what the numpy round plays (to rounding); a pickle of a kernel-run policy is the same
    layout as the numpy round's (it loads and goes on on either path). With random features
    the numpy round caches the round's features between its pull and its update: a kernel
    update drops that cache, so no later numpy round reads a stale one."""
    stream = STREAMS["LinearBandit"](2)
    policy, numpy = BoBLO(seed=3, **kw), _numpy(BoBLO(seed=3, **kw))
    for t, (context, arm_ids) in enumerate(stream):
        if t == 700:
            policy = pickle.loads(pickle.dumps(policy))
        policy._JIT = (t // 7) % 2 == 0
        arm = policy.pull(arm_ids, context)
        assert numpy.pull(arm_ids, context) == arm
        assert _rel(policy.arm_probabilities, numpy.arm_probabilities) <= TOL
        if t % 11 == 0:
            policy._JIT = not policy._JIT  # (the update on the other path than the pull)
        reward = stream.reward(arm)
        policy.update(arm, context, reward)
        numpy.update(arm, context, reward)
        if t == 1500:
            break
    assert max(_state_gaps(policy, numpy).values()) <= TOL
    clone = _numpy(pickle.loads(pickle.dumps(policy)))
    assert set(vars(clone)) == set(vars(numpy)) | {"_JIT"}


def test_new_and_missing_features_mid_stream_take_the_numpy_round_then_the_kernel(monkeypatch):
    """A context with a new feature (the model and the learner grow), one with a feature
    missing, one in another key order: the numpy round plays them, the kernel the next usual
    rounds, and the two policies stay together (values as floats or numpy scalars)."""
    rng = np.random.default_rng(0)
    kernel, numpy = BoBLO(seed=4), _numpy(BoBLO(seed=4))
    played = []  # (the rounds the kernel played: the status of every pull_round call)
    pull_round = getattr(_kernels, PULL)
    monkeypatch.setattr(_kernels, PULL,
                        lambda *args: played.append(pull_round(*args)) or played[-1])
    for t in range(400):
        c = shifting_context(rng, t)
        arm = kernel.pull([0, 1, 2], c)
        assert numpy.pull([0, 1, 2], c) == arm
        assert _rel(kernel.arm_probabilities, numpy.arm_probabilities) <= TOL
        reward = float(rng.random() < 0.3 + 0.2 * arm)
        kernel.update(arm, c, reward)
        numpy.update(arm, c, reward)
    assert kernel._model.G.shape[-1] == 5  # (1, a, b, c, d)
    assert sum(map(bool, played)) > 300  # (all but the warm-up and the changed keys' rounds)
    assert max(_state_gaps(kernel, numpy).values()) <= TOL


def test_bad_input_on_the_kernel_round_raises_the_same_error_and_changes_nothing():
    """Past the warm-up, on the kernel's round: every bad context value (NaN, inf, beyond
    1e100, an int beyond the float range, a string, None, a bool), a law or an estimate that is
    not finite, is refused with the numpy round's ValueError, the pickled state unchanged."""
    rng = np.random.default_rng(1)
    policy = BoBLO(seed=5)

    def context():
        return {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=4))}

    for _ in range(40):
        c = context()
        policy.update(policy.pull([0, 1, 2], c), c, float(rng.random()))
    assert policy._jit
    c = context()
    before = pickle.dumps(policy)
    for bad in (math.nan, math.inf, -1e101, 10**400, "1", None):
        with pytest.raises(ValueError, match=r"context\['c1'\]"):
            policy.pull([0, 1, 2], {**c, "c1": bad})
        assert pickle.dumps(policy) == before
    # a law that is not finite (the learner's costs are): the numpy round's own refusal
    # (the projection's, which does not name the context; the general round's too)
    for jit in (False, True):
        copy = pickle.loads(before)
        copy._JIT = jit
        copy.booco.copies._theta[0][:, 0] = np.inf
        state = pickle.dumps(copy)
        with pytest.raises(ValueError, match="must be finite"):
            copy.pull([0, 1, 2], c)
        assert pickle.dumps(copy) == state
    # an estimate that is not finite (the model's, after the pull)
    arm = policy.pull([0, 1, 2], c)
    policy._model.G[:, :, -1, 0] = np.inf
    state = pickle.dumps(policy)
    with pytest.raises(ValueError, match="loss model's prediction is not finite"):
        policy.update(arm, c, 0.5)
    assert pickle.dumps(policy) == state


def test_a_copy_with_its_own_features_plays_on_the_features_kernels(monkeypatch):
    """`FeaturePolicy(n_features=64)` on the model: past the first round every pull and update
    is the features kernels' (on the mixture and on one penalty), not a fallback to the numpy
    round."""
    statuses = {}
    for name in ("pull_round_features", "update_round_features", "pull_round_ridge_features",
                 "update_round_ridge_features"):
        real = getattr(_kernels, name)

        def spy(*args, _real=real, _name=name):
            out = _real(*args)
            statuses.setdefault(_name, []).append(out if _name.startswith("pull") else out[0])
            return out
        monkeypatch.setattr(_kernels, name, spy)
    for kw, kind in (({}, ""), ({"model_l2": 20.0}, "ridge_")):
        policy = BoBLO(seed=4, learner=learners.FeaturePolicy(**_RFF), **kw)
        for t, (context, arm_ids) in enumerate(STREAMS["digits"](0)):
            policy.update(policy.pull(arm_ids, context), context, 0.5)
            if t == 299:
                break
        pulls = statuses[f"pull_round_{kind}features"]
        updates = statuses[f"update_round_{kind}features"]
        # (round 1's pull is the general path's, which builds the booster; its update finds a
        # learner that knows no column yet and goes to numpy, which grows it)
        assert len(pulls) == 299 and all(pulls)
        assert len(updates) == 300 and all(updates[1:]) and not updates[0]
        assert policy.booco.copies._round is None  # (the last update dropped the cache)


def _ulps(a, b) -> np.ndarray:
    """|a - b| in units in the last place of b (of the smallest normal where b is 0)."""
    return np.abs(a - b) / np.spacing(np.maximum(np.abs(b), np.finfo(float).tiny))


def test_the_vectorised_cosine_is_within_one_ulp_of_math_cos():
    """`_cos_scaled` (fdlibm's reduction and kernels, no call in the loop) against `math.cos`,
    the libm the general path calls, element by element: over the features' usual arguments,
    up to `_COS_SPAN`, near the zeros of the cosine (where the reduction's tails matter:
    without them this test failed by 25,533 ulp there) and at the quadrant boundaries; the
    scale applied after; NaN stays NaN."""
    rng = np.random.default_rng(0)
    k = np.arange(-20_000, 20_000)
    y = np.concatenate([
        rng.normal(scale=10.0, size=200_000),
        rng.uniform(-_kernels._COS_SPAN, _kernels._COS_SPAN, size=100_000),
        (k + 0.5) * math.pi + rng.normal(scale=1e-9, size=k.size),  # near the zeros
        k * (math.pi / 4),  # the quadrants' boundaries, where the reduction's rounding flips
        [0.0, -0.0, 1e-300, math.pi / 2, _kernels._COS_SPAN, -_kernels._COS_SPAN]])
    got = y.copy()
    _kernels._cos_scaled(got, 0, y.size, 1.0)
    want = np.array([math.cos(v) for v in y])
    assert _ulps(got, want).max() <= 1.0
    assert (got == want).mean() > 0.5  # (mostly the same float)
    scaled, head = y[:1000].copy(), y[:3].copy()
    _kernels._cos_scaled(scaled, 0, 1000, _kernels._SQRT2)
    np.testing.assert_array_equal(scaled, got[:1000] * _kernels._SQRT2)
    _kernels._cos_scaled(head, 1, 2, 1.0)  # (only [lo, hi) is written)
    assert head[0] == y[0] and head[2] == y[2] and head[1] == got[1]
    odd = np.array([math.nan, 0.5])
    _kernels._cos_scaled(odd, 0, 2, 1.0)
    assert math.isnan(odd[0]) and odd[1] == _cos_one(0.5)


def _cos_one(v: float) -> float:
    out = np.array([v])
    _kernels._cos_scaled(out, 0, 1, 1.0)
    return float(out[0])


def test_the_features_cosine_falls_back_to_math_cos_beyond_its_span():
    """`_phi_into` with an argument beyond `_COS_SPAN` (a huge context on a narrow bandwidth)
    takes `math.cos` for every feature of that round, with the same floats as the literal
    formula; within the span its features are the literal formula's to rounding; the ReLU map
    is exact; infinities give NaN features, as numpy's cosine does."""
    rng = np.random.default_rng(1)
    W, b = rng.normal(size=(64, 3)), rng.uniform(0, 2 * math.pi, 64)

    def literal(z, fourier):
        y = W @ z + b  # (numpy's dot: the sums may round differently, hence the tolerance)
        y = np.array([math.cos(v) for v in y]) if fourier else np.maximum(y, 0.0)
        return np.concatenate([[1.0], y * math.sqrt(2.0), z])

    for z, fourier in ((rng.normal(size=3), True), (np.array([3e5, 1.0, -2.0]), True),
                       (rng.normal(size=3), False)):
        phi = _kernels._phi(W, b, z, fourier)
        want = literal(z, fourier)
        assert phi.shape == (68,) and phi[0] == 1.0 and np.array_equal(phi[65:], z)
        np.testing.assert_allclose(phi, want, rtol=0, atol=4e-16 * np.abs(z).max() * 8)
    big = np.array([3e5, 1.0, -2.0])  # the fallback: exactly math.cos of the kernel's own y
    phi = _kernels._phi(W, b, big, True)
    y = np.array([_kernels._dot_r(W[i], big) + b[i] for i in range(64)])
    assert np.abs(y).max() > _kernels._COS_SPAN
    np.testing.assert_array_equal(phi[1:65], [math.cos(v) * _kernels._SQRT2 for v in y])
    assert np.isnan(_kernels._phi(W, b, np.array([math.inf, 0.0, 0.0]), True)[1:65]).all()


def test_which_configurations_the_kernels_cover():
    c = {"a": 0.5, "b": -1.0}

    def jit(**kw):
        policy = BoBLO(seed=0, **kw)
        policy.update(policy.pull([0, 1, 2], c), c, 0.5)
        return policy._jit

    assert jit()
    assert jit(optimism=0.1, model_l2=(1.0, 2.0, 3.0), transformer=None)
    assert jit(model_l2=20.0)  # (one penalty: `_ArmRidge`'s kernels)
    assert jit(learner=learners.FeaturePolicy(**DEFAULT_LEARNER))  # (annealed, t0 = 50)
    assert jit(learner=learners.FeaturePolicy(**FIXED_WEIGHT_LEARNER))  # (the weight fixed)
    assert jit(learner=learners.FeaturePolicy(**{**DEFAULT_LEARNER, "t0": None}))  # (fixed)
    assert jit(learner=learners.FeaturePolicy(**{**DEFAULT_LEARNER, "min_temperature": 0.01}))
    assert not jit(learner=learners.FeaturePolicy(**{**FIXED_WEIGHT_LEARNER, "t0": None},
                                                  link="igw"))
    assert jit(learner=learners.FeaturePolicy(n_features=8, on_model=True))  # (own features)
    assert jit(learner=learners.FeaturePolicy(n_features=8, on_model=True, kind="relu"),
               model_l2=20.0)
    assert not jit(learner=learners.FeaturePolicy(n_features=8))  # (not on the model)
    assert not jit(learner=learners.FeaturePolicy(n_features=0))  # (not on the model)
    assert not jit(gamma=0.5)  # (x^1 = mu + 2 (W - mu) may leave the simplex)
    assert not jit(n_learners=2)
    assert not jit(estimator="ips")
    forced = BoBLO(seed=0)
    forced._JIT = False
    forced.update(forced.pull([0, 1, 2], c), c, 0.5)
    assert forced._jit  # (covered, but the switch keeps it on numpy)


def test_the_simplex_projection_kernel_is_the_plain_float_kernel():
    """`_kernels._project_row` against `sets._projection_simplex_row`: the same floats, on
    ordinary rows and hostile ones (huge, tied, one-hot)."""
    rng = np.random.default_rng(2)
    rows = [rng.normal(size=d) * s for d in (2, 5, 7, 10, 64) for s in (0.01, 1.0, 1e3)]
    rows += [np.array([1e308, -1e308, 0.0]), np.array([1e16, 0.0, 0.0]), np.full(5, 0.2),
             np.array([0.3, 0.3, 0.3, -5.0]), np.eye(6)[2]]
    for z in rows:
        out = np.empty(len(z))
        _kernels._project_row(z, out)
        assert out.tolist() == sets._projection_simplex_row(z.tolist(), 1.0)


def test_without_numba_everything_runs_the_numpy_round():
    """numba missing (its import blocked): `_kernels.AVAILABLE` and `BoBLO._JIT` are False,
    `covers` says no, and `BoBLO()` plays its numpy round."""
    code = (
        "import sys; sys.modules['numba'] = None\n"
        "from onlineboost import BoBLO, _kernels\n"
        "c = {'a': 0.5, 'b': -1.0}\n"
        "p = BoBLO(seed=0)\n"
        "for _ in range(30): p.update(p.pull([0, 1, 2], c), c, 0.5)\n"
        "print(_kernels.AVAILABLE, BoBLO._JIT, p._fused, p._jit, p._rounds)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.split() == ["False", "False", "True", "False", "30"]


def test_warm_up_rounds_are_compiled_and_agree(monkeypatch):
    """During the scaler's warm-up (its first `scaling.WARMUP` values per column) the compiled
    warm-up step scales the context and the kernel plays it: every round but the first (which
    builds the model's and the learner's columns) takes the kernel, with the numpy round's law,
    arm and scaler statistics; a warm-up round with a bad value is refused by name, nothing
    stored."""
    from onlineboost import scaling

    calls = []
    real = getattr(_kernels, PULL)
    monkeypatch.setattr(_kernels, PULL, lambda *a: calls.append(1) or real(*a))
    rng = np.random.default_rng(3)
    compiled, plain = BoBLO(seed=1), _numpy(BoBLO(seed=1))
    for t in range(scaling.WARMUP + 3):
        c = {f"x{j}": float(v) for j, v in enumerate(rng.normal(size=6) * 3.0 + 1.0)}
        before = len(calls)
        a, b = compiled.pull([0, 1, 2, 3], c), plain.pull([0, 1, 2, 3], c)
        assert a == b
        assert len(calls) - before == (t > 0)  # (round 1: the numpy round builds the columns)
        assert _rel(compiled.arm_probabilities, plain.arm_probabilities) < TOL
        sa, sb = compiled._reader._current_stats(), plain._reader._current_stats()
        assert _rel(sa.mean, sb.mean) < TOL and _rel(sa.var, sb.var) < TOL
        r = float(rng.random())
        compiled.update(a, c, r)
        plain.update(b, c, r)
        if t == 4:  # a bad value in the warm-up: refused, the scaler's buffer untouched
            before = pickle.dumps(compiled)
            with pytest.raises(ValueError, match="context"):
                compiled.pull([0, 1, 2, 3], {**c, "x2": math.nan})
            assert pickle.dumps(compiled) == before
    assert compiled._reader._fast is True  # (past the warm-up: the scaler inside the kernel)


# -- the scaler's warm-up compiled (`_kernels.warm_scale` / `warm_store`) ----------------------


def _random_stats(rng, q):
    """Statistics of `q` columns at random points of their warm-up or past it: NaN-padded
    buffers, constant columns, one extreme value, 1-2 values (n < 3 after the round), past the
    warm-up with a positive variance or a zero one (the deviation band)."""
    from onlineboost import scaling

    W = scaling.WARMUP
    count = rng.integers(0, W + 5, size=q).astype(float)
    if count.min() >= W:
        count[rng.integers(q)] = rng.integers(0, W)
    if rng.random() < 0.3:
        count[rng.integers(q)] = rng.integers(0, 2)  # (1 or 2 values after the round)
    scale = 10.0 ** rng.uniform(-3, 3, size=q)
    buf = np.full((q, W), np.nan)
    for j in range(q):
        k = int(min(count[j], W))
        vals = rng.normal(size=k) * scale[j]
        if rng.random() < 0.25:
            vals[:] = 1.5  # constant so far (MAD 0: the second smallest / largest rule)
        elif rng.random() < 0.25:
            vals = np.round(vals / scale[j]) * scale[j]  # ties
        if k and rng.random() < 0.3:
            vals[rng.integers(k)] = rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(5, 100)
        buf[j, :k] = vals
    var = rng.exponential(size=q) * scale ** 2 * (rng.random(q) < 0.7)
    dev = np.where(var == 0.0, rng.exponential(size=q) * scale * (rng.random(q) < 0.7), 0.0)
    v = rng.normal(size=q) * scale
    if rng.random() < 0.3:
        v[rng.integers(q)] = rng.choice([-1.0, 1.0]) * 10.0 ** rng.uniform(5, 100)
    if rng.random() < 0.2:
        v[rng.integers(q)] = 1.5  # (the constant again: no new deviation)
    return scaling.Stats(count, rng.normal(size=q) * scale, var, dev, buf), v


def _warm_kernel(st, v):
    """`warm_scale` + `warm_store` on copies of `st`'s arrays: (status, z, count, mean, var, dev,
    buf)."""
    from onlineboost import scaling

    arrays = [a.copy() for a in (st.count, st.mean, st.var, st.dev, st.buf)]
    q = len(v)
    z, staged = np.empty(q), np.empty((4, q))
    status = _kernels.warm_scale(v, *arrays, scaling.K, scaling.K_WARM, scaling.CLIP,
                                 scaling.MAX_ABS, z, staged)
    if status:
        _kernels.warm_store(v, *arrays, staged)
    return (status, z, *arrays)


def test_the_warm_up_kernel_is_the_scalers_learn_then_transform():
    """`warm_scale` + `warm_store` against `scaling.learn` then `transform` on 3,000 random
    warm-up rounds (every case of `_random_stats`): the counts, deviations and buffers equal,
    the means, variances and outputs to 1e-12 relative (sums of the kept values may take
    another order than numpy's pairwise one; here they are numpy's, so the floats are the
    same). A median of the padded row, a MAD missing its 1.4826 or its band, no second
    smallest / largest rule (constant columns), a variance for n < 3, the value written at the
    wrong place, the after-warm-up rows treated as warm (or their deviation band lost), the
    deviation not reset in the warm-up, `transform` on the old statistics: each fails here."""
    from onlineboost import scaling

    rng = np.random.default_rng(7)
    exact = 0
    for _ in range(3000):
        st, v = _random_stats(rng, int(rng.integers(1, 9)))
        new = scaling.learn(st, v)
        zr = scaling.transform(new, v)
        status, z, count, mean, var, dev, buf = _warm_kernel(st, v)
        assert status == 1
        assert np.array_equal(count, new.count) and np.array_equal(dev, new.dev)
        assert np.array_equal(buf, new.buf, equal_nan=True)
        for a, b in ((mean, new.mean), (var, new.var), (z, zr)):
            assert np.all(np.abs(a - b) <= 1e-12 * np.maximum(np.abs(b), 1e-300)), (a, b)
        exact += all(map(np.array_equal, (mean, var, z), (new.mean, new.var, zr)))
    assert exact == 3000  # (numpy's summation order transcribed: the same floats)


def test_the_warm_up_kernel_refuses_what_it_does_not_cover():
    """Status 0, nothing written but its outputs, on a value not finite or beyond `MAX_ABS`,
    no column in its warm-up (the usual round's kernel covers those), no column at all: the
    glue then runs the reader's own step, which refuses bad input by name."""
    from onlineboost import scaling

    rng = np.random.default_rng(8)
    st, v = _random_stats(rng, 4)
    for bad in (np.nan, np.inf, -np.inf, 1.01e100, -1e300):
        w = v.copy()
        w[2] = bad
        status, _, *arrays = _warm_kernel(st, w)
        assert status == 0
        for a, b in zip(arrays, (st.count, st.mean, st.var, st.dev, st.buf)):
            assert np.array_equal(a, b, equal_nan=True)
    past = scaling.Stats(np.full(4, 12.0), st.mean, np.ones(4), st.dev, st.buf)
    assert _warm_kernel(past, v)[0] == 0
    assert _warm_kernel(scaling.Stats.empty(0), np.empty(0))[0] == 0


def _reader_state(reader):
    st = reader._current_stats()
    return st, {k: val for k, val in vars(reader).items() if k != "_stats"}


def test_a_seeded_warm_up_plays_compiled_as_the_numpy_round_does(monkeypatch):
    """A warm-up played compiled and on numpy, fed the same contexts: a column that appears
    late (its warm-up overlaps the others' end: the compiled step's after-warm-up rule), a
    constant column (the deviation band after the warm-up), one extreme value; every round
    after the first and the changed keys' takes the compiled warm-up (`warm_scale`), the
    round after the warm-up the usual kernel; the same arms, laws to 1e-12, the reader's
    state the same (buffers, counts, columns, keys, nothing staged, `_fast` unknown until the
    warm-up ends)."""
    from onlineboost import scaling

    warm, usual = [], []
    real_warm, real_round = _kernels.warm_scale, getattr(_kernels, PULL)
    monkeypatch.setattr(_kernels, "warm_scale",
                        lambda *a: warm.append(real_warm(*a)) or warm[-1])
    monkeypatch.setattr(_kernels, PULL,
                        lambda *a: usual.append(a[1]) or real_round(*a))
    rng = np.random.default_rng(9)
    for seed in range(3):
        compiled, plain = BoBLO(seed=seed), _numpy(BoBLO(seed=seed))
        warm.clear()
        usual.clear()
        for t in range(25):
            c = {"a": float(rng.normal() * 3.0), "b": 2.0}
            if t >= 4:
                c["late"] = 1e90 if t == 6 else float(rng.normal())
            arm = compiled.pull([0, 1, 2], c)
            assert plain.pull([0, 1, 2], c) == arm
            assert _rel(compiled.arm_probabilities, plain.arm_probabilities) <= TOL
            sa, ra = _reader_state(compiled._reader)
            sb, rb = _reader_state(plain._reader)
            assert np.array_equal(sa.buf, sb.buf, equal_nan=True)
            assert np.array_equal(sa.count, sb.count) and np.array_equal(sa.dev, sb.dev)
            assert _rel(sa.mean, sb.mean) <= TOL and _rel(sa.var, sb.var) <= TOL
            assert sa.ready == sb.ready
            if t < 4 + scaling.WARMUP:
                assert ra == rb  # (columns, keys, index, nothing staged, `_fast` unknown)
            reward = float(rng.random())
            compiled.update(arm, c, reward)
            plain.update(arm, c, reward)
        # rounds 2-4 and 6-14 (the late column's warm-up), compiled; 5 (new keys): numpy
        assert warm == [1] * 12
        # the kernel's pull with the scaler from round 15 on (none before: scale=False)
        assert usual[:12] == [False] * 12 and usual[12:] == [True] * 11
        assert compiled._reader._fast is True
        assert max(_state_gaps(compiled, plain).values()) <= TOL


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1e101, 10**400, "1", None,
                                 np.float64(np.nan)])
def test_bad_input_in_the_warm_up_is_refused_by_name_with_nothing_stored(bad):
    """A bad value on a compiled warm-up round (the reader's own `ValueError`, naming the
    context and the feature), and a law that is not finite there (the numpy round's refusal):
    the pickled state unchanged, and the next good round plays as if nothing happened."""
    rng = np.random.default_rng(10)
    policy, twin = BoBLO(seed=0), BoBLO(seed=0)
    for t in range(4):
        c = {f"c{j}": float(v) for j, v in enumerate(rng.normal(size=3))}
        for p in (policy, twin):
            p.update(p.pull([0, 1, 2], c), c, 0.5)
    assert policy._reader._stats.count.min() < 10  # (still in the warm-up)
    before = pickle.dumps(policy)
    with pytest.raises(ValueError, match=r"context\['c1'\]"):
        policy.pull([0, 1, 2], {"c0": 0.1, "c1": bad, "c2": 0.3})
    assert pickle.dumps(policy) == before
    copy = pickle.loads(before)
    copy.booco.copies._theta[0][:, 0] = np.inf
    state = pickle.dumps(copy)
    with pytest.raises(ValueError, match="must be finite"):
        copy.pull([0, 1, 2], {"c0": 0.1, "c1": 0.2, "c2": 0.3})
    assert pickle.dumps(copy) == state
    c = {"c0": 0.1, "c1": 0.2, "c2": 0.3}
    assert policy.pull([0, 1, 2], c) == twin.pull([0, 1, 2], c)
    assert policy.arm_probabilities.tolist() == twin.arm_probabilities.tolist()


def test_the_per_arm_reward_means_are_rivers():
    """river's per-arm reward statistics (`Policy._rewards`), made by `stats.Mean` directly
    (river's factory clones its default `stats.Mean()`, ~30 us at each arm's first reward):
    each arm's mean reward and count, through a pickle too."""
    from river import stats

    rng = np.random.default_rng(11)
    policy = BoBLO(seed=0)
    seen = {arm: [] for arm in "abcd"}
    for t in range(60):
        c = {"x": float(rng.normal()), "y": float(t % 4)}
        arm = policy.pull(list("abcd"), c)
        reward = float(rng.random())
        policy.update(arm, c, reward)
        seen[arm].append(reward)
        if t == 30:
            policy = pickle.loads(pickle.dumps(policy))
    for arm, rewards in seen.items():
        if rewards:
            assert type(policy._rewards[arm]) is stats.Mean
            assert policy._rewards[arm].get() == pytest.approx(np.mean(rewards), rel=1e-12)
            assert policy._counts[arm] == len(rewards)
            river_mean = stats.Mean()  # (fed the same rewards: the same floats)
            for r in rewards:
                river_mean.update(r)
            assert (policy._rewards[arm].get(), policy._rewards[arm].n) == (river_mean.get(),
                                                                            river_mean.n)
    assert policy._n == 60


def test_policies_played_in_turn_play_what_each_plays_alone():
    # the compiled round shares no state between policies: policies of the same and of other
    # arm counts, played in turn, play and keep what each plays alone
    def play(policies, rounds):
        laws = [[] for _ in policies]
        for t in range(rounds):
            for j, (policy, stream) in enumerate(policies):
                context, arms = stream[t]
                arm = policy.pull(arms, context)
                assert type(policy._arm_probabilities) is list  # (floats, as numpy keeps it)
                laws[j].append(policy.arm_probabilities.tolist())
                policy.update(arm, context, float(t % 3 == arm % 3))
        assert all(policy._jit for policy, _ in policies)
        return laws

    def make():
        streams = [list(LinearBandit(d=4, k=k, noise=0.5, seed=s, n_rounds=80))
                   for k, s in ((3, 1), (3, 2), (5, 3))]
        return [(BoBLO(seed=j), stream) for j, stream in enumerate(streams)]

    together = play(make(), 80)
    alone = [play([pair], 80)[0] for pair in make()]
    assert together == alone


@pytest.mark.parametrize("kw", [{}, {"model_l2": 20.0}], ids=["mixture", "one penalty"])
def test_the_update_reuses_the_pulls_features_and_only_for_that_round(kw):
    """The compiled update learns from the features its own pull computed (carried in the
    pending round: exactly the copy's features of the pending context vector) and gives the
    floats of an update that recomputes them: a policy whose pending rounds lose the features
    and one whose every pull is followed by a refused one (bad input: the earlier pull's
    features kept) end in the same bytes as the plain policy."""
    stream = STREAMS["LinearBandit"](5)
    plain, dropped, refused = (BoBLO(seed=6, **kw) for _ in range(3))
    carried = 0
    for t, (context, arm_ids) in enumerate(stream):
        arm = plain.pull(arm_ids, context)
        features = plain._pending[3]
        if type(features) is tuple:  # (the compiled pull's: phi of the pending x)
            carried += 1
            copies, x = plain.booco.copies, plain._pending[1]
            phi = _kernels._phi(copies._W[0], copies._b[0], x, copies.kind == "fourier")
            assert np.array_equal(features[0], phi)
        assert dropped.pull(arm_ids, context) == arm
        pending = dropped._pending
        dropped._pending = pending[:3] + (None,) + pending[4:]  # (recompute in the update)
        assert refused.pull(arm_ids, context) == arm
        with pytest.raises(ValueError):
            refused.pull(arm_ids, {**context, next(iter(context)): float("nan")})
        reward = stream.reward(arm)
        for policy in (plain, dropped, refused):
            policy.update(arm, context, reward)
        if t == 400:
            break
    assert carried > 350  # (the compiled pull played nearly every round)
    state = pickle.dumps(plain)
    assert pickle.dumps(dropped) == state
    assert pickle.dumps(refused) == state


def test_the_lane_is_gathered_once_and_again_only_when_the_state_moves_elsewhere(monkeypatch):
    """`_kernels.Lane` holds the compiled round's constant arguments: gathered once on a
    stationary stream (the play is the plain arguments' call, `test_the_paths_*`); `fits` is
    False as soon as any of the arrays it holds views of is replaced (a new column, the numpy
    round), or a parameter it folded in moves; a deep copy or a pickle gathers its own, over
    its own arrays, and plays on as the original does. (Dropping any of `fits`' checks fails
    here; the weights' check also fails `test_the_paths_are_interchangeable_*`.)"""
    built = []
    init = _kernels.Lane.__init__
    monkeypatch.setattr(_kernels.Lane, "__init__",
                        lambda self, *args: built.append(1) or init(self, *args))
    stream = list(STREAMS["LinearBandit"](1))[:600]
    policy = BoBLO(seed=2)
    for t, (context, arm_ids) in enumerate(stream[:300]):
        if t == 10:  # (past the first rounds, which give the state its columns)
            assert built
            built.clear()
        arm = policy.pull(arm_ids, context)
        policy.update(arm, context, float(arm == arm_ids[0]))
    assert not built
    lane, booco, model = policy._lane, policy.booco, policy._model
    copies = booco.copies
    assert lane.fits(booco, model, policy.exploration)
    assert not lane.fits(booco, model, policy.exploration / 2)
    for owner, name in ((model, "G"), (model, "weights"), (copies, "_theta"), (copies, "_P")):
        kept = getattr(owner, name)
        setattr(owner, name, kept.copy())  # (the same values in another array)
        assert not lane.fits(booco, model, policy.exploration), name
        setattr(owner, name, kept)
    assert lane.fits(booco, model, policy.exploration)
    twins = [copy.deepcopy(policy), pickle.loads(pickle.dumps(policy))]
    for twin in twins:
        assert twin._lane is None
    for context, arm_ids in stream[300:]:
        arm = policy.pull(arm_ids, context)
        assert [twin.pull(arm_ids, context) for twin in twins] == [arm, arm]
        for p in (policy, *twins):
            p.update(arm, context, float(arm == arm_ids[0]))
    for twin in twins:  # (each plays over its own arrays)
        assert twin._lane.P is twin.booco.copies._P is not policy.booco.copies._P
        assert not np.shares_memory(twin._lane.head[-1], policy.booco.copies._theta)
        assert max(_state_gaps(twin, policy).values()) == 0.0


@pytest.mark.parametrize("learner", [None, FIXED_WEIGHT_LEARNER], ids=["default", "fixed-weight"])
def test_the_lanes_calls_are_the_dispatched_overloads(monkeypatch, learner):
    """The steady round calls the overloads numba's dispatcher picked for the lane's first call
    (`_kernels._entry`: their entry points, without the dispatch): from then on both kernels
    are entry points of the kernels' own overloads, and a pass with them plays the same arms
    and leaves the very same floats as a twin whose lane keeps calling the dispatchers (the
    same compiled code: a wrong overload, or arguments unboxed by other types, would not)."""
    kw = {} if learner is None else {"learner": learners.FeaturePolicy(**learner)}
    stream = list(STREAMS["LinearBandit"](3))[:400]
    fast = BoBLO(seed=4, **kw)
    arms = []
    for context, arm_ids in stream:
        arm = fast.pull(arm_ids, context)
        fast.update(arm, context, float(arm == arm_ids[0]))
        arms.append(arm)
    lane = fast._lane
    for call, kernel in ((lane.pull_call, _kernels.pull_round_features),
                         (lane.update_call, _kernels.update_round_features)):
        assert call is not kernel
        assert call in [cres.entry_point for cres in kernel.overloads.values()]
    monkeypatch.setattr(_kernels, "_entry", lambda kernel, args: kernel)
    slow = BoBLO(seed=4, **kw)
    for (context, arm_ids), arm in zip(stream, arms):
        assert slow.pull(arm_ids, context) == arm
        slow.update(arm, context, float(arm == arm_ids[0]))
    assert slow._lane.pull_call is _kernels.pull_round_features
    assert max(_state_gaps(fast, slow).values()) == 0.0
    assert fast.arm_probabilities.tolist() == slow.arm_probabilities.tolist()


def test_the_entry_of_a_kernel_is_its_overload_for_the_arguments_types():
    """`_kernels._entry`: with one overload, that one (the dispatcher just took the arguments);
    with several, the one of the arguments' types, not another (the entry point would read an
    int array's bytes as floats); a function numba did not compile comes back as it is."""
    import numba

    @numba.njit
    def first(a):
        return a[0] + a[-1]

    floats, ints = np.array([1.5, 2.0, 4.25]), np.array([3, 5, 7])
    first(floats)
    one = _kernels._entry(first, (floats,))
    assert one is not first and one(floats) == 5.75
    first(ints)
    assert len(first.overloads) == 2
    assert _kernels._entry(first, (floats,))(floats) == 5.75
    assert _kernels._entry(first, (ints,))(ints) == 10

    def plain(a):
        return a[0]

    assert _kernels._entry(plain, (floats,)) is plain


def test_the_steady_pull_is_the_general_pulls_and_refuses_the_rest_moving_nothing():
    """`_kernels.pull_lane`, the steady round's pull: on a dict with the last round's keys it
    returns the context vector and the features `_kernels.pull` returns through the same
    lane, with the same law and the same scaler step; on anything else (no context, another
    mapping, keys in another order, a new key, a string, an int beyond the float range, NaN,
    the scaler in its warm-up) it returns None and moves nothing, for the general pull."""
    stream = list(STREAMS["LinearBandit"](2))[:200]
    policy = BoBLO(seed=3)
    for context, arm_ids in stream[:150]:
        policy.update(policy.pull(arm_ids, context), context, 0.5)
    lane, reader = policy._lane, policy._reader
    assert lane and lane.fits(policy.booco, policy._model, policy.exploration)
    counts, alpha = policy._arm_counts, policy._bonus
    context = stream[150][0]
    keys = list(context)

    def snapshot():
        st = reader._stats
        return pickle.dumps((st.count, st.mean, st.var, st.dev, st.ready, lane.p, lane.c))

    before = snapshot()
    twin = copy.deepcopy(policy)
    twin_lane = _kernels.Lane.of(twin.booco, twin._model, twin.exploration)
    law = _kernels.pull(twin._reader, twin.booco, twin._model, context, twin.exploration,
                        twin._arm_counts, twin._bonus, twin_lane)
    got = _kernels.pull_lane(lane, reader, context, counts, alpha)
    assert got is not None and law is not None
    np.testing.assert_array_equal(got[0], law[2])
    np.testing.assert_array_equal(got[1], law[3])
    assert lane.p.tolist() == law[0] and lane.c.tolist() == law[1]
    assert snapshot() != before  # (the scaler's step is stored)
    for name in ("count", "mean", "var", "dev"):  # (the same scaler step as the general pull)
        np.testing.assert_array_equal(getattr(reader._stats, name),
                                      getattr(twin._reader._stats, name))
    before = snapshot()
    bad = [None, dict(reversed(list(context.items()))), {**context, "new": 1.0},
           {**context, keys[0]: "1.5"}, {**context, keys[0]: 10 ** 400},
           {**context, keys[0]: float("nan")}, [(k, v) for k, v in context.items()]]

    class Other(dict):
        pass

    bad.append(Other(context))
    for c in bad:
        assert _kernels.pull_lane(lane, reader, c, counts, alpha) is None, c
        assert snapshot() == before
    fresh = BoBLO(seed=3)  # (in the scaler's warm-up: the general pull's `_pull_warm`)
    for c, arm_ids in stream[:3]:
        fresh.update(fresh.pull(arm_ids, c), c, 0.5)
    fresh_lane = _kernels.Lane.of(fresh.booco, fresh._model, fresh.exploration)
    assert fresh._reader._fast is not True
    assert _kernels.pull_lane(fresh_lane, fresh._reader, context, fresh._arm_counts,
                              fresh._bonus) is None


def test_an_update_trusts_its_pulls_lane_only_for_that_policy_and_round(monkeypatch):
    """A pull through the lane marks its pending round (`(phi, True)`): the update then calls
    `_kernels.update_lane` on the policy's own lane without checking `fits` again. A copy
    taken between the pull and the update (pickled, deep-copied: no lane of its own until
    its next pull, so the checked `update`), a pending round of a pickle from before the mark
    (`(phi,)`), and a round whose pull was refused after a good one all learn exactly what
    the policy learns."""
    calls = []
    real = _kernels.update_lane
    monkeypatch.setattr(_kernels, "update_lane",
                        lambda lane, *args, **kw: calls.append(lane) or real(lane, *args, **kw))
    stream = list(STREAMS["LinearBandit"](3))[:400]
    policy = BoBLO(seed=5)
    for context, arm_ids in stream[:300]:
        policy.update(policy.pull(arm_ids, context), context, 0.25)
    calls.clear()
    context, arm_ids = stream[300]
    arm = policy.pull(arm_ids, context)
    pending = policy._pending
    assert pending[3][1] is True and len(pending[3]) == 2
    old = copy.deepcopy(policy)
    old._pending = pending[:3] + ((pending[3][0],),) + pending[4:]  # (an older pickle's)
    twins = [pickle.loads(pickle.dumps(policy)), copy.deepcopy(policy), old]
    refused = copy.deepcopy(policy)
    refused._lane = _kernels.Lane.of(refused.booco, refused._model, refused.exploration)
    with pytest.raises(ValueError):
        refused.pull(arm_ids, {**context, next(iter(context)): float("nan")})
    assert refused._pending[3][1] is True  # (the good pull's round, still pending)
    for p in (policy, *twins, refused):
        p.update(arm, context, 1.0)
    assert calls[0] is policy._lane and calls[-1] is refused._lane
    assert len(calls) == 2  # (the copies' lanes were None: `update`, with `fits`)
    for twin in (*twins, refused):
        assert max(_state_gaps(twin, policy).values()) == 0.0


@pytest.mark.parametrize("path", ["compiled", "numpy", "general"])
def test_an_estimate_that_overflows_is_refused_by_name_and_changes_nothing(path):
    """An arm whose loss-model prediction overflows (its weights set to 1e308: the play gives it
    probability eta/d, a finite law) makes the doubly robust estimate of the round not finite:
    `update` refuses it naming the context, on the compiled round, on the numpy one and on
    the general round (`BoBLO(n_learners=3)`'s), and the pickled state is the same bytes as
    before."""
    policy = {"compiled": lambda: BoBLO(seed=0), "numpy": lambda: _numpy(BoBLO(seed=0)),
              "general": lambda: BoBLO(n_learners=3, seed=0)}[path]()
    rng = np.random.default_rng(0)
    arms = [0, 1, 2]
    for _ in range(40):
        c = {"a": float(rng.normal()), "b": float(rng.normal())}
        arm = policy.pull(arms, c)
        policy.update(arm, c, float(rng.random()))
    model = policy._model
    model.G[2, :, -1, :] = 1e308  # arm 2's weights in both penalties' models
    model._theta = model._last = None
    c = {"a": 1.0, "b": 1.0}
    arm = policy.pull(arms, c)
    assert np.all(np.isfinite(policy.arm_probabilities)) and arm != 2
    before = pickle.dumps(policy)
    with pytest.raises(ValueError, match="context: the loss model's prediction is not finite"):
        policy.update(arm, c, 0.5)
    assert pickle.dumps(policy) == before
