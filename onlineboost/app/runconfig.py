r"""Settings of `onlineboost run` (TOML/JSON file, command line) and the model they build.

A config file has two tables, `[data]` (how records are read) and `[model]` (what learns from
them); command-line flags override single values. Example (TOML)::

    [data]
    format = "csv"              # or "jsonl"
    target = "y"                # bandits: task = "bandit", rewards = ["arm_a", "arm_b"]
    [model]
    booster = "booco"           # "booco", "booco-classifier", "none" (the weak learner alone)
    learner = "ridge"           # "linear-ogd", "ridge", "stump", "mlp", or "package.module:Class"
    n_learners = 5
    gamma = 0.5
    step_size = 0.5             # or "theory"
    delta = "theory"
    decision_set = "interval:-1,1"   # or a table {kind = "interval", lo = -1, hi = 1}
    loss = "squared"
    seed = 1
    scale = true                # standardise features online (river's StandardScaler)
    [model.learner_params]
    alpha = 1.0

For bandit streams `[model]` names a `policy` (`"epsilon-greedy"`, `"boblo"` once available, or
`"package.module:Class"`: any object with `pull(arm_ids[, context])` and
`update(arm_id[, context], reward)`) with `policy_params`.
"""

from __future__ import annotations

import importlib
import json
import os

from .. import losses, sets

__all__ = ["DATA_DEFAULTS", "MODEL_DEFAULTS", "build_model", "load_config", "resolve"]

DATA_DEFAULTS = {"format": None, "target": None, "features": None, "ignore": (),
                 "task": "regression", "rewards": (), "delimiter": ",", "encoding": "utf-8",
                 "max_line_bytes": 1 << 20}
MODEL_DEFAULTS = {"booster": "booco", "learner": "linear-ogd", "learner_params": {},
                  "n_learners": 5, "gamma": 0.5, "step_size": "theory", "delta": "theory",
                  "kappa": None, "decision_set": None, "loss": None, "bound": 2.0, "seed": 0,
                  "scale": False, "policy": "epsilon-greedy", "policy_params": {}}

LEARNERS = {"linear-ogd": "learners:LinearOGD", "ridge": "learners:OnlineRidge",
            "stump": "learners:OnlineStump", "mlp": "learners:TinyMLP",
            "softmax": "learners:SoftmaxPolicy"}
POLICIES = {"epsilon-greedy": "river.bandit:EpsilonGreedy", "boblo": "onlineboost:BoBLO",
            "linucb": "river.bandit:LinUCBDisjoint"}
LOSSES = {"squared": losses.Squared, "absolute": losses.Absolute, "huber": losses.Huber}
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
    with open(path, "rb") as f:
        if path.endswith(".toml"):
            import tomllib

            raw = tomllib.load(f)
        else:
            raw = json.load(f)
    unknown = set(raw) - {"data", "model"}
    if unknown:
        raise ValueError(f"config {path!r}: unknown tables {sorted(unknown)} (use data, model)")
    out = {}
    for table, defaults in (("data", DATA_DEFAULTS), ("model", MODEL_DEFAULTS)):
        values = dict(raw.get(table, {}))
        bad = set(values) - set(defaults)
        if bad:
            raise ValueError(f"config {path!r}: unknown keys in [{table}]: {sorted(bad)}")
        out[table] = values
    return out


def resolve(config: dict | None = None, **overrides) -> dict:
    """Defaults, then the config file's values, then the non-`None` overrides."""
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
        if isinstance(data[key], str):
            data[key] = tuple(s.strip() for s in data[key].split(",") if s.strip())
        elif data[key] is not None:
            data[key] = tuple(data[key])
    if data["rewards"] and data["task"] == "regression" and data["target"] is None:
        data["task"] = "bandit"
    return {"data": data, "model": model}


def _import(spec: str, table: dict, what: str):
    path = table.get(spec, spec)
    if ":" not in path:
        raise ValueError(f"{what} must be one of {sorted(table)} or 'module:Class', got {spec!r}")
    module, _, name = path.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"{what} {spec!r} is not available here ({path}): {e}") from None


def _number(value, name):
    if value == "theory" or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be 'theory' or a number, got {value!r}") from None


def parse_set(spec):
    """A decision set from `"interval:-1,1"`, `"simplex:3"`, `"ball:R"` or a dict
    `{"kind": ..., **params}`.

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
        return SETS[kind](**params)
    kind, _, args = str(spec).partition(":")
    if kind not in SETS:
        raise ValueError(f"decision_set must look like 'interval:LO,HI', got {spec!r}")
    try:
        values = [float(v) for v in args.split(",") if v.strip()]
        if kind in ("simplex", "capped-simplex"):
            return SETS[kind](int(values[0]), *values[1:])
        if kind == "ball":
            return sets.Ball(radius=values[0]) if values else sets.Ball()
        return SETS[kind](*values)
    except (ValueError, IndexError, TypeError) as e:
        raise ValueError(f"decision_set {spec!r}: {e}") from None


def _loss(spec):
    if spec is None or isinstance(spec, losses.Loss):
        return spec
    params = dict(spec) if isinstance(spec, dict) else {"kind": spec}
    kind = params.pop("kind", None)
    if kind not in LOSSES:
        raise ValueError(f"loss must be one of {sorted(LOSSES)}, got {kind!r}")
    return LOSSES[kind](**params)


def build_model(settings: dict):
    """The model of resolved `settings`: a river regressor/classifier, or a bandit policy.

    >>> from onlineboost.app.runconfig import build_model, resolve
    >>> model = build_model(resolve(target="y", learner="ridge", n_learners=3, scale=True))
    >>> [type(step).__name__ for step in model.steps.values()], model["BoOCO"].n_learners
    (['StandardScaler', 'BoOCO'], 3)
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
            params["learner"] = _import(m["learner"], LEARNERS, "learner")(**m["learner_params"])
        if m["scale"] and "transformer" in accepted and "transformer" not in params:
            from river import preprocessing

            params["transformer"] = preprocessing.StandardScaler()
        return cls(**params)
    learner = None
    if m["learner"] is not None:
        learner = _import(m["learner"], LEARNERS, "learner")(**m["learner_params"])
    from .. import BoOCO, BoOCOClassifier

    common = {"learner": learner, "n_learners": int(m["n_learners"]),
              "gamma": float(m["gamma"]), "step_size": _number(m["step_size"], "step_size"),
              "delta": _number(m["delta"], "delta"), "seed": m["seed"],
              "kappa": None if m["kappa"] is None else float(m["kappa"])}
    if m["booster"] == "none":
        model = learner
    elif data["task"] == "classification" or m["booster"] == "booco-classifier":
        model = BoOCOClassifier(**common, bound=float(m["bound"]), loss=m["loss"] or "logistic")
    elif m["booster"] == "booco":
        model = BoOCO(**common, decision_set=parse_set(m["decision_set"]), loss=_loss(m["loss"]))
    else:
        raise ValueError("booster must be 'booco', 'booco-classifier' or 'none', got "
                         f"{m['booster']!r}")
    if m["scale"]:
        from river import preprocessing

        model = preprocessing.StandardScaler() | model
    return model


def _init_params(cls) -> set:
    import inspect

    return set(inspect.signature(cls.__init__).parameters)


def default_format(path: str | None) -> str:
    """`"jsonl"` for `.jsonl`/`.ndjson`/`.json` paths, else `"csv"`."""
    ext = os.path.splitext(path or "")[1].lower()
    return "jsonl" if ext in (".jsonl", ".ndjson", ".json") else "csv"


def add_arguments(p) -> None:
    """The `onlineboost run` options, on the argparse parser `p`."""
    p.add_argument("input", nargs="?", default=None,
                   help="CSV or JSON-lines file; '-' or nothing: standard input")
    p.add_argument("--config", help="TOML or JSON file with [data] and [model] tables")
    g = p.add_argument_group("records")
    g.add_argument("--format", choices=["csv", "jsonl"], help="default: from the file name, csv")
    g.add_argument("--target", help="target field")
    g.add_argument("--task", choices=["regression", "classification", "bandit"])
    g.add_argument("--features", help="comma-separated feature fields (default: all others)")
    g.add_argument("--ignore", help="comma-separated fields to leave out")
    g.add_argument("--rewards", help="bandits: comma-separated reward fields, one per arm")
    g.add_argument("--delimiter", help="CSV delimiter (default ',')")
    g.add_argument("--encoding", help="input encoding (default utf-8)")
    g.add_argument("--max-line-bytes", type=int, help="longer lines are rejected (default 1 MiB)")
    g = p.add_argument_group("model (ignored on --resume: the checkpoint holds the model)")
    g.add_argument("--booster", choices=["booco", "booco-classifier", "none"])
    g.add_argument("--learner", help=f"{', '.join(LEARNERS)} or module:Class")
    g.add_argument("-N", "--n-learners", type=int, dest="n_learners")
    g.add_argument("--gamma", type=float)
    g.add_argument("--step-size", help="a number in (0, 1] or 'theory'")
    g.add_argument("--delta", help="a number > 0 or 'theory'")
    g.add_argument("--decision-set", help="e.g. interval:-1,1")
    g.add_argument("--loss", help="squared, absolute, huber; classification: logistic, hinge")
    g.add_argument("--seed", type=int)
    g.add_argument("--scale", action="store_true", default=None,
                   help="standardise features online")
    g.add_argument("--policy", help=f"bandits: {', '.join(POLICIES)} or module:Class")
    g = p.add_argument_group("output, checkpoints")
    g.add_argument("-o", "--output", help="answers file (default: standard output)")
    g.add_argument("--rejects", help="reject file, JSON lines (default: standard error)")
    g.add_argument("--strict", action="store_true", help="stop at the first malformed record")
    g.add_argument("--checkpoint", help="checkpoint file, written atomically")
    g.add_argument("--checkpoint-every", type=int, default=10_000, help="records (default 10000)")
    g.add_argument("--resume", metavar="CHECKPOINT", help="continue the run checkpointed here")
    g.add_argument("--resume-input", choices=["replay", "continue"], default="replay",
                   help="replay: the input starts from its beginning again and the checkpointed "
                        "bytes are skipped (checked by CRC); continue: it starts after them")
    g.add_argument("--report-every", type=int, default=10_000,
                   help="records between progress lines on standard error (0: only at the end)")
