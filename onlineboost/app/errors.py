"""The error of a run that cannot go on (a bad header, a `strict` reject, a mismatched resume,
files that would overwrite each other): `onlineboost run` reports it and exits with status 2."""

from __future__ import annotations

__all__ = ["RunError"]


class RunError(RuntimeError):
    """A run that cannot start or go on; the message says why."""
