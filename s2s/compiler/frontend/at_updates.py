"""JAX's index updates `x.at[index].set(v)`, `.add`, `.subtract`, `.multiply`, `.divide`, `.power`,
`.min`, `.max` and `.get()`, lowered to NumPy's stores on a copy (issue 45, section 5): the
values of a transformed function are NumPy arrays, which have no `.at`, so s2s rewrites the call.

Each update returns a new array and leaves `x` alone, as JAX's do. Repeated indices follow JAX:
`.add`/`.subtract`/`.multiply` apply every update (np.add.at, np.multiply.at), `.min`/`.max` keep
the extreme of `x` and every update, `.divide`/`.power` divide by (raise to) the product of the
updates at a position; `.set` (rt.at_set) keeps the last update (NumPy's store; JAX leaves the order
undefined).
`indices_are_sorted` and `unique_indices` are accepted and change nothing. `mode`: None and
'promise_in_bounds' index as NumPy does (an out-of-bound index raises IndexError), 'clip' clamps each
integer index into its axis, and 'drop' / 'fill' run when every index is in bounds (then they are
NumPy's indexing) and raise an S2SError naming the line otherwise.
"""
from __future__ import annotations

import gast

from ...errors import where
from ...runtime.index_updates import at_update
from ..ir import build
from ..primitives.rules_updates import AT_METHODS

_OTHER = ("apply",)  # JAX's, refused with a hint
_MODES = (None, "promise_in_bounds", "clip", "drop", "fill")


def matches(norm, node) -> bool:
    """Whether call `node` is `<expr>.at[<index>].<update>(...)` on a value of the function (not a
    global object with an `.at` of its own, such as a pandas frame)."""
    f = node.func
    if not (isinstance(f, gast.Attribute) and (f.attr in AT_METHODS or f.attr in _OTHER)
            and isinstance(f.value, gast.Subscript) and isinstance(f.value.value, gast.Attribute)
            and f.value.value.attr == "at"):
        return False
    owner = f.value.value.value
    if isinstance(owner, (gast.Name, gast.Attribute)) and norm.rooted_global(owner):
        try:
            return not hasattr(norm.static(owner), "at")
        except Exception:  # (not known now: a value the function computes)
            return True
    return True


def lower(norm, node):
    """The core-form value of `x.at[index].<update>(v, **keywords)` (see the module docstring)."""
    op = node.func.attr
    kind = AT_METHODS.get(op)
    sub = node.func.value
    what = f"`.at[...].{op}()`"
    if op in _OTHER:
        norm.fail(node, f"s2s does not support {what}.",
                  "Write the update out: `y = x.copy(); y[i] = f(y[i])` (every position once).")
    allowed = {"indices_are_sorted", "unique_indices", "mode"} | ({"fill_value"} if kind == "gather" else set())
    kws = {}
    for k in node.keywords:
        if k.arg not in allowed:
            norm.fail(node, f"{what} got an unexpected keyword argument {k.arg!r}.",
                      "JAX's index updates take " + ", ".join(sorted(allowed)) + ".")
        kws[k.arg] = k.value
    want = 0 if kind == "gather" else 1
    if len(node.args) != want or any(isinstance(a, gast.Starred) for a in node.args):
        norm.fail(node, f"{what} takes {'no positional arguments' if want == 0 else 'one value'} "
                        f"({len(node.args)} given).")
    mode = kws.get("mode")
    if mode is not None and not (isinstance(mode, gast.Constant) and mode.value in _MODES):
        norm.fail(node, f"{what}: mode must be written as one of " + ", ".join(repr(m) for m in _MODES[1:]) +
                  " or None.", "JAX's GatherScatterMode objects are not accepted; write the string.")
    mode = None if mode is None else mode.value
    x = norm.atom(sub.value.value)
    index = norm.index(sub.slice)
    for k in ("indices_are_sorted", "unique_indices", "fill_value"):
        if k in kws:
            norm.atom(kws[k])  # (evaluated, as Python does; they change nothing s2s computes)
    if mode in ("clip", "drop", "fill"):
        index = _moded(norm, node, x, index, mode)
    if kind == "gather":
        return build.subscript(x, index)
    v = norm.atom(node.args[0])
    obj = _index_object(norm, index)
    if kind == "store":
        return build.call("rt.at_set", [x, obj, v])
    if kind in ("scatter_add", "scatter_subtract"):
        if kind == "scatter_subtract":
            v = norm.tmp(build.neg(v))
        rows = norm.tmp(build.subscript(x, index))  # (rt.add_at's rules take the updates' full shape)
        v = norm.tmp(build.call("xp.broadcast_to", [v, norm.tmp(build.call("xp.shape", [rows]))]))
        y = norm.tmp(build.call("xp.copy", [x]))
        return build.call("rt.add_at", [y, obj, v])
    if kind == "scatter_multiply":
        return build.call("rt.multiply_at", [x, obj, v])
    if kind in ("divide_by_product", "power_of_product"):  # JAX: x / (ones.at[index].multiply(v)), x ** (the same)
        ones = norm.tmp(build.call("xp.ones_like", [x]))
        by = norm.tmp(build.call("rt.multiply_at", [ones, obj, v]))
        return build.binop(x, gast.Div() if kind == "divide_by_product" else gast.Pow(), by)
    largest = build.const(kind == "largest")  # the kept x where it wins, plus each winning update at its position
    keep = norm.tmp(build.call("rt.at_keep", [x, obj, v, largest]))
    pick = norm.tmp(build.call("rt.at_pick", [x, obj, v, largest]))
    kept = norm.tmp(build.call("xp.where", [keep, x, build.const(0)]))
    zeros = norm.tmp(build.call("xp.zeros_like", [x]))
    won = norm.tmp(build.call("xp.where", [pick, v, build.const(0)]))
    added = norm.tmp(build.call("rt.add_at", [zeros, obj, won]))
    return build.binop(kept, gast.Add(), added)


def _parts(index) -> list:
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def _index_object(norm, index):
    """The normalized index as one value (`slice(...)` for each slice), to pass to a helper."""
    parts = []
    for p in _parts(index):
        if isinstance(p, gast.Slice):
            p = norm.tmp(build.call("slice", [q if q is not None else build.const(None)
                                              for q in (p.lower, p.upper, p.step)]))
        parts.append(p)
    return parts[0] if not isinstance(index, gast.Tuple) else norm.tmp(build.tuple_(parts))


def _moded(norm, node, x, index, mode):
    """The index with each integer part clamped into its axis ('clip') or checked to lie in it
    ('drop', 'fill'); slices, None and an index with `...` are left to NumPy (slices never fall out of
    bounds), a bool mask passes through the helpers unchanged."""
    parts = _parts(index)
    if any(isinstance(p, gast.Constant) and p.value is Ellipsis for p in parts):
        norm.fail(node, f"s2s does not support `.at[...]` with `...` in the index and mode={mode!r}.",
                  "Write the index's axes out (`x.at[:, :, i]`).")
    shape = norm.tmp(build.call("xp.shape", [x]))
    at = where(*norm.where(node)) if norm.where(node) else ""
    out, axis = [], 0
    for p in parts:
        if isinstance(p, gast.Constant) and p.value is None:
            out.append(p)
            continue
        if not isinstance(p, gast.Slice):
            n = norm.tmp(build.subscript(shape, build.const(axis)))
            p = norm.tmp(build.call("rt.at_clip", [p, n]) if mode == "clip" else
                         build.call("rt.at_in_bounds", [p, n, build.const(mode), build.const(at)]))
        out.append(p)
        axis += 1
    return build.tuple_(out) if isinstance(index, gast.Tuple) else out[0]


def plain_copy(fdef: gast.FunctionDef, ns: dict, filename: str) -> gast.FunctionDef:
    """`fdef` (a nested def lifted out of a transformed function, compiled to run as it is written
    where no transform needs its derivative) with each `x.at[index].<update>(...)` replaced by a
    call of rt.at_update, which computes it on NumPy arrays (an ndarray has no `.at`)."""
    found = False

    class _Plain(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            f = node.func
            if not (isinstance(f, gast.Attribute) and f.attr in AT_METHODS and isinstance(f.value, gast.Subscript)
                    and isinstance(f.value.value, gast.Attribute) and f.value.value.attr == "at"):
                return node
            nonlocal found
            found = True
            index = _index_value(f.value.slice)
            at = f"{filename}:{getattr(node, 'lineno', '?')}"
            call = gast.Call(func=build.name("s2s_at_update"),
                             args=[f.value.value.value, index, build.const(AT_METHODS[f.attr]), *node.args],
                             keywords=[*node.keywords, gast.keyword(arg="at", value=build.const(at))])
            return build.located(call, node, only_missing=True)

    fdef = _Plain().visit(fdef)
    if found:
        ns["s2s_at_update"] = at_update
    return fdef


def _index_value(sl):
    """An index written in brackets as a value: each slice as `slice(lower, upper, step)`."""
    if isinstance(sl, gast.Slice):
        return build.call("slice", [p if p is not None else build.const(None) for p in (sl.lower, sl.upper, sl.step)])
    if isinstance(sl, gast.Tuple):
        return gast.Tuple(elts=[_index_value(e) for e in sl.elts], ctx=gast.Load())
    return sl
