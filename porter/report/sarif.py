"""SARIF 2.1.0; the rule list comes from the registry."""
from __future__ import annotations

import json

from .. import __version__
from ..rules.registry import all_rules
from . import RunReport

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _first_paragraph(doc: str) -> str:
    return doc.strip().split("\n\n")[0].strip()


def render(report: RunReport) -> str:
    rules = all_rules()
    ids = {r.code: i for i, r in enumerate(rules)}
    driver_rules = [{
        "id": r.code, "name": r.name,
        "shortDescription": {"text": _first_paragraph(r.doc())},
        "fullDescription": {"text": r.doc()},
        "help": {"text": r.doc(), "markdown": r.doc()},
        "defaultConfiguration": {"level": _LEVEL[str(r.severity)]},
        "properties": {"fix": r.fix},
    } for r in rules]
    results = []
    for f in report.open_findings:
        res = {
            "ruleId": f.code, "level": _LEVEL[str(f.severity)],
            "message": {"text": f"{f.message} [{f.code}]"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": f.path},
                "region": {"startLine": f.line, "startColumn": f.col,
                           **({"endLine": f.end_line, "endColumn": f.end_col} if f.end_line else {})}}}],
        }
        if f.code in ids:
            res["ruleIndex"] = ids[f.code]
        props = {}
        if f.targets:
            props["targets"] = list(f.targets)
        if f.in_diff is not None:
            props["in_diff"] = f.in_diff
        if props:
            res["properties"] = props
        results.append(res)
    doc = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "porter", "version": __version__,
                                      "semanticVersion": __version__, "rules": driver_rules}},
                  "results": results,
                  "properties": {"summary": report.summary()}}],
    }
    return json.dumps(doc, indent=2) + "\n"
