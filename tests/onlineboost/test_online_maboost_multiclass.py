"""OnlineMABoostMultiClassifier: the simplex, new classes, the binary special case, the weight and
alpha formulas, learning on multiclass streams, refusals that leave the state alone."""

from __future__ import annotations

import copy
import decimal
import itertools
import math

import numpy as np
import pytest
from river import datasets, evaluate, metrics, naive_bayes, preprocessing, tree

from onlineboost import OnlineMABoostClassifier, OnlineMABoostMultiClassifier, mirror
from tests.helpers import assert_pinned as _assert_pinned
from tests.helpers import head as _head
from tests.helpers import maboost_fingerprint as _fingerprint
from tests.helpers import same_state


def _accuracy(model, stream):
    metric = metrics.Accuracy()
    for x, y in stream:
        metric.update(y, model.predict_one(x))
        model.learn_one(x, y)
    return metric.get()


def _rbf(n=1500, seed=1):
    """Four classes, Gaussian clouds around seeded centres in 5 dimensions (unit noise), the
    centre of class k drawn at scale 2: overlapping, far from separable."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=2.0, size=(4, 5))
    ys = rng.choice(4, size=n, p=[0.4, 0.3, 0.2, 0.1])
    X = centres[ys] + rng.normal(size=(n, 5))
    return [({f"x_{j}": float(v) for j, v in enumerate(row)}, int(y)) for row, y in zip(X, ys)]


def _staggered():
    """ImageSegments with its classes let in one at a time: class k first appears at 60 k."""
    data = list(datasets.ImageSegments())
    order = sorted({y for _, y in data})
    stream, used = [], set()
    for k, label in enumerate(order):
        pool = [(x, y) for x, y in data if y in order[:k + 1] and id(x) not in used]
        for x, y in pool[:60 if k < len(order) - 1 else 200]:
            used.add(id(x))
            stream.append((x, y))
    return stream


def test_probabilities_on_the_simplex_at_every_step_including_new_classes():
    model = OnlineMABoostMultiClassifier(tree.HoeffdingTreeClassifier(), n_models=4)
    seen = []
    assert model.predict_proba_one({"a": 1.0}) == {}
    assert model.predict_one({"a": 1.0}) is None
    for x, y in _staggered():
        p = model.predict_proba_one(x)
        assert list(p) == seen  # every class seen, in order of first appearance, none other
        if seen:
            values = np.array(list(p.values()))
            assert np.all(values >= 0) and math.isclose(values.sum(), 1.0, abs_tol=1e-12)
        model.learn_one(x, y)
        if y not in seen:
            seen.append(y)
            p = model.predict_proba_one(x)  # the new class is on the grown simplex at once
            assert list(p) == seen and math.isclose(sum(p.values()), 1.0, abs_tol=1e-12)
        np.testing.assert_allclose(model.vote_weights.sum(), 1.0)
        np.testing.assert_allclose(model.expert_weights.sum(), 1.0)
    assert len(seen) == 7


def test_one_class_answers_it_with_certainty():
    model = OnlineMABoostMultiClassifier(n_models=3)
    # before any label: no class, no answer, and every voter's row is empty
    assert model.predict_proba_one({"a": 1.0}) == {} and model.predict_one({"a": 1.0}) is None
    assert model.voter_probas({"a": 1.0}).shape == (len(model.vote_weights), 0)
    model.learn_one({"a": 1.0}, "only")
    assert model.predict_proba_one({"a": 2.0}) == {"only": 1.0}


def test_two_classes_are_the_binary_booster():
    """With K = 2 the margin is y F, softmax(s^i) is sigma(F_i) and the alpha gradient is
    AdaBoost.OL's: weights, alphas, both layers and the answers equal the binary class's.
    A wrong margin, a sign slip in the alpha step or a different vote would all diverge."""
    stream = list(itertools.islice(datasets.Phishing(), 600))
    other = next(i for i, (_, y) in enumerate(stream) if y != stream[0][1])
    stream.insert(1, stream.pop(other))  # the binary booster knows both classes from the start
    multi = OnlineMABoostMultiClassifier(tree.HoeffdingTreeClassifier(), n_models=5)
    binary = OnlineMABoostClassifier(tree.HoeffdingTreeClassifier(), n_models=5)
    for t, (x, y) in enumerate(stream):
        p_multi, p_binary = multi.predict_proba_one(x), binary.predict_proba_one(x)
        if t >= 2:
            assert p_multi[True] == pytest.approx(p_binary[True], abs=1e-9)
        np.testing.assert_allclose(multi.example_weights(x, y), binary.example_weights(x, y),
                                   rtol=1e-9)
        multi.learn_one(x, y)
        binary.learn_one(x, y)
    np.testing.assert_allclose(multi.alphas, binary.alphas, rtol=1e-9)
    np.testing.assert_allclose(multi.expert_weights, binary.expert_weights, rtol=1e-9)
    np.testing.assert_allclose(multi.vote_weights, binary.vote_weights, rtol=1e-9)


def _oracle(model, x):
    """Centred votes and partial sums recomputed from the learners (plain loops, no cache)."""
    K = len(model.classes)
    H = []
    for m in model._models:
        proba = m.predict_proba_one(x)
        row = np.array([proba.get(c, 0.0) for c in model.classes])
        H.append(row / row.sum() - 1 / K if row.sum() > 0 else np.zeros(K))
    H = np.array(H)
    return H, np.cumsum(model.alphas[:, None] * H, axis=0)


@pytest.mark.parametrize("regulariser", ["entropy", "quadratic"])
def test_example_weights_are_the_mirror_map_of_the_multiclass_margin(regulariser):
    eta = 0.8
    model = OnlineMABoostMultiClassifier(tree.HoeffdingTreeClassifier(), n_models=4,
                                         regulariser=regulariser, eta=eta)
    stream = _rbf(700)
    for x, y in stream[:600]:
        model.learn_one(x, y)
    assert np.any(model.alphas[1:] != 0)
    for x, y in stream[600:]:
        _, S = _oracle(model, x)
        c = model.classes.index(y)
        S_prev = np.vstack((np.zeros(len(model.classes)), S[:-1]))
        m = np.array([s[c] - max(v for k, v in enumerate(s) if k != c) for s in S_prev])
        expected = np.minimum(1, np.exp(-eta * m)) if regulariser == "entropy" else \
            np.clip(1 - eta * m, 0, 1)
        np.testing.assert_allclose(model.example_weights(x, y), expected, rtol=1e-12)
        assert model.example_weights(x, y)[0] == 1.0  # the first learner: the plain learner


class _RecordingTree(tree.HoeffdingTreeClassifier):
    """A Hoeffding tree recording the weights it learns with (each clone its own list)."""

    def learn_one(self, x, y, *, w=1.0):
        self.__dict__.setdefault("seen", []).append(w)
        super().learn_one(x, y, w=w)


def test_thinning_keeps_each_learners_total_weight_within_min_weight():
    """The multiclass booster thins as the binary one: weights >= min_weight learnt as they
    are, smaller ones pooled and learnt as min_weight, each learner's total within min_weight
    of the exact total (rescaled by the running mean, times lam), recomputed here."""
    tau, stream = 1.0, _rbf(600)
    model = OnlineMABoostMultiClassifier(_RecordingTree(), n_models=5, min_weight=tau)
    w_sum, exact = np.zeros(5), []
    for n, (x, y) in enumerate(stream, start=1):
        w = model.example_weights(x, y)
        w_sum += w
        w = w * n / w_sum
        w[1:] *= model.lam
        exact.append(w)
        model.learn_one(x, y)
    exact = np.array(exact)
    assert (exact < tau).mean() > 0.05
    for i, m in enumerate(model._models):
        seen = np.array(m.seen)
        big = exact[:, i][exact[:, i] >= tau]
        np.testing.assert_allclose(np.sort(seen[seen != tau]), np.sort(big[big != tau]))
        gap = exact[:, i].sum() - seen.sum()
        assert -1e-9 <= gap < tau


def test_alpha_step_is_the_gradient_of_the_cross_entropy_of_each_partial_sum():
    """Finite differences of -log softmax(s^{i-1} + a h_i)_y in a give the step taken."""
    model = OnlineMABoostMultiClassifier(tree.HoeffdingTreeClassifier(), n_models=4,
                                         alpha_bound=50.0)
    stream = _rbf(500)
    for x, y in stream[:400]:
        model.learn_one(x, y)
    for x, y in stream[400:440]:
        H, S = _oracle(model, x)
        c = model.classes.index(y)
        alpha = model.alphas
        S_prev = np.vstack((np.zeros(len(model.classes)), S[:-1]))

        def ce(i, a):
            s = S_prev[i] + a * H[i]
            return np.log(np.exp(s - s.max()).sum()) + s.max() - s[c]

        eps = 1e-6
        grad = np.array([(ce(i, alpha[i] + eps) - ce(i, alpha[i] - eps)) / (2 * eps)
                         for i in range(4)])
        eta_t = model.alpha_lr / math.sqrt(model._n_seen + 1)
        model.learn_one(x, y)
        np.testing.assert_allclose(model.alphas, alpha - eta_t * grad, atol=1e-7)


def test_first_voter_is_the_single_learner_and_the_vote_obeys_hedge():
    """Voter 0 makes the single learner's mistakes one for one; Hedge's bound with prior 1/2
    on it holds against every voter (Freund and Schapire, Theorem 2)."""
    model = OnlineMABoostMultiClassifier(tree.HoeffdingTreeClassifier(), n_models=4,
                                         vote_lr=0.7)
    single = tree.HoeffdingTreeClassifier()
    stream = _rbf(800, seed=3)
    n_voters = len(model.vote_weights)
    hedge, mistakes, single_mistakes = 0.0, np.zeros(n_voters), 0
    for x, y in stream:
        if model.classes:
            V = model.voter_probas(x)
            np.testing.assert_allclose(V.sum(axis=1), 1.0)
            top = V == V.max(axis=1, keepdims=True)
            loss = 1 - top[:, model.classes.index(y)] / top.sum(axis=1) \
                if y in model.classes else np.ones(n_voters)
            p_single = single.predict_proba_one(x)
            p_single = np.array([p_single.get(c, 0.0) for c in model.classes])
            if p_single.sum() == 0:  # untrained: every class ties
                p_single[:] = 1.0
            top_single = p_single == p_single.max()
            single_mistakes += 1 - top_single[model.classes.index(y)] / top_single.sum() \
                if y in model.classes else 1
            hedge += model.vote_weights @ loss
            mistakes += loss
        model.learn_one(x, y)
        single.learn_one(x, y)
    assert mistakes[0] == single_mistakes
    prior = np.full(n_voters, 0.5 / (n_voters - 1))
    prior[0] = 0.5
    assert np.all(hedge <= (0.7 * mistakes + np.log(1 / prior)) / (1 - np.exp(-0.7)))


def test_learns_a_seeded_multiclass_stream_well_above_the_majority_class():
    stream = _rbf(2000)
    majority = max(np.mean([y == c for _, y in stream]) for c in range(4))
    boosted = _accuracy(OnlineMABoostMultiClassifier(), stream)
    assert majority < 0.45 and boosted > 0.85  # measured: 0.402 and 0.9075


def test_boosting_beats_the_single_tree_on_image_segments():
    single = _accuracy(tree.HoeffdingTreeClassifier(), datasets.ImageSegments())
    boosted = _accuracy(OnlineMABoostMultiClassifier(n_models=5), datasets.ImageSegments())
    assert boosted > single + 0.02  # measured: 0.825 against 0.778


def test_works_in_a_pipeline_and_progressive_val_score():
    model = preprocessing.StandardScaler() | OnlineMABoostMultiClassifier(
        naive_bayes.GaussianNB(), n_models=3, seed=0)
    metric = evaluate.progressive_val_score(_rbf(600), model, metrics.Accuracy())
    assert metric.get() > 0.5


def test_same_seed_same_predictions_and_another_seed_differs():
    stream = _rbf(500)

    def run(seed):
        model = OnlineMABoostMultiClassifier(naive_bayes.GaussianNB(), n_models=4, eta=3.0,
                                             rescale=False, seed=seed)  # Poisson path
        out = []
        for x, y in stream:
            out.append(model.predict_proba_one(x))
            model.learn_one(x, y)
        return out

    assert run(7) == run(7)
    assert run(7) != run(8)


def test_categorical_features_pass_validation():
    model = OnlineMABoostMultiClassifier(n_models=2)
    for i in range(60):
        model.learn_one({"colour": ["red", "blue", "green"][i % 3], "v": float(i)}, i % 3)
    assert model.predict_one({"colour": "red", "v": 3.0}) in (0, 1, 2)


_BAD_X = [
    ({"a": float("nan")}, "x\\['a'\\]"), ({"a": float("-inf")}, "x\\['a'\\]"),
    ({"a": 1e101}, "x\\['a'\\]"), ({"a": 10 ** 400}, "x\\['a'\\]"),
    ({"a": None}, "x\\['a'\\]"), ({"a": "3.5"}, "x\\['a'\\]"), ({"a": [1.0]}, "x\\['a'\\]"),
    ({"a": b"x"}, "x\\['a'\\]"), ({"a": decimal.Decimal("1.5")}, "x\\['a'\\]"),
    ({"a": 1 + 2j}, "x\\['a'\\]"), ([1.0], "x"),
]
_BAD_Y = [None, float("nan"), float("inf"), 1 + 0j, [1], {"a": 1}, np.array([1, 2]), b"k"]


def _trained(cls=OnlineMABoostMultiClassifier, model=None, **kw):
    booster = cls(model or tree.HoeffdingTreeClassifier(grace_period=20), n_models=3, **kw)
    for x, y in _rbf(300):
        booster.predict_proba_one(x)
        booster.learn_one(x, y % 2 if cls is OnlineMABoostClassifier else y)
    return booster


@pytest.mark.parametrize("cls", [OnlineMABoostMultiClassifier, OnlineMABoostClassifier])
@pytest.mark.parametrize("x, name", _BAD_X)
def test_bad_x_raises_naming_it_and_leaves_the_state(cls, x, name):
    model = _trained(cls, naive_bayes.GaussianNB(), seed=0)  # Poisson path: an RNG too
    before = copy.deepcopy(model)
    for call in (lambda: model.learn_one(x, 1), lambda: model.predict_proba_one(x),
                 lambda: model.predict_one(x), lambda: model.voter_probas(x)):
        with pytest.raises(ValueError, match=name):
            call()
    assert same_state(model, before)


@pytest.mark.parametrize("cls", [OnlineMABoostMultiClassifier, OnlineMABoostClassifier])
@pytest.mark.parametrize("y", _BAD_Y, ids=repr)
def test_bad_y_raises_naming_it_and_leaves_the_state(cls, y):
    model = _trained(cls, naive_bayes.GaussianNB(), seed=0)
    x = {f"x_{i}": 0.1 for i in range(5)}
    before = copy.deepcopy(model)
    with pytest.raises(ValueError, match="y"):
        model.learn_one(x, y)
    assert same_state(model, before)


@pytest.mark.parametrize("cls", [OnlineMABoostMultiClassifier, OnlineMABoostClassifier])
@pytest.mark.parametrize("value", [1e308, -1e308, 1e200])
def test_huge_features_on_a_trained_tree_are_refused_not_an_overflow(cls, value):
    """A trained Hoeffding tree raises OverflowError on 1e200 (its Gaussian splitters square
    the values); the booster refuses such magnitudes before any learner sees them."""
    model = _trained(cls)
    x = {f"x_{i}": value for i in range(5)}
    before = copy.deepcopy(model)
    with pytest.raises(ValueError, match="x\\['x_0'\\]"):
        model.learn_one(x, 1)
    with pytest.raises(ValueError, match="x\\['x_0'\\]"):
        model.predict_proba_one(x)
    assert same_state(model, before)
    edge = {f"x_{i}": 1e100 for i in range(5)}  # the largest accepted magnitude works
    model.learn_one(edge, 1)
    assert math.isclose(sum(model.predict_proba_one(edge).values()), 1.0)


@pytest.mark.parametrize("cls", [OnlineMABoostMultiClassifier, OnlineMABoostClassifier])
@pytest.mark.parametrize("params, name", [
    ({"model": "ridge"}, "model"), ({"model": preprocessing.StandardScaler()}, "model"),
    ({"n_models": True}, "n_models"), ({"n_models": 2.7}, "n_models"),
    ({"n_models": 0}, "n_models"), ({"eta": True}, "eta"), ({"eta": 0.0}, "eta"),
    ({"alpha_bound": float("inf")}, "alpha_bound"), ({"lam": -1.0}, "lam"),
    ({"vote_lr": 10 ** 400}, "vote_lr"), ({"seed": "abc"}, "seed"), ({"seed": 1.5}, "seed"),
    ({"seed": True}, "seed"), ({"regulariser": "l3"}, "regulariser"),
    ({"weighting": "sometimes"}, "weighting"), ({"prior_voter": "yes"}, "prior_voter"),
    ({"rescale": None}, "rescale"), ({"min_weight": 2.0}, "min_weight"),
    ({"min_weight": -1e-9}, "min_weight"), ({"min_weight": 10 ** 400}, "min_weight"),
])
def test_invalid_parameters_raise_naming_the_argument(cls, params, name):
    with pytest.raises(ValueError, match=name):
        cls(**params)


@pytest.mark.parametrize("cls", [OnlineMABoostMultiClassifier, OnlineMABoostClassifier])
def test_model_none_is_a_hoeffding_tree(cls):
    assert isinstance(cls()._models[0], tree.HoeffdingTreeClassifier)
    assert cls(None).model is None  # stored verbatim
    assert cls().clone()._get_params() == cls()._get_params()


_PINNED = {  # name: (model factory, stream, pinned fingerprint)
    "default (min_weight 1), ImageSegments": (
        lambda: OnlineMABoostMultiClassifier(seed=0),
        lambda: _head(datasets.ImageSegments, 300),
        (5159.919687748588, 202,
     [2.0, 1.7739961410614242, 0.09804187154936757, 0.0032613209633056963, -0.3230871009875811,
      -0.112306250345989, -0.035273987284066034, 0.26885378293985546, -0.4091597259465412,
      -0.2687386446782149],
     [0.0022376503545259376, 0.09695023060964972, 0.2635380501311247, 0.2635380501311247,
      0.2635380501311247, 0.09695023060964972, 0.013120786919411861, 8.8407166849291e-05,
      4.401533660134806e-06, 3.252317913606764e-05, 1.6192337431876856e-06,
      1.8575080726698916e-72])),
    "default (min_weight 1), two classes (Phishing)": (
        lambda: OnlineMABoostMultiClassifier(seed=0),
        lambda: _head(datasets.Phishing, 300),
        (1742.0514319480005, 249,
     [1.935422328425134, 0.9898967879972749, 0.5488199900759866, 0.3281973878167347,
      0.13589409033776667, 0.015521747544022017, -0.1311353247478662, -0.13777106873190123,
      -0.01686490396664775, 0.030827267274989106],
     [0.8622016060266956, 0.006433983422202239, 0.047541064446242155, 0.047541064446242155,
      0.017489380221179088, 0.006433983422202239, 0.0008707449687834106, 0.002366930225866084,
      0.006433983422202239, 0.002366930225866084, 0.00032032917251888606,
      1.4330820231811223e-41])),
    "min_weight 0 (the code before thinning), ImageSegments": (
        lambda: OnlineMABoostMultiClassifier(min_weight=0.0, seed=0),
        lambda: _head(datasets.ImageSegments, 300),
        (5161.406229251497, 200,
     [2.0, 1.7714511072424368, 0.1449011531170057, -0.010260914285670476, 0.05503915080806455,
      -0.0801357116691225, -0.4924830529562925, -0.24735562679289352, 0.3705646771585925,
      0.3332705403046433],
     [0.0018790787112689463, 0.08141446853961386, 0.22130747040488297, 0.22130747040488297,
      0.22130747040488297, 0.22130747040488297, 0.029950709189623118, 0.001491158006089777,
      2.7311511565585242e-05, 3.6962111533485015e-06, 3.6962111533485015e-06,
      1.5598522210158574e-72])),
    "Poisson path, quadratic, GaussianNB": (
        lambda: OnlineMABoostMultiClassifier(naive_bayes.GaussianNB(), n_models=4,
                                             regulariser="quadratic", seed=3),
        lambda: _head(datasets.ImageSegments, 300),
        (5090.289779989518, 188,
     [2.0, 1.3486941782434718, 0.8890429390929281, 0.023289706882783652],
     [2.275796442989323e-14, 5.239850635515871e-05, 1.274063526321568e-06, 0.0229761366555329,
      0.9769701907745628, 4.122949308687134e-67])),
    "behind a StandardScaler, Regulariser object, no prior, no rescale, lam 1": (
        lambda: preprocessing.StandardScaler() | OnlineMABoostMultiClassifier(
            n_models=3, prior_voter=False, rescale=False, lam=1.0,
            regulariser=mirror.NegativeEntropy(), min_weight=0.0),
        lambda: _head(datasets.ImageSegments, 300),
        (5178.094459548398, 195,
     [2.0, 1.7177216080410864, 0.17399825770140673],
     [0.0033562704442145646, 0.2317250212134752, 0.2317250212134752, 0.533193687128835])),
    "min_weight 0, two classes (Phishing)": (
        lambda: OnlineMABoostMultiClassifier(min_weight=0.0, seed=0),
        lambda: _head(datasets.Phishing, 300),
        (1742.5748046141002, 249,
     [1.935422328425134, 0.9898967879972745, 0.5538056367400261, 0.32948342983374546,
      0.0990861921149299, 0.07762136752424198, 0.05051359451237189, -0.05673698816579914,
      -0.17274550393002747, -0.06818078968139746],
     [0.8743140918370715, 0.006524370093209213, 0.04820893662890827, 0.04820893662890827,
      0.01773507666651225, 0.002400181623885476, 0.002400181623885476, 4.396085989046198e-05,
      4.396085989046198e-05, 0.0001194980066036769, 8.0517123499194e-07, 1.4532144209284178e-41])),
}


@pytest.mark.parametrize("case", list(_PINNED))
def test_answers_pinned_on_seeded_streams(case):
    make, stream, pinned = _PINNED[case]
    _assert_pinned(_fingerprint(make(), stream()), pinned)


class _CountingTree(tree.HoeffdingTreeClassifier):
    """A Hoeffding tree counting the predictions asked of it (all clones share the count)."""

    predictions = 0

    def predict_proba_one(self, x):
        type(self).predictions += 1
        return super().predict_proba_one(x)


def test_learn_reuses_the_predicted_round_only_for_an_equal_x():
    """Predict, then learn on the same x: each learner predicts once per example (twice when
    the label is a new class: the simplex grew). Behind a StandardScaler (x re-scaled after
    the scaler learns) or with x changed in place, learn_one reads the learners again: the
    state equals a booster that only learned."""
    stream = _head(datasets.ImageSegments, 200)
    n_new = len({y for _, y in stream}) - 1  # the first example's class meets an empty model
    model = OnlineMABoostMultiClassifier(_CountingTree(), n_models=3)
    _CountingTree.predictions = 0
    for x, y in stream:
        model.predict_proba_one(x)
        model.learn_one(x, y)
    assert _CountingTree.predictions == 3 * (len(stream) + n_new)

    scaled = preprocessing.StandardScaler() | OnlineMABoostMultiClassifier(_CountingTree(),
                                                                            n_models=3)
    learn_only = preprocessing.StandardScaler() | OnlineMABoostMultiClassifier(n_models=3)
    for x, y in stream:
        scaled.predict_proba_one(x)
        scaled.learn_one(x, y)
        learn_only.learn_one(x, y)
    np.testing.assert_array_equal(scaled[-1].alphas, learn_only[-1].alphas)
    np.testing.assert_array_equal(scaled[-1].vote_weights, learn_only[-1].vote_weights)

    mutated = OnlineMABoostMultiClassifier(n_models=3)
    learn_only = OnlineMABoostMultiClassifier(n_models=3)
    for x, y in stream:
        x = dict(x)
        mutated.predict_proba_one(x)
        x["hue-mean"] += 0.5  # changed in place after the prediction
        mutated.learn_one(x, y)
        learn_only.learn_one(x, y)
    np.testing.assert_array_equal(mutated.alphas, learn_only.alphas)
    np.testing.assert_array_equal(mutated.vote_weights, learn_only.vote_weights)


class _Scaled(tree.HoeffdingTreeClassifier):
    """A Hoeffding tree whose probabilities are multiplied by `scale` (not a distribution
    unless 1): the booster reads a learner's distribution as its probabilities over their sum."""

    def __init__(self, scale: float = 1.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale

    def predict_proba_one(self, x):
        return {c: self.scale * p for c, p in super().predict_proba_one(x).items()}


@pytest.mark.parametrize("n_classes", [2, 4])
def test_a_learner_is_read_as_its_probabilities_over_their_sum(n_classes):
    # the same trees with their probabilities scaled by 3 or 0.2 give the same booster: every
    # voter, weight and answer (the K-class path's votes and first voter, the two-class path's
    # h_i, both normalise a learner's row by its total)
    stream = [(x, y % n_classes) for x, y in _rbf(500, seed=4)]
    models = [OnlineMABoostMultiClassifier(_Scaled(scale, grace_period=50), n_models=4)
              for scale in (1.0, 3.0, 0.2)]
    for t, (x, y) in enumerate(stream):
        if t % 5 == 0 and t:
            base, *others = ([m.predict_proba_one(x), m.voter_probas(x),
                              m.example_weights(x, y)] for m in models)
            for other in others:
                assert list(other[0]) == list(base[0])
                np.testing.assert_allclose(list(other[0].values()), list(base[0].values()),
                                           atol=1e-12)
                np.testing.assert_allclose(other[1], base[1], atol=1e-12)
                np.testing.assert_allclose(other[2], base[2], rtol=1e-12)
        for m in models:
            m.learn_one(x, y)
    assert np.any(models[0].alphas[1:] != 0)  # the later learners count
