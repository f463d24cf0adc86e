"""`porter toolchain install|script`: the compiler and ROCm prefixes `porter verify` uses.

The setup is the shell script the project's CI runs (scripts/setup-rocm.sh), shipped inside the
package as `porter._scripts/setup-rocm.sh` so that a pip user has it too. It installs Debian 12's
clang-22 (apt, needs root) and unpacks Debian's ROCm 7.2 and 6.4 packages into a private prefix
without installing them into the system.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

SCRIPT = "setup-rocm.sh"


def script_path() -> Path:
    """The setup script: the installed package's copy, or the source tree's."""
    try:
        from importlib.resources import files

        p = Path(str(files("porter._scripts") / SCRIPT))
        if p.is_file():
            return p
    except (ModuleNotFoundError, TypeError):
        pass
    p = Path(__file__).resolve().parent.parent / "scripts" / SCRIPT
    if p.is_file():
        return p
    raise FileNotFoundError(f"{SCRIPT} is missing from this porter installation")


def run_toolchain(args) -> int:
    action = getattr(args, "toolchain_command", None)
    try:
        script = script_path()
    except FileNotFoundError as exc:
        print(f"porter: error: {exc}", file=sys.stderr)
        return 2
    if action == "script":
        print(script)
        return 0
    if action != "install":
        print("porter toolchain: choose an action: install (or script)", file=sys.stderr)
        return 2
    bash = shutil.which("bash")
    if bash is None or shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        print(
            "porter toolchain install: needs bash, apt-get and dpkg (Debian 12); on other "
            "systems install ROCm and pass --rocm-path",
            file=sys.stderr,
        )
        return 2
    env = dict(os.environ, ROCM_VERSIONS=args.rocm_versions)
    return subprocess.run([bash, str(script), args.prefix], env=env).returncode
