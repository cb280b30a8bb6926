"""`python -m onlineboost` runs the `onlineboost` command."""

from __future__ import annotations

from onlineboost.app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
