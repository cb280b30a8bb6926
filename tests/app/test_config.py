"""Issue 14 item 17 and issue 17 item 7: every bad setting is `error: ...` with exit status 2
(never a traceback), naming the key; `run --help` shows the defaults."""

from __future__ import annotations

import json

import pytest

from onlineboost.app import cli, runconfig
from tests.app._util import run

BAD_CONFIGS = [
    ({"data": 3}, "[data] must be a table"),
    ([1, 2], "must be a table"),
    ({"data": {"target": "y", "features": 5}}, "features must be"),
    ({"data": {"target": "y", "encoding": "nope"}}, "encoding must"),
    ({"data": {"target": "y", "delimiter": ";;"}}, "delimiter must"),
    ({"data": {"target": "y", "max_line_bytes": 0}}, "max_line_bytes must"),
    ({"data": {"target": "y", "max_abs": -1}}, "max_abs must"),
    ({"data": {"target": "y", "task": "clustering"}}, "task must"),
    ({"data": {"target": 7}}, "target must"),
    ({"model": {"seed": "abc"}}, "seed must"),
    ({"model": {"seed": -1}}, "seed must"),
    ({"model": {"n_learners": 2.7}}, "n_learners must"),
    ({"model": {"n_learners": True}}, "n_learners must"),
    ({"model": {"gamma": True}}, "gamma must"),
    ({"model": {"gamma": "half"}}, "gamma must"),
    ({"model": {"step_size": "fast"}}, "step_size must"),
    ({"model": {"delta": -1}}, "delta must"),
    ({"model": {"scale": "yes"}}, "scale must"),
    ({"model": {"booster": "xgboost"}}, "booster must"),
    ({"model": {"learner": "nope"}}, "learner must"),
    ({"model": {"learner": "no.such.module:Class"}}, "not available"),
    ({"model": {"learner_params": {"nope": 1}}}, "learner_params"),
    ({"model": {"learner_params": {"lr": -1}}}, "learner_params"),
    ({"model": {"learner_params": 3}}, "learner_params must"),
    ({"model": {"decision_set": {"kind": "box", "low": 0}}}, "decision_set"),
    ({"model": {"decision_set": {"kind": "cube"}}}, "decision_set kind"),
    ({"model": {"decision_set": "interval:2,1"}}, "decision_set"),
    ({"model": {"decision_set": 5}}, "decision_set must"),
    ({"model": {"loss": {"kind": "huber", "epsilon": 1, "bogus": 2}}}, "loss"),
    ({"model": {"loss": "cosh"}}, "loss must"),
    ({"model": {"n_lerners": 3}}, "n_lerners"),
    ({"modell": {}}, "unknown tables"),
]


@pytest.mark.parametrize("config,message", BAD_CONFIGS)
def test_bad_config_values_are_clear_errors(tmp_path, capsys, config, message):
    (tmp_path / "in.csv").write_text("a,y\n1,0.5\n")
    if isinstance(config, dict) and isinstance(config.get("data", {}), dict):
        config.setdefault("data", {}).setdefault("target", "y")
    (tmp_path / "c.json").write_text(json.dumps(config))
    code, err = run([tmp_path / "in.csv", "--config", tmp_path / "c.json", "-o",
                     tmp_path / "out"], capsys)
    assert code == 2, err
    assert err.startswith("onlineboost run: error: ") and message in err, err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


def test_bad_toml_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "c.toml").write_text("[data\ntarget = ")
    code, err = run(["--config", tmp_path / "c.toml"], capsys)
    assert code == 2 and "is not valid" in err


@pytest.mark.parametrize("argv,message", [
    (["--features", "y"], "features must not contain the target"),
    (["--features", "a,y"], "features must not contain the target"),
    (["--report-every", "-1"], "report_every must be an integer >= 0"),
    (["--checkpoint-every", "0"], "checkpoint_every must be an integer >= 1"),
    (["--max-line-bytes", "0"], "max_line_bytes must"),
    (["--max-features", "0"], "max_features must"),
    (["--gamma", "nan"], "gamma must"),
    (["--step-size", "-2"], "step_size must"),
    (["--decision-set", "box:1,2,3"], "decision_set"),
    (["--learner", "softmax"], "booco"),
])
def test_bad_flags_are_clear_errors(tmp_path, capsys, argv, message):
    """Before: `--features y` leaked the target into x; `--report-every -1` printed a line per
    record."""
    (tmp_path / "in.csv").write_text("a,y\n1,0.5\n2,0.1\n")
    code, err = run([tmp_path / "in.csv", "--target", "y", *argv, "-o", tmp_path / "out"],
                    capsys)
    assert code == 2 and err.startswith("onlineboost run: error: ") and message in err, err
    assert not (tmp_path / "out").exists()


def test_missing_target_names_the_flag(tmp_path, capsys):
    (tmp_path / "in.csv").write_text("a,y\n1,0.5\n")
    code, err = run([tmp_path / "in.csv"], capsys)
    assert code == 2 and "--target is required" in err, err


def test_help_shows_every_default(capsys):
    with pytest.raises(SystemExit):
        cli.main(["run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    own = "default: the booster's or policy's own"
    for needle in (f"weak learners ({own}: 10 for BoOCO)", f"edge ({own})",
                   f"'theory' ({own})", f"a number > 0 or 'theory' ({own}: 0.01 for BoOCO)",
                   "(default 10000)", "(default 1e+100)", "(default 1000)", "(default 1048576)",
                   "BoOCO's is mlp, also for --booster none", "(default epsilon-greedy)",
                   "(default 0)",
                   "replay (default)", "(default booco)"):
        assert needle in text, needle


def _params(model):
    """A river estimator's constructor parameters, nested estimators as their class names."""
    return {k: (type(v).__name__ if hasattr(v, "_get_params") else v)
            for k, v in model._get_params().items()}


@pytest.mark.parametrize("task, booster", [("classification", "booco-classifier"),
                                           ("regression", "booco")])
def test_unset_model_values_build_the_boosters_own_defaults(task, booster):
    """With nothing but the booster named, `onlineboost run` builds the booster with its own
    defaults and the run's seed: `BoOCOClassifier(seed=0)` / `BoOCO(seed=0)` (before, the
    classifier was built with a score bound of 2 and the logistic loss, its defaults of an
    earlier version, where its own are 1 and the squared loss)."""
    from onlineboost import BoOCO, BoOCOClassifier

    model = runconfig.build_model(runconfig.resolve(target="y", task=task, booster=booster))
    own = (BoOCOClassifier if task == "classification" else BoOCO)(seed=0)
    assert type(model) is type(own) and _params(model) == _params(own)


def test_a_classifier_bound_and_loss_are_passed_on():

    model = runconfig.build_model(runconfig.resolve(
        {"model": {"booster": "booco-classifier", "bound": 2.5, "loss": "hinge"}},
        target="y", task="classification"))
    assert model.bound == 2.5 and model.loss == "hinge"
    for bad in (0, -1.0, float("nan"), "2"):
        with pytest.raises(ValueError, match="bound must be a finite number > 0"):
            runconfig.resolve({"model": {"bound": bad}}, target="y")


#: (key, value) at the edge of what each setting takes: refused, with the key named
EDGES_REFUSED = [
    ("delimiter", ";;"), ("delimiter", ""), ("delimiter", 1),
    ("max_line_bytes", 0), ("max_abs", 0), ("max_abs", -1e-300), ("max_abs", float("inf")),
    ("max_abs", float("nan")), ("max_abs", "1"), ("max_features", 0),
    ("learner", ""), ("policy", ""), ("learner", 3),
    ("n_learners", 0), ("gamma", 0), ("gamma", -1.0), ("bound", 0.0),
    ("step_size", 0), ("step_size", -0.5), ("delta", 0.0), ("delta", -1),
    ("step_size", "0"), ("step_size", "-0.5"), ("delta", "inf"), ("delta", "nan"),
    ("kappa", 0), ("kappa", -2.0), ("kappa", float("nan")), ("kappa", "1"),
]
#: (key, value, as resolved) just inside the edges
EDGES_TAKEN = [
    ("delimiter", ";", ";"), ("max_line_bytes", 1, 1), ("max_abs", 1e-300, 1e-300),
    ("max_abs", 0.25, 0.25), ("max_features", 1, 1), ("learner", "ridge", "ridge"),
    ("n_learners", 1, 1), ("gamma", 1e-9, 1e-9), ("bound", 0.25, 0.25),
    ("step_size", "theory", "theory"), ("delta", "theory", "theory"),
    ("step_size", 0.25, 0.25), ("step_size", "0.25", 0.25), ("delta", "1e-9", 1e-9),
    ("kappa", 0.25, 0.25), ("kappa", None, None),
]


@pytest.mark.parametrize("key, value", EDGES_REFUSED)
def test_settings_just_past_their_edges_are_refused_by_name(key, value):

    section = "data" if key in runconfig.DATA_DEFAULTS else "model"
    with pytest.raises(ValueError, match=f"^{key} must"):
        runconfig.resolve({section: {key: value}}, target="y")


@pytest.mark.parametrize("key, value, resolved", EDGES_TAKEN)
def test_settings_at_their_edges_are_taken(key, value, resolved):

    section = "data" if key in runconfig.DATA_DEFAULTS else "model"
    out = runconfig.resolve({section: {key: value}}, target="y")
    assert out[section][key] == resolved and type(out[section][key]) is type(resolved)


def test_theory_steps_and_simplex_sets_from_text_build_their_models():
    """`step_size` / `delta` = "theory" reach BoOCO as the word, numbers as floats; a simplex
    of "simplex:D" / "capped-simplex:D,CAP" has D coordinates (and the cap)."""
    from onlineboost import sets

    model = runconfig.build_model(runconfig.resolve(
        {"model": {"step_size": "theory", "delta": "theory", "learner": "ridge"}}, target="y"))
    assert model.step_size == "theory" and model.delta == "theory"
    model = runconfig.build_model(runconfig.resolve(
        {"model": {"step_size": "0.5", "delta": 0.25, "learner": "ridge"}}, target="y"))
    assert model.step_size == 0.5 and type(model.step_size) is float and model.delta == 0.25
    s = runconfig.parse_set("simplex:3")
    assert type(s) is sets.Simplex and s.dim == 3
    c = runconfig.parse_set("capped-simplex:4,0.5")
    assert type(c) is sets.CappedSimplex and c.dim == 4 and c.cap == 0.5


@pytest.mark.parametrize("spec, lo, hi", [("box:0,-1,1,2", [0, -1], [1, 2]), ("box:5,6", [5], [6])])
def test_a_box_from_text_is_its_lower_then_upper_bounds(spec, lo, hi):
    from onlineboost import sets

    box = runconfig.parse_set(spec)
    assert type(box) is sets.Box and list(box.lo) == lo and list(box.hi) == hi


@pytest.mark.parametrize("spec", ["box:", "box:1", "box:1,2,3", "box:1,2,3,4,5"])
def test_a_box_needs_as_many_upper_as_lower_bounds(spec):

    with pytest.raises(ValueError, match="a box needs d lower bounds then d upper bounds"):
        runconfig.parse_set(spec)


def test_booster_none_runs_the_mlp_alone_and_gives_an_oco_learner_its_set():
    """`booster = "none"` without a learner is BoOCO's default learner, `TinyMLP`, seeded with
    the run's seed; an OCO learner (linear-ogd) runs through the squared-loss reduction, on
    the configured decision set if one is given and on its own otherwise."""
    from learners import LinearOGD, TinyMLP
    from onlineboost import sets

    model = runconfig.build_model(runconfig.resolve(target="y", booster="none", seed=3))
    assert type(model) is TinyMLP and model.seed == 3
    wrapped = runconfig.build_model(runconfig.resolve(
        {"model": {"booster": "none", "learner": "linear-ogd",
                   "decision_set": "interval:-2,3"}}, target="y"))
    assert type(wrapped) is runconfig.GradientRegressor
    assert type(wrapped.learner) is LinearOGD
    given = wrapped.learner.decision_set
    assert type(given) is sets.Interval and (given.lo, given.hi) == (-2.0, 3.0)
    own = runconfig.build_model(runconfig.resolve(
        {"model": {"booster": "none", "learner": "linear-ogd"}}, target="y")).learner.decision_set
    assert own is None and LinearOGD().decision_set is None  # the learner's own default


@pytest.mark.parametrize("policy, wrapped", [("linucb", True), ("epsilon-greedy", False)])
def test_scale_wraps_only_a_policy_that_takes_a_context(policy, wrapped):
    """`--scale` puts a policy whose `pull` takes a context (LinUCB) behind the robust scaler;
    a context-free one (epsilon-greedy) has nothing to scale and is left as it is."""
    from onlineboost.scaling import ScaledPolicy

    model = runconfig.build_model(runconfig.resolve(
        {"model": {"policy": policy, "scale": True}}, rewards=["a", "b"]))
    assert (type(model) is ScaledPolicy) is wrapped
