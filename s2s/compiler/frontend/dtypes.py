"""Where a result's dtype decides its derivative: an operation given a dtype (`x.astype(int)`,
`np.sum(v, dtype=np.int64)`, `np.full(n, v, dtype=int)`) and a store into an array that may hold
integers (`b = np.zeros(4, dtype=int); b[:] = v`). An integer or bool result truncates, so no
derivative flows through it; a complex one is refused. Where the dtype is a float type known when
transforming, nothing is added; otherwise the value passes through a gate (`rt.dtype_gate`,
`rt.stored_as`) whose derivative rule reads the dtype when it runs (runtime/dtypes.py)."""
from __future__ import annotations

import inspect

import gast
import numpy as np

from ...errors import where
from .. import analysis
from ..ir import build
from ..primitives import registry
from . import resolve


def _numpy_params(key: str) -> tuple:
    """The parameter names of NumPy's function for primitive `key` (`xp.array`), or ()."""
    obj = np
    for part in key.split(".")[1:]:
        obj = getattr(obj, part, None)
    try:
        return tuple(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        return ()


def _dtype_arg(key: str, call: gast.Call):
    """The dtype argument of the call of primitive `key` (by keyword or position), or None."""
    for k in call.keywords:
        if k.arg == "dtype":
            return k.value
    p = registry.lookup(key)
    params = p.params if p is not None and "dtype" in p.params else _numpy_params(key)
    if "dtype" in params and params.index("dtype") < len(call.args):
        return call.args[params.index("dtype")]
    return None


def _float_known(norm, atom) -> bool:
    """Whether the dtype expression `atom` is a real floating type known when transforming."""
    if isinstance(atom, gast.Constant):
        obj = atom.value
    elif isinstance(atom, gast.Name) and atom.id in norm.ns and atom.id not in norm.locals:
        obj = norm.ns[atom.id]
    else:
        return False
    if obj is None:
        return False
    try:
        return np.dtype(obj).kind == "f"
    except TypeError:
        return False


def gate(norm, node, value):
    """`value` (the lowered call `node`), through `rt.dtype_gate` when it is a differentiable
    primitive given a dtype that is not a float type known now."""
    if not isinstance(value, gast.Call):
        return value
    key = analysis.dotted(value.func)
    p = registry.lookup(key)
    if p is None or p.nondiff or p.dtype_cast:
        return value
    dt = _dtype_arg(key, value)
    if dt is None or _float_known(norm, dt) or isinstance(dt, gast.Constant) and dt.value is None:
        return value
    return build.call("rt.dtype_gate", [norm.tmp(value), build.const(where(*norm.where(node)))])


def _unknown(norm, e) -> bool:
    """Whether atom `e` may hold integers, bools or complex numbers: a name bound to such a value, a
    parameter not rebound yet (the caller's array: any dtype), or a view or element of either."""
    while isinstance(e, (gast.Subscript, gast.Attribute)):
        e = e.value
    return isinstance(e, gast.Name) and (e.id in norm.typed or e.id in norm.params_unassigned())


def _floating_from_integers(key: str) -> bool:
    """Whether NumPy's function for primitive `key` gives a floating result for integer operands: a
    ufunc whose int64 loop is a floating one (`np.sin`, `np.true_divide`), or a statistic."""
    obj = np
    for part in key.split(".")[1:]:
        obj = getattr(obj, part, None)
    if isinstance(obj, np.ufunc):
        try:
            out = obj.resolve_dtypes((np.dtype(np.int64),) * obj.nin + (None,) * obj.nout)[obj.nin]
        except (TypeError, ValueError):
            return False
        return out.kind == "f"
    return key in registry.FLOATING_FROM_INTEGERS


def _may_hold_integers(norm, value) -> bool:
    """Whether `name = value` may bind an array of an integer, bool or complex dtype (one not
    known to be floating): what a store into it would cast to. The dtype flows from the
    function's parameters (any dtype) and from explicit dtypes through the operations that keep
    their operands' dtype (`np.zeros_like(k)`, `k.copy()`, `k * 2`, `np.concatenate([k, k])`);
    a float literal operand, a true division and NumPy's floating functions (`np.sin`) make a
    floating value."""
    if isinstance(value, (gast.Name, gast.Subscript, gast.Attribute)):
        return _unknown(norm, value)
    if isinstance(value, gast.BinOp):
        operands = (value.left, value.right)
        if isinstance(value.op, gast.Div) or any(isinstance(o, gast.Constant) and type(o.value) is float
                                                 for o in operands):
            return False
        return any(_unknown(norm, o) for o in operands)
    if isinstance(value, gast.UnaryOp):
        return _unknown(norm, value.operand)
    if isinstance(value, (gast.List, gast.Tuple)):  # (what an array made of it holds)
        return any(_unknown(norm, e) or isinstance(e, gast.Constant) and type(e.value) in (int, bool)
                   for e in value.elts)
    if not isinstance(value, gast.Call):
        return False
    key = analysis.dotted(value.func)
    p = registry.lookup(key)
    if p is None:  # (a method of an array: `k.copy()`, `k.reshape(2, 2)`; a user's function: its own dtype)
        return isinstance(value.func, gast.Attribute) and _unknown(norm, value.func.value) \
            and not _floating_from_integers("xp." + value.func.attr)
    if p.dtype_cast:
        return True
    dt = _dtype_arg(key, value)
    if dt is not None and not (isinstance(dt, gast.Constant) and dt.value is None):
        return not _float_known(norm, dt)
    if key in registry.DTYPE_FROM_VALUES:
        return True
    if key in registry.DTYPE_OF_FIRST and value.args and isinstance(value.args[0], gast.Name) \
            and value.args[0].id in norm.containers:
        return True  # (an array of a list: its items' dtype)
    if key in registry.DTYPE_OF_FIRST:  # (`np.zeros_like(k)`, `np.copy(k)`: k's dtype)
        return bool(value.args) and _unknown(norm, value.args[0])
    if p.nondiff:  # (a new array of a shape: float64; an index, a count, a mask: integers or bools)
        return key not in registry.FRESH_CALLS and not _floating_from_integers(key)
    return not _floating_from_integers(key) and any(_unknown(norm, e) for e in _operands(p, value))


def _operands(p, call: gast.Call) -> list:
    """The arguments of primitive `p`'s call whose dtype its result takes: those of the parameters
    that carry a derivative (not a shape, an axis or indices), a list's or tuple's items too."""
    named = [(p.params[i] if i < len(p.params) and not p.params[i].startswith("*") else None, a)
             for i, a in enumerate(call.args)] + [(k.arg, k.value) for k in call.keywords]
    return [e for name, a in named if name not in p.zero_args
            for e in (a.elts if isinstance(a, (gast.List, gast.Tuple)) else (a,))]


def bind(norm, target: str, value) -> None:
    """Record whether `target = value` may hold integers (a store into it then truncates)."""
    (norm.typed.add if _may_hold_integers(norm, value) else norm.typed.discard)(target)


def stored(norm, node, base: str, v):
    """The value `v` of `base[...] = v`, through `rt.stored_as` where `base` may hold integers (an
    array made with such a dtype, or the caller's array, whose dtype is not known here)."""
    if base not in norm.typed and base not in norm.params_unassigned() or base in norm.containers:
        return v  # (a list's or dict's item takes the value as it is)
    if isinstance(v, gast.Constant):
        return v
    return norm.tmp(build.call("rt.stored_as", [v, build.name(base), build.const(where(*norm.where(node)))]))


def inplace(norm, node, a, value, array: bool = False):
    """The value `a op= v` leaves in `a`, given `value` (`a op v`): through `rt.inplace`, which
    keeps an array's dtype and shape as NumPy's in-place update does (or raises NumPy's error),
    unless `a` holds a list or dict the function built (`lst += [x]` extends it: no check)."""
    if isinstance(a, gast.Name) and a.id in norm.containers:
        return value
    p = registry.lookup(analysis.BINOPS.get(type(value.op), "")) if isinstance(value, gast.BinOp) else None
    ufunc = p.ufunc if p is not None and p.ufunc else "add"  # (the ufunc NumPy's error names)
    args = [norm.tmp(value), a, build.const(ufunc), build.const(where(*norm.where(node)))]
    if array or isinstance(a, gast.Name) and _always_array(norm, a.id):
        args.append(build.const(True))
    return build.call("rt.inplace", args)


def _always_array(norm, name: str) -> bool:
    """Whether local `name` holds an ndarray wherever it is read, even of rank 0 (which `op=` updates
    in place, where a NumPy scalar is rebound): bound only to calls of NumPy functions that make an
    ndarray (`np.zeros((), dtype=int)`, `np.array(0)`), and otherwise changed only by `op=`.
    vmap cannot tell a batch of 0-d arrays from a batch of NumPy scalars by their values."""
    values = norm.bindings()[0].get(name, ())
    augs = sum(1 for s in norm.census.of(gast.AugAssign) if isinstance(s.target, gast.Name) and s.target.id == name)
    if not values or norm.census.stores.get(name, 0) != len(values) + augs:
        return False
    return all(_makes_array(norm, v) for v in values)


def _makes_array(norm, value) -> bool:
    """Whether `value` (the user's expression) calls a NumPy function whose result is an ndarray."""
    func = value.func if isinstance(value, gast.Call) else None
    if not isinstance(func, (gast.Name, gast.Attribute)) or analysis.dotted(func) is None \
            or _rooted_in(func, norm.locals):
        return False
    try:
        obj = norm.static(func)
    except Exception:  # noqa: BLE001 - not a value known now
        return False
    return resolve.prim_key(obj) in registry.NDARRAY_RESULTS


def _rooted_in(node, names) -> bool:
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id in names
