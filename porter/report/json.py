"""JSON report. Its shape is described by `porter/schemas/porter-report.schema.json`.

Compatibility promise: within a major `schema_version` fields are only added, never renamed,
removed or given another type; a consumer should ignore fields it does not know. A change that
breaks this raises the major version (and `schema`, `porter-report/<major>`).
"""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
from ..findings import Finding
from .model import RunReport, clean, unified_diff

SCHEMA = "porter-report/1"
SCHEMA_VERSION = "1.2"


def finding_dict(f: Finding) -> dict:
    d = {
        "code": f.code,
        "severity": str(f.severity),
        "message": f.message,
        "path": f.path,
        "line": f.line,
        "column": f.col,
    }
    if f.end_line:
        d["end_line"], d["end_column"] = f.end_line, f.end_col
    if f.name:
        d["symbol"] = f.name
    if f.targets:
        d["targets"] = list(f.targets)
    if f.fix is not None:
        d["fix"] = {
            "applicability": f.fix.applicability.value,
            "description": f.fix.description,
            "applied": bool(f.extra.get("fixed")),
        }
    if f.in_diff is not None:
        d["in_diff"] = f.in_diff
    if "source" in f.extra:
        d["source_line"] = f.extra["source"]
    if f.extra.get("severity_reason"):
        d["severity_reason"] = f.extra["severity_reason"]
    return d


def to_dict(report: RunReport) -> dict:
    from .effort import estimate

    effort = estimate(report)
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "porter", "version": __version__},
        "command": report.command,
        "options": report.options,
        "summary": report.summary(),
        "effort": effort.overall_dict(),
        "files": [
            {
                "path": r.rel,
                "status": r.status,
                "note": r.note,
                "stats": r.stats.to_dict(),
                "findings": len(r.findings),
                "effort": effort.file_dict(r.rel),
            }
            for r in report.results
        ],
        "skipped": [{"path": p, "reason": w} for p, w in report.skipped],
        "errors": [{"path": p, "reason": w} for p, w in report.errors],
        "findings": [finding_dict(f) for f in report.findings],
    }
    diffs = {rel: unified_diff(rel, old, new) for rel, old, new in report.changes}
    for f in doc["files"]:
        if f["path"] in diffs:
            f["diff"] = diffs[f["path"]]
    if report.would_change is not None:
        doc["would_change"] = list(report.would_change)
    if report.review is not None:
        doc["review"] = dict(report.review)
    if report.verify is not None:  # port --verify (schema_version 1.2)
        doc["verify"] = report.verify.to_dict()
    return clean(doc)


def render(report: RunReport) -> str:
    return json.dumps(to_dict(report), indent=2, sort_keys=False) + "\n"
