"""Where a jit version shows that `a op= v`'s check passes, shape folding drops it: `rt.inplace(r,
a, ufunc, at)` (runtime/dtypes.py) is `r` when `a` and `r` are float64 arrays of one known shape,
or when `a` is a number (a Python or NumPy scalar, which `op=` rebinds: a loop's `loss += margin`),
and its cotangent `rt.inplace_ct(g, r, a)` is `g` when `r` and `a` are float64. So fused kernels,
loop kernels and array loop kernels see what `a = a op v` gives."""
from __future__ import annotations

import gast

from .. import analysis
from ..primitives import registry
from .float64 import is_float64


def _check(f) -> bool:
    """Whether `f` names `a op= v`'s check (`Prim.checks`: rt.inplace, rt.inplace_checked)."""
    p = registry.lookup(f) if f else None
    return p is not None and p.checks


def handles(f) -> bool:
    """Whether `folded` may fold a call of `f`."""
    return f == "rt.inplace_ct" or _check(f)
# array methods that reduce over every axis without arguments: a NumPy scalar
_FULL_METHODS = frozenset({m for p in registry.PRIMS.values() if p.reduction and not p.nondiff for m in p.methods})


def folded(f, args, shapes, of):
    """The value `rt.inplace(...)` or `rt.inplace_ct(...)` (`f`) is for these shapes, or None."""
    f64 = lambda e: is_float64(e, shapes.f64, shapes.ints)  # noqa: E731
    if _check(f) and len(args) in (4, 5):  # (a fifth: `a` is an ndarray, never a number)
        if isinstance(args[1], gast.Name) and args[1].id in getattr(shapes, "scalars", ()):
            return args[0]  # (a number: `op=` rebinds it)
        s = of(args[0])
        if s is not None and s == of(args[1]) and f64(args[0]) and f64(args[1]):
            return args[0]  # (float64 values of `a`'s shape: NumPy's update in place is the value)
    if f == "rt.inplace_ct" and len(args) == 3 and (f64(args[1]) and f64(args[2]) or isinstance(args[2], gast.Name)
                                                    and args[2].id in getattr(shapes, "scalars", ())):
        return args[0]  # (the cotangent of a float64 value kept in a float64 array, or of a number: no cast)
    return None


def scalar_names(body, params, of) -> set[str]:
    """Names that hold a Python or NumPy number wherever they are read (none where the body has no
    `rt.inplace`): every binding is a number literal, such a name, arithmetic, an element or a
    reduction of shape () (NumPy's results of shape () are NumPy scalars, not 0-d arrays), or
    `rt.inplace(r, a, ...)` of such an `a` and `r` (a greatest fixed point, so `loss += m` in a loop
    counts; reverse mode's restores from its tape and `None` before a loop aside). Parameters are
    left out: an argument may be a 0-d array."""
    binds: dict[str, list] = {}
    found = False
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign):
            if _restore(s.value) or isinstance(s.value, gast.Constant) and s.value.value is None:
                continue  # (reverse mode's tape gives back one of the name's own values; `t = None` before a loop)
            for t in s.targets:
                if isinstance(t, gast.Name):
                    binds.setdefault(t.id, []).append(s.value if len(s.targets) == 1 else None)
                else:
                    for n in gast.walk(t):
                        if isinstance(n, gast.Name):
                            binds.setdefault(n.id, []).append(None)
            found = found or isinstance(s.value, gast.Call) and _check(analysis.dotted(s.value.func))
        elif isinstance(s, gast.For):
            for n in gast.walk(s.target):
                if isinstance(n, gast.Name):
                    binds.setdefault(n.id, []).append(None)
    if not found:
        return set()
    names = set(binds) - set(params)
    changed = True
    while changed:
        changed = False
        for n in sorted(names):
            if not all(_number(v, names, of) for v in binds[n]):
                names.discard(n)
                changed = True
    return names


def _restore(v) -> bool:
    """`tape.pop()` or `ctl.pop()`: reverse mode's record lists (transforms/reverse.py names them)."""
    return isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" and not v.args \
        and isinstance(v.func.value, gast.Name) and v.func.value.id in ("tape", "ctl")


def _number(v, names, of) -> bool:
    if v is None:
        return False
    if isinstance(v, gast.Constant):
        return type(v.value) in (int, float)
    if isinstance(v, gast.Name):
        return v.id in names
    scalar = lambda e: _number(e, names, of) or of(e) == ()  # noqa: E731
    if isinstance(v, gast.BinOp):
        return scalar(v.left) and scalar(v.right)
    if isinstance(v, gast.UnaryOp):
        return scalar(v.operand)
    if isinstance(v, gast.Subscript):
        return not isinstance(v.slice, gast.Constant) and of(v) == ()  # (`a[...]` of a 0-d array is one)
    if isinstance(v, gast.Call) and _check(analysis.dotted(v.func)) and len(v.args) == 4:
        return _number(v.args[1], names, of) and scalar(v.args[0])
    if isinstance(v, gast.Call) and analysis.dotted(v.func) == "rt.shape_stub" and len(v.args) == 1:
        return _number(v.args[0], names, of)  # (what the tape keeps of a number is the number)
    if not isinstance(v, gast.Call) or v.keywords:
        return False
    if isinstance(v.func, gast.Attribute) and not v.args and v.func.attr in _FULL_METHODS:
        return True  # (`t.sum()`: a NumPy scalar)
    p = registry.lookup(analysis.classify(v))
    return p is not None and p.reduction and not p.nondiff and len(v.args) == 1
