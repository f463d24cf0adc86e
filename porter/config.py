"""Configuration: [tool.porter] in pyproject.toml, or .porter.toml; command-line flags override."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, as a package (a dependency there)
    import tomli as tomllib

KEYS = {
    "select",
    "ignore",
    "severity",
    "offload-arch",
    "rocm-version",
    "fail-level",
    "extensions",
    "exclude",
    "unsafe-fixes",
    "launch-syntax",
    "roc",
    "max-file-size",
}

_SIZE = re.compile(r"(\d+)\s*(?:([KMG])(?:i?B)?|B)?", re.I)
_UNIT = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}


class ConfigError(Exception):
    pass


def find_config(start: Path) -> Path | None:
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    for d in (folder, *folder.parents):
        for name in (".porter.toml", "pyproject.toml"):
            p = d / name
            if p.is_file():
                if name == "pyproject.toml":
                    try:
                        with open(p, "rb") as fh:
                            if "porter" not in tomllib.load(fh).get("tool", {}):
                                continue
                    except (OSError, ValueError):
                        continue
                return p
    return None


def load_config(path: Path | None) -> dict:
    if path is None:
        return {}
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    section = (
        doc.get("tool", {}).get("porter", {})
        if path.name == "pyproject.toml"
        else doc.get("tool", {}).get("porter", doc)
    )
    if not isinstance(section, dict):
        raise ConfigError(f"{path}: [tool.porter] must be a table")
    unknown = set(section) - KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s): {', '.join(sorted(unknown))}")
    sev = section.get("severity", {})
    if not isinstance(sev, dict):
        raise ConfigError(f"{path}: 'severity' must be a table of CODE = \"error|warning|info\"")
    for k in ("select", "ignore", "extensions", "exclude"):
        v = section.get(k)
        if v is not None and not (isinstance(v, list) and all(isinstance(x, str) for x in v)):
            raise ConfigError(f"{path}: '{k}' must be a list of strings")
    if "max-file-size" in section:
        section["max-file-size"] = parse_size(section["max-file-size"], f"{path}: max-file-size")
    return section


def parse_size(value: object, what: str = "max-file-size") -> int:
    """A size in bytes from an integer or a text such as `16M`, `16MiB`, `512K`, `1G` (units
    are binary: K = 1024 bytes, and MB means MiB as in ulimit); 0 means no limit."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    m = _SIZE.fullmatch(str(value).strip())
    if not m or isinstance(value, bool):
        raise ConfigError(
            f"{what}: expected a size such as 16M, 512K or a number of bytes, got {value!r}"
        )
    return int(m.group(1)) * _UNIT[(m.group(2) or "").upper()]
