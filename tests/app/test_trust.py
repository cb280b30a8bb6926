"""Issue 14 item 21: a checkpoint cannot run code unless it was written with the run's key,
and a signed payload missing fields is refused by name, not with a KeyError."""

from __future__ import annotations

import hashlib
import os
import pickle

import pytest

from onlineboost.app import checkpoint
from tests.app._util import csv_stream, run

MODEL = ["--target", "y", "--learner", "ridge", "-N", "2", "--report-every", "0"]


class _Evil:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def _old_format(payload: bytes) -> bytes:
    """A checkpoint in the previous (SHA-256 only) layout: anyone could compute it."""
    return b"OBCKPT01" + len(payload).to_bytes(8, "big") + hashlib.sha256(payload).digest() \
        + payload


def _sha256_forgery(payload: bytes) -> bytes:
    """The new magic with a plain SHA-256 where the HMAC goes: what an attacker can compute."""
    return b"OBCKPT02" + len(payload).to_bytes(8, "big") + hashlib.sha256(payload).digest() \
        + payload


def test_a_crafted_pickle_is_never_unpickled(tmp_path, monkeypatch, capsys):
    """Before: a checkpoint with a valid checksum and a crafted pickle ran code on --resume."""
    monkeypatch.chdir(tmp_path)
    payload = pickle.dumps(_Evil())
    for name, blob in [("old", _old_format(payload)), ("forged", _sha256_forgery(payload))]:
        (tmp_path / name).write_bytes(blob)
        code, err = run(["--resume", tmp_path / name], capsys)
        assert code == 2 and "error:" in err, err
        assert ("unsigned" in err) if name == "old" else ("HMAC-SHA256 mismatch" in err)
    assert not (tmp_path / "PWNED").exists()


def test_a_checkpoint_signed_with_another_key_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "in.csv").write_text(csv_stream(20))
    ck = tmp_path / "ck"
    assert run([tmp_path / "in.csv", *MODEL, "-o", tmp_path / "o", "--checkpoint", ck])[0] == 0
    monkeypatch.setenv("ONLINEBOOST_CHECKPOINT_KEY", "somebody else's key, 16+ bytes")
    code, err = run(["--resume", ck], capsys)
    assert code == 2 and "not written with this key" in err


def test_key_file_and_default_key(tmp_path, monkeypatch):
    monkeypatch.delenv("ONLINEBOOST_CHECKPOINT_KEY")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = str(tmp_path / "ck")
    checkpoint.save(path, {"a": 1})  # makes the per-user key, private
    key_file = tmp_path / "config" / "onlineboost" / "checkpoint.key"
    assert key_file.exists() and (key_file.stat().st_mode & 0o777) == 0o600
    assert checkpoint.load(path) == {"a": 1}
    (tmp_path / "other.key").write_text("another key of 32 characters....\n")
    monkeypatch.setenv("ONLINEBOOST_CHECKPOINT_KEY_FILE", str(tmp_path / "other.key"))
    with pytest.raises(checkpoint.CheckpointError, match="not written with this key"):
        checkpoint.load(path)
    checkpoint.save(path, {"a": 2})
    assert checkpoint.load(path) == {"a": 2}
    (tmp_path / "other.key").write_text("short")
    with pytest.raises(checkpoint.CheckpointError, match="at least 16 bytes"):
        checkpoint.load(path)


@pytest.mark.parametrize("damage", ["drop paths", "drop model", "bad position", "not a dict",
                                    "old version", "paths not a dict"])
def test_signed_payload_missing_fields_is_refused_by_name(tmp_path, capsys, damage):
    """Before: a checksum-valid payload missing keys gave `KeyError: 'paths'`."""
    (tmp_path / "in.csv").write_text(csv_stream(20))
    ck = str(tmp_path / "ck")
    assert run([tmp_path / "in.csv", *MODEL, "-o", tmp_path / "o", "--checkpoint", ck])[0] == 0
    state = checkpoint.load(ck)
    if damage == "drop paths":
        del state["paths"]
    elif damage == "drop model":
        del state["model"]
    elif damage == "bad position":
        state["position"] = {"offset": 3}
        state["position"]["nope"] = 1
    elif damage == "not a dict":
        state = [state]
    elif damage == "old version":
        state["version"] = 1
    else:
        state["paths"] = "here"
    checkpoint.save(ck, state)
    code, err = run(["--resume", ck], capsys)
    assert code == 2 and "error: " in err and "KeyError" not in err, err
    assert any(w in err for w in ("lacks the fields", "malformed", "version",
                                  "does not hold")), err
