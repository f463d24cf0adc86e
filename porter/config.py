"""Configuration: [tool.porter] in pyproject.toml, or .porter.toml; command-line flags override."""
from __future__ import annotations

from pathlib import Path

KEYS = {"select", "ignore", "severity", "offload-arch", "rocm-version", "fail-level",
        "extensions", "exclude", "unsafe-fixes", "launch-syntax", "roc"}


class ConfigError(Exception):
    pass


def _toml():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib


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
                            if "porter" not in _toml().load(fh).get("tool", {}):
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
            doc = _toml().load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: {exc.strerror}") from None
    except ValueError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    section = doc.get("tool", {}).get("porter", {}) if path.name == "pyproject.toml" else \
        doc.get("tool", {}).get("porter", doc)
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
    return section
