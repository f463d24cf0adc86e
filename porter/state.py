"""The per-process state of a port or check: options, mapping index, CUDA rewriter, rules and
their trigger indexes, severity overrides. engine.init_worker fills it; the pipelines of each
language read it (engine: CUDA C++ and build files; rewrite.python: Python)."""

from __future__ import annotations

STATE: dict = {}
