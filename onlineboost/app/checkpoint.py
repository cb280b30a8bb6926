r"""Atomic, signed checkpoints: a pickled state that is either whole, ours, or refused.

File layout: the 8-byte magic `OBCKPT02`, the payload length (8 bytes, big-endian), the
HMAC-SHA256 of magic, length and payload under the checkpoint key (32 bytes), then the payload
(a pickle). `save` writes a temporary file in the target's directory, flushes and fsyncs it,
renames it over the target (`os.replace`, atomic on POSIX) and fsyncs the directory, so a crash
at any point leaves either the old checkpoint or the new one, never a mixture (a temporary left
by a crash is removed by the next run on that checkpoint: `remove_stale_temporaries`). `load`
checks magic, length and HMAC *before* unpickling, and raises `CheckpointError` with the reason
otherwise: a truncated, corrupted or foreign file is never unpickled.

Pickle runs code from the bytes it loads; the HMAC is what makes that safe: only a file written
with the same key is unpickled, so a crafted checkpoint is refused unless its author holds the
key. The key (`key()`) is, in order: the environment variable `ONLINEBOOST_CHECKPOINT_KEY`
(its UTF-8 bytes, at least 16), the file named by `ONLINEBOOST_CHECKPOINT_KEY_FILE`, or the
per-user key file `$XDG_CONFIG_HOME/onlineboost/checkpoint.key` (default
`~/.config/onlineboost/checkpoint.key`), created with 32 random bytes and mode 0600 by the
first `save` that needs it. Keep the key as private as the code you run: whoever can read it
can write checkpoints that run code in your runs.
"""

from __future__ import annotations

import glob
import hashlib
import hmac
import os
import pickle
import secrets
import tempfile

__all__ = ["CheckpointError", "key", "load", "remove_stale_temporaries", "save"]

MAGIC = b"OBCKPT02"
_OLD_MAGIC = (b"OBCKPT01",)
_HEADER = len(MAGIC) + 8 + 32
ENV_KEY = "ONLINEBOOST_CHECKPOINT_KEY"
ENV_KEY_FILE = "ONLINEBOOST_CHECKPOINT_KEY_FILE"


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, truncated, corrupted, unsigned or not a checkpoint."""


def default_key_file() -> str:
    """The per-user key file: `$XDG_CONFIG_HOME/onlineboost/checkpoint.key`."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "onlineboost", "checkpoint.key")


def key(create: bool = False) -> bytes:
    """The checkpoint key (see the module's docstring); `create`: make the default key file if
    there is none. Raises `CheckpointError` when there is no usable key."""
    env = os.environ.get(ENV_KEY)
    if env is not None:
        if len(env.encode()) < 16:
            raise CheckpointError(f"${ENV_KEY} must hold at least 16 bytes")
        return env.encode()
    path = os.environ.get(ENV_KEY_FILE) or default_key_file()
    if create and not os.environ.get(ENV_KEY_FILE) and not os.path.exists(path):
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            pass
        else:
            with os.fdopen(fd, "w") as f:
                f.write(secrets.token_hex(32) + "\n")
    try:
        with open(path, "rb") as f:
            data = f.read().strip()
    except OSError as e:
        raise CheckpointError(f"no checkpoint key: set ${ENV_KEY} or ${ENV_KEY_FILE}, or let a "
                              f"run create {path!r} ({e.strerror})") from None
    if len(data) < 16:
        raise CheckpointError(f"checkpoint key file {path!r} must hold at least 16 bytes")
    return data


def _sign(k: bytes, length: bytes, payload: bytes) -> bytes:
    return hmac.new(k, MAGIC + length + payload, hashlib.sha256).digest()


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. platforms without directory descriptors
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def save(path: str, state) -> int:
    """Write `state` to `path` atomically (temporary file, fsync, rename), signed with `key()`;
    returns its size.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlineboost.app import checkpoint
    >>> os.environ["ONLINEBOOST_CHECKPOINT_KEY"] = "a doctest key, 16+ bytes"
    >>> path = os.path.join(tempfile.mkdtemp(), "model.ckpt")
    >>> size = checkpoint.save(path, {"records": 3, "weights": [0.5, 0.25]})
    >>> checkpoint.load(path)
    {'records': 3, 'weights': [0.5, 0.25]}
    >>> blob = bytearray(open(path, "rb").read())
    >>> blob[-2] ^= 1  # flip one bit of the payload
    >>> _ = open(path, "wb").write(blob)
    >>> checkpoint.load(path)
    Traceback (most recent call last):
    ...
    onlineboost.app.checkpoint.CheckpointError: checkpoint ... is corrupt or was not written ...
    >>> del os.environ["ONLINEBOOST_CHECKPOINT_KEY"]
    """
    k = key(create=True)
    payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    length = len(payload).to_bytes(8, "big")
    blob = MAGIC + length + _sign(k, length, payload) + payload
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(directory)
    return len(blob)


def load(path: str):
    """The state saved at `path`, after checking magic, length and HMAC; else
    `CheckpointError`."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise CheckpointError(f"cannot read checkpoint {path!r}: {e.strerror}") from None
    if blob[:len(MAGIC)] in _OLD_MAGIC:
        raise CheckpointError(f"{path!r} is an unsigned checkpoint of an older version: refused "
                              "(it could run code); start the run afresh")
    if len(blob) < _HEADER or not blob.startswith(MAGIC):
        raise CheckpointError(f"{path!r} is not an onlineboost checkpoint (bad header; "
                              f"{len(blob)} bytes)")
    length = blob[len(MAGIC):len(MAGIC) + 8]
    n = int.from_bytes(length, "big")
    digest, payload = blob[len(MAGIC) + 8:_HEADER], blob[_HEADER:]
    if len(payload) != n:
        raise CheckpointError(f"checkpoint {path!r} is truncated or padded: payload of "
                              f"{len(payload)} bytes, header says {n}")
    if not hmac.compare_digest(_sign(key(), length, payload), digest):
        raise CheckpointError(f"checkpoint {path!r} is corrupt or was not written with this key: "
                              "HMAC-SHA256 mismatch (refused unread)")
    try:
        return pickle.loads(payload)
    except Exception as e:  # signed by us, so this is a version/environment mismatch
        raise CheckpointError(f"checkpoint {path!r} is signed but cannot be unpickled here: "
                              f"{type(e).__name__}: {e}") from None


def remove_stale_temporaries(path: str) -> list:
    """Remove the temporaries a killed `save(path, ...)` left (`<name>.*.tmp` beside `path`);
    returns their paths. Call it only while holding the run's lock on `path`."""
    directory, name = os.path.split(os.path.abspath(path))
    removed = []
    for tmp in glob.glob(os.path.join(glob.escape(directory), glob.escape(name) + ".*.tmp")):
        try:
            os.unlink(tmp)
            removed.append(tmp)
        except OSError:
            pass
    return removed
