"""Moved to `porter.analysis.lazyre`; kept for rule modules that still import it from here."""
from __future__ import annotations

from ..analysis.lazyre import LazyPattern, re

__all__ = ["LazyPattern", "re"]
