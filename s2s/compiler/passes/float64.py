"""Which names hold float64 values (arrays or numbers) in a jit version, from its signature.

Shape folding writes `rt.zeros_like_tree(x)` of a float64 `x` of known shape as `xp.zeros(S)`
(or `0.0`), so the backward sweep no longer reads `x` and reverse mode's tape need not keep it
(`passes/records.py`). The dtype follows from the arguments' (`known["arrays"]`: a parameter's
dtype char and rank; `known["floats"]`: Python floats) through operations whose result is
float64 when their operands are: `+ - * /` of two float64 values (or of one and an int literal:
a float32 array times a Python float stays float32, so a float operand of unknown dtype is not
enough), negation, an int power, an element or slice of a float64 array, its reduction methods
(`t.sum(axis=1)`) and transpose, `@`, `xp.dot` and `xp.matmul` of two, `xp.maximum` and `xp.minimum` of
float64 values and ints (and max's derivative `rt.pick`), `stop_gradient` of one, NumPy's
one-argument elementwise functions (`xp.tanh`) and reductions (`xp.sum`), a cotangent updated
in place (`rt.add_at`), a float64's zero and seed, a max's cotangent (`rt.max_vjp`: its
operand's float dtype), `xp.zeros(shape)`, `xp.full_like(a, v)` of a float64 `a`, a tuple of
float64 values; the arrays of a tuple argument whose item dtypes a jit version is keyed on
(`tuple_items`); an int (a literal, a name
bound only to int literals, a loop index) meets a float64 as float64.
A name is float64 when every binding is (an optimistic fixed point, as `uniform_shapes`), `None`
at the top level and the restores of reverse mode's tape aside (they give back one of the
name's own values: `shapefold.record_lists`).
`witnessed` (shape folding calls it) makes JAX's check that grad's output is real read the one
name whose dtype decides it, so the output is not computed for the check alone.
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry

_ARITH = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def may_be_narrow(known) -> bool:
    """Whether a jit version may see floats narrower than float64 (float16, float32, complex64):
    an array argument, or an array in a tuple or list argument, of such a dtype."""
    items = known.get("items") or {}
    dtypes = known.get("item_dtypes") or {}
    return any(d in "efF" for d, _ in (known.get("arrays") or {}).values()) \
        or any(p not in dtypes or any(c is not None and c in "efF" for c in dtypes[p]) for p in items)


def is_float64(e, names, ints=frozenset()) -> bool:
    """Whether value `e` is float64, given the float64 `names` and names holding ints (`ints`: an
    int of any width meets a float64 as float64)."""
    f = lambda x: is_float64(x, names, ints)  # noqa: E731
    whole = lambda x: isinstance(x, gast.Constant) and type(x.value) is int or isinstance(x, gast.Name) \
        and x.id in ints  # noqa: E731
    if isinstance(e, gast.Name):
        return e.id in names
    if isinstance(e, gast.Constant):
        return type(e.value) is float
    if isinstance(e, gast.Tuple):  # (a tuple of float64 values: `tuple_items`' leaves)
        return bool(e.elts) and all(map(f, e.elts))
    if isinstance(e, gast.BinOp) and isinstance(e.op, _ARITH):
        return f(e.left) and (f(e.right) or whole(e.right)) or whole(e.left) and f(e.right)
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.MatMult):
        return f(e.left) and f(e.right)
    if isinstance(e, gast.BinOp) and isinstance(e.op, gast.Pow):  # (an int power: a negative Python
        return f(e.left) and whole(e.right)  # float to a float power is complex)
    if isinstance(e, gast.UnaryOp) and isinstance(e.op, (gast.USub, gast.UAdd)):
        return f(e.operand)
    if isinstance(e, gast.Subscript) or isinstance(e, gast.Attribute) and e.attr == "T":
        return f(e.value) or isinstance(e, gast.Subscript) and isinstance(e.value, gast.Name) \
            and e.value.id + "[]" in names  # (a dict's item: `float64_items.py`)
    if (found := _reduction(e)) is not None:  # (`t.sum(axis=1, keepdims=True)`, `xp.max(s, axis=1)`)
        return not found[0].nondiff and f(found[1])
    if not isinstance(e, gast.Call) or e.keywords or any(isinstance(a, gast.Starred) for a in e.args):
        return False
    name = analysis.dotted(e.func) or ""
    helper = registry.lookup(name) if name.startswith("rt.") else None  # (tanh as written: `written_out`)
    p = registry.lookup(analysis.classify(e)) if name.startswith("xp.") or helper and helper.written_out else None
    if p is not None and p.product and len(e.args) == 2:  # (xp.dot; vmap lowers products to xp.matmul)
        return f(e.args[0]) and f(e.args[1])
    if (p is not None and p.reverses_axes or name == "stop_gradient") and len(e.args) == 1:  # (a transpose;
        return f(e.args[0])  # the value itself)
    if name == "ext.s2s_with_item" and len(e.args) == 3:  # (a copy with one item set: NumPy casts to its dtype)
        return f(e.args[0])
    if name == "rt.add_at" and len(e.args) == 3:
        return f(e.args[0]) and f(e.args[2])
    if name == "rt.zeros_like_tree" and len(e.args) == 1:  # (a float64's zero)
        return f(e.args[0])
    if name == "rt.seed" and len(e.args) == 1:  # (its one)
        return f(e.args[0])
    if name == "xp.where" and len(e.args) == 3:  # (a choice between float64 values, or ints)
        return all(f(a) or whole(a) for a in e.args[1:]) and any(f(a) for a in e.args[1:])
    if (p is not None and p.float_result == "keep" or name == "rt.pick") and len(e.args) == 2:  # (xp.maximum:
        return all(f(a) or whole(a) for a in e.args) and any(map(f, e.args))  # promotion; rt.pick: max's derivative)
    if name == "xp.full_like" and len(e.args) == 2:  # (its first argument's dtype, whatever the fill)
        return f(e.args[0])
    if name == "rt.broadcast_to_like" and len(e.args) == 2:  # (a float64 spread over a shape)
        return f(e.args[0])
    if name == "rt.unbroadcast" and len(e.args) == 2:  # (a float64 summed down to a shape)
        return f(e.args[0])
    if name == "rt.max_vjp" and len(e.args) == 5:  # (a max's cotangent: in its operand's float dtype)
        return f(e.args[1])
    checks = registry.lookup(name) if name.startswith("rt.") else None  # (`a op= v`: rt.inplace, rt.inplace_checked)
    if checks is not None and checks.checks and len(e.args) in (4, 5):  # (a float64 result kept in a float64 `a`)
        return f(e.args[0]) and f(e.args[1])
    if name == "xp.zeros" and len(e.args) == 1:  # (no dtype: float64)
        return True
    return p is not None and (p.same_shape or p.reduction) and (len(e.args) == 1 or p.written_out) and not p.nondiff \
        and f(e.args[0])  # (a written-out helper's settings after its operand: rt.softmax_by_exp's axes)


def _reduction(e):
    """(primitive, operand) of a reduction called with at most `axis` and `keepdims` keywords, as
    NumPy's function (`xp.sum(t, axis=1)`) or as the array's method (`t.sum(axis=1)`); else None."""
    if not isinstance(e, gast.Call) or any(k.arg not in ("axis", "keepdims") for k in e.keywords):
        return None
    if (analysis.dotted(e.func) or "").startswith("xp."):
        p = registry.lookup(analysis.classify(e)) if len(e.args) == 1 else None
        return (p, e.args[0]) if p is not None and p.reduction else None
    if isinstance(e.func, gast.Attribute) and not e.args:
        p = registry.lookup("xp." + e.func.attr)
        return (p, e.func.value) if p is not None and p.reduction and e.func.attr in p.methods else None
    return None


def complex_witness(e):
    """The one name whose dtype says whether value `e` is complex, where `e` is that name in
    arithmetic with real numbers (`+ - * /`, negation, an int power, sums, means, maxima): a
    real name's value is real and a complex one's complex. None for any other value (`abs` of a
    complex value is real; a negative Python float to a float power is complex)."""
    names: list = []

    def walk(x) -> bool:
        if isinstance(x, gast.Name):
            names.append(x.id)
            return True
        if isinstance(x, gast.Constant):
            return type(x.value) in (int, float)
        if isinstance(x, gast.BinOp) and isinstance(x.op, _ARITH):
            return walk(x.left) and walk(x.right)
        if isinstance(x, gast.BinOp) and isinstance(x.op, gast.Pow):
            return walk(x.left) and isinstance(x.right, gast.Constant) and type(x.right.value) is int
        if isinstance(x, gast.UnaryOp) and isinstance(x.op, (gast.USub, gast.UAdd)):
            return walk(x.operand)
        found = _reduction(x)
        return found is not None and bool(found[0].linear_in) and walk(found[1])  # (a sum or mean)
    return names[0] if walk(e) and len(set(names)) == 1 else None


def tuple_items(body, known: dict, counts: dict) -> set:
    """The tuple parameters bound once whose every item is a float64 array (`known["item_dtypes"]`,
    which a jit version is keyed on), and the names bound once by unpacking one into names
    (`w1, b1, w2, b2 = params`) that get a float64 item. A tuple name here holds float64 leaves
    only: its items, slices, concatenations and repetitions are float64 too (`is_float64`)."""
    dtypes = known.get("item_dtypes") or {}
    tuples = {p for p, ds in dtypes.items() if (known.get("items") or {}).get(p, ("",))[0] == "tuple"
              and counts.get(p) == 1}  # (a list's items may be stored into)
    out = {p for p in tuples if dtypes[p] and all(d == "d" for d in dtypes[p])}
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], (gast.Tuple, gast.List)) \
                and isinstance(s.value, gast.Name) and s.value.id in tuples \
                and len(s.targets[0].elts) == len(dtypes[s.value.id]):
            out |= {t.id for t, d in zip(s.targets[0].elts, dtypes[s.value.id])
                    if isinstance(t, gast.Name) and d == "d" and counts.get(t.id) == 1}
    return out


def float64_names(binds: dict, known: dict, counts: dict, skip, ints=frozenset(), items=frozenset()) -> set:
    """The names every binding of which is float64 (`binds`: name -> its bound values, for names
    bound only by plain assignments; `counts`: how often each name is bound; `skip(n, v)`:
    whether binding `v` of `n` gives back one of `n`'s own values, or is `None`; `ints`: names
    holding ints; `items`: `tuple_items`)."""
    params = {p for p, (d, _) in known.get("arrays", {}).items() if d == "d" and counts.get(p) == 1} | set(items)
    params |= {p for p in known.get("floats", ()) if counts.get(p) == 1}
    cand = set(binds) | params
    while True:
        bad = {n for n in cand - params if not all(skip(n, v) or is_float64(v, cand, ints) for v in binds[n])}
        if not bad:
            return cand
        cand -= bad


def witnessed(s, body, read: list, counts) -> bool:
    """Rewrite in place JAX's check of an output computed only for the check (`real0 =
    rt.real_result(t7, 'grad')` with `t7 = xp.mean(t2 ** 2)`, `real0` never read) as the check
    of the one name whose dtype decides it (`complex_witness`, through names bound once):
    the output is no longer computed. `read`: empty, or holding (the names `body` reads, the
    value of each name bound once), filled here at the first check."""
    v, t = s.value, s.targets[0]
    if not (isinstance(t, gast.Name) and isinstance(v, gast.Call) and not v.keywords
            and analysis.dotted(v.func) == "rt.real_result" and len(v.args) == 2):
        return False
    if not read:
        stmts = list(analysis.walk_stmts(body))
        read += [{n.id for x in stmts for n in build.walk(x) if type(n) is gast.Name and type(n.ctx) is gast.Load},
                 {x.targets[0].id: x.value for x in stmts if isinstance(x, gast.Assign)
                  and isinstance(x.targets[0], gast.Name) and counts.get(x.targets[0].id) == 1}]
    loaded, bound = read
    if t.id in loaded:
        return False
    e, name = v.args[0], None
    for _ in range(64):  # (a chain of names bound once; each step one operation deeper)
        if isinstance(e, gast.Name):
            if e.id not in bound:
                break
            e = bound[e.id]
        w = complex_witness(e)
        if w is None:
            break
        name, e = w, build.name(w)
    if name is None or counts.get(name) != 1 or isinstance(v.args[0], gast.Name) and v.args[0].id == name:
        return False  # (a name bound again could hold another value where the check reads it)
    v.args[0] = build.name(name)
    return True
