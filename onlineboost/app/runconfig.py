r"""Settings of `onlineboost run` (TOML/JSON file, command line) and the model they build.

A config file has two tables, `[data]` (how records are read) and `[model]` (what learns from
them); command-line flags override single values. Example (TOML)::

    [data]
    format = "csv"              # or "jsonl"
    target = "y"                # bandits: task = "bandit", rewards = ["arm_a", "arm_b"]
    max_abs = 1e100             # records with a larger |number| are rejected
    max_features = 1000         # records bringing more distinct feature names are rejected
    [model]
    booster = "booco"           # "booco", "booco-classifier", "none" (the learner alone)
    learner = "ridge"           # "linear-ogd", "ridge", "stump", "mlp", or "package.module:Class"
    n_learners = 5
    gamma = 0.5
    step_size = 0.5             # or "theory"
    delta = "theory"
    decision_set = "interval:-1,1"   # or a table {kind = "interval", lo = -1, hi = 1}
    loss = "squared"
    bound = 1.0                 # booco-classifier: scores in [-bound, bound]
    seed = 1
    scale = true                # standardise features online (onlineboost.scaling: robust)
    [model.learner_params]
    alpha = 1.0

For bandit streams `[model]` names a `policy` (`"epsilon-greedy"`, `"boblo"` once available, or
`"package.module:Class"`: any object with `pull(arm_ids[, context])` and
`update(arm_id[, context], reward)`) with `policy_params`.

Every value is checked when the settings are resolved: a wrong key, type or value is a
`ValueError` naming the key (`onlineboost run` prints it and exits with status 2).

`booster = "none"` runs the learner alone, trained on what it expects: a regressor (ridge,
stump, mlp, any river regressor) learns from the target; an OCO learner (linear-ogd, softmax:
`learn_one(x, g)` takes a linear loss) learns through the reduction from regression, online
gradient descent on the squared loss $\frac12(a - y)^2$, i.e. the linear loss $g = a - y$
(`GradientRegressor`). A learner that takes a `seed` gets the run's `seed`.
"""

from __future__ import annotations

import importlib
import json
import math
import numbers
import os

import numpy as np

from .. import losses, sets
from . import records

__all__ = ["DATA_DEFAULTS", "MODEL_DEFAULTS", "GradientRegressor", "build_model", "build_parser",
           "load_config", "resolve"]

DATA_DEFAULTS = {"format": None, "target": None, "features": None, "ignore": (),
                 "task": None, "rewards": (), "delimiter": ",", "encoding": "utf-8",
                 "max_line_bytes": 1 << 20, "max_abs": records.MAX_ABS, "max_features": 1000}
# None: the booster's (or the policy's) own default, so `--booster booco` with seed 0 builds
# exactly `BoOCO(seed=0)` (its rule picks gamma and the steps from the learner: an OCO learner
# such as linear-ogd gets gamma = 1 with Frank-Wolfe steps, a regressor gamma = eta = 0.01),
# `--booster booco-classifier` `BoOCOClassifier(seed=0)` and `--policy boblo` `BoBLO(seed=0)`;
# `--booster none` without a learner runs "mlp", BoOCO's default learner, alone
MODEL_DEFAULTS = {"booster": "booco", "learner": None, "learner_params": {},
                  "n_learners": None, "gamma": None, "step_size": None, "delta": None,
                  "kappa": None, "decision_set": None, "loss": None, "bound": None, "seed": 0,
                  "scale": False, "policy": "epsilon-greedy", "policy_params": {}}

LEARNERS = {"linear-ogd": "learners:LinearOGD", "ridge": "learners:OnlineRidge",
            "stump": "learners:OnlineStump", "mlp": "learners:TinyMLP",
            "softmax": "learners:SoftmaxPolicy"}
POLICIES = {"epsilon-greedy": "river.bandit:EpsilonGreedy", "boblo": "onlineboost:BoBLO",
            "boblo-neighbours": "onlineboost:NeighbourBoBLO",
            "linucb": "river.bandit:LinUCBDisjoint"}
LOSSES = {"squared": losses.Squared, "absolute": losses.Absolute, "huber": losses.Huber}
BOOSTERS = ("booco", "booco-classifier", "none")
SETS = {"interval": sets.Interval, "box": sets.Box, "ball": sets.Ball, "simplex": sets.Simplex,
        "capped-simplex": sets.CappedSimplex}


def load_config(path: str) -> dict:
    """`{"data": {...}, "model": {...}}` from a `.toml` or `.json` file; unknown keys are an error.

    >>> import json, os, tempfile
    >>> from onlineboost.app.runconfig import load_config
    >>> path = os.path.join(tempfile.mkdtemp(), "run.json")
    >>> with open(path, "w") as f:
    ...     json.dump({"data": {"target": "y"}, "model": {"n_learners": 3}}, f)
    >>> load_config(path)
    {'data': {'target': 'y'}, 'model': {'n_learners': 3}}
    """
    try:
        with open(path, "rb") as f:
            if path.endswith(".toml"):
                import tomllib

                raw = tomllib.load(f)
            else:
                raw = json.load(f)
    except OSError as e:
        raise ValueError(f"config {path!r}: {e.strerror}") from None
    except ValueError as e:  # JSON and TOML syntax errors, bad UTF-8
        raise ValueError(f"config {path!r} is not valid: {e}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"config {path!r} must be a table with [data] and [model], got "
                         f"{type(raw).__name__}")
    unknown = set(raw) - {"data", "model"}
    if unknown:
        raise ValueError(f"config {path!r}: unknown tables {sorted(unknown)} (use data, model)")
    out = {}
    for table, defaults in (("data", DATA_DEFAULTS), ("model", MODEL_DEFAULTS)):
        values = raw.get(table, {})
        if not isinstance(values, dict):
            raise ValueError(f"config {path!r}: [{table}] must be a table, got {values!r}")
        values = dict(values)
        bad = set(values) - set(defaults)
        if bad:
            raise ValueError(f"config {path!r}: unknown keys in [{table}]: {sorted(bad)}")
        out[table] = values
    return out


def resolve(config: dict | None = None, **overrides) -> dict:
    """Defaults, then the config file's values, then the non-`None` overrides; every value
    checked (`ValueError` naming the key).

    >>> from onlineboost.app.runconfig import resolve
    >>> resolve(target="y", n_learners=3)["model"]["n_learners"]
    3
    >>> resolve(target="y", n_learners=2.7)
    Traceback (most recent call last):
    ...
    ValueError: n_learners must be an integer >= 1, got 2.7
    """
    config = config or {}
    data = {**DATA_DEFAULTS, **config.get("data", {})}
    model = {**MODEL_DEFAULTS, **config.get("model", {})}
    for key, value in overrides.items():
        if value is None:
            continue
        if key in DATA_DEFAULTS:
            data[key] = value
        elif key in MODEL_DEFAULTS:
            model[key] = value
        else:
            raise ValueError(f"unknown setting {key!r}")
    for key in ("features", "ignore", "rewards"):
        value = data[key]
        if isinstance(value, str):
            data[key] = tuple(s.strip() for s in value.split(",") if s.strip())
        elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            data[key] = tuple(value)
        elif value is not None or key != "features":
            raise ValueError(f"{key} must be a list of field names or a comma-separated string, "
                             f"got {value!r}")
    if data["task"] is None:
        data["task"] = ("bandit" if data["rewards"] and data["target"] is None else
                        "classification" if model["booster"] == "booco-classifier" else
                        "regression")
    _check(data, model)
    return {"data": data, "model": model}


def _is_int(value, low: int) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) and value >= low


def _is_real(value) -> bool:
    return (isinstance(value, numbers.Real) and not isinstance(value, bool)
            and math.isfinite(value))


def _check(data: dict, model: dict) -> None:
    def fail(key, what):
        raise ValueError(f"{key} must be {what}, got {data.get(key, model.get(key))!r}")

    if data["format"] not in (None, "csv", "jsonl"):
        fail("format", "'csv' or 'jsonl'")
    for key in ("target",):
        if data[key] is not None and not (isinstance(data[key], str) and data[key]):
            fail(key, "a field name")
    if data["task"] not in records.TASKS:
        fail("task", f"one of {records.TASKS}")
    if not isinstance(data["delimiter"], str) or len(data["delimiter"]) != 1:
        fail("delimiter", "one character")
    if not isinstance(data["encoding"], str):
        fail("encoding", "the name of a text encoding")
    try:
        "".encode(data["encoding"])
    except LookupError:
        fail("encoding", "the name of a text encoding")
    if not _is_int(data["max_line_bytes"], 1):
        fail("max_line_bytes", "an integer >= 1")
    if not (_is_real(data["max_abs"]) and data["max_abs"] > 0):
        fail("max_abs", "a finite number > 0")
    if not _is_int(data["max_features"], 1):
        fail("max_features", "an integer >= 1")
    if model["booster"] not in BOOSTERS:
        raise ValueError(f"booster must be one of {BOOSTERS}, got {model['booster']!r}")
    if model["booster"] == "booco-classifier" and data["task"] != "classification":
        raise ValueError(f"booster 'booco-classifier' needs task 'classification', got "
                         f"{data['task']!r}")
    for key in ("learner", "policy"):
        if model[key] is not None and not (isinstance(model[key], str) and model[key]):
            raise ValueError(f"{key} must be a name or 'module:Class', got {model[key]!r}")
    for key in ("learner_params", "policy_params"):
        if not isinstance(model[key], dict):
            raise ValueError(f"{key} must be a table of parameters, got {model[key]!r}")
    if model["learner_params"] and model["learner"] is None and model["booster"] != "none":
        raise ValueError("learner_params need a learner: name it (learner = ... or --learner); "
                         "without one the booster uses its own default learner")
    if model["n_learners"] is not None and not _is_int(model["n_learners"], 1):
        raise ValueError(f"n_learners must be an integer >= 1, got {model['n_learners']!r}")
    for key in ("gamma", "bound"):
        if model[key] is not None and not (_is_real(model[key]) and model[key] > 0):
            raise ValueError(f"{key} must be a finite number > 0, got {model[key]!r}")
    for key in ("step_size", "delta"):
        if model[key] is not None and model[key] != "theory" and not (_is_real(model[key])
                                                                      and model[key] > 0):
            if isinstance(model[key], str):  # "0.5" from the command line
                try:
                    value = float(model[key])
                except ValueError:
                    value = math.nan
                if math.isfinite(value) and value > 0:
                    model[key] = value
                    continue
            raise ValueError(f"{key} must be 'theory' or a finite number > 0, got "
                             f"{model[key]!r}")
    if model["kappa"] is not None and not (_is_real(model["kappa"]) and model["kappa"] > 0):
        raise ValueError(f"kappa must be None or a finite number > 0, got {model['kappa']!r}")
    if model["seed"] is not None and not _is_int(model["seed"], 0):
        raise ValueError(f"seed must be an integer >= 0, got {model['seed']!r}")
    if not isinstance(model["scale"], bool):
        raise ValueError(f"scale must be true or false, got {model['scale']!r}")
    for key in ("decision_set", "loss"):
        if model[key] is not None and not isinstance(model[key], (str, dict, sets.ConvexSet,
                                                                  losses.Loss)):
            raise ValueError(f"{key} must be a string or a table, got {model[key]!r}")


def build_parser(settings: dict) -> records.RecordParser:
    """The record parser of resolved `settings` (`ValueError` naming the key otherwise)."""
    data = settings["data"]
    if data["task"] != "bandit" and not data["target"]:
        raise ValueError("--target is required: name the target field (or `target` in [data] "
                         "of --config); a bandit stream names --rewards instead")
    return records.RecordParser(
        data["format"] or "csv", data["target"], data["features"], data["ignore"],
        data["task"], data["rewards"], data["delimiter"], data["encoding"], data["max_abs"])


def _import(spec: str, table: dict, what: str):
    path = table.get(spec, spec)
    if ":" not in path:
        raise ValueError(f"{what} must be one of {sorted(table)} or 'module:Class', got {spec!r}")
    module, _, name = path.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except Exception as e:  # noqa: BLE001 - ImportError, AttributeError, or the module's own
        raise ValueError(f"{what} {spec!r} is not available here ({path}): {e}") from None


def _make(what: str, cls, params: dict):
    """`cls(**params)`, any failure a `ValueError` naming `what`."""
    try:
        return cls(**params)
    except Exception as e:  # noqa: BLE001 - TypeError for unknown keys, ValueError for values
        raise ValueError(f"{what}: {e}") from None


def _number(value, name):
    if value == "theory" or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be 'theory' or a number, got {value!r}") from None


def parse_set(spec):
    """A decision set from `"interval:-1,1"`, `"box:LO_1,...,LO_d,HI_1,...,HI_d"`,
    `"simplex:3"`, `"ball:R"` or a dict `{"kind": ..., **params}`.

    >>> from onlineboost.app.runconfig import parse_set
    >>> parse_set("interval:0,2"), parse_set({"kind": "box", "lo": [0, 0], "hi": [1, 2]})
    (Interval (
      lo=0.
      hi=2.
    ), Box (
      lo=[0, 0]
      hi=[1, 2]
    ))
    """
    if spec is None or isinstance(spec, sets.ConvexSet):
        return spec
    if isinstance(spec, dict):
        params = dict(spec)
        kind = params.pop("kind", None)
        if kind not in SETS:
            raise ValueError(f"decision_set kind must be one of {sorted(SETS)}, got {kind!r}")
        return _make(f"decision_set {spec!r}", SETS[kind], params)
    kind, _, args = str(spec).partition(":")
    if kind not in SETS:
        raise ValueError(f"decision_set must look like 'interval:LO,HI', got {spec!r}")
    try:
        values = [float(v) for v in args.split(",") if v.strip()]
        if kind in ("simplex", "capped-simplex"):
            return SETS[kind](int(values[0]), *values[1:])
        if kind == "ball":
            return sets.Ball(radius=values[0]) if values else sets.Ball()
        if kind == "box":  # box:LO_1,...,LO_d,HI_1,...,HI_d
            if not values or len(values) % 2:
                raise ValueError("a box needs d lower bounds then d upper bounds")
            d = len(values) // 2
            return sets.Box(values[:d], values[d:])
        return SETS[kind](*values)
    except Exception as e:  # noqa: BLE001
        raise ValueError(f"decision_set {spec!r}: {e}") from None


def _loss(spec):
    if spec is None or isinstance(spec, losses.Loss):
        return spec
    params = dict(spec) if isinstance(spec, dict) else {"kind": spec}
    kind = params.pop("kind", None)
    if kind not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {kind!r}")
    return _make(f"loss {spec!r}", LOSSES[kind], params)


class GradientRegressor:
    r"""An OCO learner used as a regressor: online gradient descent on the squared loss.

    `predict_one(x)` is the learner's point $a$; `learn_one(x, y)` feeds it the linear loss
    $g = a - y$, the gradient of $\frac12\|a - y\|^2$ at $a$ (the reduction from online
    regression to online linear optimisation). Used by `booster = "none"` for learners whose
    `learn_one(x, g)` takes a linear loss (`learners.LinearOGD`, `learners.SoftmaxPolicy`).

    >>> from learners import LinearOGD
    >>> from onlineboost.app.runconfig import GradientRegressor
    >>> model = GradientRegressor(LinearOGD(lr=0.5))
    >>> for t in range(200):
    ...     c = (t % 7) / 7
    ...     model.learn_one({"c": c}, 0.8 * c - 0.2)
    >>> round(model.predict_one({"c": 0.5}), 2)
    0.2
    """

    def __init__(self, learner):
        self.learner = learner

    def predict_one(self, x: dict):
        a = np.asarray(self.learner.predict_one(x), dtype=np.float64)
        return float(a[0]) if a.shape == (1,) else a

    def learn_one(self, x: dict, y) -> None:
        a = np.asarray(self.learner.predict_one(x), dtype=np.float64)
        self.learner.learn_one(x, a - y)


def _is_oco(learner) -> bool:
    """A weak OCO learner (`learn_one(x, g)` takes a linear loss), not a regressor."""
    from river import base

    if isinstance(learner, base.Regressor) or hasattr(learner, "partial_fit"):
        return False
    get = getattr(learner, "_get_params", None)
    return callable(get) and "decision_set" in get()


def _learner(m: dict, seeded: bool):
    cls = _import(m["learner"], LEARNERS, "learner")
    params = dict(m["learner_params"])
    if seeded and m["seed"] is not None and "seed" in _init_params(cls):
        params.setdefault("seed", m["seed"])
    return _make(f"learner {m['learner']!r} with learner_params {m['learner_params']!r}", cls,
                 params)


def build_model(settings: dict):
    """The model of resolved `settings`: a river regressor/classifier, or a bandit policy.
    Every failure is a `ValueError` naming the setting.

    >>> from onlineboost.app.runconfig import build_model, resolve
    >>> model = build_model(resolve(target="y", learner="ridge", n_learners=3, scale=True))
    >>> [type(step).__name__ for step in model.steps.values()], model["BoOCO"].n_learners
    (['RobustStandardScaler', 'BoOCO'], 3)
    """
    data, m = settings["data"], settings["model"]
    if data["task"] == "bandit":
        cls = _import(m["policy"], POLICIES, "policy")
        params = dict(m["policy_params"])
        if m["policy"] == "epsilon-greedy":
            params.setdefault("epsilon", 0.1)
        accepted = _init_params(cls)
        if "seed" in accepted:
            params.setdefault("seed", m["seed"])
        # a boosting policy (BoBLO) takes the booster's settings from [model] as well
        for key in ("n_learners", "gamma", "step_size", "delta", "kappa"):
            if key in accepted and key not in params and m[key] is not None:
                params[key] = m[key] if key == "n_learners" else _number(m[key], key)
        if "learner" in accepted and "learner" not in params and m["learner"] is not None:
            params["learner"] = _learner(m, seeded=False)
        from ..scaling import RobustStandardScaler, ScaledPolicy

        if m["scale"] and "transformer" in accepted and "transformer" not in params:
            params["transformer"] = RobustStandardScaler()
        policy = _make(f"policy {m['policy']!r} with policy_params {m['policy_params']!r}", cls,
                       params)
        if m["scale"] and "transformer" not in accepted and _takes_context(policy):
            policy = ScaledPolicy(policy, RobustStandardScaler())  # e.g. LinUCB
        return policy
    if m["booster"] == "none":
        model = _learner({**m, "learner": m["learner"] or "mlp"}, seeded=True)
        if data["task"] == "classification":
            if not callable(getattr(model, "predict_proba_one", None)):
                raise ValueError(f"booster 'none' with task 'classification' needs a classifier "
                                 f"(predict_proba_one); learner {m['learner']!r} is not one")
        elif _is_oco(model):
            if m["decision_set"] is not None and "decision_set" in model._get_params():
                model = model.clone({"decision_set": parse_set(m["decision_set"])})
            model = GradientRegressor(model)
    else:
        learner = None if m["learner"] is None else _learner(m, seeded=False)
        from .. import BoOCO, BoOCOClassifier

        common = {"learner": learner, "seed": m["seed"],
                  "kappa": None if m["kappa"] is None else float(m["kappa"])}
        given = {"n_learners": int, "gamma": float,
                 "step_size": lambda v: _number(v, "step_size"),
                 "delta": lambda v: _number(v, "delta")}
        common.update({k: f(m[k]) for k, f in given.items() if m[k] is not None})  # else own
        if data["task"] == "classification":
            own = {"bound": float, "loss": lambda v: v}  # unset: the classifier's own
            common.update({k: f(m[k]) for k, f in own.items() if m[k] is not None})
            model = _make("booco-classifier", BoOCOClassifier, common)
        else:
            model = _make("booco", BoOCO, {**common, "decision_set": parse_set(m["decision_set"]),
                                           "loss": _loss(m["loss"])})
    if m["scale"]:
        from ..scaling import RobustStandardScaler

        model = RobustStandardScaler() | model
    return model


def _takes_context(policy) -> bool:
    """Whether `policy.pull` takes a context (a second argument)."""
    import inspect

    try:
        return len(inspect.signature(policy.pull).parameters) >= 2
    except (TypeError, ValueError):
        return False


def _init_params(cls) -> set:
    import inspect

    return set(inspect.signature(cls.__init__).parameters)


def default_format(path: str | None) -> str:
    """`"jsonl"` for `.jsonl`/`.ndjson`/`.json` paths, else `"csv"`."""
    ext = os.path.splitext(path or "")[1].lower()
    return "jsonl" if ext in (".jsonl", ".ndjson", ".json") else "csv"


def add_arguments(p) -> None:
    """The `onlineboost run` options, on the argparse parser `p` (help shows every default)."""
    d, m = DATA_DEFAULTS, MODEL_DEFAULTS
    p.add_argument("input", nargs="?", default=None,
                   help="CSV or JSON-lines file; '-' or nothing: standard input")
    p.add_argument("--config", help="TOML or JSON file with [data] and [model] tables (flags "
                                    "override it)")
    g = p.add_argument_group("records")
    g.add_argument("--format", choices=["csv", "jsonl"],
                   help="default: jsonl for .jsonl/.ndjson/.json files, else csv")
    g.add_argument("--target", help="target field (required, but for bandits)")
    g.add_argument("--task", choices=list(records.TASKS),
                   help="default: bandit with --rewards, classification with "
                        "--booster booco-classifier, else regression")
    g.add_argument("--features", help="comma-separated feature fields (default: all others)")
    g.add_argument("--ignore", help="comma-separated fields to leave out (default: none)")
    g.add_argument("--rewards", help="bandits: comma-separated reward fields, one per arm")
    g.add_argument("--delimiter", help=f"CSV delimiter (default {d['delimiter']!r})")
    g.add_argument("--encoding", help=f"input encoding (default {d['encoding']})")
    g.add_argument("--max-line-bytes", type=int,
                   help=f"longer lines are rejected (default {d['max_line_bytes']})")
    g.add_argument("--max-abs", type=float,
                   help=f"records with a number of larger magnitude are rejected "
                        f"(default {d['max_abs']:g})")
    g.add_argument("--max-features", type=int,
                   help=f"records bringing new feature names beyond this many are rejected "
                        f"(default {d['max_features']})")
    g = p.add_argument_group("model (ignored on --resume: the checkpoint holds the model)")
    g.add_argument("--booster", choices=list(BOOSTERS), help=f"(default {m['booster']})")
    own = "default: the booster's or policy's own"
    g.add_argument("--learner", help=f"{', '.join(LEARNERS)} or module:Class ({own}; BoOCO's "
                                     f"is mlp, also for --booster none)")
    g.add_argument("-N", "--n-learners", type=int, dest="n_learners",
                   help=f"weak learners ({own}: 10 for BoOCO)")
    g.add_argument("--gamma", type=float, help=f"the weak learners' edge ({own})")
    g.add_argument("--step-size", help=f"a number in (0, 1] or 'theory' ({own})")
    g.add_argument("--delta", help=f"a number > 0 or 'theory' ({own}: 0.01 for BoOCO)")
    g.add_argument("--decision-set", help="e.g. interval:-1,1, box:LO1,LO2,HI1,HI2, simplex:3, "
                                          "ball:R (default: BoOCO's K follows the target range)")
    g.add_argument("--loss", help="squared, absolute, huber; classification: squared, "
                                  "logistic, hinge (default squared)")
    g.add_argument("--seed", type=int, help=f"seed of every random choice (default {m['seed']})")
    g.add_argument("--scale", action="store_true", default=None,
                   help="standardise features online (default: off)")
    g.add_argument("--policy", help=f"bandits: {', '.join(POLICIES)} or module:Class "
                                    f"(default {m['policy']})")
    g = p.add_argument_group("output, checkpoints")
    g.add_argument("-o", "--output", help="answers file (default: standard output)")
    g.add_argument("--rejects", help="reject file, JSON lines (default: standard error)")
    g.add_argument("--strict", action="store_true",
                   help="stop at the first rejected record (default: set it aside)")
    g.add_argument("--checkpoint", help="checkpoint file, written atomically (default: none); "
                                        "must not exist yet (use --resume to continue)")
    g.add_argument("--checkpoint-every", type=int, default=10_000,
                   help="records between checkpoints (default 10000)")
    g.add_argument("--resume", metavar="CHECKPOINT", help="continue the run checkpointed here")
    g.add_argument("--resume-input", choices=["replay", "continue"], default="replay",
                   help="replay (default): the input starts from its beginning again and the "
                        "checkpointed bytes are skipped (checked by CRC); continue: a named file "
                        "is seeked past them, standard input starts after them")
    g.add_argument("--report-every", type=int, default=10_000,
                   help="records between progress lines on standard error (default 10000; "
                        "0: only at the end)")
