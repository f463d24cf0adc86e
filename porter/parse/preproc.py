"""Moved to `porter.analysis.preproc` (the one preprocessor model); kept for the rewriter's import."""
from __future__ import annotations

from ..analysis.preproc import Branch, Cond, Group, PPState, is_amd_macro, macro, parse_cond

__all__ = ["Branch", "Cond", "Group", "PPState", "is_amd_macro", "macro", "parse_cond"]
