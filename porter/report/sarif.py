"""SARIF 2.1.0, as GitHub code scanning reads it.

- Only the rules that have results are described, each once: a short description (the doc's
  title), the full description (its "What it finds" paragraph), `help` (the whole doc, text and
  Markdown) and, when the package names where its docs are published, `helpUri`.
- Locations are relative to `%SRCROOT%`, the folder porter ran in (`originalUriBaseIds`); a file
  outside it gets an absolute `file:` URI. Non-UTF-8 bytes of file names are percent-encoded.
- `partialFingerprints["porterLineHash/v1"]`: a hash of the rule, the file and the source line
  with its white space normalised, plus the line's occurrence number among identical lines, so a
  finding keeps its identity when lines above it move.
- `invocations[0]` carries the exit code and the errors as notifications.

Code scanning's limits: at most 25,000 results per run (GitHub shows the 5,000 most severe) and
10 MB per upload, gzip-compressed (the upload-sarif action and the REST API gzip the file).
Past 25,000 results porter keeps the most severe 25,000, records how many it dropped
(`runs[0].properties.droppedResults`) and adds a warning notification: the upload is accepted
with the most important results. The JSON is written compactly, and the cap keeps it far below
the size limit: 25,000 results (27,560 found in 130 files) made a 12.0 MB file, 0.34 MB
gzip-compressed (`porter check --format sarif` on a generated tree, porter 0.1.0).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..findings import Finding
from .model import RunReport, clean, docs_base_url, rule_url

MAX_RESULTS = 25_000  # code scanning rejects a run with more
FINGERPRINT_KEY = "porterLineHash/v1"
SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_WS = re.compile(r"\s+")


def _sections(doc: str) -> tuple[str, str]:
    """(title, the "What it finds" paragraph) of a rule's doc."""
    title, _, body = doc.strip().partition("\n")
    m = re.search(r"## What it finds\s*\n(.*?)(?:\n## |\Z)", body, re.S)
    what = " ".join(m.group(1).split()) if m else title
    return title.strip(), what


def _uri(path: str) -> tuple[str, str | None]:
    """(uri, uriBaseId) of a finding's path: relative to %SRCROOT% when it is relative."""
    raw = os.fsencode(path)
    if os.path.isabs(path):
        return "file://" + quote(raw, safe="/"), None
    return quote(raw.replace(os.sep.encode(), b"/"), safe="/"), "%SRCROOT%"


def _related(related: list[dict]) -> list[dict]:
    """SARIF relatedLocations from a finding's `extra["related"]` (path, line, column,
    message): `port --verify` names the ported file's lines the compiler saw."""
    out = []
    for k, r in enumerate(related, 1):
        uri, base = _uri(r["path"])
        artifact = {"uri": uri, **({"uriBaseId": base} if base else {})}
        out.append(
            {
                "id": k,
                "physicalLocation": {
                    "artifactLocation": artifact,
                    "region": {"startLine": r["line"], "startColumn": r["column"]},
                },
                "message": {"text": r["message"]},
            }
        )
    return out


def fingerprints(findings: list[Finding]) -> dict[int, str]:
    """id(finding) -> its line hash (rule, file, normalised source line, occurrence)."""
    seen: dict[str, int] = {}
    out = {}
    for f in findings:
        line = _WS.sub(" ", f.extra.get("source", "")).strip()
        key = hashlib.sha256(
            "\0".join((f.code, f.path, line)).encode("utf-8", "surrogateescape")
        ).hexdigest()[:32]
        seen[key] = seen.get(key, 0) + 1
        out[id(f)] = f"{key}:{seen[key]}"
    return out


def _rule_descriptor(rule) -> dict:
    doc = rule.doc()
    title, what = _sections(doc)
    d = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": title},
        "fullDescription": {"text": what},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": _LEVEL[str(rule.severity)]},
        "properties": {"tags": ["portability", "rocm"], "fix": str(rule.fix)},
    }
    url = rule_url(rule.code)
    if url:
        d["helpUri"] = url
    return d


def to_dict(report: RunReport, exit_code: int | None = None) -> dict:
    from ..rules.registry import get

    findings = report.open_findings
    dropped = 0
    if len(findings) > MAX_RESULTS:
        ranked = sorted(findings, key=lambda f: (-int(f.severity), Finding.sort_key(f)))
        keep = {id(f) for f in ranked[:MAX_RESULTS]}
        dropped = len(findings) - MAX_RESULTS
        findings = [f for f in findings if id(f) in keep]
    codes = sorted({f.code for f in findings})
    rules = [r for r in (get(c) for c in codes) if r is not None]
    index = {r.code: i for i, r in enumerate(rules)}
    prints = fingerprints(findings)
    results = []
    for f in findings:
        uri, base = _uri(f.path)
        artifact = {"uri": uri, **({"uriBaseId": base} if base else {})}
        region = {"startLine": f.line, "startColumn": f.col}
        if f.end_line:
            region.update(endLine=f.end_line, endColumn=max(f.end_col, 1))
        res: dict[str, Any] = {
            "ruleId": f.code,
            "level": _LEVEL[str(f.severity)],
            "message": {"text": f"{f.message} [{f.code}]"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
            "partialFingerprints": {FINGERPRINT_KEY: prints[id(f)]},
        }
        if f.code in index:
            res["ruleIndex"] = index[f.code]
        if f.extra.get("related"):  # port --verify: the ported file's own locations
            res["relatedLocations"] = _related(f.extra["related"])
        props: dict[str, Any] = {}
        if f.targets:
            props["targets"] = list(f.targets)
        if f.in_diff is not None:
            props["in_diff"] = f.in_diff
        if props:
            res["properties"] = props
        results.append(res)
    notes = [{"level": "error", "message": {"text": f"{p}: {w}"}} for p, w in report.errors]
    if dropped:
        notes.append(
            {
                "level": "warning",
                "message": {
                    "text": f"{dropped} less severe results dropped: code scanning accepts at most "
                    f"{MAX_RESULTS} results per run"
                },
            }
        )
    invocation: dict = {"executionSuccessful": not report.errors and exit_code != 2}
    if exit_code is not None:
        invocation["exitCode"] = exit_code
    if notes:
        invocation["toolExecutionNotifications"] = notes
    from .effort import estimate

    driver: dict[str, Any] = {
        "name": "porter",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [_rule_descriptor(r) for r in rules],
    }
    if docs_base_url():
        driver["informationUri"] = docs_base_url()
    run = {
        "tool": {"driver": driver},
        "originalUriBaseIds": {
            "%SRCROOT%": {
                "uri": Path.cwd().as_uri() + "/",
                "description": {"text": "the folder porter ran in"},
            }
        },
        "invocations": [invocation],
        "results": results,
        "properties": {
            "summary": report.summary(),
            "effort": estimate(report).overall_dict(),
            **({"droppedResults": dropped} if dropped else {}),
            **({"verify": report.verify.to_dict()} if report.verify is not None else {}),
        },
    }
    return clean({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]})


def render(report: RunReport) -> str:
    return json.dumps(to_dict(report, report.exit_code), separators=(",", ":")) + "\n"
