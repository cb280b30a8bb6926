r"""The checkpointed state of a run, typed: `RunState` (and its input `Position`).

A checkpoint's payload is `RunState.to_payload()`, a plain dict with a `version`;
`RunState.from_payload` checks that every field is there with the right type and refuses
(`CheckpointError`) otherwise, so a damaged or foreign payload is named, never a `KeyError`.
"""

from __future__ import annotations

import dataclasses
import uuid

from .checkpoint import CheckpointError
from .metrics import Metrics
from .records import RecordParser

__all__ = ["VERSION", "Position", "RunState"]

VERSION = 2


@dataclasses.dataclass
class Position:
    """Bytes and lines of input consumed, and the CRC-32 of those bytes."""

    offset: int = 0
    line: int = 0
    crc: int = 0


@dataclasses.dataclass
class RunState:
    """Everything a resumed run needs: settings, model, parser, metrics, counters, position.

    Paths are absolute (`None`/`"-"`: a standard stream); `output_bytes`/`reject_bytes` are the
    sizes of the answers and rejects written (`None` before the first checkpoint); `features`
    the feature names seen so far (bounded by `settings["data"]["max_features"]`).

    >>> from onlineboost.app.state import RunState
    >>> from onlineboost.app.checkpoint import CheckpointError
    >>> try:
    ...     RunState.from_payload({"version": 2, "settings": {}}, "x.ckpt")
    ... except CheckpointError as e:
    ...     print(str(e)[:60])
    checkpoint 'x.ckpt' lacks the fields ['answered', 'features'
    """

    settings: dict
    model: object
    parser: RecordParser
    metrics: Metrics
    paths: dict
    run_id: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex)
    records: int = 0
    answered: int = 0
    rejected: int = 0
    position: Position = dataclasses.field(default_factory=Position)
    output_bytes: int | None = None
    reject_bytes: int | None = None
    features: set = dataclasses.field(default_factory=set)
    finished: bool = False

    @property
    def resumed(self) -> bool:
        return self.records > 0 or self.position.offset > 0

    def to_payload(self) -> dict:
        payload = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        payload["position"] = dataclasses.asdict(self.position)
        payload["version"] = VERSION
        return payload

    @classmethod
    def from_payload(cls, payload, path: str) -> RunState:
        if not isinstance(payload, dict):
            raise CheckpointError(f"{path!r} does not hold a run's state")
        if payload.get("version") != VERSION:
            raise CheckpointError(f"{path!r} is a checkpoint of version "
                                  f"{payload.get('version')!r}, not {VERSION}")
        names = [f.name for f in dataclasses.fields(cls)]
        missing = sorted(set(names) - set(payload))
        if missing:
            raise CheckpointError(f"checkpoint {path!r} lacks the fields {missing}")
        values = {n: payload[n] for n in names}
        checks = {"settings": dict, "parser": RecordParser, "metrics": Metrics, "paths": dict,
                  "run_id": str, "records": int, "answered": int, "rejected": int,
                  "position": dict, "features": set, "finished": bool}
        bad = [n for n, t in checks.items() if not isinstance(values[n], t)]
        bad += [n for n in ("output_bytes", "reject_bytes")
                if values[n] is not None and not isinstance(values[n], int)]
        if not bad:
            try:
                values["position"] = Position(**values["position"])
            except TypeError:
                bad.append("position")
        if not bad and not ({"data", "model"} <= set(values["settings"])
                            and {"source", "output", "rejects"} <= set(values["paths"])):
            bad.append("settings/paths")
        if bad:
            raise CheckpointError(f"checkpoint {path!r} has malformed fields {bad}")
        return cls(**values)
