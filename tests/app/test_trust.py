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
                                    "old version", "paths not a dict",
                                    "settings without model", "paths without rejects"])
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
    elif damage == "settings without model":
        del state["settings"]["model"]
    elif damage == "paths without rejects":
        del state["paths"]["rejects"]
    else:
        state["paths"] = "here"
    checkpoint.save(ck, state)
    code, err = run(["--resume", ck], capsys)
    assert code == 2 and "error: " in err and "KeyError" not in err, err
    assert any(w in err for w in ("lacks the fields", "malformed", "version",
                                  "does not hold")), err
    if damage in ("settings without model", "paths without rejects"):
        assert "malformed fields ['settings/paths']" in err, err


# -- the key's and the header's edges (mutants of `checkpoint` that the tests above let pass) --


@pytest.mark.parametrize("where", ["environment", "file"])
def test_a_key_of_exactly_16_bytes_is_taken_and_15_are_refused(tmp_path, monkeypatch, where):
    """The documented minimum is 16 bytes, counted as bytes (a multi-byte character counts for
    its UTF-8 length), for the variable and the key file alike."""
    path = str(tmp_path / "ck")

    def use(text):
        if where == "environment":
            monkeypatch.setenv("ONLINEBOOST_CHECKPOINT_KEY", text)
        else:
            monkeypatch.delenv("ONLINEBOOST_CHECKPOINT_KEY", raising=False)
            (tmp_path / "k").write_text(text + "\n")  # the file's line end is not key
            monkeypatch.setenv("ONLINEBOOST_CHECKPOINT_KEY_FILE", str(tmp_path / "k"))

    use("é" * 8)  # 8 characters, 16 bytes
    checkpoint.save(path, [1])
    assert checkpoint.load(path) == [1] and checkpoint.key() == ("é" * 8).encode()
    use("x" * 15)
    with pytest.raises(checkpoint.CheckpointError, match="at least 16 bytes"):
        checkpoint.key()
    with pytest.raises(checkpoint.CheckpointError, match="at least 16 bytes"):
        checkpoint.load(path)


def test_reading_creates_no_key_and_the_created_key_is_32_random_bytes(tmp_path, monkeypatch):
    """Only `save` (`key(create=True)`) makes the per-user key: a `load` without one is refused
    and leaves no file behind. The key made is 32 random bytes (64 hex digits), in a directory
    only its owner can enter."""
    monkeypatch.delenv("ONLINEBOOST_CHECKPOINT_KEY")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    key_dir = tmp_path / "config" / "onlineboost"
    with pytest.raises(checkpoint.CheckpointError, match="no checkpoint key"):
        checkpoint.key()
    (tmp_path / "ck").write_bytes(b"whatever")
    with pytest.raises(checkpoint.CheckpointError):
        checkpoint.load(str(tmp_path / "ck"))
    assert not key_dir.exists()
    old = os.umask(0o022)
    try:
        made = checkpoint.key(create=True)
    finally:
        os.umask(old)
    assert (key_dir.stat().st_mode & 0o777) == 0o700
    assert len(made) == 64 and bytes.fromhex(made.decode())
    assert checkpoint.key() == made and checkpoint.key(create=True) == made  # made once
    # a key file named by the environment is never created, even by `save`
    monkeypatch.setenv("ONLINEBOOST_CHECKPOINT_KEY_FILE", str(tmp_path / "named.key"))
    with pytest.raises(checkpoint.CheckpointError, match="no checkpoint key"):
        checkpoint.save(str(tmp_path / "ck2"), 1)
    assert not (tmp_path / "named.key").exists()


def test_the_header_check_is_exactly_the_header(tmp_path):
    """A file that starts with the magic but is shorter than the header (magic, length, HMAC)
    is "not a checkpoint"; a file of exactly the header, signed, holding an empty payload, gets
    past the header and the HMAC and is refused only as a payload that cannot be unpickled."""
    path = tmp_path / "ck"
    path.write_bytes(checkpoint.MAGIC + b"\0" * 7)
    with pytest.raises(checkpoint.CheckpointError, match="bad header; 15 bytes"):
        checkpoint.load(str(path))
    length = (0).to_bytes(8, "big")
    blob = checkpoint.MAGIC + length + checkpoint._sign(checkpoint.key(), length, b"")
    assert len(blob) == checkpoint._HEADER == 48
    path.write_bytes(blob)
    with pytest.raises(checkpoint.CheckpointError, match="signed but cannot be unpickled"):
        checkpoint.load(str(path))
    path.write_bytes(blob[:-1])  # one byte short of the header
    with pytest.raises(checkpoint.CheckpointError, match="bad header; 47 bytes"):
        checkpoint.load(str(path))
