"""Markdown: the compatibility report, and for `porter review` a pull-request comment body."""

from __future__ import annotations

from .model import RunReport, rule_url, unified_diff


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _plural(n: int, word: str) -> str:
    if word == "info":  # uncountable: `2 info`
        return f"{n} info"
    return f"{n} {word}{'' if n == 1 else 's'}"


def _fence(path: str) -> str:
    """The code fence language of a file's source lines."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name.endswith(".py"):
        return "python"
    if name == "cmakelists.txt" or name.endswith(".cmake"):
        return "cmake"
    if name.startswith(("makefile", "gnumakefile")) or name.endswith(".mk"):
        return "makefile"
    return "cpp"


def render(report: RunReport) -> str:
    if report.command == "review" and report.review is not None:
        return render_review(report)
    s = report.summary()
    files, fnd, api = s["files"], s["findings"], s["api"]
    out = ["# porter compatibility report", ""]
    opts = report.options
    if opts:
        out.append(
            "Targets: "
            + ", ".join(opts.get("offload_arch", []))
            + f"; ROCm {opts.get('rocm_version', '')}"
        )
        out.append("")
    dry = report.would_change is not None  # port --check writes nothing
    converted = (
        "API references converted"
        if report.command == "port" and not dry
        else "API references that would convert"
    )
    out += [
        "| | count |",
        "|---|---:|",
        f"| files | {files['files']} |",
        f"| files with CUDA code | {files['cuda_files']} |",
    ]
    if report.command == "port":
        out.append(f"| files {'to port' if dry else 'ported'} | {files['ported']} |")
    out += [
        f"| {converted} | {api['converted']} |",
        f"| references left unconverted | {api['unconverted']} |",
        f"| references unsupported on HIP | {api['unsupported']} |",
        f"| errors | {fnd['error']} |",
        f"| warnings | {fnd['warning']} |",
        f"| info | {fnd['info']} |",
    ]
    if report.command == "port":
        out.append(
            f"| {'fixes the port would apply' if dry else 'fixes applied'} | {fnd['fixed']} |"
        )
    from .effort import estimate

    eff = estimate(report).overall_dict()
    if eff["converted_share"] is not None:
        out.append(
            f"| share of CUDA API references porter converts | {eff['converted_share']:.0%} |"
        )
    out += [f"| manual work left | {eff['manual']} ({_plural(eff['points'], 'point')}) |", ""]
    if api["by_area"]:
        out += ["## API areas", "", "| area | converted | unsupported |", "|---|---:|---:|"]
        for a, v in api["by_area"].items():
            out.append(f"| {a} | {v['converted']} | {v['unsupported']} |")
        out.append("")
    open_f = report.open_findings
    if open_f:
        out += ["## Findings", "", "| location | severity | code | message |", "|---|---|---|---|"]
        for f in open_f:
            out.append(
                f"| `{_cell(f.path)}:{f.line}:{f.col}` | {f.severity} | {_rule(f.code)} | "
                f"{_cell(f.message)} |"
            )
        out.append("")
    if report.verify is not None:
        out += verify_section(report.verify)
    if report.changes:
        out += ["## Changes", ""]
        for rel, old, new in report.changes:
            text = unified_diff(rel, old, new).replace("```", "` ` `")
            out += [
                "<details>",
                f"<summary><code>{_html(rel)}</code></summary>",
                "",
                "```diff",
                text.rstrip("\n"),
                "```",
                "",
                "</details>",
                "",
            ]
    if report.skipped or report.errors:
        out += ["## Not ported", ""]
        for p, w in report.skipped + report.errors:
            out.append(f"- `{_cell(p)}`: {_cell(w)}")
        out.append("")
    return "\n".join(out)


def _rule(code: str) -> str:
    url = rule_url(code)
    return f"[{code}]({url})" if url else code


def _counts(findings) -> str:
    parts = []
    for sev in ("error", "warning", "info"):
        n = sum(1 for f in findings if str(f.severity) == sev)
        if n:
            parts.append(_plural(n, sev))
    return ", ".join(parts) or "no findings"


def render_review(report: RunReport) -> str:
    """A comment body: a one-paragraph summary, then one collapsible section per file."""
    rv = report.review or {}
    findings = report.open_findings
    by_file: dict[str, list] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    changed = rv.get("changed_files", [])
    where = {
        "added": "on added or modified lines",
        "diff_context": "in the diff's hunks",
        "file": "in the changed files",
        "nofilter": "in the reviewed files",
    }
    out = ["## porter review", ""]
    head = (
        f"**{_counts(findings)}** {where.get(rv.get('filter_mode', ''), '')} "
        f"({_plural(len(by_file), 'file')} of {_plural(len(changed), 'changed file')}). "
        f"Base `{rv.get('base', '')}`, merge base `{str(rv.get('merge_base', ''))[:12]}`"
    )
    opts = report.options
    if opts:
        head += (
            f"; targets {', '.join(opts.get('offload_arch', []))}, "
            f"ROCm {opts.get('rocm_version', '')}"
        )
    out += [head + ".", ""]
    out += _review_footer(report)
    for path in sorted(by_file):
        fs = by_file[path]
        out += ["<details>", f"<summary><code>{_html(path)}</code>: {_counts(fs)}</summary>", ""]
        out += ["| line | severity | rule | message |", "|---:|---|---|---|"]
        for f in fs:
            why = f.extra.get("severity_reason")
            out.append(
                f"| {f.line}:{f.col} | {f.severity} | {_rule(f.code)} | "
                f"{_cell(f.message)}" + (f" <sub>({_cell(why)})</sub>" if why else "") + " |"
            )
        sources = [(f.line, f.extra["source"]) for f in fs if "source" in f.extra]
        if sources:
            width = len(str(max(n for n, _ in sources)))
            out += ["", f"```{_fence(path)}"]
            for n, text in sorted(set(sources)):
                out.append(f"{n:>{width}} | {text.replace('```', '` ` `')}")
            out.append("```")
        out += ["", "</details>", ""]
    if report.skipped or report.errors:
        out += ["Not checked:", ""]
        for p, w in report.skipped + report.errors:
            out.append(f"- `{_cell(p)}`: {_cell(w)}")
        out.append("")
    return "\n".join(out)


def _review_footer(report: RunReport) -> list[str]:
    """The fixes `porter port` would make for the reported findings, and the effort estimate."""
    from ..findings import Applicability
    from .effort import estimate

    kinds = [f.fix.applicability for f in report.open_findings if f.fix is not None]
    safe = kinds.count(Applicability.SAFE)
    unsafe = kinds.count(Applicability.UNSAFE)
    lines = []
    if safe or unsafe:
        text = f"`porter port` fixes {safe} of them"
        if unsafe:
            text += f"; {unsafe} more with `--unsafe-fixes`"
        lines.append(text + ".")
    eff = estimate(report).overall_dict()
    share = (
        "the reviewed files hold no CUDA API references"
        if eff["converted_share"] is None
        else (
            f"porter converts {eff['converted_share']:.0%} of the CUDA API references in the "
            f"reviewed files"
        )
    )
    lines.append(
        f"Effort: {share}; the reported findings leave {eff['manual']} manual work "
        f"({_plural(eff['points'], 'point')})."
    )
    return [" ".join(lines), ""]


def _html(s: str) -> str:
    from html import escape

    return escape(s, quote=False)


_VERIFY_MARK = {
    "compiled": "compiled",
    "failed": "**failed**",
    "assisted": "**compiles only with a flag added**",
    "skipped": "skipped",
}


def verify_section(verify) -> list[str]:
    """`port --verify`: a table, one row per translation unit, one column per target; the
    first errors of a failure with the ported location and the original one it maps back to."""
    head = f"Compiled with `{_cell(verify.compiler)}` against HIP {verify.hip_version}."
    out = ["## Compile check", "", head, "", _upper_first(verify.summary_line()) + ".", ""]
    out.append("| file | original | " + " | ".join(verify.targets) + " | result |")
    out.append("|---|---|" + "---|" * len(verify.targets) + "---|")
    for u in verify.units:
        cells = [_VERIFY_MARK[u.targets.get(t, u.status)] for t in verify.targets]
        if u.status == "compiled":
            result = "compiled"
        elif u.status == "skipped":
            result = f"skipped: {_cell(u.skipped)}"
        else:
            errs = u.shown_errors
            lines = [f"`{_cell(d.where())}`: {_cell(d.message)}" for d in errs] or [
                f"`{_cell(e)}`" for e in u.errors
            ]
            lead = (
                "failed"
                if u.status == "failed"
                else f"compiles only with `{_cell(u.only_with)}` added"
            )
            result = lead + ("<br>" + "<br>".join(lines) if lines else "")
        out.append(
            f"| `{_cell(u.path)}` | `{_cell(u.source)}` | " + " | ".join(cells) + f" | {result} |"
        )
    out.append("")
    return out


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]
