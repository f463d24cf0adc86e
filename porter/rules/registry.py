"""The rule registry: every module in porter/rules/ registers its rules on import."""

from __future__ import annotations

import importlib
import pkgutil
import re

from ..findings import Applicability
from .base import Rule

_RULES: dict[str, type[Rule]] = {}
_LOADED = False
CODE_RE = re.compile(r"^PT\d{3,4}$")
NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def register(cls: type[Rule]) -> type[Rule]:
    if not CODE_RE.match(cls.code):
        raise ValueError(f"bad rule code {cls.code!r}")
    if not NAME_RE.match(cls.name):
        raise ValueError(f"bad rule name {cls.name!r} ({cls.code})")
    try:
        cls.fix = Applicability(cls.fix)  # a plain "safe" becomes Applicability.SAFE
    except ValueError:
        raise ValueError(f"bad fix applicability {cls.fix!r} ({cls.code})") from None
    if cls.code in _RULES and _RULES[cls.code] is not cls:
        raise ValueError(f"duplicate rule code {cls.code}")
    _RULES[cls.code] = cls
    return cls


def _load() -> None:
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from .. import rules as pkg

    for mod in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if mod.name not in ("base", "registry"):
            importlib.import_module(f"{pkg.__name__}.{mod.name}")


def all_rules() -> list[type[Rule]]:
    _load()
    return [_RULES[c] for c in sorted(_RULES, key=lambda c: (len(c), c))]


def get(code_or_name: str) -> type[Rule] | None:
    _load()
    key = code_or_name.strip()
    if key.upper() in _RULES:
        return _RULES[key.upper()]
    for r in _RULES.values():
        if r.name == key:
            return r
    return None


def select(select: list[str] | None, ignore: list[str] | None) -> list[type[Rule]]:
    """Rules chosen by --select/--ignore; entries may be codes, code prefixes (PT1) or names."""

    def match(rule: type[Rule], pats: list[str]) -> bool:
        for p in pats:
            p = p.strip()
            if not p:
                continue
            if p.upper() == "ALL" or rule.code.startswith(p.upper()) or rule.name == p:
                return True
        return False

    chosen = [r for r in all_rules() if (not select or match(r, select))]
    if ignore:
        chosen = [r for r in chosen if not match(r, ignore)]
    return chosen
