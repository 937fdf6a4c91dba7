"""complete, inspect and is_complete for %%cuda and %%cuda_header cells: CUDA C++, not Python.

_hosted_shell sends a cell here when is_cuda_cell() says so and keeps IPython's answers for
every other cell. The replies have the shape of the Python ones (same metadata key, same
fields), so a frontend cannot tell which language answered.
"""

import re
import sys

from xcuda import _editor_builtins, _editor_context, _editor_source

_CELL = re.compile(r"\A%%(?P<magic>cuda|cuda_header)(?=[ \t\n]|\Z)")
_WORD = re.compile(r"[A-Za-z_]\w*\Z")
_MEMBER = re.compile(r"(?P<base>[A-Za-z_]\w*)\s*(?:\[[^\[\]\n]*\]\s*)*(?:\.|->)\s*(?P<prefix>\w*)\Z")
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*(?P<open>[<\"])(?P<path>[^>\"\n]*)\Z", re.M)


def is_cuda_cell(code):
    return _CELL.match(code) is not None


def _reply(matches, start, end):
    """matches: (text, type, signature) in the order shown, each once."""
    seen, typed = set(), []
    for text, kind, signature in matches:
        if text not in seen:
            seen.add(text)
            typed.append({"start": start, "end": end, "text": text, "type": kind, "signature": signature})
    return {"status": "ok", "matches": [t["text"] for t in typed], "cursor_start": start, "cursor_end": end,
            "metadata": {"_jupyter_types_experimental": typed}}


def _known_declarations(shell, body):
    """The cell's declarations, then those of the registered headers."""
    found = _editor_source.declarations(body)
    for source in _editor_context.registered_headers(shell).values():
        found += _editor_source.declarations(source)
    return found


# ---- complete ----

def complete(shell, code, cursor_pos):
    before = code[:cursor_pos]
    first_line_end = code.find("\n")
    if first_line_end == -1 or cursor_pos <= first_line_end:
        return _complete_magic_line(shell, before)
    include = _INCLUDE.search(before)
    if include is not None:
        return _complete_include(shell, include, cursor_pos)
    body = code[first_line_end + 1:]
    member = _MEMBER.search(before)
    if member is not None:
        return _complete_member(shell, body, member, cursor_pos)
    prefix_match = _WORD.search(before)
    prefix = prefix_match[0] if prefix_match else ""
    if before[:len(before) - len(prefix)].endswith(("::", "#")):
        return _reply([], cursor_pos, cursor_pos)  # a namespace's members or a directive: unknown
    start = cursor_pos - len(prefix)
    # The cell's and headers' own names first (what a course cell mostly refers to), then the
    # built-ins, each alphabetically.
    own = sorted((d.name, d.kind, d.text) for d in _known_declarations(shell, body)
                 if d.name.startswith(prefix) and d.kind != "property")
    builtins = sorted(((b.name, b.kind, b.signature) for b in _editor_builtins.BUILTINS.values()
                       if b.name.startswith(prefix)), key=lambda m: m[0].lower())
    return _reply(own + builtins, start, cursor_pos)


def _complete_magic_line(shell, before):
    magic = _CELL.match(before)
    if magic is None:  # the cursor inside "%%cud": the magic's name, which IPython completes
        return _reply([], len(before), len(before))
    options = _editor_context.magic_options(shell, magic["magic"])
    words = before[magic.end():].split(" ")
    current = words[-1]
    previous = words[-2] if len(words) > 1 else ""
    start = len(before) - len(current)
    if current.startswith("--") and "=" in current:  # --fast-compile=mi
        name, value = current.split("=", 1)
        option = next((o for o in options if name in o.spellings), None)
        values = option.values if option else ()
        return _reply([(v, "keyword", option.help) for v in values if v.startswith(value)],
                      len(before) - len(value), len(before))
    option = next((o for o in options if previous in o.spellings and o.metavar), None)
    if option is not None and not current.startswith("-"):
        return _reply([(v, "keyword", option.help) for v in option.values if v.startswith(current)],
                      start, len(before))
    if current.startswith("-"):
        return _reply([(s, "keyword", o.help) for o in options for s in o.spellings if s.startswith(current)],
                      start, len(before))
    return _reply([], len(before), len(before))


def _complete_include(shell, include, cursor_pos):
    path = include["path"]
    folder, _, leaf = path.rpartition("/")
    folder = folder + "/" if folder else ""
    names = [] if folder else list(_editor_context.registered_headers(shell))
    if include["open"] == "<":
        names += _editor_context.include_entries(folder)
    return _reply([(n, "module", folder + n) for n in names if n.startswith(leaf)], cursor_pos - len(leaf),
                  cursor_pos)


def _type_members(type_name, declarations):
    members = [(d.name, "property", d.text) for d in declarations if d.owner == type_name]
    if not members:
        members = [(c, "property", f"{type_name}.{c}") for c in _editor_builtins.members_of_type(type_name)]
    return members


def _complete_member(shell, body, member, cursor_pos):
    base, prefix = member["base"], member["prefix"]
    start = cursor_pos - len(prefix)
    builtin = _editor_builtins.members_of_builtin(base)
    if builtin:
        kind = _editor_builtins.BUILTINS[base].signature.split()[0]
        return _reply([(c, "property", f"{kind}.{c}") for c in builtin if c.startswith(prefix)], start, cursor_pos)
    declarations = _known_declarations(shell, body)
    variable = next((d for d in reversed(declarations) if d.name == base and d.type_name), None)
    if variable is None:
        return _reply([], start, cursor_pos)
    return _reply([m for m in _type_members(variable.type_name, declarations) if m[0].startswith(prefix)],
                  start, cursor_pos)


# ---- inspect ----

def _word_at(code, cursor_pos):
    start = cursor_pos
    while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        start -= 1
    end = cursor_pos
    while end < len(code) and (code[end].isalnum() or code[end] == "_"):
        end += 1
    if start == end and start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
        return _word_at(code, cursor_pos - 1)
    return code[start:end]


def _kernel_lines(shell, name):
    """Registers, shared memory and occupancy of kernel `name` when the shell binds a compiled
    one under it; [] otherwise."""
    xcuda = sys.modules.get("xcuda")
    kernel = shell.user_ns.get(name)
    if xcuda is None or not isinstance(kernel, getattr(xcuda, "Kernel", ())):
        return []
    lines = [f"Compiled: {kernel.signature}"]
    resources = kernel.resources
    if resources:
        lines.append(f"Registers per thread: {resources['registers']}; static shared memory: "
                     f"{resources['shared_bytes']} B; spills: {resources['spill_store_bytes']} B stored, "
                     f"{resources['spill_load_bytes']} B loaded ({resources['arch']})")
    for block in (128, 256, 512, 1024):
        try:
            o = kernel.occupancy(block)
        except (xcuda.CudaError, ValueError) as e:  # no device, or a block over the kernel's limit
            lines.append(f"Occupancy at {block} threads: unavailable ({type(e).__name__}: {e})")
            break
        lines.append(f"Occupancy at {block} threads: {o['occupancy']:.0%} "
                     f"({o['active_blocks_per_sm']} blocks, {o['active_warps_per_sm']}/{o['max_warps_per_sm']} warps per SM)")
    return lines


def inspect_object(shell, code, cursor_pos, detail_level):
    name = _word_at(code, cursor_pos)
    first_line_end = code.find("\n")
    if first_line_end == -1 or cursor_pos <= first_line_end:
        return _inspect_option(shell, code, cursor_pos)
    code_text, notes = None, ""
    if name:
        declared = [d for d in _known_declarations(shell, code[first_line_end + 1:]) if d.name == name]
        if declared:
            code_text = "\n".join(dict.fromkeys(d.text for d in declared))
            if any(d.is_kernel for d in declared):
                notes = "\n".join(_kernel_lines(shell, name))
        elif name in _editor_builtins.BUILTINS:
            row = _editor_builtins.BUILTINS[name]
            code_text, notes = row.signature, _editor_builtins.describe(row).split("\n\n", 1)[1]
    if code_text is None:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}
    plain = code_text + ("\n\n" + notes if notes else "")
    markdown = "```cuda\n" + code_text + "\n```" + ("\n\n" + notes.replace("\n", "  \n") if notes else "")
    return {"status": "ok", "found": True, "data": {"text/plain": plain, "text/markdown": markdown},
            "metadata": {}}


def _inspect_option(shell, code, cursor_pos):
    line = code.split("\n", 1)[0]
    start = line.rfind(" ", 0, cursor_pos) + 1
    end = line.find(" ", cursor_pos)
    word = line[start:len(line) if end == -1 else end].split("=")[0]
    magic = _CELL.match(line)
    for option in _editor_context.magic_options(shell, magic["magic"]) if magic else ():
        if word in option.spellings:
            text = f"{', '.join(option.spellings)} {option.metavar}".rstrip() + f"\n\n{option.help}"
            if option.values:
                text += "\nValues: " + ", ".join(option.values)
            return {"status": "ok", "found": True, "data": {"text/plain": text}, "metadata": {}}
    return {"status": "ok", "found": False, "data": {}, "metadata": {}}


# ---- is_complete ----

def is_complete(code):
    """incomplete (indented 4 spaces per open brace) while a bracket or a /* comment is open,
    else complete. A magic line alone is incomplete: its cell has no code yet."""
    if "\n" not in code:
        return {"status": "incomplete", "indent": ""}
    state = _editor_source.balance(code.split("\n", 1)[1])
    if state.braces > 0 or state.others > 0 or state.in_comment:
        return {"status": "incomplete", "indent": " " * 4 * max(state.braces, 0)}
    return {"status": "complete"}
