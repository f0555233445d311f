"""`python -m stopkit`: the command line."""

from __future__ import annotations

import sys

from stopkit.cli import main

if __name__ == "__main__":
    sys.exit(main())
