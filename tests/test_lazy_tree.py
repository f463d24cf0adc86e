"""The rules' tree is parsed when a rule first reads it (RuleContext's `parse`): on every
rule fixture, port fixture and example source the findings and the port are those of a tree
parsed before the rules run, and fewer files are parsed."""

from __future__ import annotations

from conftest import FIXTURES, ROOT
from sources import repo_files

from porter.engine import EngineOptions, process_one
from porter.parse import cuda as P
from porter.rules import base as rules_base


def _sources():
    for p in repo_files((FIXTURES / "rules", FIXTURES / "port", ROOT / "examples")):
        if ".fixed." not in p.name:
            yield p.name, p.read_bytes()


def _result(r):
    return (
        r.new_data,
        [(f.code, f.line, f.col, f.end_line, f.end_col, f.message) for f in r.findings],
        r.errors,
    )


def test_lazy_tree_gives_the_eager_results_with_fewer_parses(monkeypatch):
    parses = {"n": 0}
    real_parse = P.parse

    def counted(data: bytes):
        parses["n"] += 1
        return real_parse(data)

    class Eager(rules_base.RuleContext):
        """The tree parsed before any rule runs (what the engine did before)."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tree  # noqa: B018 - read now: parsed when the engine gave a parser

    monkeypatch.setattr(P, "parse", counted)
    options = EngineOptions(unsafe_fixes=True)
    lazy_results, lazy_parses = [], 0
    eager_results, eager_parses = [], 0
    sources = list(_sources())
    assert len(sources) > 150
    for name, data in sources:
        parses["n"] = 0
        lazy_results.append(_result(process_one(name, data, options)))
        lazy_parses += parses["n"]
    monkeypatch.setattr(
        rules_base, "RuleContext", Eager
    )  # the engine imports it when it runs rules
    for name, data in sources:
        parses["n"] = 0
        eager_results.append(_result(process_one(name, data, options)))
        eager_parses += parses["n"]
    faults = [name for (name, _), a, b in zip(sources, lazy_results, eager_results) if a != b]
    assert not faults, faults[:10]
    assert lazy_parses < eager_parses
