"""Each optimization pass does what the before/after example in its docstring shows."""
import textwrap

import astor
import gast
import pytest

from s2s.passes import dce, fill, shapes


def _example(doc: str, label: str) -> str:
    block = doc.split(label + "::\n\n", 1)[1]
    lines = []
    for line in block.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line)
    return textwrap.dedent("\n".join(lines)).strip() + "\n"


def _run(run, code: str, params) -> str:
    fn = gast.parse("def f({}):\n{}".format(", ".join(params), textwrap.indent(code, "    "))).body[0]
    body, changed = fn.body, True
    while changed:
        body, changed = run(body, set(params))
    fn.body = body
    text = astor.to_source(gast.gast_to_ast(gast.Module(body=[fn], type_ignores=[])))
    return textwrap.dedent(text.split("\n", 1)[1]).strip() + "\n"


@pytest.mark.parametrize("module, run, params", [
    (dce, dce.PASS, ["x"]),
    (shapes, shapes.PASS, ["t1", "g"]),
    (fill, fill.PASS, ["t1", "b_t3"]),
], ids=["dead_code", "shape_sources", "scalar_fill"])
def test_pass_does_its_docstring_example(module, run, params):
    before, after = _example(module.__doc__, "Before"), _example(module.__doc__, "After")
    assert before != after
    assert _run(run, before, params) == after
