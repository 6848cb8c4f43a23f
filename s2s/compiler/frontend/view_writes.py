"""Writes through NumPy views, rewritten in the user's AST as writes on the base (issue 44).

`row = M[i]` is a view of `M`: `row *= 2` changes `M`, and `M[i, 0] = v` changes `row`. s2s treats
an update in place as a new value of the name it is written through, so the alias check
(aliases.py) refuses an update another name still reads. Where the view's layout is known when
s2s transforms the function, the update is rewritten here into the same update of the base, and
every view of the base is taken again after it, so the transforms see ordinary updates of one
array and fresh views of it:

- `v = b[k]` with a basic index `k` (integers by the source: literals, `range` loop targets,
  `len`, `int(...)`, shape items and their arithmetic; slices, `...`, `None`): `v op= e` becomes
  `b[k] op= e`; `v[j] = e` becomes `b[k, j] = e` where `k` holds only integers, `b[lo + j] = e` for
  a slice `lo:hi` and an integer literal `j` inside it, else the view's copy with the store, stored
  back (`t = b[k].copy(); t[j] = e; b[k] = t`);
- `v = b.T`, and `v = b.reshape(...)`, `np.reshape(b, ...)`, `b.ravel()` of an array the function
  made C-contiguous (`.copy()`, `np.zeros`, `np.ones`, `np.full`, `np.empty`, `np.outer`, `np.eye`,
  `np.arange`: registry.C_ORDER_CALLS): the view's copy updated, written back through the inverse
  layout (`t = b.T.copy(); t op= e; b[...] = t.T`);
- `v = np.asarray(b)` (the same array): `v op= e` becomes `b op= e`;
- after the write, and after any write on the base itself (`b *= 2`, `b[0] = v`), each view of the
  base is taken again from it (`row = M[i]`); a cast that is a view only where the dtype is the
  array's own (`b.astype(D, copy=False)`, `np.asarray(b, dtype=D)`) under `if b.dtype == D:`, and
  an integer index of an array of unknown rank under `if b.ndim > n:`.

A transpose, a reshape, `np.asarray(b)` and a cast of a NumPy scalar are copies, not views, so of a
base that may be a number by the source (`b = x * 1.0` of a parameter) they are followed only where
`b` is known to be an array: after a statement that raises for a number (an item store `b[k] = v`,
an index view `b[k]`, a reshape to a literal size other than 1). `b op= e` of such a base that
nothing proved an array, and a write through such a view, stay refused. What is known of a name (an
array or a number, its rank, C-contiguous, known an array) holds after an `if` or a loop that binds
it where it holds on every path out of it.

An index view of a parameter (`row = x[0]`), which may be the caller's list, tuple or dict (their
items and slices are copies), is taken again after a store into the parameter or `x op= e` under
`if isinstance(x, (list, tuple, dict, str, bytes)): row = row else: row = x[0]`; `x[k] op= e` (a
list's item may be an array updated in place) and a write through the view stay refused.

A view stops being followed where a name its expression reads is bound again (so taking it again
would read another array), where the view or its base is passed to a call that may write into it
(a mutating method, `out=`, `np.add.at`, a nested function), or where it is bound in a branch or a
loop and written after it: those updates stay refused by the alias check, exactly as before.
"""
from __future__ import annotations

import builtins
import copy

import gast
import numpy as np

from ..ir import build
from ..ir.core import SourceRewriter
from ..primitives import registry
from ..primitives.registry import MUTATING_METHODS
from . import resolve
from .census import Census

_WRITERS = frozenset({"copyto", "put", "place", "putmask", "fill_diagonal", "shuffle"})
_INT_OPS = (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)
_COMPOUND = (gast.If, gast.For, gast.While, gast.With, gast.Try)


class _View:
    """A name bound to a view of `base`: `kind` is "index" (`base[key]`), "T", "reshape" or "same";
    `expr` takes it again; `deps` are the names `expr` reads."""

    def __init__(self, base: str, kind: str, expr, key=None, param: bool = False):
        self.base, self.kind, self.expr, self.key, self.param = base, kind, expr, key, param
        self.deps = {n.id for n in gast.walk(expr) if isinstance(n, gast.Name)}


def rewrite(fn: gast.FunctionDef, lookup, facts: Census) -> gast.FunctionDef:
    """Rewrite `fn` in place; `lookup(name)`: the environment's (found, object) for a global;
    `facts`: its census (marked stale when the tree changes)."""
    if not facts.has(gast.AugAssign) and not any(isinstance(t, gast.Subscript) for a in facts.of(gast.Assign)
                                                  for t in a.targets):
        return fn  # (no update in place: nothing to rewrite)
    state = _Rewriter(fn, lookup, facts.locals, facts.names)
    fn.body = state.block_with(fn.body, {}, {})
    if state.changed:
        facts.stale = True
    return fn


def _at(node, s):
    """`node` (and each node in it without a position) at statement `s`'s position."""
    for n in gast.walk(node):
        if hasattr(n, "lineno") or isinstance(n, (gast.expr, gast.stmt)):
            for f in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
                if getattr(n, f, None) is None and getattr(s, f, None) is not None:
                    setattr(n, f, getattr(s, f))
    return node


def _assigned(s, arrays=frozenset()) -> set[str]:
    """The names statement `s` (and the blocks in it) binds; `b op= e` of an array `b` (of
    `arrays`) updates it in place and binds nothing."""
    inplace = {id(n.target) for n in gast.walk(s) if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)
               and n.target.id in arrays}
    return {n.id for n in gast.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))
            and id(n) not in inplace}


def _names(s) -> set[str]:
    """The names an update in place writes through: its target's base name."""
    t = s.target if isinstance(s, gast.AugAssign) else s.targets[0] if isinstance(s, gast.Assign) else None
    while isinstance(t, gast.Subscript):
        t = t.value
    return {t.id} if isinstance(t, gast.Name) else set()


# the views whose layout s2s takes again (a transpose, a reshape, `np.asarray(b)`, a cast): of a
# number (a NumPy scalar) they are copies, so they are followed only where the base is known to be an
# array, by its source or by a statement that raises for a number (an item read or store, a reshape
# to a size other than 1); an index view `b[k]` raises for a number itself
_LAYOUT = frozenset({"T", "reshape", "same", "cast"})
# what a parameter may be whose items and slices are copies, not views (Python's types)
_CONTAINERS = tuple(t.__name__ for t in (list, tuple, dict, str, bytes))


def _sure_base(base: str, known: dict) -> bool:
    return base in known and known[base][2]


def _raising(key) -> bool:
    """Whether index `key` raises for a number: it holds an integer or a slice (`None` and `...`
    alone index a NumPy scalar)."""
    elts = key.elts if isinstance(key, gast.Tuple) else [key]
    return any(not (isinstance(e, gast.Constant) and (e.value is None or e.value is Ellipsis)) for e in elts)


def _proven(known: dict, names) -> None:
    """`names` are arrays from here on (a number would have raised): their facts say so."""
    for n in names:
        if n in known:
            known[n] = known[n][:2] + (True,)


def _sized(view: _View) -> bool:
    """Whether reshape view `view` is `b.reshape(shape)` or `np.reshape(b, shape)` with a shape of
    integer literals whose size is not 1 (at most one -1): it raises for a number, whose size is 1."""
    value = view.expr
    if not isinstance(value, gast.Call) or value.keywords:
        return False
    f, args = value.func, value.args
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == view.base:
        shape = args[0].elts if len(args) == 1 and isinstance(args[0], gast.Tuple) else args
    elif len(args) == 2:  # (np.reshape(b, shape): view_of has checked it is NumPy's)
        shape = args[1].elts if isinstance(args[1], gast.Tuple) else [args[1]]
    else:
        return False

    def lit(e):
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub) and isinstance(e.operand, gast.Constant):
            return -e.operand.value if type(e.operand.value) is int else None
        return e.value if isinstance(e, gast.Constant) and type(e.value) is int else None
    dims = [lit(e) for e in shape]
    if not dims or None in dims or dims.count(-1) > 1 or any(d < -1 for d in dims):
        return False
    size = 1
    for d in dims:
        size *= d if d != -1 else 1
    return size != 1


def _pairs(s) -> list:
    """`a, b = e1, e2` as [(a, e1), (b, e2)] (distinct names, as many as values); else []."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], (gast.Tuple, gast.List))
            and isinstance(s.value, (gast.Tuple, gast.List)) and len(s.targets[0].elts) == len(s.value.elts)):
        return []
    names = [t.id if isinstance(t, gast.Name) else None for t in s.targets[0].elts]
    if None in names or len(set(names)) != len(names):
        return []
    return list(zip(names, s.value.elts))


def _falls_through(stmts) -> bool:
    """Whether a block may end by reaching its end (not by a return, raise, break or continue)."""
    if not stmts:
        return True
    last = stmts[-1]
    if isinstance(last, (gast.Return, gast.Raise, gast.Break, gast.Continue)):
        return False
    if isinstance(last, gast.If):
        return _falls_through(last.body) or _falls_through(last.orelse)
    return True


def _jumps(stmts) -> bool:
    """Whether a loop body holds a `break` or `continue` of its own loop."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, (gast.Break, gast.Continue)):
            return True
        if not isinstance(n, (gast.For, gast.While, gast.FunctionDef, gast.Lambda)):
            todo.extend(gast.iter_child_nodes(n))  # (an `except` handler's body, a `match` case's too)
    return False


def _joined(s, bound, before: dict, ends: dict) -> dict:
    """The facts of the names compound statement `s` binds that hold on every path out of it: an
    `if`'s branches that fall through, a loop's entry and its body's end (a loop without `else`,
    `break` or `continue`); none for other statements. A fact holds on both paths where each holds
    it (the same rank, else not known; C-contiguous and sure where both are)."""
    if isinstance(s, gast.If):
        paths = [ends[f] for f in ("body", "orelse") if _falls_through(getattr(s, f))]  # (no else: `before`)
    elif isinstance(s, (gast.For, gast.While)) and not s.orelse and not _jumps(s.body):
        paths = [before, ends["body"]]
    else:
        return {}
    out = {}
    for n in bound if paths else ():
        facts = [p.get(n) for p in paths]
        if all(f is not None for f in facts):
            ranks = {f[0] for f in facts}
            out[n] = (ranks.pop() if len(ranks) == 1 else None, all(f[1] for f in facts), all(f[2] for f in facts))
    return out


class _Rewriter(SourceRewriter):
    changed = False

    def __init__(self, fn, lookup, locals_, taken):
        super().__init__(fn, lookup, locals_, taken)
        self.loaded = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
        self.ints = self._int_names(fn)
        self.params = self._caller_objects(fn)

    def _caller_objects(self, fn) -> set[str]:
        """The parameters that name the caller's object all through `fn` (never bound again; `p op= e`
        updates an array or a list in place), whose index views are followed under a test of the
        object's type when it runs (`rereads`); none where `isinstance` or a type it names is not
        Python's own."""
        builtin = all(n not in self.locals and self.global_value(build.name(n)) in ((True, getattr(builtins, n)),
                                                                                     (False, None))
                      for n in ("isinstance", *_CONTAINERS))
        if not builtin:
            return set()
        inplace = {id(n.target) for n in gast.walk(fn) if isinstance(n, gast.AugAssign)}
        for s in fn.body:  # (`p = p.copy()` first, as callee_updates.py's copy-in variant: the same type)
            if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
                    and gast.dump(s.value) == gast.dump(build.call(build.attr(build.name(s.targets[0].id), "copy"),
                                                                   []))):
                break
            inplace.add(id(s.targets[0]))
        bound = {n.id for n in gast.walk(fn) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))
                 and id(n) not in inplace}
        return {a.id for a in fn.args.args} - bound

    # ---- facts known now ----
    def _numpy_call(self, e) -> bool:
        """Whether `e` calls one of NumPy's functions (no `out=`)."""
        if not isinstance(e, gast.Call) or any(k.arg == "out" for k in e.keywords):
            return False
        found, fn = self.global_value(e.func)
        return found and (isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith("numpy"))

    def _numpy(self, node, name: str) -> bool:
        found, value = self.global_value(node)
        return found and value is getattr(np, name, None)

    def _int_names(self, fn) -> set[str]:
        """Local names every binding of which is an integer by the source (a greatest fixed point)."""
        binds: dict[str, list] = {}
        other: set[str] = {a.id for a in fn.args.args}
        for s in gast.walk(fn):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                binds.setdefault(s.targets[0].id, []).append(s.value)
            elif isinstance(s, gast.For) and isinstance(s.target, gast.Name) and isinstance(s.iter, gast.Call) \
                    and isinstance(s.iter.func, gast.Name) and s.iter.func.id == "range" and "range" not in self.locals:
                binds.setdefault(s.target.id, []).append(None)  # (an int of a range)
            elif isinstance(s, (gast.FunctionDef, gast.Lambda)) and s is not fn:
                other.update(n.id for n in gast.walk(s) if isinstance(n, gast.Name))
            else:
                for t in (s.targets if isinstance(s, gast.Assign) else [getattr(s, "target", None)]
                          if isinstance(s, (gast.AugAssign, gast.AnnAssign, gast.For, gast.comprehension)) else []):
                    if t is not None:
                        other.update(n.id for n in gast.walk(t) if isinstance(n, gast.Name))
        names = {n for n in binds if n not in other}
        while True:
            out = {n for n in names if not all(v is None or self._int(v, names) for v in binds[n])}
            if not out:
                return names
            names -= out

    def _sure(self, v, known) -> bool:
        """Whether array expression `v` is certainly an array, not a number (`x * 1.0` of a parameter
        `x` may be either: only its slices, which raise for a number as NumPy does, are followed)."""
        def sure(e):
            if isinstance(e, gast.Name):
                return e.id in known and known[e.id][2]
            return isinstance(e, (gast.Call, gast.Attribute, gast.BinOp)) and self._array(e, known) is not False \
                and self._sure(e, known)
        if isinstance(v, gast.BinOp):
            return sure(v.left) or sure(v.right)
        if isinstance(v, gast.UnaryOp):
            return sure(v.operand)
        if isinstance(v, gast.Attribute):
            return sure(v.value)
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and not self.global_value(v.func)[0] \
                and self._array(v.func.value, known) is not False:  # a method of an array: `.copy()`, `.reshape(...)`
            return self._sure(v.func.value, known)
        if isinstance(v, gast.Call):  # a ufunc gives an array when an argument is one
            found, fn = self.global_value(v.func)
            if found and isinstance(fn, np.ufunc):
                return any(sure(a) for a in v.args)
        return not isinstance(v, gast.Name) or sure(v)

    def _array(self, v, known):
        """False where `v` is not an array (or a number: `_sure`) by the source, else its rank
        (None: not known). `known`: name -> (rank, C-contiguous, sure) of the arrays known here."""
        arrays = {n: r for n, (r, _, _) in known.items()}

        def rank(e):
            if isinstance(e, gast.Name) and e.id in arrays:
                return arrays[e.id]
            if isinstance(e, gast.Constant) and type(e.value) in (int, float):
                return 0
            return self._array(e, known) if isinstance(e, (gast.Call, gast.BinOp, gast.Attribute)) else False
        if isinstance(v, gast.Name):
            return arrays[v.id] if v.id in arrays else False
        if isinstance(v, gast.BinOp):
            a, b = rank(v.left), rank(v.right)
            floats = [e for e in (v.left, v.right) if isinstance(e, gast.Constant) and type(e.value) is float]
            if floats and isinstance(v.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)):  # a list times 1.0 raises
                a, b = (None if a is False else a), (None if b is False else b)
            elif isinstance(v.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)) and (a is False) != (b is False) \
                    and self._numpy_call(v.left if a is False else v.right):
                # (an array or number with what a NumPy function returns: an array, a NumPy number, or
                # a list or tuple, which an array takes as an array and a float refuses)
                a, b = (None if a is False else a), (None if b is False else b)
            if a is False or b is False or all(isinstance(e, gast.Constant) for e in (v.left, v.right)):
                return False
            return None if a is None or b is None else max(a, b)
        if isinstance(v, gast.UnaryOp) and isinstance(v.op, (gast.USub, gast.UAdd)):
            return rank(v.operand) if isinstance(v.operand, gast.Name) else False
        if isinstance(v, gast.Attribute) and v.attr == "T":
            return rank(v.value) if isinstance(v.value, gast.Name) else False
        if isinstance(v, gast.Subscript) and isinstance(v.value, gast.Name) and v.value.id in arrays \
                and self._basic(v.slice):  # (of a number: an error, as in NumPy)
            r = arrays[v.value.id]
            elts = v.slice.elts if isinstance(v.slice, gast.Tuple) else [v.slice]
            ints = sum(1 for e in elts if not isinstance(e, gast.Slice) and not (isinstance(e, gast.Constant)
                                                                                and e.value in (None, Ellipsis)))
            nones = sum(1 for e in elts if isinstance(e, gast.Constant) and e.value is None)
            if ints == len(elts) and (r is None or ints >= r):
                return False  # (may be) a number, not an array
            return None if r is None else r - ints + nones
        if not isinstance(v, gast.Call):
            return False
        f, args = v.func, v.args
        found, fn = self.global_value(f)
        if isinstance(f, gast.Attribute) and not found and self._array(f.value, known) is not False:
            r = self._array(f.value, known)  # a method of an array (`.copy()`, `np.asarray(x).copy()`)
            if f.attr in ("copy", "astype"):
                return r
            if f.attr in ("ravel", "flatten"):
                return 1
            if f.attr == "reshape" and args:
                shape = args[0].elts if len(args) == 1 and isinstance(args[0], gast.Tuple) else args
                return len(shape) if not (len(args) == 1 and isinstance(args[0], gast.Name)) else None
            return False
        if not found:
            return False
        key = resolve.prim_key(fn)
        p = registry.lookup(key) if key else None
        if key not in registry.ARRAY_CALLS or p is None:
            return self._ufunc_rank(fn, v, rank)
        first = args[0] if args else None
        keeps = p.same_shape or p.stacks and not v.keywords  # np.copy, np.array and np.asarray of an array
        return arrays.get(first.id) if keeps and isinstance(first, gast.Name) else None

    @staticmethod
    def _ufunc_rank(fn, v, rank):
        """A ufunc's result: an array of its operands' largest rank (a number of numbers), else False."""
        if isinstance(fn, np.ufunc) and v.args and not v.keywords:  # (an array, or a number of numbers)
            ranks = [rank(a) for a in v.args]
            return None if False in ranks or None in ranks else max(ranks)
        return False

    def _int(self, v, names) -> bool:
        if isinstance(v, gast.Constant):
            return type(v.value) is int
        if isinstance(v, gast.Name):
            return v.id in names
        if isinstance(v, gast.BinOp):
            return isinstance(v.op, _INT_OPS) and self._int(v.left, names) and self._int(v.right, names)
        if isinstance(v, gast.UnaryOp):
            return isinstance(v.op, gast.USub) and self._int(v.operand, names)
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id in ("len", "int") \
                and v.func.id not in self.locals and not v.keywords:
            return True
        if isinstance(v, gast.Subscript) and isinstance(v.value, gast.Attribute) and v.value.attr == "shape":
            return isinstance(v.slice, gast.Constant) and type(v.slice.value) is int
        return False

    def _basic(self, key) -> bool:
        """Whether index `key` is basic (a view): integers by the source, slices, `...`, `None`."""
        elts = key.elts if isinstance(key, gast.Tuple) else [key]
        return all(isinstance(e, gast.Slice) and all(p is None or isinstance(p, (gast.Name, gast.Constant, gast.BinOp,
                                                                                 gast.UnaryOp)) for p in
                                                   (e.lower, e.upper, e.step))
                   or isinstance(e, gast.Constant) and (e.value is None or e.value is Ellipsis or type(e.value) is int)
                   or self._int(e, self.ints) for e in elts)

    def _integers(self, key) -> bool:
        elts = key.elts if isinstance(key, gast.Tuple) else [key]
        return all(not isinstance(e, gast.Slice) and not (isinstance(e, gast.Constant) and e.value in (None, Ellipsis))
                   for e in elts)

    def fresh_c(self, value, known) -> bool:
        """Whether `value` is certainly a new C-contiguous array."""
        if not isinstance(value, gast.Call) or any(k.arg == "order" for k in value.keywords):
            return False
        f = value.func
        if isinstance(f, gast.Attribute) and f.attr == "copy" and not value.args and not value.keywords:
            return self._array(f.value, known) is not False  # (or a number: its views are checked when written)
        found, fn = self.global_value(f)
        return found and resolve.prim_key(fn) in registry.C_ORDER_CALLS

    def view_of(self, value, known) -> _View | None:
        """The view `value` takes of a local name's array, or None."""
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and self._basic(value.slice) \
                and value.value.id in self.params and _raising(value.slice):  # (a list's item or slice: a copy)
            kind = "item" if self._integers(value.slice) else "index"
            return _View(value.value.id, kind, value, value.slice, param=True)
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and self._basic(value.slice) \
                and value.value.id in known:
            base, key = value.value.id, value.slice
            if not _raising(key) and not known[base][2]:
                return None  # (`b[None]`, `b[...]` of a NumPy scalar: a new array)
            if not self._integers(key):
                return _View(base, "index", value, key)
            rank, n = known[base][0], len(key.elts) if isinstance(key, gast.Tuple) else 1
            if rank is None:  # a view where the base has more axes than `key` has integers, else a number
                return _View(base, "item", value, key)
            return _View(base, "index", value, key) if n < rank else None
        if isinstance(value, gast.Attribute) and value.attr == "T" and isinstance(value.value, gast.Name) \
                and value.value.id in known:
            return _View(value.value.id, "T", value)
        if not isinstance(value, gast.Call):
            return None
        f, args = value.func, value.args
        contiguous = {n for n, (_, c, _) in known.items() if c}
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id in contiguous \
                and (f.attr == "reshape" and args or f.attr == "ravel" and not args) \
                and not any(k.arg == "order" for k in value.keywords):
            return _View(f.value.id, "reshape", value)
        if args and isinstance(args[0], gast.Name):
            if args[0].id in contiguous and len(args) == 2 and not value.keywords and self._numpy(f, "reshape"):
                return _View(args[0].id, "reshape", value)
            if len(args) == 1 and not value.keywords and self._numpy(f, "asarray") and args[0].id in known:
                return _View(args[0].id, "same", value)
        return self.cast_of(value, known)

    def cast_of(self, value, known) -> _View | None:
        """`b.astype(D, copy=False)` or `np.asarray(b, dtype=D)` of an array `b`: a view where `b`'s
        dtype is `D`, which only the function's run tells (`w.key` is `D`); else None."""
        f, args, kws = value.func, value.args, {k.arg: k.value for k in value.keywords}
        if isinstance(f, gast.Attribute) and f.attr == "astype" and isinstance(f.value, gast.Name) and len(args) == 1 \
                and set(kws) == {"copy"} and isinstance(kws["copy"], gast.Constant) and kws["copy"].value is False:
            base, dtype = f.value.id, args[0]
        elif self._numpy(f, "asarray") and args and isinstance(args[0], gast.Name) \
                and (len(args) == 2 and not kws or len(args) == 1 and set(kws) == {"dtype"}):
            base, dtype = args[0].id, args[1] if len(args) == 2 else kws["dtype"]
        else:
            return None
        return _View(base, "cast", value, dtype) if base in known else None

    # ---- which statements end a view's story ----
    def _writes_into(self, s, names) -> set[str]:
        """Those of `names` that `s` may change in place other than by the writes rewritten here."""
        out = set()
        for n in gast.walk(s):
            if isinstance(n, (gast.FunctionDef, gast.Lambda)):
                out.update(m.id for m in gast.walk(n) if isinstance(m, gast.Name) and m.id in names)
            elif isinstance(n, gast.Call):
                f = n.func
                given = {a.id for a in n.args + [k.value for k in n.keywords] if isinstance(a, gast.Name)}
                if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id in self.locals:
                    if f.attr in MUTATING_METHODS:  # a method of a local value (`v.sort()`, `lst.append(v)`)
                        out.update((given | {f.value.id}) & names)
                elif any(k.arg == "out" for k in n.keywords) or self._may_write(f):
                    out.update(given & names)
            elif isinstance(n, (gast.Tuple, gast.List)) and isinstance(n.ctx, gast.Store):
                out.update(e.value.id for e in n.elts if isinstance(e, gast.Subscript)
                           and isinstance(e.value, gast.Name) and e.value.id in names)
        return out

    def _may_write(self, f) -> bool:
        """Whether a call of `f` may write into an array argument: not a NumPy function (other than
        the writers), a builtin that reads (`len`, `float`, `sum`...), or `s2s`'s."""
        found, value = self.global_value(f)
        if not found or getattr(value, "__name__", None) in _WRITERS | {"at"}:
            return True
        module = getattr(value, "__module__", None) or ""
        return not (module.startswith("numpy") or isinstance(value, np.ufunc) or module == "builtins")

    # ---- the walk ----
    def block_with(self, stmts, views: dict, known: dict) -> list:
        out = []
        for s in stmts:
            out += self.statement_with(s, views, known)
        return out

    def forget(self, views: dict, names) -> None:
        """Stop following the views that read one of `names` (or are named so)."""
        names = set(names)
        for v in [v for v, w in views.items() if v in names or w.deps & names or w.base in names]:
            del views[v]

    def statement_with(self, s, views: dict, known: dict) -> list:
        tracked = set(views) | {w.base for w in views.values()}
        touched = self._writes_into(s, tracked) if tracked else set()
        if touched:
            self.forget(views, touched | {w.base for v, w in views.items() if v in touched})
        if isinstance(s, _COMPOUND):
            return [self.compound(s, views, known)]
        unsure = {v for v, w in views.items() if w.kind in _LAYOUT and not _sure_base(w.base, known) or w.param}
        if unsure & _names(s):  # (through a view of what may be a number or a list: a copy; the alias check's)
            self.forget(views, unsure & _names(s))
        through = {views[v].base for v in _names(s) if v in views}
        out = self.write(s, views) if views else None
        if out is not None:
            self.changed = True
            _proven(known, through)
            return out
        bound = _assigned(s, known.keys() | self.params)
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
            name = s.targets[0].id
            self.forget(views, {name})
            view = self.view_of(s.value, known)
            rank = self._array(s.value, known)
            fact = None if rank is False else (rank, self.fresh_c(s.value, known), self._sure(s.value, known))
            known.pop(name, None)
            if fact is not None:
                known[name] = fact
            if view is not None and view.base != name and view.base not in views and name not in view.deps:
                views[name] = view
            if view is not None and view.base != name and (view.kind in ("index", "item")
                                                           or view.kind == "reshape" and _sized(view)):
                _proven(known, {view.base})  # (the read raises for a number, as NumPy's does)
            return [s]
        pairs = _pairs(s)  # (`a, b = e1, e2`: each name's fact, from what was known before)
        ranks = {n: self._array(e, known) for n, e in pairs}
        facts = {n: (ranks[n], self.fresh_c(e, known), self._sure(e, known)) for n, e in pairs if ranks[n] is not False}
        if bound:
            self.forget(views, bound)
            for n in bound:
                known.pop(n, None)
        known.update(facts)
        base = self._base_written(s)
        if base is not None and isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
                and not _sure_base(base, known) and base not in self.params:  # (a number: bound anew)
            self.forget(views, {v for v, w in views.items() if w.base == base})
        elif base in self.params and isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript):
            # (`p[k] op= e` of a list of arrays updates the item in place, which its views hold too)
            self.forget(views, {v for v, w in views.items() if w.base == base})
        elif base is not None:
            _proven(known, {base})  # (an item store raises for a number)
        if base is not None and any(w.base == base for w in views.values()):
            self.changed = True
            return [s] + self.rereads(base, views, s)
        return [s]

    def compound(self, s, views, known):
        bound = _assigned(s, known.keys() | self.params)
        before = dict(known)
        if isinstance(s, (gast.For, gast.While)):  # a later iteration reads what the body binds
            self.forget(views, bound)
            for n in bound:
                known.pop(n, None)
        ends = {}
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list):
                ends[field] = dict(known)
                setattr(s, field, self.block_with(block, dict(views), ends[field]))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = self.block_with(h.body, dict(views), dict(known))
        self.forget(views, bound)
        for n in bound:
            known.pop(n, None)
        known.update(_joined(s, bound, before, ends))
        return s

    @staticmethod
    def _base_written(s) -> str | None:
        """The name `s` updates in place (`b op= e`, `b[k] = e`, `b[k] op= e`), or None."""
        t = s.target if isinstance(s, gast.AugAssign) else s.targets[0] \
            if isinstance(s, gast.Assign) and len(s.targets) == 1 else None
        if isinstance(t, gast.Name) and isinstance(s, gast.AugAssign):
            return t.id
        if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name):
            return t.value.id
        return None

    def rereads(self, base, views, s) -> list:
        """Each view of `base` that the function reads, taken again; an item that is a view only
        where the base has more axes than its index has integers (`w.kind == "item"`) is taken
        again there (`if base.ndim > n: v = base[i]` `else: v = v`, the number it is)."""
        out, items = [], {}
        for v, w in views.items():
            if w.base == base and v in self.loaded:
                if w.kind in ("item", "cast"):  # (grouped by the test they are taken again under)
                    items.setdefault(gast.dump(w.key) if w.kind == "cast" else
                                     len(w.key.elts) if isinstance(w.key, gast.Tuple) else 1, []).append((v, w))
                else:
                    out.append(_at(build.assign(v, copy.deepcopy(w.expr)), s))
        for group in items.values():
            again = [_at(build.assign(v, copy.deepcopy(w.expr)), s) for v, w in group]
            same = [_at(build.assign(v, build.name(v)), s) for v, _ in group]
            out.append(self.when_view(s, group[0][1], again, same))
        if out and base in self.params:  # (the caller's list, tuple, dict or string: its items are copies)
            test = build.call("isinstance", [build.name(base), build.tuple_([build.name(n) for n in _CONTAINERS])])
            same = [build.assign(v, build.name(v)) for v, w in views.items() if w.base == base and v in self.loaded]
            out = [_at(build.if_(test, same, out), s)]
        return out

    # ---- the writes through a view ----
    def write(self, s, views) -> list | None:
        """The statements of update `s` through a followed view, written on its base; else None."""
        if any(w.kind == "cast" and v in _names(s) for v, w in views.items()):
            return None  # (a write through a cast that may be a copy: the alias check's)
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) and s.target.id in views:
            w = views[s.target.id]
            if w.kind == "item":  # a number where the base has no more axes: `v op= e` binds `v` anew
                number = [_at(build.assign(s.target.id, gast.BinOp(left=build.name(s.target.id), op=s.op,
                                                                  right=copy.deepcopy(s.value))), s)]
                return [self.when_view(s, w, self.whole(s, w, s.op, s.value) + self.rereads(w.base, views, s), number)]
            return self.whole(s, w, s.op, s.value) + self.rereads(w.base, views, s)
        t = s.target if isinstance(s, gast.AugAssign) else s.targets[0] \
            if isinstance(s, gast.Assign) and len(s.targets) == 1 else None
        if isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and t.value.id in views:
            w = views[t.value.id]
            op = s.op if isinstance(s, gast.AugAssign) else None
            out = self.item(s, w, t.slice, op, s.value) + self.rereads(w.base, views, s)
            if w.kind == "item":  # a NumPy number has no items to store into: Python's TypeError
                return [self.when_view(s, w, out, [_at(self.no_items(t.value.id), s)])]
            return out
        return None

    def when_view(self, s, w, view: list, number: list):
        """`if base.ndim > n: view else: number`, `n` the integers of the view's index (a cast's:
        `if base.dtype == D:`)."""
        if w.kind == "cast":
            test = gast.Compare(left=build.attr(build.name(w.base), "dtype"), ops=[gast.Eq()],
                                comparators=[copy.deepcopy(w.key)])
        else:
            n = len(w.key.elts) if isinstance(w.key, gast.Tuple) else 1
            test = gast.Compare(left=build.attr(build.name(w.base), "ndim"), ops=[gast.Gt()],
                                comparators=[build.const(n)])
        node = build.if_(test, view, number)
        return _at(node, s)

    @staticmethod
    def no_items(v: str):
        """`raise TypeError(...)`: Python's error for an item store into a NumPy number `v`."""
        text = f"raise TypeError('`{v}` is a NumPy number here: it does not support item assignment')"
        return gast.parse(text).body[0]

    def whole(self, s, w, op, e) -> list:
        base = build.name(w.base)
        if w.kind == "same":
            return [_at(gast.AugAssign(target=build.name(w.base, store=True), op=op, value=e), s)]
        if w.kind in ("index", "item"):
            target = build.subscript(base, copy.deepcopy(w.key), store_=True)
            return [_at(gast.AugAssign(target=target, op=op, value=e), s)]
        # the view's copy updated in place (NumPy's casting rules: `+= 0.5` of an int array raises),
        # put back through the inverse layout
        t = self.fresh("view")
        out = [build.assign(t, build.call(build.attr(copy.deepcopy(w.expr), "copy"), [])),
               gast.AugAssign(target=build.name(t, store=True), op=op, value=e), self.store_back(w, build.name(t))]
        return [_at(o, s) for o in out]

    def store_back(self, w, value):
        """`b[...] = value` with `value` in the view's layout put back into the base's."""
        back = build.attr(value, "T") if w.kind == "T" else \
            build.call(build.attr(value, "reshape"), [build.attr(build.name(w.base), "shape")])
        return build.assign(build.subscript(build.name(w.base), build.const(Ellipsis), store_=True), back)

    def item(self, s, w, j, op, e) -> list:
        def store(target):
            if op is None:
                return build.assign(target, e)
            return gast.AugAssign(target=target, op=op, value=e)

        if w.kind == "same":
            return [_at(store(build.subscript(build.name(w.base), copy.deepcopy(j), store_=True)), s)]
        if w.kind in ("index", "item"):
            key = self.composed(w.key, j)
            if key is not None:
                return [_at(store(build.subscript(build.name(w.base), key, store_=True)), s)]
        t = self.fresh("view")
        out = [build.assign(t, build.call(build.attr(copy.deepcopy(w.expr), "copy"), [])),
               store(build.subscript(build.name(t), copy.deepcopy(j), store_=True))]
        if w.kind == "index":
            out.append(build.assign(build.subscript(build.name(w.base), copy.deepcopy(w.key), store_=True),
                                    build.name(t)))
        else:
            out.append(self.store_back(w, build.name(t)))
        return [_at(o, s) for o in out]

    def composed(self, key, j):
        """The index of the base that `base[key][j]` names, where it is simple to say: `key` of
        integers only (`key, j`), or a slice `lo:hi` (step 1, `0 <= lo`) and an integer literal
        `0 <= j < hi - lo` (`lo + j`); else None."""
        outer = list(key.elts) if isinstance(key, gast.Tuple) else [key]
        inner = list(j.elts) if isinstance(j, gast.Tuple) else [j]
        if self._integers(key):
            return build.tuple_([copy.deepcopy(e) for e in outer + inner])
        if len(outer) != 1 or not isinstance(outer[0], gast.Slice) or len(inner) != 1:
            return None
        sl, k = outer[0], inner[0]
        const = lambda p, default: default if p is None else p.value if isinstance(p, gast.Constant) \
            and type(p.value) is int else None  # noqa: E731
        lo, hi, step = const(sl.lower, 0), const(sl.upper, None), const(sl.step, 1)
        if not (isinstance(k, gast.Constant) and type(k.value) is int) or lo is None or step != 1 or lo < 0 \
                or sl.upper is not None and (hi is None or hi < 0) or k.value < 0 \
                or hi is not None and k.value >= hi - lo:
            return None
        return build.const(lo + k.value)
