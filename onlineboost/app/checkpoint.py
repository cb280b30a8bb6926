r"""Atomic, checksummed checkpoints: a pickled state that is either whole or refused.

File layout: the 8-byte magic `OBCKPT01`, the payload length (8 bytes, big-endian), the
SHA-256 of the payload (32 bytes), then the payload (a pickle). `save` writes a temporary file
in the target's directory, flushes and fsyncs it, renames it over the target (`os.replace`,
atomic on POSIX) and fsyncs the directory, so a crash at any point leaves either the old
checkpoint or the new one, never a mixture. `load` checks magic, length and checksum *before*
unpickling, and raises `CheckpointError` with the reason otherwise: a truncated or corrupted
file is never silently loaded.

Pickle runs code from the file it loads: load only checkpoints you wrote.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile

__all__ = ["CheckpointError", "load", "same_state", "save"]

MAGIC = b"OBCKPT01"
_HEADER = len(MAGIC) + 8 + 32


class CheckpointError(RuntimeError):
    """A checkpoint that is missing, truncated, corrupted or not a checkpoint at all."""


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
    """Write `state` to `path` atomically (temporary file, fsync, rename); returns its size.

    Examples
    --------
    >>> import os, tempfile
    >>> from onlineboost.app import checkpoint
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
    onlineboost.app.checkpoint.CheckpointError: checkpoint ... is corrupt: checksum mismatch ...
    """
    payload = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    blob = MAGIC + len(payload).to_bytes(8, "big") + hashlib.sha256(payload).digest() + payload
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
    """The state saved at `path`, after checking magic, length and SHA-256; else
    `CheckpointError`."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise CheckpointError(f"cannot read checkpoint {path!r}: {e}") from None
    if len(blob) < _HEADER or not blob.startswith(MAGIC):
        raise CheckpointError(f"{path!r} is not an onlineboost checkpoint (bad header; "
                              f"{len(blob)} bytes)")
    n = int.from_bytes(blob[len(MAGIC):len(MAGIC) + 8], "big")
    digest, payload = blob[len(MAGIC) + 8:_HEADER], blob[_HEADER:]
    if len(payload) != n:
        raise CheckpointError(f"checkpoint {path!r} is truncated or padded: payload of "
                              f"{len(payload)} bytes, header says {n}")
    if hashlib.sha256(payload).digest() != digest:
        raise CheckpointError(f"checkpoint {path!r} is corrupt: checksum mismatch (SHA-256)")
    try:
        return pickle.loads(payload)
    except Exception as e:  # checksum passed, so this is a version/environment mismatch
        raise CheckpointError(f"checkpoint {path!r} passed its checksum but cannot be "
                              f"unpickled here: {type(e).__name__}: {e}") from None


def same_state(a, b, _seen=None) -> bool:
    """Whether two objects hold the same state, recursively: attributes, containers, numpy
    arrays (bit for bit, NaN included) and random generators (`numpy` and `random`).

    Pickle bytes are no test of that (memo and frame layout differ between an object and its
    round-tripped copy); this is what tests of checkpoints and of rejected inputs compare.

    >>> import numpy as np
    >>> from onlineboost.app.checkpoint import same_state
    >>> a = {"w": np.array([1.0, np.nan]), "rng": np.random.default_rng(0)}
    >>> b = pickle.loads(pickle.dumps(a))
    >>> same_state(a, b)
    True
    >>> _ = b["rng"].random()
    >>> same_state(a, b)
    False
    """
    import random

    import numpy as np

    seen = _seen if _seen is not None else {}
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    key = (id(a), id(b))
    if key in seen:  # a cycle already being compared
        return True
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and (
            a.tobytes() == b.tobytes() if a.dtype != object
            else all(same_state(u, v, seen) for u, v in zip(a.flat, b.flat)))
    if isinstance(a, np.random.Generator):
        return a.bit_generator.state == b.bit_generator.state
    if isinstance(a, random.Random):
        return a.getstate() == b.getstate()
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    if isinstance(a, (int, str, bytes, bool, complex, type(None), np.generic)):
        return bool(np.all(a == b)) if isinstance(a, np.generic) else a == b
    seen[key] = (a, b)  # kept alive, so that no later object reuses these ids
    if isinstance(a, dict):  # key order is no state: a set rebuilt by pickle may iterate anew
        return a.keys() == b.keys() and all(same_state(a[k], b[k], seen) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_state(u, v, seen) for u, v in zip(a, b))
    if isinstance(a, (set, frozenset)):
        return a == b
    if type(a).__getstate__ is not object.__getstate__ and isinstance(a.__getstate__(), dict):
        return same_state(a.__getstate__(), b.__getstate__(), seen)  # what pickle keeps
    if hasattr(a, "__dict__") or hasattr(a, "__slots__"):
        return same_state(_attributes(a), _attributes(b), seen)
    if callable(a) or isinstance(a, type):
        return a == b
    try:  # an extension type (e.g. scikit-learn's Cython Tree): compare what pickle would save
        ra, rb = a.__reduce_ex__(pickle.HIGHEST_PROTOCOL), b.__reduce_ex__(
            pickle.HIGHEST_PROTOCOL)
    except (TypeError, pickle.PicklingError):
        return a == b
    return same_state(ra, rb, seen)


def _attributes(obj) -> dict:
    out = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        for name in getattr(cls, "__slots__", ()):
            if hasattr(obj, name):
                out[name] = getattr(obj, name)
    return out
