"""JSON report (schema `porter-report/1`)."""
from __future__ import annotations

import json

from .. import __version__
from ..findings import Finding
from . import RunReport

SCHEMA = "porter-report/1"


def finding_dict(f: Finding) -> dict:
    d = {"code": f.code, "severity": str(f.severity), "message": f.message, "path": f.path,
         "line": f.line, "column": f.col}
    if f.end_line:
        d["end_line"], d["end_column"] = f.end_line, f.end_col
    if f.name:
        d["symbol"] = f.name
    if f.targets:
        d["targets"] = list(f.targets)
    if f.fix is not None:
        d["fix"] = {"applicability": f.fix.applicability.value, "description": f.fix.description,
                    "applied": bool(f.extra.get("fixed"))}
    if f.in_diff is not None:
        d["in_diff"] = f.in_diff
    return d


def to_dict(report: RunReport) -> dict:
    return {
        "schema": SCHEMA,
        "tool": {"name": "porter", "version": __version__},
        "command": report.command,
        "options": report.options,
        "summary": report.summary(),
        "files": [{"path": r.rel, "status": r.status, "note": r.note, "stats": r.stats.to_dict(),
                   "findings": len(r.findings)} for r in report.results],
        "skipped": [{"path": p, "reason": w} for p, w in report.skipped],
        "errors": [{"path": p, "reason": w} for p, w in report.errors],
        "findings": [finding_dict(f) for f in report.findings],
    }


def render(report: RunReport) -> str:
    return json.dumps(to_dict(report), indent=2, sort_keys=False) + "\n"
