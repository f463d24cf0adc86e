"""Kernel launches: `kernel<<<grid, block, shmem, stream>>>(args)`, counted, and with
`--launch-syntax hip` rewritten to
`hipLaunchKernelGGL(kernel, grid, block, shmem, stream, args)`."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Edit

# a launch configuration has grid and block, then optionally shared memory and stream
_MIN_CONFIG, _MAX_CONFIG = 2, 4


def launch_sites(data: bytes, root) -> Iterator:
    """The `kernel_call_syntax` node of every `<<<...>>>` launch tree-sitter parsed as one."""
    pos = data.find(b"<<<")
    while pos >= 0:
        node = root.descendant_for_byte_range(pos, pos + 3)
        if (
            node is not None
            and node.type == "<<<"
            and node.parent is not None
            and node.parent.type == "kernel_call_syntax"
        ):
            yield node.parent
        pos = data.find(b"<<<", pos + 3)


def _is_dim3(data: bytes, n) -> bool:
    f = n.child_by_field_name("function") if n.type == "call_expression" else None
    return f is not None and data[f.start_byte : f.end_byte] == b"dim3"


def hip_launch_edits(data: bytes, kcs) -> list[Edit] | None:
    """The edits turning one triple-chevron launch into hipLaunchKernelGGL, or None when its
    shape is not one porter rewrites."""
    call = kcs.parent
    if call is None or call.type != "call_expression":
        return None
    fn = call.child_by_field_name("function")
    args = call.child_by_field_name("arguments")
    if fn is None or args is None:
        return None
    cfg = [c for c in kcs.named_children if c.type != "comment"]
    if not _MIN_CONFIG <= len(cfg) <= _MAX_CONFIG:
        return None
    templated = fn.type == "template_function" or (
        fn.type == "qualified_identifier" and b"<" in data[fn.start_byte : fn.end_byte]
    )
    close_name = b")" if templated else b""
    open_name = b"hipLaunchKernelGGL(" + (b"HIP_KERNEL_NAME(" if templated else b"")
    g_open, g_close = (b"", b"") if _is_dim3(data, cfg[0]) else (b"dim3(", b")")
    b_open, b_close = (b"", b"") if _is_dim3(data, cfg[1]) else (b"dim3(", b")")
    edits = [
        Edit(fn.start_byte, fn.start_byte, open_name),
        Edit(fn.end_byte, cfg[0].start_byte, close_name + b", " + g_open),
        Edit(cfg[0].end_byte, cfg[1].start_byte, g_close + b", " + b_open),
    ]
    arg_nodes = [c for c in args.named_children if c.type != "comment"]
    tail = b"" if not arg_nodes else b", "
    if len(cfg) == 2:
        edits.append(Edit(cfg[1].end_byte, args.start_byte + 1, b_close + b", 0, 0" + tail))
    elif len(cfg) == 3:
        edits.append(Edit(cfg[1].end_byte, cfg[2].start_byte, b_close + b", "))
        edits.append(Edit(cfg[2].end_byte, args.start_byte + 1, b", 0" + tail))
    else:
        edits.append(Edit(cfg[1].end_byte, cfg[2].start_byte, b_close + b", "))
        edits.append(Edit(cfg[3].end_byte, args.start_byte + 1, tail))
    return edits
