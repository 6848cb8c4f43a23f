"""Loop kernels (jit, with numba): a `for i in range(...)` loop whose body is scalar arithmetic on
array elements -- a recurrence, a convolution written with loops, a running maximum -- becomes
one call of a compiled loop (`s2s.compiler.emit.numba_loops`), which runs the loop as written when
numba is missing, the trip count is small, or an argument is not a NumPy array or number.

Before::

    for i in range(1, t1):
        y[i] = a * y[i - 1] + x[i]

After::

    loop_0(xp, a, t1, x, y)

A loop qualifies when everything in it is an assignment to a name or an array element, an `if`,
a nested `for` over a `range`, or a comment, and every expression is a number, a name, an array
element `a[i, j]`, arithmetic, a comparison, `and`/`or`/`not`, a conditional expression, `len`,
`abs`, `float` or a scalar function of `xp` (`Prim.loop_kernel`). The names it assigns
that the rest of the function reads come back as the kernel's results; they must be bound before
the loop (as must any name a first iteration reads before assigning it), and the loop variable
must not be read after it. A product (`*`, `**`, `<<`) outside an index neither operand of which
holds an array element, a float or a name that holds no int (`_floats_in`) keeps the loop in
Python: Python's ints do not overflow, and `2 ** -1` is 0.5, where numba's int64 gives 0; so
does a division
(`/`, `//`, `%`) of Python numbers alone by anything but a nonzero constant, which raises
ZeroDivisionError in Python where numba would give inf or 0.
"""
from __future__ import annotations

from collections import Counter

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from . import algebra
from .base import Pass

_OPS = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow, gast.LShift, gast.RShift,
        gast.BitAnd, gast.BitOr, gast.BitXor)
_GROWS = (gast.Mult, gast.Pow, gast.LShift)
_DIVS = (gast.Div, gast.FloorDiv, gast.Mod)


def _numpy_division(e) -> bool:
    """Whether a division by zero in `e` gives what numba's "numpy" error model gives (inf, NaN,
    0): an operand holds an array element (a NumPy scalar), or the divisor is a nonzero number.
    Python numbers alone raise ZeroDivisionError, which the kernel would not."""
    if isinstance(e.right, gast.Constant) and type(e.right.value) in (int, float) and e.right.value != 0:
        return True
    return any(isinstance(n, gast.Subscript) for side in (e.left, e.right) for n in gast.walk(side))


def _expr_ok(e, arrays: dict) -> bool:
    """Whether `e` is scalar arithmetic numba compiles with Python's meaning (`arrays` collects
    the names indexed, with the numbers of indices they take)."""
    if isinstance(e, gast.Constant):
        return type(e.value) in (int, float, bool)
    if isinstance(e, gast.Name):
        return True
    if isinstance(e, gast.BinOp):
        if isinstance(e.op, _DIVS) and not _numpy_division(e) or isinstance(e.op, gast.Pow) and not (
                isinstance(e.right, gast.Constant) and type(e.right.value) in (int, float) and e.right.value >= 0):
            return False  # NumPy refuses int ** -1, numba gives 0: powers by constants only
        return isinstance(e.op, _OPS) and _expr_ok(e.left, arrays) and _expr_ok(e.right, arrays)
    if isinstance(e, gast.UnaryOp):  # not `~`: NumPy's on a bool element is `not`, numba's -2
        return not isinstance(e.op, gast.Invert) and _expr_ok(e.operand, arrays)
    if isinstance(e, gast.BoolOp):
        return all(_expr_ok(v, arrays) for v in e.values)
    if isinstance(e, gast.Compare):
        return not any(isinstance(o, (gast.Is, gast.IsNot, gast.In, gast.NotIn)) for o in e.ops) \
            and all(_expr_ok(v, arrays) for v in [e.left, *e.comparators])
    if isinstance(e, gast.IfExp):
        return all(_expr_ok(v, arrays) for v in (e.test, e.body, e.orelse))
    if isinstance(e, gast.Subscript):
        return _element(e, arrays)
    if isinstance(e, gast.Call) and not e.keywords and not any(isinstance(a, gast.Starred) for a in e.args):
        f = analysis.dotted(e.func) or ""
        if f == "len":
            ok = len(e.args) == 1 and isinstance(e.args[0], gast.Name)
            if ok:
                arrays.setdefault(e.args[0].id, set())
            return ok
        known = (p := registry.lookup(f)) is not None and p.loop_kernel  # (not int(): of NaN, an error)
        return known and all(_expr_ok(a, arrays) or isinstance(a, gast.Constant) and type(a.value) in (str, bool)
                             for a in e.args)  # (rt.inplace's operator, line and `array`)
    return False


def _not_int(e, safe) -> bool:
    """Whether `e` holds something that is no Python int: an array element, a float constant, a
    name in `safe`, a division, a function of `xp` or `float`."""
    return any(isinstance(n, gast.Subscript) or isinstance(n, gast.Constant) and type(n.value) is float
               or isinstance(n, gast.Name) and n.id in safe or isinstance(n, gast.BinOp) and isinstance(n.op, gast.Div)
               or isinstance(n, gast.Call) and (analysis.dotted(n.func) or "").startswith(("xp.", "float"))
               for n in gast.walk(e))


def _int_product(e, safe) -> bool:
    """Whether `e` has a product (`*`, `**`, `<<`, outside an index) of two Python ints: numba
    computes it in int64 (`2 ** 70` is 0, `2 ** -1` is 0), Python exactly (and `2 ** -1` is 0.5)."""
    indices = {id(n) for s in gast.walk(e) if isinstance(s, gast.Subscript) for n in gast.walk(s.slice)}
    return any(isinstance(n, gast.BinOp) and isinstance(n.op, _GROWS) and id(n) not in indices
               and not (_not_int(n.left, safe) or _not_int(n.right, safe)) for n in gast.walk(e))


def _floats_in(loop, floats, bound) -> set:
    """Names that hold no Python int in `loop`: Python floats before it (`floats`), and names it
    assigns, not bound before it, every assignment of which holds something that is no int."""
    updates = [(s.targets[0].id, s.value) for s in analysis.walk_stmts([loop])
               if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    safe = set(floats) | {t for t, _ in updates if t not in bound}
    changed = True
    while changed:
        changed = False
        for t, value in updates:
            if t in safe and t not in floats and not _not_int(value, safe):
                safe.discard(t)
                changed = True
    return safe


def _element(e, arrays: dict) -> bool:
    """`a[i]` or `a[i, j]`: an array name indexed by scalar expressions (no slices)."""
    if not isinstance(e.value, gast.Name):
        return False
    parts = e.slice.elts if isinstance(e.slice, gast.Tuple) else [e.slice]
    if not all(_expr_ok(p, arrays) for p in parts):
        return False
    arrays.setdefault(e.value.id, set()).add(len(parts))
    return True


def _body_ok(body, arrays: dict, safe) -> bool:
    for s in body:
        if build.is_comment(s) or isinstance(s, gast.Pass):
            continue
        if isinstance(s, gast.Assign):  # (core form has no augmented assignments)
            t = s.targets[0]
            if len(s.targets) != 1 or not _expr_ok(s.value, arrays) or _int_product(s.value, safe):
                return False
            if not (isinstance(t, gast.Name) or isinstance(t, gast.Subscript) and _element(t, arrays)):
                return False
        elif isinstance(s, gast.If):
            if not (_expr_ok(s.test, arrays) and not _int_product(s.test, safe)
                    and _body_ok(s.body, arrays, safe) and _body_ok(s.orelse, arrays, safe)):
                return False
        elif not _loop_ok(s, arrays, safe):
            return False
    return True


def _loop_ok(s, arrays: dict, safe) -> bool:
    return _is_range_loop(s) and all(_expr_ok(a, arrays) for a in s.iter.args) and _body_ok(s.body, arrays, safe)


def _is_range_loop(s) -> bool:
    return isinstance(s, gast.For) and isinstance(s.target, gast.Name) and not s.orelse \
        and isinstance(s.iter, gast.Call) and analysis.dotted(s.iter.func) == "range" and 1 <= len(s.iter.args) <= 3 \
        and not s.iter.keywords


def _stored(node) -> set:
    return {t for s in analysis.walk_stmts([node]) for t in analysis.targets(s)}


def _loaded(node) -> set:
    """Names `node` reads as values (not the functions it calls, not `xp` or `rt`)."""
    called = {id(n.func) for n in gast.walk(node) if isinstance(n, gast.Call)}
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
            and id(n) not in called and n.id not in ("xp", "rt")}


def _kernel_of(loop, bound: set, outside: set, floats=frozenset()):
    """(params, results, arrays: name -> numbers of indices) of `loop` as a kernel, or None when it does not qualify
    (`bound`: names bound before it; `outside`: names the rest of the function mentions)."""
    arrays: dict = {}
    if not _loop_ok(loop, arrays, _floats_in(loop, floats, bound)):
        return None
    assigned = _stored(loop)
    if loop.target.id in outside or set(arrays) & assigned:
        return None  # the loop variable read after the loop; an array name rebound inside
    results = sorted((assigned - {loop.target.id}) & outside)
    early = analysis.exposed([loop]) & _loaded(loop)  # read before assigned, on some path
    if not set(results) <= bound or early - bound:
        return None
    params = sorted((_loaded(loop) - (assigned - bound)) | set(results) | set(arrays))
    return params, results, arrays


def _names(node) -> Counter:
    return Counter(n.id for n in gast.walk(node) if isinstance(n, gast.Name))


def _rewrite(body: list, bound: set, total: Counter, loops: list, floats) -> bool:
    """Replace the loops of `body` that qualify by kernel calls (`total`: how often the function
    mentions each name, so that a loop's names mentioned elsewhere are its count's excess)."""
    changed = False
    for k, s in enumerate(body):
        if isinstance(s, gast.For):
            inside = _names(s)
            found = _kernel_of(s, bound, {n for n, c in inside.items() if total[n] > c}, floats)
            if found is not None:
                params, results, arrays = found
                name = f"loop_{len(loops)}"
                loops.append((name, params, results, {a: tuple(sorted(n)) for a, n in arrays.items()}, s))
                call = build.call(name, [build.name("xp")] + [build.name(p) for p in params])
                body[k] = build.assign(build.tuple_([build.name(r) for r in results], store_=True), call) if results \
                    else build.expr_stmt(call)
                changed = True
        elif isinstance(s, gast.If):
            changed |= _rewrite(s.body, set(bound), total, loops, floats)
            changed |= _rewrite(s.orelse, set(bound), total, loops, floats)
        bound |= _stored(s)
    return changed


def loop_kernels(body: list, params, facts) -> tuple[list, bool]:
    loops = facts["known"].get("loops")  # None: the driver has no loop kernels to offer (no numba)
    if loops is None or not any(isinstance(s, gast.For) for s in analysis.walk_stmts(body)):
        return body, False
    total: Counter = Counter()
    for s in body:
        total.update(_names(s))
    floats = algebra.python_floats(body, params, facts["known"].get("floats", ()))
    return body, _rewrite(body, set(params), total, loops, floats)


PASS = Pass("loopkernel", loop_kernels)
