"""One self-contained HTML page: no network fetches (styles and the script are inline).

- a summary: counts, the effort estimate, the API areas;
- a findings table that sorts (click a heading) and filters (text, severity); the page reads
  `#sort=COLUMN[-desc]&q=TEXT&severity=LEVEL` from its address, so a view can be linked;
- the findings grouped by file, each with its source line and a link to its rule's text;
- side-by-side diffs of the original and ported files, when the run has them;
- every rule that has findings, its documentation rendered from Markdown.

Messages and rule docs are Markdown (`code`, **bold**, lists, fences): they are rendered with
markdown-it-py (CommonMark), HTML in them escaped.
"""

from __future__ import annotations

import difflib
import json
from html import escape

from .model import RunReport, rule_url

_CSS = """
:root{--err:#b00020;--warn:#9a5b00;--info:#00658f;--line:#d0d7de;--bg2:#f6f8fa}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1400px;
color:#1f2328;padding:0 1em}
h1{font-size:1.6em}h2{font-size:1.25em;border-bottom:1px solid var(--line);padding-bottom:.2em;
margin-top:2em}
table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid var(--line);padding:.25em .55em;
text-align:left;vertical-align:top}th{background:var(--bg2)}
#findings th{cursor:pointer;user-select:none;white-space:nowrap}
#findings th[aria-sort=ascending]::after{content:" \\25B2"}
#findings th[aria-sort=descending]::after{content:" \\25BC"}
.error{color:var(--err);font-weight:600}.warning{color:var(--warn);font-weight:600}
.info{color:var(--info)}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12.5px}
pre{background:var(--bg2);padding:.6em;overflow:auto}
.msg p{margin:0}.filters{display:flex;gap:1em;align-items:center;margin:.5em 0}
.filters input{width:24em;padding:.2em .4em}
.src{background:var(--bg2);white-space:pre-wrap}
.file{margin:1em 0}.file summary{cursor:pointer;font-weight:600}
.diff{width:100%;table-layout:fixed}.diff td{font-family:ui-monospace,monospace;font-size:12px;
white-space:pre-wrap;word-break:break-all;padding:0 .4em;border:none}
.diff td.n{width:3.5em;color:#6e7781;text-align:right;user-select:none}
.diff .del{background:#ffebe9}.diff .add{background:#e6ffec}.diff .chg{background:#fff8c5}
.diff .skip td{background:var(--bg2);color:#6e7781;text-align:center}
.rule{border:1px solid var(--line);padding:0 1em;margin:1em 0}
.badge{display:inline-block;border-radius:1em;padding:0 .6em;background:var(--bg2)}
.v-compiled{color:#1a7f37}.v-failed,.v-assisted{color:var(--err);font-weight:600}
.v-skipped{color:#6e7781}#verify pre{margin:.3em 0 0;white-space:pre-wrap}
"""

# sort: numbers and severities by rank; filter: free text over the row, and a severity
_JS = """
(function(){
const table=document.getElementById('findings');if(!table)return;
const body=table.tBodies[0],heads=[...table.tHead.rows[0].cells];
const rank={error:3,warning:2,info:1};
function key(row,i){const c=row.cells[i];const k=c.dataset.key;
 if(k!==undefined){return isNaN(+k)?k:+k}return c.textContent.trim().toLowerCase()}
function sortBy(i,desc){const rows=[...body.rows];
 rows.sort((a,b)=>{const x=key(a,i),y=key(b,i);const r=x<y?-1:x>y?1:0;
  return (desc?-r:r)||(+a.dataset.order-+b.dataset.order)});
 rows.forEach(r=>body.appendChild(r));
 heads.forEach((h,j)=>h.setAttribute('aria-sort',j===i?(desc?'descending':'ascending'):'none'));
 table.dataset.sorted=heads[i].dataset.col+(desc?'-desc':'')}
heads.forEach((h,i)=>h.addEventListener('click',()=>{
 sortBy(i,h.getAttribute('aria-sort')==='ascending')}));
const q=document.getElementById('q'),sev=document.getElementById('sev');
function filter(){const t=q.value.trim().toLowerCase(),s=sev.value;let n=0;
 for(const r of body.rows){const ok=(!t||r.textContent.toLowerCase().includes(t))
  &&(!s||r.dataset.severity===s);r.hidden=!ok;if(ok)n++}
 document.getElementById('shown').textContent=n}
q.addEventListener('input',filter);sev.addEventListener('change',filter);
const p=new URLSearchParams(location.hash.slice(1));
if(p.get('sort')){const[c,d]=p.get('sort').split('-');
 const i=heads.findIndex(h=>h.dataset.col===c);if(i>=0)sortBy(i,d==='desc')}
if(p.get('q'))q.value=p.get('q');if(p.get('severity'))sev.value=p.get('severity');filter();
})();
"""

_SEV_RANK = {"error": 3, "warning": 2, "info": 1}


def _md():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False})


def _inline(md, text: str) -> str:
    return md.renderInline(text)


def side_by_side(old: bytes, new: bytes, context: int = 3) -> str:
    """A two-column table of one file's changes, with `context` unchanged lines around each."""
    a = old.decode("utf-8", "replace").splitlines()
    b = new.decode("utf-8", "replace").splitlines()
    rows = []
    groups = difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(context)
    for gi, group in enumerate(groups):
        if gi:
            rows.append("<tr class='skip'><td colspan='4'>⋯</td></tr>")
        for tag, i1, i2, j1, j2 in group:
            n = max(i2 - i1, j2 - j1)
            for k in range(n):
                li, lj = i1 + k, j1 + k
                left = a[li] if li < i2 else None
                right = b[lj] if lj < j2 else None
                cls_l = {"equal": "", "replace": "chg", "delete": "del", "insert": ""}[tag]
                cls_r = {"equal": "", "replace": "chg", "delete": "", "insert": "add"}[tag]
                rows.append(
                    "<tr>"
                    f"<td class='n'>{li + 1 if left is not None else ''}</td>"
                    f"<td class='{cls_l if left is not None else ''}'>"
                    f"{escape(left) if left is not None else ''}</td>"
                    f"<td class='n'>{lj + 1 if right is not None else ''}</td>"
                    f"<td class='{cls_r if right is not None else ''}'>"
                    f"{escape(right) if right is not None else ''}</td></tr>"
                )
    return (
        "<table class='diff'><colgroup><col style='width:3.5em'><col><col style='width:3.5em'>"
        "<col></colgroup><tr><th></th><th>original</th><th></th><th>ported</th></tr>"
        + "".join(rows)
        + "</table>"
    )


def render(report: RunReport) -> str:
    from ..rules.registry import get
    from .effort import estimate

    md = _md()
    s = report.summary()
    files, fnd, api = s["files"], s["findings"], s["api"]
    porting = report.command == "port" and report.would_change is None  # not port --check
    eff = estimate(report)
    overall = eff.overall_dict()
    share = "–" if overall["converted_share"] is None else f"{overall['converted_share']:.0%}"
    rows = [
        ("files", files["files"]),
        ("files with CUDA code", files["cuda_files"]),
        (
            "API references converted" if porting else "API references porter would convert",
            api["converted"],
        ),
        ("references left unconverted", api["unconverted"]),
        ("references unsupported on HIP", api["unsupported"]),
        ("errors", fnd["error"]),
        ("warnings", fnd["warning"]),
        ("info", fnd["info"]),
        (
            "fixes applied"
            if porting
            else "fixes the port would apply"
            if report.command == "port"
            else "fixes available",
            fnd["fixed"]
            if report.command == "port"
            else sum(1 for f in report.open_findings if f.fix is not None),
        ),
        ("share of CUDA API references porter converts", share),
        (
            "manual work left",
            f"{overall['manual']} ({overall['points']} "
            f"point{'' if overall['points'] == 1 else 's'})",
        ),
    ]
    title = {
        "port": "porter port report",
        "check": "porter check report",
        "review": "porter review",
    }.get(report.command, "porter report")
    out = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<title>{escape(title)}</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{escape(title)}</h1>",
    ]
    opts = report.options
    if opts:
        out.append(
            f"<p>Targets: {escape(', '.join(opts.get('offload_arch', [])))}; "
            f"ROCm {escape(str(opts.get('rocm_version', '')))}"
            + ("; --roc" if opts.get("roc") else "")
            + "</p>"
        )
    if report.review:
        rv = report.review
        out.append(
            f"<p>Changes since <code>{escape(str(rv.get('base')))}</code> (merge base "
            f"<code>{escape(str(rv.get('merge_base', ''))[:12])}</code>); findings "
            f"{escape(str(rv.get('filter_mode')))}.</p>"
        )
    out.append(
        "<h2 id='summary'>Summary</h2><table id='summary-table'>"
        + "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>" for k, v in rows)
        + "</table>"
    )
    out.append(
        "<p>Manual work: each open error counts 3 points, each warning 1; a file with 0 "
        "points needs none, 1–5 little, 6–20 some (medium), more a lot (high); overall "
        "0, 1–15, 16–60, more.</p>"
    )
    if api["by_area"]:
        out.append(
            "<h2>API areas</h2><table><tr><th>area</th><th>converted</th><th>unsupported</th></tr>"
        )
        for a, v in api["by_area"].items():
            out.append(
                f"<tr><td>{escape(a)}</td><td>{v['converted']}</td><td>{v['unsupported']}</td></tr>"
            )
        out.append("</table>")
    open_f = report.open_findings
    out.append(
        f"<h2 id='all-findings'>Findings (<span id='shown'>{len(open_f)}</span> of "
        f"{len(open_f)} shown)</h2>"
    )
    if open_f:
        out.append(
            "<div class='filters'><label>Filter <input id='q' type='search' "
            "placeholder='path, rule or text'></label><label>Severity <select id='sev'>"
            "<option value=''>all</option><option>error</option><option>warning</option>"
            "<option>info</option></select></label></div>"
        )
        out.append(
            "<table id='findings'><thead><tr>"
            "<th data-col='file'>file</th><th data-col='line'>line</th>"
            "<th data-col='severity'>severity</th><th data-col='rule'>rule</th>"
            "<th data-col='message'>message</th></tr></thead><tbody>"
        )
        for i, f in enumerate(open_f):
            sev = str(f.severity)
            out.append(
                f"<tr data-order='{i}' data-severity='{sev}'>"
                f"<td><code>{escape(f.path)}</code></td>"
                f"<td data-key='{f.line}'>{f.line}:{f.col}</td>"
                f"<td class='{sev}' data-key='{_SEV_RANK[sev]}'>{sev}</td>"
                f"<td><a href='#rule-{escape(f.code)}'>{escape(f.code)}</a></td>"
                f"<td class='msg'>{_inline(md, f.message)}</td></tr>"
            )
        out.append("</tbody></table>")
        out.append("<h2 id='by-file'>By file</h2>")
        by_file: dict[str, list] = {}
        for f in open_f:
            by_file.setdefault(f.path, []).append(f)
        for path, fs in by_file.items():
            fe = eff.file_dict(path)
            share_f = (
                ""
                if fe["converted_share"] is None
                else f"; {fe['converted_share']:.0%} converted automatically"
            )
            out.append(
                f"<details class='file' open><summary><code>{escape(path)}</code> "
                f"<span class='badge'>{len(fs)} finding{'' if len(fs) == 1 else 's'}; "
                f"manual work {fe['manual']}{share_f}</span></summary><table>"
            )
            for f in fs:
                sev = str(f.severity)
                src = f.extra.get("source")
                reason = f.extra.get("severity_reason")
                out.append(
                    f"<tr><td>{f.line}:{f.col}</td><td class='{sev}'>{sev}</td>"
                    f"<td><a href='#rule-{escape(f.code)}'>{escape(f.code)}</a></td>"
                    f"<td class='msg'>{_inline(md, f.message)}"
                    + (f" <small>({escape(reason)})</small>" if reason else "")
                    + (f"<div class='src'>{f.line:>5} | {escape(src)}</div>" if src else "")
                    + "</td></tr>"
                )
            out.append("</table></details>")
    if report.verify is not None:
        out.append(verify_section(report.verify))
    if report.changes:
        out.append("<h2 id='changes'>Changes</h2>")
        for rel, old, new in report.changes:
            out.append(
                f"<details class='file'><summary><code>{escape(rel)}</code></summary>"
                + side_by_side(old, new)
                + "</details>"
            )
    if report.skipped or report.errors:
        out.append("<h2>Not ported</h2><ul>")
        for p, w in report.skipped + report.errors:
            out.append(f"<li><code>{escape(p)}</code>: {escape(w)}</li>")
        out.append("</ul>")
    codes = sorted({f.code for f in open_f})
    if codes:
        out.append("<h2 id='rules'>Rules</h2>")
        for code in codes:
            rule = get(code)
            if rule is None:
                continue
            doc = rule.doc()
            head, _, body = doc.strip().partition("\n")
            url = rule_url(code)
            link = f" <a href='{escape(url)}'>online</a>" if url else ""
            body = body.replace("\n## ", "\n#### ")
            if body.startswith("## "):
                body = "#### " + body[3:]
            out.append(
                f"<section class='rule' id='rule-{escape(code)}'><h3>{escape(code)} "
                f"{escape(rule.name)}: {_inline(md, head.strip())}{link}</h3>"
                f"<p>default severity: {rule.severity}; fix: {rule.fix}</p>"
                f"{md.render(body)}</section>"
            )
    data = {"summary": s, "effort": overall}
    out.append(
        "<script type='application/json' id='porter-data'>"
        + json.dumps(data).replace("</", "<\\/")
        + "</script>"
    )
    out.append(f"<script>{_JS}</script></body></html>\n")
    return "\n".join(out)


_VERIFY_TEXT = {
    "compiled": "compiled",
    "failed": "failed",
    "assisted": "compiles only with a flag added",
    "skipped": "skipped",
}


def verify_section(verify) -> str:
    """`port --verify`: one row per translation unit, one column per target; a failure's first
    errors with the ported location and the original line it maps back to."""
    heads = "".join(f"<th>{escape(t)}</th>" for t in verify.targets)
    rows = []
    for u in verify.units:
        cells = "".join(
            f"<td class='v-{st}' data-target='{escape(t)}'>{_VERIFY_TEXT[st]}</td>"
            for t in verify.targets
            for st in [u.targets.get(t, u.status)]
        )
        if u.status == "compiled":
            result = "compiled"
        elif u.status == "skipped":
            result = f"skipped: {escape(u.skipped)}"
        else:
            errs = u.shown_errors
            text = "\n".join(f"{d.where()}: {d.message}" for d in errs) or "\n".join(u.errors)
            lead = (
                "failed"
                if u.status == "failed"
                else f"compiles only with <code>{escape(u.only_with)}</code> added"
            )
            result = lead + (f"<pre>{escape(text)}</pre>" if text else "")
        rows.append(
            f"<tr data-status='{u.status}'><td><code>{escape(u.path)}</code></td>"
            f"<td><code>{escape(u.source)}</code></td>{cells}"
            f"<td class='v-{u.status}'>{result}</td></tr>"
        )
    return (
        f"<section id='verify'><h2>Compile check</h2><p>{escape(verify.summary_line())}; "
        f"compiler <code>{escape(verify.compiler)}</code>, ROCm "
        f"<code>{escape(verify.rocm)}</code>.</p><table id='verify-table'><thead><tr>"
        f"<th>file</th><th>original</th>{heads}<th>result</th></tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></section>"
    )
