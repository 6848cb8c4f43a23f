"""A function's lines in its file, found without tokenizing them where its code object says
where they end (issue 46: `inspect.getsourcelines` tokenizes the whole definition, in Python, to
find the end of its block: 2% of `grad`'s first call on a 1,600-line function).

The last line any instruction of the code (or of the code nested in it) covers ends the block
when every line after it up to the next statement, that statement's first line included, is
blank or indented no deeper than the definition's first line, and the line does not end in a
backslash. Otherwise (a trailing `pass`, docstring or `if False:` block, which compile to no
instruction; a trailing comment in the body, which `inspect` counts in the block; a bracket
closed on a line of its own; a lambda), and wherever the lines found do not parse
(`parse.parse_function` asks again with `tokenized=True`), the block is `inspect`'s.
"""
from __future__ import annotations

import inspect
import types


def source_lines(code: types.CodeType, tokenized: bool = False) -> tuple[list[str], int, bool]:
    """(the definition's lines, the number of its first line, whether they were found from the
    code object rather than by `inspect`); raises what `inspect.getsourcelines` raises."""
    lines, start = inspect.findsource(code)
    if not tokenized and code.co_flags & inspect.CO_OPTIMIZED and not code.co_name.startswith("<") \
            and lines[start].lstrip().startswith(("def ", "async ", "@")):  # (a def's code: no lambda, class body)
        end = _last_line(code)
        if end is not None and end > start and _ends_block(lines, start, end):
            return lines[start:end], start + 1, True
    return inspect.getblock(lines[start:]), start + 1, False


def _last_line(code: types.CodeType) -> int | None:
    """The last line (1-based) that an instruction of `code` or of a code object in it covers."""
    ends = [end for _, end, _, _ in code.co_positions() if end is not None]
    ends += [_last_line(c) or 0 for c in code.co_consts if isinstance(c, types.CodeType)]
    return max(ends, default=None)


def _ends_block(lines: list[str], start: int, end: int) -> bool:
    """Whether the block of the definition on line `start` (0-based) ends with line `end` (1-based)."""
    if end > len(lines) or lines[end - 1].rstrip().endswith("\\"):
        return False
    indent = _indent(lines[start])
    if indent is None:
        return False
    for line in lines[end:]:
        text = line.strip()
        width = _indent(line)
        if text and (width is None or width > indent):
            return False  # (more of the block, or a comment `inspect` would count in it)
        if text and not text.startswith("#"):
            return True
    return True


def _indent(line: str) -> int | None:
    """The width of the line's indentation, or None where it holds a tab (widths compare then
    only as Python's tokenizer compares them)."""
    width = len(line) - len(line.lstrip())
    return None if "\t" in line[:width] else width
