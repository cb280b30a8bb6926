"""Where answers and rejects go: a file or a standard stream, counted in bytes, reconciled with
a checkpoint on resume (a regular file is truncated back to the checkpointed size)."""

from __future__ import annotations

import os
import stat
import sys

from .errors import RunError

__all__ = ["Sink"]


class Sink:
    """A binary output (file or standard stream) that counts the bytes written to it.

    `size=None` starts a fresh file; an integer reopens one a checkpoint says held `size` bytes
    and drops what was written after it.
    """

    def __init__(self, path: str | None, std: str, size: int | None = None, role: str = ""):
        self.path = path
        self.bytes = 0 if size is None else size
        if path in (None, "-"):
            stream = getattr(sys, std)  # looked up now: tests and notebooks replace it
            self.file, self.regular = getattr(stream, "buffer", _TextAdapter(stream)), False
            return
        try:
            self.file = open(path, "wb" if size is None else "r+b")
        except FileNotFoundError:
            if size is None:
                raise RunError(f"{role} {path!r}: its directory does not exist") from None
            raise RunError(f"{role} {path!r} is missing: the checkpoint says {size} bytes "
                           "were written to it") from None
        except OSError as e:
            raise RunError(f"cannot open {role} {path!r}: {e.strerror}") from None
        # a regular file can be synced and reconciled; a device or a FIFO cannot (like stdout)
        self.regular = stat.S_ISREG(os.fstat(self.file.fileno()).st_mode)
        if size is not None and self.regular:
            have = os.fstat(self.file.fileno()).st_size
            if have < size:
                self.file.close()
                raise RunError(f"{role} {path!r} has {have} bytes, fewer than the {size} the "
                               "checkpoint recorded: it was truncated or replaced")
            self.file.truncate(size)  # drop what was written after the checkpoint
            self.file.seek(size)

    def write(self, data: bytes) -> None:
        self.file.write(data)
        self.file.flush()
        self.bytes += len(data)

    def sync(self) -> None:
        self.file.flush()
        if self.regular:
            os.fsync(self.file.fileno())

    def close(self) -> None:
        if self.regular:
            self.file.close()
        else:
            self.file.flush()


class _TextAdapter:
    """Bytes into a text-only stream (e.g. a replaced `sys.stdout`)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, data: bytes) -> None:
        self.stream.write(data.decode("utf-8"))

    def flush(self) -> None:
        self.stream.flush()
