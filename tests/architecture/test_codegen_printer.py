"""codegen prints core form's usual nodes itself (`emit/printer.py`) and everything else with
astor: the text must be astor's, character for character, whichever prints it (the generated
source is what `s2s.source`, the dump files and the golden files show)."""
import sys

import gast
import pytest
from paths import BENCH

import s2s
from s2s.compiler.emit import codegen, loader, printer
from s2s.compiler.ir import build

sys.path.insert(0, str(BENCH))
import bench_compile  # noqa: E402
from bench_util import load_program  # noqa: E402


def _both(fn, monkeypatch):
    """(codegen's text and places, astor's), of two copies of `fn`."""
    fast = codegen.source_and_places(build.clone(fn), "h", "f.py")
    with monkeypatch.context() as m:
        m.setattr(codegen, "function_lines", lambda fn: None)
        slow = codegen.source_and_places(build.clone(fn), "h", "f.py")
    return fast, slow


_FORMS = [  # (source lines of a body; whether the printer prints it itself)
    ("t = (a + b) * c\nu = a - (b - c)\nv = a - b - c\nw = a / (b * c)\nreturn t, u, v, w", True),
    ("t = a ** -b\nu = (-2.0) ** a\nv = -a ** 2\nw = (-a) ** 2\nz = a ** b ** c\nq = (a ** b) ** c", True),
    ("t = (a + b)[i]\nu = (a + b).T\nv = a[1:2, ::2]\nw = a[:, None]\nz = a[i, j]\nq = a[(i, j)]", True),
    ("t = not (a and b)\nu = a < b < c\nv = (a or b) and c\nw = a is not None\nz = -(a + b)", True),
    ("t = f((a, b))\nu = (a,)\nv = ()\nw = [a, (b, c)]\nz = f(a, k=(b, c))\nq = a if b else c", False),
    ("t = -0.0 * a\nu = a * -1\nv = 1e-300 * a\nw = True + a\nz = (1).real\nq = -1.5 .real", True),
    ("t = f('a', \"b'c\")\nu = 'x'\nv = None\nreturn", True),
    ("'''a docstring'''\nt = a", False),  # (a string statement)
    ("t = f('''two\nlines''')", False),
    ("t = " + " + ".join(f"a{i}" for i in range(30)), False),  # (a line astor wraps)
    ("del a, b\nfor i in range(a):\n    if i:\n        break\n    elif j:\n        continue\n    else:\n"
     "        pass\nelse:\n    t = 1\nwhile a > 0:\n    a = a - 1", True),
    ("if a:\n    t = 1\nelse:\n    if b:\n        t = 2\n    t = 3", True),
    ("t = lambda q: q\nu = {a: b}\nv = [q for q in a]", False),
]


@pytest.mark.parametrize("body, direct", _FORMS)
def test_the_printer_prints_what_astor_prints(body, direct, monkeypatch):
    fn = gast.parse("def f(a, b, c=1.0, *d, e, k=None, **g):\n" + "\n".join("    " + line for line in
                                                                           body.splitlines())).body[0]
    assert (printer.function_lines(build.clone(fn)) is not None) == direct
    fast, slow = _both(fn, monkeypatch)
    assert fast == slow


def test_comments_and_the_places_they_stand_for(monkeypatch):
    fn = gast.parse("def f(a):\n    t = a * 2.0\n    return t\n").body[0]
    note = build.Comment(value=gast.Constant(value="t = a * 2", kind=None))
    note.lineno = 7
    fn.body.insert(0, note)
    fn.body.append(gast.If(test=build.name("a"), body=[build.Comment(value=gast.Constant(value="x", kind=None))],
                           orelse=[]))
    fast, slow = _both(fn, monkeypatch)
    assert fast == slow
    assert fast[0].splitlines()[2:4] == ["    # t = a * 2", "    t = a * 2.0"]
    assert fast[1] == {4: ("f.py", 7), 5: ("f.py", 7), 6: ("f.py", 7), 8: ("f.py", 7)}


@pytest.mark.parametrize("variant", ("straight", "loops", "rebind"))
def test_generated_code_prints_as_astor_prints_it(variant, monkeypatch, tmp_path):
    """Every function the transforms of bench_compile's programs generate (compiled afresh: a
    new module), printed both ways."""
    real, seen = loader.source_and_places, []

    def both(fn, header="", filename=""):
        copy = build.clone(fn)
        fast = real(fn, header, filename)
        with monkeypatch.context() as m:
            m.setattr(codegen, "function_lines", lambda fn: None)
            seen.append((fast, real(copy, header, filename)))
        return fast

    monkeypatch.setattr(loader, "source_and_places", both)
    mod = load_program(bench_compile.make_program(30, variant), str(tmp_path), f"_printer_{variant}")
    for transform in bench_compile.TRANSFORMS:
        bench_compile.first_call(transform, mod.prog)
    s2s.jit(s2s.grad(mod.prog))(*bench_compile.arguments())
    assert len(seen) >= 6
    for fast, slow in seen:
        assert fast == slow


@pytest.mark.parametrize("value", [(None, (4,)), (), (1,), ((2, 3), None, -1.5, "a'b", True)])
def test_a_tuple_constant_prints_as_astor_prints_it(value, monkeypatch):
    """jit's shape guards hold tuple constants (`(None, (4,))`): printed directly, as astor's repr."""
    fn = gast.parse("def f(a):\n    t = g(a, k)\n    return t\n").body[0]
    fn.body[0].value.args[1] = gast.Constant(value=value, kind=None)
    assert printer.function_lines(build.clone(fn)) is not None
    fast, slow = _both(fn, monkeypatch)
    assert fast == slow
    assert fast[0].splitlines()[2] == f"    t = g(a, {value!r})"
