"""Exit codes and the usage error, shared by the command line and the commands.

Exit codes (as Black and Ruff use them), the same for `check`, `port --check` and `review`:
0 nothing at or above the fail level; 1 findings at or above it (or, with `--check`, changes that
would be made); 2 usage, configuration, input or internal error; 130 interrupted (Ctrl-C); 143
terminated (SIGTERM).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPT = 130
EXIT_TERMINATED = 143  # 128 + SIGTERM, as a shell reports a process that SIGTERM ended


class UsageError(Exception):
    """Bad command line, configuration or input: printed as one line, exit code 2."""


class Terminated(KeyboardInterrupt):
    """SIGTERM in porter's own process (cli.entry installs the handler): it unwinds as Ctrl-C
    does, so that every cleanup runs (a file being written is removed, the worker pool ends),
    and exits with EXIT_TERMINATED. Without it, SIGTERM (a CI job's timeout, a killed hook)
    ended the process at once, wherever it was."""
