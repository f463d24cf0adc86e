"""Exit codes and the usage error, shared by the command line and the commands.

Exit codes (as Black and Ruff use them), the same for `check`, `port --check` and `review`:
0 nothing at or above the fail level; 1 findings at or above it (or, with `--check`, changes that
would be made); 2 usage, configuration, input or internal error; 130 interrupted.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPT = 130


class UsageError(Exception):
    """Bad command line, configuration or input: printed as one line, exit code 2."""
