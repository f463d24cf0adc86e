"""The analysis layer under the rules: what rules share, computed once per file.

Each module computes one kind of fact about a parsed file; `porter.rules.base.RuleContext`
exposes them as lazily computed, typed properties (like LibCST's metadata providers):

- `preproc`  the `#if` model (`ctx.pp`), used by the rewriter too;
- `vendor`   which vendor compiles a byte range (`ctx.vendor`), the language-neutral interface;
- `calls`    call expressions by callee name (`ctx.calls`);
- `functions` enclosing function, qualifiers, names, device/host kind;
- `decls`    variable/parameter declarations and their types (`ctx.decls`);
- `consts`   integer literals and constant expressions (`ctx.consts`, `ctx.macros`);
- `asm`      inline asm / PTX sites (`ctx.asm`);
- `includes` `#include` paths (`ctx.includes`) and code-only regex matches;
- `targets`  AMD targets and `parse_archs`;
- `buildfiles` CMake files and Makefiles without their comments (`ctx.build_code`);
- `lex`      the lexing helpers shared with the rewriter;
- `python`   Python/Triton sources (the Triton rules' own module).

Analysis modules never import rule modules (tests/test_import_contract.py). This file imports
nothing, so importing one analysis module does not load the others.
"""
