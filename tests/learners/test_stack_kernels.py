"""The fast round of `FeaturePolicyStack`'s copies with random features (the per-round cache of
phi and Theta phi, and the numba kernels of `learners._stack_kernels`) against a literal
transcription of the arithmetic before them: the numpy path gives the same floats, bit for bit,
the compiled one the same numbers to rounding, over many rounds with new context columns,
forgetting, both kinds of features, residual stacks and a model; `BoBLO(n_learners=5)` plays
the same arms with the kernels on and off; the caches are never pickled; refused input moves
nothing."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from learners import FeaturePolicy, _stack_kernels
from learners.feature_policy import FeaturePolicyBoostStack, FeaturePolicyStack
from onlineboost import BoBLO, extension, sets
from onlineboost.boblo import FOURIER_LATER
from streams import LinearBandit, NonlinearBandit
from tests.helpers import LINEAR_LEARNER

TOL = 1e-9


class _Model:
    """A cost model with `costs(c)`: fixed per-arm linear costs (a new array every call)."""

    def __init__(self, k, p, seed=0):
        self.theta = np.random.default_rng(seed).normal(size=(k, p)) / 3

    def costs(self, c):
        c = np.concatenate([c, np.zeros(max(self.theta.shape[1] - len(c), 0))])
        return self.theta @ c[:self.theta.shape[1]]


class _Literal(FeaturePolicyStack):
    """The stack's vector methods as they were before the round's cache and the kernels
    (transcribed from the code they replace): phi made at every call, the einsums, the
    forgetting's separate pass over A^{-1}, the downdate's outer product."""

    def old_features(self, c, grow=False):
        p = self._W.shape[2]
        if len(c) > p:
            if grow:
                self._grow(len(c))
                p = len(c)
            else:
                c = c[:p]
        elif len(c) < p:
            c = np.concatenate([c, np.zeros(p - len(c))])
        D = self.n_features
        Z = self._W @ c + self._b
        F = np.empty((self.n, 1 + D + p))
        F[:, 0] = 1.0
        if self.kind == "fourier":
            np.cos(Z, out=Z)
        else:
            np.maximum(Z, 0.0, out=Z)
        np.multiply(Z, math.sqrt(2.0), out=F[:, 1:1 + D])
        F[:, 1 + D:] = c
        return F

    def predicted_costs(self, c):
        F = self.old_features(c)
        costs = np.einsum("nkq,nq->nk", self._theta, F)
        if self.residual and self.n > 1:
            costs = np.cumsum(costs, axis=0)
        if self.model is not None:
            costs += self.model.costs(c)
        return costs

    def learn_vector(self, c, G):
        self._t += 1
        if self.model is not None:
            G = G - self.model.costs(c) if not self.residual else G.copy()
            if self.residual:
                G[0] -= self.model.costs(c)
        F = self.old_features(c, grow=True)
        P = self._P
        if self.forget != 1.0:
            P *= 1.0 / self.forget
        U = np.einsum("nij,nj->ni", P, F)
        s = 1.0 + np.einsum("nq,nq->n", F, U)
        R = G - np.einsum("nkq,nq->nk", self._theta, F)
        V = U / s[:, None]
        self._theta += R[:, :, None] * V[:, None, :]
        if np.all(s > 0.0):
            W = U / np.sqrt(s)[:, None]
            P -= W[:, :, None] * W[:, None, :]
        else:
            P -= U[:, :, None] * V[:, None, :]


def _rel(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    scale = np.abs(b).max()
    return float(np.abs(a - b).max() / scale) if scale else float(np.abs(a).max())


def _contexts(T, seed):
    """Contexts of 3 columns, then 5 (new columns: the maps and A^{-1} grow), with some
    shorter ones (missing columns count as 0)."""
    rng = np.random.default_rng(seed)
    out = []
    for t in range(T):
        p = 3 if t < T // 3 else 5
        if t % 17 == 5:
            p = 2
        out.append(rng.normal(size=p))
    return out


def _pair(jit, kind, residual, forget, model, n=3, k=4, D=16):
    args = dict(l2=2.0, temperature=0.1, forget=forget, n_features=D, kind=kind,
                residual=residual, seeds=[3, 4, 5][:n], on_model=model)
    fast = FeaturePolicyStack(n, sets.Simplex(k), **args)
    fast._JIT = jit
    ref = _Literal(n, sets.Simplex(k), **args)
    if model:
        fast.model = ref.model = _Model(k, 5)
    return fast, ref


@pytest.mark.parametrize("kind", ["fourier", "relu"])
@pytest.mark.parametrize("residual, model", [(False, False), (True, False), (False, True),
                                             (True, True)])
@pytest.mark.parametrize("forget", [1.0, 0.99])
@pytest.mark.parametrize("jit", [False, True], ids=["numpy", "compiled"])
def test_fast_round_is_the_literal_arithmetic(jit, kind, residual, model, forget):
    """Predict then learn each round (BoBLO's order), and every seventh round learn without a
    prediction first and learn twice on the same array (the cache must not serve Theta phi
    from before a step): numpy bit for bit, compiled within 1e-9 (norm-wise relative)."""
    if jit and not _stack_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    fast, ref = _pair(jit, kind, residual, forget, model)
    rng = np.random.default_rng(1)
    for t, c in enumerate(_contexts(300, 2)):
        G = rng.normal(size=(fast.n, 4))
        if t % 7 != 3:
            a, b = fast.predicted_costs(c), ref.predicted_costs(c)
            if jit:
                assert _rel(a, b) < TOL
            else:
                np.testing.assert_array_equal(a, b)
            a[:] = 0.0  # the caller's copy: writing to it leaves the stack's cache alone
        fast.learn_vector(c, G)
        ref.learn_vector(c, G)
        if t % 7 == 3:  # the same array again, after a step
            fast.learn_vector(c, G)
            ref.learn_vector(c, G)
    a, b = fast.predicted_costs(c), ref.predicted_costs(c)
    if jit:
        assert _rel(a, b) < TOL and _rel(fast._P, ref._P) < TOL
        assert _rel(fast._theta, ref._theta) < TOL
    else:
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(fast._P, ref._P)
        np.testing.assert_array_equal(fast._theta, ref._theta)
    assert fast._P.shape == ref._P.shape == (3, 1 + 16 + 5, 1 + 16 + 5)
    # the downdate w w^T keeps every A^{-1} exactly symmetric (else forget^-t grows it)
    np.testing.assert_array_equal(fast._P, fast._P.transpose(0, 2, 1))


def test_same_context_values_in_a_new_array_and_a_moved_array():
    """The cache is keyed by the array and its bytes: an array written in place between the
    prediction and the step is read anew."""
    fast, ref = _pair(True, "fourier", False, 0.99, False)
    G = np.ones((3, 4))
    for s in (fast, ref):  # (three known columns: no growth below)
        s.learn_vector(np.array([1.0, 0.5, -0.5]), G)
    c = np.array([0.3, -1.0, 2.0])
    fast.predicted_costs(c)
    ref.predicted_costs(c)
    c[1] = 5.0  # moved in place after the prediction
    fast.learn_vector(c, G)
    ref.learn_vector(c, G)
    assert _rel(fast._theta, ref._theta) < TOL
    d = c.copy()  # same values, another array: the same result
    np.testing.assert_allclose(fast.predicted_costs(d), ref.predicted_costs(c), rtol=TOL)


def test_kernel_and_numpy_paths_are_interchangeable_round_by_round():
    """The compiled and numpy steps work on the same arrays: alternating them follows the
    numpy stack to rounding."""
    if not _stack_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    fast, ref = _pair(True, "fourier", True, 0.995, True)
    rng = np.random.default_rng(4)
    for t, c in enumerate(_contexts(200, 5)):
        fast._JIT = bool(t % 2)
        G = rng.normal(size=(3, 4))
        assert _rel(fast.predicted_costs(c), ref.predicted_costs(c)) < TOL
        fast.learn_vector(c, G)
        ref.learn_vector(c, G)
    assert _rel(fast._P, ref._P) < TOL


@pytest.mark.parametrize("jit", [False, True], ids=["numpy", "compiled"])
def test_boost_stack_is_the_literal_two_part_stack(jit):
    """`FeaturePolicyBoostStack` (BoBLO(n_learners=5)'s default learner's shape, with a model)
    over its fast parts against the literal parts, both fits."""
    if jit and not _stack_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    for fit in ("gradient", "residual"):
        K = sets.Simplex(4)
        base = dict(l2=2.0, temperature=0.1, forget=0.995, residual=True, on_model=True)
        fast = FeaturePolicy(K, **base, n_features=0, later_features=16,
                             later_fit=fit).stack(4, seeds=[0, 1, 2, 3])
        ref = FeaturePolicy(K, **base, n_features=0, later_features=16,
                            later_fit=fit).stack(4, seeds=[0, 1, 2, 3])
        rest = ref.rest
        ref.rest = _Literal(3, K, 2.0, 0.1, 0.995, 16, "fourier", 1.0, False, [1, 2, 3])
        ref.rest._JIT = False  # (the literal stack's own methods, every round)
        assert np.array_equal(ref.rest._b, rest._b)
        fast.rest._JIT = jit
        fast.model = ref.model = _Model(4, 5)
        rng = np.random.default_rng(7)
        for c in _contexts(240, 8):
            a, b = fast.predict_vector(c), ref.predict_vector(c)
            a2, b2 = fast.predicted_costs(c), ref.predicted_costs(c)  # (the cached call)
            G = rng.normal(size=(4, 4))
            fast.learn_vector(c, G)
            ref.learn_vector(c, G)
            if jit:
                assert _rel(a, b) < TOL and _rel(a2, b2) < TOL
                np.testing.assert_array_equal(a[0], b[0])  # copy 1: its own floats
            else:
                np.testing.assert_array_equal(a, b)
                np.testing.assert_array_equal(a2, b2)
        if jit:
            assert _rel(fast.rest._P, ref.rest._P) < TOL
        else:
            np.testing.assert_array_equal(fast.rest._P, ref.rest._P)
        np.testing.assert_array_equal(fast.first._P, ref.first._P)  # copy 1: numpy, always


def test_boost_stack_cache_follows_the_model():
    """The predicted costs are made once per context and round, and again when the model
    hands back other costs (here: the model learnt, in place) or the caller wrote to them."""
    stack = FeaturePolicy(sets.Simplex(3), n_features=0, later_features=8, residual=True,
                          on_model=True, forget=0.99).stack(3, seeds=[0, 1, 2])

    class Buffer:  # a model that returns the same array, rewritten when it learns
        def __init__(self):
            self.out = np.zeros(3)

        def costs(self, c):
            return self.out

    stack.model = model = Buffer()
    c = np.array([0.5, -1.0])
    stack.learn_vector(c, np.ones((3, 3)))
    first = stack.predicted_costs(c)
    first[:] = 99.0  # the caller's copy
    np.testing.assert_array_equal(stack.predicted_costs(c), stack.predicted_costs(c))
    assert stack.predicted_costs(c).max() < 99.0
    before = stack.predicted_costs(c)
    model.out[:] = [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(stack.predicted_costs(c), before + model.out)


def _play(policy, stream, n):
    arms = []
    for t, (context, arm_ids) in enumerate(stream):
        if t >= n:
            break
        arm = policy.pull(arm_ids, context)
        policy.update(arm, context, stream.reward(arm))
        arms.append(arm)
    return arms


def _kernels(monkeypatch, on: bool):
    monkeypatch.setattr(FeaturePolicyStack, "_JIT", on and _stack_kernels.AVAILABLE)
    monkeypatch.setattr(extension.Extension, "_JIT", on and extension._boost_kernels.AVAILABLE)


def test_boblo_n5_plays_the_same_arms_with_the_kernels_on_and_off(monkeypatch, fourier_later):
    """`BoBLO(n_learners=5)` over copies 2..5 of 128 Fourier features (`fourier_later`) on a
    seeded stream: the same arms, laws to rounding."""
    if not _stack_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    runs = {}
    for on in (True, False):
        _kernels(monkeypatch, on)
        policy = BoBLO(n_learners=5, seed=0)
        arms = _play(policy, LinearBandit(d=10, k=5, noise=0.5, seed=3, n_rounds=400), 400)
        runs[on] = (arms, policy.arm_probabilities, policy.booco.copies.rest._P.copy())
    assert runs[True][0] == runs[False][0]
    assert _rel(runs[True][1], runs[False][1]) < TOL
    assert _rel(runs[True][2], runs[False][2]) < 1e-8


def test_boblo_n5_switches_at_the_same_round_with_the_kernels_on_and_off(monkeypatch,
                                                                       fourier_later):
    """Where `FitLead` switches to a later stage (`streams.NonlinearBandit`), the later copies'
    predictions are played: the same switch round and arms, laws to 1e-6 (their inverse Gram
    matrices grow as 0.995^-t along the many directions two context columns never reach, so
    any rounding difference grows there; one ulp added to the numpy path's own gives 1e-7)."""
    if not _stack_kernels.AVAILABLE:
        pytest.skip("numba is not installed")
    runs = {}
    for on in (True, False):
        _kernels(monkeypatch, on)
        policy = BoBLO(FeaturePolicy(**LINEAR_LEARNER, **FOURIER_LATER), n_learners=5,
                       seed=100)  # (a linear first copy: a later stage has a class to add)
        laws = []
        stream = NonlinearBandit(d=2, k=3, seed=100, n_rounds=1200)
        arms = []
        for context, arm_ids in stream:
            arm = policy.pull(arm_ids, context)
            policy.update(arm, context, stream.reward(arm))
            arms.append(arm)
            laws.append(policy.arm_probabilities)
        runs[on] = (arms, np.array(laws), policy.exp4.switch_round)
    assert runs[True][2] is not None and runs[True][2] == runs[False][2]
    assert runs[True][0] == runs[False][0]
    assert np.abs(runs[True][1] - runs[False][1]).max() < 1e-6


@pytest.mark.parametrize("on", [True, False], ids=["compiled", "numpy"])
def test_pickled_mid_round_continues_with_the_same_arms(monkeypatch, fourier_later, on):
    """Pickled between a pull and its update (the caches full): no cache in the pickle, and the
    copy plays the rest of the stream as the original does (the general path, whose caches
    these are; BoBLO's compiled N > 1 round keeps its own, `test_boblo_deep`)."""
    _kernels(monkeypatch, on)
    monkeypatch.setattr(BoBLO, "_DEEP", False)
    policy = BoBLO(n_learners=5, seed=1)
    stream = LinearBandit(d=6, k=4, noise=0.5, seed=2, n_rounds=260)
    rounds = iter(stream)
    for t in range(150):
        context, arm_ids = next(rounds)
        arm = policy.pull(arm_ids, context)
        policy.update(arm, context, stream.reward(arm))
    context, arm_ids = next(rounds)
    arm = policy.pull(arm_ids, context)
    stack = policy.booco.copies
    assert stack.rest._round is not None and stack._last is not None  # (full)
    blob = pickle.dumps(policy)
    copy = pickle.loads(blob)
    assert copy.booco.copies.rest._round is None and copy.booco.copies._last is None
    assert stack.rest._round is not None  # (pickling does not empty the original's)
    reward = stream.reward(arm)
    policy.update(arm, context, reward)
    copy.update(arm, context, reward)
    for context, arm_ids in rounds:
        a, b = policy.pull(arm_ids, context), copy.pull(arm_ids, context)
        assert a == b
        reward = stream.reward(a)
        policy.update(a, context, reward)
        copy.update(b, context, reward)
    np.testing.assert_array_equal(policy.booco.copies.rest._P, copy.booco.copies.rest._P)


@pytest.mark.parametrize("on", [True, False], ids=["compiled", "numpy"])
def test_refused_learn_leaves_the_stack_unchanged(monkeypatch, on):
    """A bad context or bad costs after a prediction: ValueError naming them, nothing moved,
    and the next good step is the twin's."""
    _kernels(monkeypatch, on)
    stack = FeaturePolicy(sets.Simplex(3), n_features=8, forget=0.99).stack(2, seeds=[0, 1])
    twin = FeaturePolicy(sets.Simplex(3), n_features=8, forget=0.99).stack(2, seeds=[0, 1])
    for s in (stack, twin):
        s.learn({"a": 1.0, "b": -0.5}, np.ones((2, 3)))
    stack.predict({"a": 0.2, "b": 0.1})
    state = [stack._P.copy(), stack._theta.copy(), stack._W.copy(), stack._t]
    with pytest.raises(ValueError, match=r"x\['c'\]"):
        stack.learn({"a": 0.2, "b": 0.1, "c": math.nan}, np.ones((2, 3)))
    with pytest.raises(ValueError, match="g must have shape"):
        stack.learn({"a": 0.2, "b": 0.1, "c": 3.0}, np.ones((3, 3)))
    with pytest.raises(ValueError, match="g must be finite"):
        stack.learn({"a": 0.2, "b": 0.1}, np.full((2, 3), math.inf))
    for a, b in zip(state[:3], [stack._P, stack._theta, stack._W]):
        np.testing.assert_array_equal(a, b)
    assert stack._t == state[3] and len(stack._index) == 2
    for s in (stack, twin):
        s.learn({"a": 0.2, "b": 0.1, "c": 3.0}, np.full((2, 3), 0.5))
    np.testing.assert_array_equal(stack._P, twin._P)
    np.testing.assert_array_equal(stack.predict({"a": 1.0, "c": 2.0}),
                                  twin.predict({"a": 1.0, "c": 2.0}))


def test_stack_pickle_has_no_cache():
    stack = FeaturePolicyStack(2, sets.Simplex(3), n_features=8, seeds=[0, 1])
    c = np.array([0.5, -1.0])
    stack.predicted_costs(c)
    assert stack._round is not None
    copy = pickle.loads(pickle.dumps(stack))
    assert copy._round is None
    np.testing.assert_array_equal(copy.predicted_costs(c), stack.predicted_costs(c))
    assert type(copy) is FeaturePolicyStack and isinstance(
        FeaturePolicy(sets.Simplex(3), later_features=4).stack(3), FeaturePolicyBoostStack)


def test_one_copy_step_is_the_same_floats_compiled_or_not():
    """The one-copy step's tail (`_stack_kernels.rank_one`: Theta += g v^T, A^{-1} -= w w^T)
    gives numpy's floats bit for bit (copy 1 of BoBLO(n_learners=5), and BoBLO()'s numpy
    round)."""
    stacks = []
    for jit in (True, False):
        stack = FeaturePolicyStack(1, sets.Simplex(4), l2=2.0, forget=0.995, n_features=0,
                                   seeds=[0], on_model=True)
        stack._JIT = jit and _stack_kernels.AVAILABLE
        stack.model = _Model(4, 3)
        stacks.append(stack)
    rng = np.random.default_rng(9)
    for t in range(400):
        c, G = rng.normal(size=3), rng.normal(size=(1, 4))
        for stack in stacks:
            stack.predicted_costs(c)
            stack.learn_vector(c, G)
    np.testing.assert_array_equal(stacks[0]._P, stacks[1]._P)
    np.testing.assert_array_equal(stacks[0]._theta, stacks[1]._theta)
    np.testing.assert_array_equal(stacks[0]._P, stacks[0]._P.transpose(0, 2, 1))
    # and an asymmetric pair (the step's u v^T for an overflowed s)
    theta, P = rng.normal(size=(3, 5)), rng.normal(size=(5, 5))
    g, v, a, b = (rng.normal(size=n) for n in (3, 5, 5, 5))
    t2, P2 = theta.copy(), P.copy()
    _stack_kernels.rank_one(theta, g, v, P, a, b)
    t2 += g[:, None] * v
    P2 -= a[:, None] * b
    np.testing.assert_array_equal(theta, t2)
    np.testing.assert_array_equal(P, P2)
