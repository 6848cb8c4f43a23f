"""Which values of a core-form function may be complex: a sound forward dataflow fact that lets the
derivative transforms emit JAX's check of a real output (`rt.real_result`) and the real part of
a real primal's cotangent (`rt.real_cotangent`) only where a complex value can arise, so ordinary
real gradients carry neither (jit's fused kernels stay whole, a call pays no check).

A value may be complex when it is made from one that may be: a parameter the caller says may be
complex (its runtime dtype), a complex literal, a cast or dtype that is complex or not known
(`x.astype(t)`), np.fft and np.emath, a global or closure value that holds a complex leaf or is
not an array or number, an attribute of an object, a call whose result s2s cannot see (a method
of a user object, a function value), a fractional power of what may be a Python number (`(-2.0)
** 0.5` is complex in Python), and anything a statement it does not model binds. The fact is
flow-insensitive (a name is complex if any binding of it may be) and follows plain callees into
their own code.
"""
from __future__ import annotations

import builtins
import math
import types

import gast
import numpy as np

from ..primitives import registry
from .stmts import dotted, walk_stmts

_SOURCES = ("xp.fft.", "xp.emath.", "xp.lib.scimath.")  # (np.fft, np.emath: complex results of real arrays)
_SHAPE_QUERIES = frozenset(p.shape_query for p in registry.PRIMS.values() if p.shape_query)  # `shape`, `ndim`, `size`
_BY_BUILTIN = {p.builtin: k for k, p in registry.PRIMS.items() if p.builtin}  # `max` -> xp.maximum, `sum` -> rt.list_sum
_TRANSPOSE = "T"  # an array's transpose: as complex as the array
_DEPTH = 4  # callees followed this deep; deeper calls may be complex


def maybe_complex_dtype(value) -> bool:
    """Whether `value`, used as a dtype, may name a complex one (True where it is not a dtype)."""
    try:
        return np.dtype(value).kind not in "biuf"
    except (TypeError, ValueError):
        return True


def _real_leaf(v) -> bool:
    """Whether a value a function reads from outside (a global, a default) is certainly real."""
    t = type(v)
    if t in (int, float, bool, str, type(None)) or isinstance(v, (types.ModuleType, types.BuiltinFunctionType)):
        return True
    if isinstance(v, np.ndarray) or isinstance(v, np.generic):
        return v.dtype.kind in "biuf"
    if t in (tuple, list):
        return len(v) <= 64 and all(map(_real_leaf, v))
    if t is dict:
        return len(v) <= 64 and all(map(_real_leaf, v.values()))
    return False


class Complexness:
    """The names of `body` that may hold a complex value (`names`), and `expr(e)`: whether an
    expression may. `complex_params`: the parameters that may be complex (None: any of them);
    `core_of(fn)`: the core form of a plain callee (None: callees may return complex values)."""

    def __init__(self, body: list, params, ns: dict, complex_params=None, core_of=None, depth: int = 0,
                 memo: dict | None = None):
        self.params, self.body = list(params), body
        self.memo = {} if memo is None else memo  # (callee, its complex params) -> whether it returns complex
        self.ns, self.core_of, self.depth = ns, core_of, depth
        self.names: set[str] = set(self.params) if complex_params is None else set(complex_params) & set(params)
        self.bound: set[str] = set(self.params)
        self.pyscalar: set[str] = set(self.params)  # names that may hold a Python number (a param may)
        stmts = list(walk_stmts(body))
        for s in stmts:
            self.bound.update(_stores(s))
        for _ in range(len(stmts) + 2):  # (each round adds a name, or the fact is settled)
            before = (len(self.names), len(self.pyscalar))
            for s in stmts:
                self._stmt(s)
            if (len(self.names), len(self.pyscalar)) == before:
                break

    def returns(self) -> bool:
        """Whether a value the function returns may be complex."""
        return any(self.expr(s.value) for s in walk_stmts(self.body) if isinstance(s, gast.Return))

    def anywhere(self) -> bool:
        """Whether any value the function computes may be complex."""
        return bool(self.names) or any(self.expr(s.value) for s in walk_stmts(self.body)
                                       if isinstance(s, (gast.Expr, gast.Return)))

    # ---- statements: what each binds

    def _stmt(self, s) -> None:
        if isinstance(s, gast.Assign):
            c, p = self.expr(s.value), self._py(s.value)
            for t in s.targets:
                self._bind(t, c, p)
        elif isinstance(s, gast.AugAssign):
            c = self.expr(s.value) or self.expr(s.target) \
                or isinstance(s.op, gast.Pow) and self._py(s.target) and not _whole(s.value)
            self._bind(s.target, c, self._py(s.value) and self._py(s.target))
        elif isinstance(s, gast.AnnAssign) and s.value is not None:
            self._bind(s.target, self.expr(s.value), self._py(s.value))
        elif isinstance(s, (gast.For, gast.AsyncFor)):
            self._bind(s.target, self.expr(s.iter), True)
        elif isinstance(s, gast.Expr):
            self.expr(s.value)  # (a call that updates its arguments: see _call)
        else:  # a binding this fact does not model (a nested def, `with ... as`, an import): may be complex
            for n in _stores(s):
                self._add(n)

    def _bind(self, target, complex_: bool, py: bool) -> None:
        if isinstance(target, gast.Name):
            if complex_:
                self._add(target.id)
            if py:
                self.pyscalar.add(target.id)
        elif isinstance(target, (gast.Tuple, gast.List)):
            for e in target.elts:
                self._bind(e, complex_, True)
        elif isinstance(target, gast.Starred):
            self._bind(target.value, complex_, False)
        elif isinstance(target, (gast.Subscript, gast.Attribute)) and complex_:
            root = _root(target)  # (a complex item stored into a list or dict makes it complex)
            if root is not None:
                self._add(root)

    def _add(self, name: str) -> None:
        self.names.add(name)

    # ---- expressions

    def expr(self, e) -> bool:
        """Whether expression `e` may be complex."""
        if e is None:
            return False
        if isinstance(e, gast.Constant):
            return isinstance(e.value, complex)
        if isinstance(e, gast.Name):
            return self._name(e.id)
        if isinstance(e, gast.Attribute):
            if e.attr in _SHAPE_QUERIES:
                return False
            d = dotted(e)
            if d is not None and d.startswith("xp."):  # a NumPy constant or dtype (np.pi, np.complex128)
                v = getattr(np, d[3:], None) if "." not in d[3:] else None
                return v is None or not _real_leaf(v) and (not isinstance(v, type) or maybe_complex_dtype(v))
            if isinstance(e.value, gast.Name) and e.value.id in self.bound:  # an array's transpose, an object's field
                return e.attr != _TRANSPOSE or self.expr(e.value)
            return True if d is None or self.ns.get(d.split(".")[0]) is None else not _real_leaf(self._dotted(d))
        if isinstance(e, gast.Subscript):
            return self.expr(e.value)
        if isinstance(e, gast.BinOp):
            c = self.expr(e.left) or self.expr(e.right)
            if not c and isinstance(e.op, gast.Pow):  # a fractional power of a negative Python number
                return self._py(e.left) and not _whole(e.right)
            return c
        if isinstance(e, gast.UnaryOp):
            return not isinstance(e.op, gast.Not) and self.expr(e.operand)
        if isinstance(e, gast.Compare):
            return False
        if isinstance(e, gast.BoolOp):
            return any(map(self.expr, e.values))
        if isinstance(e, gast.IfExp):
            return self.expr(e.body) or self.expr(e.orelse)
        if isinstance(e, (gast.Tuple, gast.List, gast.Set)):
            return any(map(self.expr, e.elts))
        if isinstance(e, gast.Dict):
            return any(map(self.expr, e.values))
        if isinstance(e, gast.Starred):
            return self.expr(e.value)
        if isinstance(e, gast.JoinedStr):
            return False
        if isinstance(e, gast.Call):
            return self._call(e)
        return True  # (a lambda, a comprehension, ...: not modeled)

    def _name(self, name: str) -> bool:
        if name in self.names:
            return True
        if name in self.bound:
            return False
        if name in self.ns:
            v = self.ns[name]
            return not (_real_leaf(v) or isinstance(v, type) and not maybe_complex_dtype(v)
                        or isinstance(v, types.FunctionType))
        return getattr(builtins, name, None) is None or name == "complex"

    def _dotted(self, d: str):
        v = self.ns.get(d.split(".")[0])
        for part in d.split(".")[1:]:
            v = getattr(v, part, None)
        return v

    def _call(self, e) -> bool:
        args = list(e.args) + [k.value for k in e.keywords]
        anyc = any([self.expr(a) for a in args])
        out = self._result(e, anyc)
        if anyc:  # (a call may store a complex argument into another: `xs.append(z)`, `np.add(a, z, out=b)`)
            for a in args + ([e.func.value] if isinstance(e.func, gast.Attribute) else []):
                r = _root(a)
                if r is not None and r in self.bound:
                    self._add(r)
        return out

    def _result(self, e, anyc: bool) -> bool:
        f = dotted(e.func) or ""
        if f.startswith("xp."):
            p = registry.lookup(f)
            if f.startswith(_SOURCES) or p is None:
                return True
            if p.real_of_complex or p.shape_query:
                return False
            if p.dtype_cast or any(k.arg == "dtype" for k in e.keywords):
                return anyc and not p.dtype_cast or self._cast_complex(e)
            return anyc or any(isinstance(a, gast.Constant) and _complex_dtype_name(a.value) for a in e.args)
        if f.startswith("rt."):  # (s2s's helpers: as complex as their arguments, but an object's field)
            p = registry.lookup(f)
            return p is None or p.any_dtype or anyc and not p.real_of_complex
        if isinstance(e.func, gast.Name):
            return self._named_call(e.func.id, e, anyc)
        if isinstance(e.func, gast.Attribute):
            root = f.split(".")[0] if f else None
            if root is not None and root not in self.bound and isinstance(self.ns.get(root), types.ModuleType):
                return self.ns[root] is not math or anyc  # math's functions are real (cmath's may not be)
            recv = e.func.value  # a method of a local list, dict or array: as complex as it and its arguments;
            local = isinstance(recv, gast.Name) and recv.id in self.bound and recv.id not in self.params
            return not local or anyc or self.expr(recv)  # of a parameter or another object: unseen code
        return True

    def _cast_complex(self, e) -> bool:
        """Whether a cast's dtype (its `dtype=`, else its second argument) may be complex."""
        d = next((k.value for k in e.keywords if k.arg == "dtype"), e.args[1] if len(e.args) > 1 else None)
        if d is None:
            return any(map(self.expr, e.args))  # (no dtype: as its argument)
        if isinstance(d, gast.Constant):
            return d.value is not None and maybe_complex_dtype(d.value)
        if isinstance(d, gast.Name) and d.id not in self.bound and d.id in self.ns:
            return maybe_complex_dtype(self.ns[d.id])
        if isinstance(d, gast.Attribute) and (n := dotted(d)) is not None and n.startswith("xp."):
            return maybe_complex_dtype(getattr(np, n[3:], None))
        return True

    def _named_call(self, name: str, e, anyc: bool) -> bool:
        if name in self.bound:
            return True  # a function value
        fn = self.ns.get(name, getattr(builtins, name, None))
        p = registry.lookup(name) or registry.lookup(_BY_BUILTIN.get(name, "")) if name not in self.ns else None
        if p is not None and getattr(builtins, name, None) is fn:  # a builtin s2s models (len, abs, max, pow)
            if p.symbol == "**" and len(e.args) >= 2:
                return anyc or self._py(e.args[0]) and not _whole(e.args[1])
            return anyc and not p.real_of_complex
        if isinstance(fn, types.FunctionType) and self.core_of is not None and self.depth < _DEPTH:
            return self._callee(fn, e, anyc)
        return True

    def _callee(self, fn, e, anyc: bool) -> bool:
        """Whether a plain user function's result may be complex, from its own code."""
        if e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
            return True
        if any(not _real_leaf(d) for d in (fn.__defaults__ or ())) or fn.__kwdefaults__:
            return True
        try:
            core = self.core_of(fn)
        except Exception:  # noqa: BLE001 - a callee s2s cannot read: its result may be anything
            return True
        cplx = frozenset(core.params[i] for i, a in enumerate(e.args) if i < len(core.params) and self.expr(a))
        key = (id(fn), cplx)
        if key not in self.memo:
            self.memo[key] = True  # (a recursive call: may be complex while it is being decided)
            inner = Complexness(core.node.body, core.params, core.ns, cplx, self.core_of, self.depth + 1, self.memo)
            self.memo[key] = inner.returns()
        return self.memo[key]

    def _py(self, e) -> bool:
        """Whether `e` may be a Python number (a NumPy function's result is NumPy's, whose powers of
        negative numbers are nan, not complex)."""
        if isinstance(e, gast.Constant):
            return isinstance(e.value, (int, float))
        if isinstance(e, gast.Name):
            return e.id in self.pyscalar or e.id not in self.bound and isinstance(self.ns.get(e.id), (int, float))
        if isinstance(e, gast.Subscript):
            return self._py(e.value)
        if isinstance(e, gast.BinOp):
            return self._py(e.left) and self._py(e.right)
        if isinstance(e, gast.UnaryOp):
            return self._py(e.operand)
        if isinstance(e, gast.IfExp):
            return self._py(e.body) or self._py(e.orelse)
        if isinstance(e, gast.Call):
            f = dotted(e.func) or ""
            return not f.startswith(("xp.", "rt."))
        return not isinstance(e, (gast.Compare, gast.Tuple, gast.List, gast.Dict))


def _complex_dtype_name(v) -> bool:
    """Whether a literal argument names a complex dtype (`np.zeros(3, "complex128")`); an einsum
    spec or a mode (`"ij->i"`, `"same"`) names none."""
    try:
        return isinstance(v, str) and np.dtype(v).kind == "c"
    except (TypeError, ValueError):
        return False


def _whole(e) -> bool:
    """A literal whole-number exponent (a power of a negative number by it is real)."""
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
        e = e.operand
    return isinstance(e, gast.Constant) and type(e.value) in (int, float) and float(e.value).is_integer()


def _root(e) -> str | None:
    """The name an lvalue or argument expression stores into (`a` of `a[i].b`)."""
    while isinstance(e, (gast.Subscript, gast.Attribute, gast.Starred)):
        e = e.value
    return e.id if isinstance(e, gast.Name) else None


def _stores(s) -> list[str]:
    """Every name statement `s` itself (not its nested blocks) binds."""
    found = []
    for field in ("targets", "target", "optional_vars", "name", "names", "items", "handlers"):
        v = getattr(s, field, None)
        for node in v if isinstance(v, list) else [v]:
            if isinstance(node, str) and field == "name":
                found.append(node)
            elif node.__class__ is gast.Name:  # (core form's usual target: no walk)
                if isinstance(node.ctx, gast.Store):
                    found.append(node.id)
            elif isinstance(node, gast.AST):
                found += [n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)]
    if isinstance(s, (gast.Import, gast.ImportFrom)):
        found += [(a.asname or a.name).split(".")[0] for a in s.names]
    return found


def output_may_be_complex(core, complex_params=None, core_of=None) -> bool:
    """Whether what `core` returns may be complex (see the module docstring)."""
    return Complexness(core.node.body, core.params, core.ns, complex_params, core_of).returns()


def any_complex(core, complex_params=None, core_of=None) -> bool:
    """Whether any value `core` computes may be complex (a cotangent then may be too)."""
    return Complexness(core.node.body, core.params, core.ns, complex_params, core_of).anywhere()
