"""A self-contained HTML report (no scripts, no external assets)."""
from __future__ import annotations

from html import escape

from . import RunReport

_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
th{background:#f3f3f3}.error{color:#b00020}.warning{color:#a05a00}.info{color:#00658f}
code{font-family:ui-monospace,monospace}"""


def render(report: RunReport) -> str:
    s = report.summary()
    files, fnd, api = s["files"], s["findings"], s["api"]
    rows = [("files", files["files"]), ("files with CUDA code", files["cuda_files"]),
            ("API references converted", api["converted"]),
            ("references left unconverted", api["unconverted"]),
            ("references unsupported on HIP", api["unsupported"]),
            ("errors", fnd["error"]), ("warnings", fnd["warning"]), ("info", fnd["info"]),
            ("fixed automatically", fnd["fixed"])]
    out = ["<!DOCTYPE html>", "<html lang='en'><head><meta charset='utf-8'>",
           "<title>porter compatibility report</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>porter compatibility report</h1>"]
    opts = report.options
    if opts:
        out.append(f"<p>Targets: {escape(', '.join(opts.get('offload_arch', [])))}; "
                   f"ROCm {escape(str(opts.get('rocm_version', '')))}</p>")
    out.append("<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{v}</td></tr>" for k, v in rows) + "</table>")
    if api["by_area"]:
        out.append("<h2>API areas</h2><table><tr><th>area</th><th>converted</th><th>unsupported</th></tr>")
        for a, v in api["by_area"].items():
            out.append(f"<tr><td>{escape(a)}</td><td>{v['converted']}</td><td>{v['unsupported']}</td></tr>")
        out.append("</table>")
    open_f = report.open_findings
    if open_f:
        out.append("<h2>Findings</h2><table><tr><th>location</th><th>severity</th><th>code</th><th>message</th></tr>")
        for f in open_f:
            sev = str(f.severity)
            out.append(f"<tr><td><code>{escape(f.path)}:{f.line}:{f.col}</code></td>"
                       f"<td class='{sev}'>{sev}</td><td>{escape(f.code)}</td><td>{escape(f.message)}</td></tr>")
        out.append("</table>")
    out.append("</body></html>\n")
    return "\n".join(out)
