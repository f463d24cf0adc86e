"""The HTML report in a real headless browser (Debian's `chromium`, installed by .ci/run).

The page is opened from a file with the network off; `--dump-dom` returns the document after its
script ran. The page reads a sort and a filter from its address (`#sort=severity-desc`), which is
how the test drives it; a screenshot is taken and checked to be a real image.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT, need

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
]
SEVERITY_RANK = {"error": 3, "warning": 2, "info": 1}


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    need(exe is not None, "chromium is not installed (apt-get install chromium; .ci/run does)")
    return exe


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    """The HTML report of `port --diff` on the example project (findings and changes)."""
    tmp = tmp_path_factory.mktemp("html")
    shutil.copytree(ROOT / "examples" / "cuda-project", tmp / "proj")
    (tmp / "proj" / "src" / "note.cu").write_text(
        "#include <cuda_runtime.h>\nvoid f() { cudaNotARealApi(1); }\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "porter.cli", "port", "proj", "--diff", "--format", "html"],
        cwd=tmp,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stderr
    path = tmp / "report.html"
    path.write_text(proc.stdout)
    return path


def _browser(page: Path, fragment: str, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [
            _chromium(),
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            *extra,
            page.as_uri() + fragment,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )


class _Rows(HTMLParser):
    """The findings table's rows after the script ran: (attributes, cell texts)."""

    def __init__(self) -> None:
        super().__init__()
        self.table: dict = {}
        self.rows: list[tuple[dict, list[str]]] = []
        self._in = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id") == "findings":
            self._in, self.table = True, a
        elif self._in and tag == "tr" and "data-order" in a:
            self.rows.append((a, []))
        elif self._in and tag == "td" and self.rows:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "table":
            self._in = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1][1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _rows(dom: str) -> _Rows:
    p = _Rows()
    p.feed(dom)
    return p


def test_page_is_self_contained(page):
    html = page.read_text()
    assert "<script src" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"""(src|href)=['"]?https?:""", html)
    assert "<h2 id='summary'>" in html and "<h2 id='changes'>" in html


def test_sorting_and_filtering_in_chromium(page, tmp_path):
    plain = _browser(page, "", tmp_path, "--dump-dom")
    assert plain.returncode == 0, plain.stderr[-2000:]
    base = _rows(plain.stdout)
    assert len(base.rows) >= 5
    files = [cells[0] for _, cells in base.rows]
    assert files == sorted(files)  # as porter prints them: by path

    by_sev = _rows(_browser(page, "#sort=severity-desc", tmp_path, "--dump-dom").stdout)
    assert by_sev.table.get("data-sorted") == "severity-desc"
    ranks = [SEVERITY_RANK[a["data-severity"]] for a, _ in by_sev.rows]
    assert ranks == sorted(ranks, reverse=True) and len(set(ranks)) > 1
    assert ranks != [SEVERITY_RANK[a["data-severity"]] for a, _ in base.rows]

    by_line = _rows(_browser(page, "#sort=line", tmp_path, "--dump-dom").stdout)
    lines = [int(cells[1].split(":")[0]) for _, cells in by_line.rows]
    assert lines == sorted(lines)

    only = _rows(_browser(page, "#severity=warning", tmp_path, "--dump-dom").stdout)
    shown = [a for a, _ in only.rows if "hidden" not in a]
    assert shown and all(a["data-severity"] == "warning" for a in shown)
    assert len(shown) < len(only.rows)


def test_content_rendered_markdown_rule_links_and_diffs(page, tmp_path):
    dom = _browser(page, "", tmp_path, "--dump-dom").stdout
    # Markdown in messages is rendered: `code` spans become <code>, no backticks left
    msg = re.search(r"<td class=\"msg\">(.*?)</td>", dom, re.S).group(1)
    assert "<code>" in msg and "`" not in msg
    for code in set(re.findall(r"href=\"#rule-(PT\d{3})\"", dom)):
        assert f'id="rule-{code}"' in dom
    assert "<h4>What it finds</h4>" in dom  # rule docs rendered from Markdown
    assert "proj/src/saxpy.cu" in dom and "hip/hip_runtime.h" in dom
    assert re.search(r"<td class=\"add\">#include &lt;hip/hip_runtime.h&gt;</td>", dom)
    assert "| " in dom and "threadIdx.x &amp; 31" in dom  # source lines


def test_screenshot(page, tmp_path):
    shot = tmp_path / "report.png"
    proc = _browser(
        page,
        "#sort=severity-desc",
        tmp_path,
        f"--screenshot={shot}",
        "--window-size=1280,1600",
        "--hide-scrollbars",
    )
    assert proc.returncode == 0 and shot.is_file(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 1600)
