"""Static facts about a function's locals, read while it is normalized: what each name is bound to
and how often, the lengths and keys known when transforming, and the names bound once to a module
or a function.

The facts about the whole function (the values bound to each name, the names changed otherwise,
how often each is stored to) come from one walk each, kept on the normalizer for its function
node (which normalization reads and never rewrites): asking about every `a + b` of a long function
costs no walk of it (issue 46: a walk per `+` made the frontend quadratic).

Local names bound once to a module or a function (`m = np`, `f = np.sin`) are resolved as that
object: `m = np; m.sum(x ** 2)` must differentiate `np.sum`, not treat `m` as an opaque value
whose method is unknown. A local assigned exactly once, by a plain `name = <global name or
attribute chain>` whose value is a module or a function s2s resolves, is taken as that object
wherever it is read (the assignment emits nothing). A module that still reaches a value any other
way (a local bound to it twice, a branch) is refused by the normalizer: never a silently constant
call.
"""
from __future__ import annotations

import types

import gast

from ..ir import build
from . import resolve


def static_length(norm, v):
    """How many items `v` holds, when known now: a literal, a local bound once to one (or always
    to literals of one length), a global tuple or list, or one an object's attribute holds; else None."""
    if isinstance(v, (gast.Tuple, gast.List)) and not any(isinstance(e, gast.Starred) for e in v.elts):
        return len(v.elts)
    lit = single_literal(norm, v)
    if lit is not None:
        return static_length(norm, lit)
    if isinstance(v, gast.Name) and v.id not in norm.locals or isinstance(v, gast.Attribute) and norm.rooted_global(v):
        obj = norm.static(v)  # (a global, or an object's attribute: `*self.output_shape`, watched by reads.py)
        if isinstance(obj, (tuple, list)):
            return len(obj)
    if isinstance(v, gast.Name) and v.id in norm.locals:
        return _rebound_length(norm, v.id)
    return None


def _rebound_length(norm, name: str):
    """The length of local `name` bound more than once, when every binding has the same known
    length: a literal, or `list(name)`/`tuple(name)` of itself (`args = list(args)` in a `*args`
    function, specialized to `args = (args_0, args_1)`), and its only other changes are item
    assignments (`args[i] = ...`), which keep the length."""
    if name in {a.id for a in norm.fn.args.args}:
        return None
    values, changed, item_only, stores = function_facts(norm)
    if name in changed - item_only:
        return None
    if stores.get(name, 0) != len(values.get(name, [])):  # (bound elsewhere too: `args, b = ...`, `(args := ...)`)
        return None
    lengths = set()
    for value in values.get(name, []):
        if isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords \
                and isinstance(value.args[0], gast.Name) and value.args[0].id == name \
                and isinstance(value.func, gast.Name) and static_or_none(norm, value.func) in (list, tuple):
            continue  # (the same items again)
        if not isinstance(value, (gast.Tuple, gast.List)) or any(isinstance(e, gast.Starred) for e in value.elts):
            return None
        lengths.add(len(value.elts))
    return lengths.pop() if len(lengths) == 1 else None


def static_keys(norm, v):
    """The keys of dict `v` when known now (a literal with string keys, `dict(k=...)`, a local bound
    once to one, a global dict with string keys); else None."""
    if isinstance(v, gast.Dict) and all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in v.keys):
        return [k.value for k in v.keys]
    if is_dict_call(norm, v) and not v.args:
        return [k.arg for k in v.keywords]
    lit = single_literal(norm, v)
    if lit is not None:
        return static_keys(norm, lit)
    if isinstance(v, gast.Name) and v.id not in norm.locals:
        obj = norm.static(v)
        if isinstance(obj, dict) and all(isinstance(k, str) for k in obj):
            return list(obj)
    return None


def single_literal(norm, v):
    """The literal a local name is bound to, when it is assigned exactly once and never changed."""
    if not (isinstance(v, gast.Name) and v.id in norm.locals):
        return None
    values, changed = bindings(norm)
    found = values.get(v.id, [])
    if v.id in changed or v.id in {a.id for a in norm.fn.args.args} or len(found) != 1:
        return None
    return found[0] if isinstance(found[0], (gast.Tuple, gast.List, gast.Dict, gast.Call)) else None


def bindings(norm):
    """(values assigned to each name, names otherwise changed) in the function."""
    return function_facts(norm)[:2]


def function_facts(norm):
    """(values assigned to each name, names otherwise changed, names changed only by item
    assignment (`xs[i] = v`, not a slice's), how many times each name is stored to) in the
    function: one walk, kept on the normalizer for its function node (which normalization reads
    and never rewrites), so that asking about every `a + b` of a long function costs no walk of
    the whole function (issue 46: that walk per `+` made the frontend quadratic)."""
    cached = getattr(norm, "_s2s_bindings", None)
    if cached is not None and cached[0] is norm.fn:
        return cached[1]
    values: dict[str, list] = {}
    changed: set[str] = set()
    items, other = set(), set()
    stores: dict[str, int] = {}
    for n in build.walk(norm.fn):
        if isinstance(n, gast.Assign):
            for name in dict.fromkeys(t.id for t in n.targets if isinstance(t, gast.Name)):
                values.setdefault(name, []).append(n.value)
        elif isinstance(n, (gast.AugAssign, gast.For)) and isinstance(n.target, gast.Name):
            changed.add(n.target.id)
            other.add(n.target.id)
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute):
            changed.add(text(n.func.value))  # xs.append(...)
            other.add(text(n.func.value))
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            changed.add(text(n.value))
            (other if isinstance(n.slice, gast.Slice) else items).add(text(n.value))
        elif isinstance(n, gast.Delete):
            other.update(text(t.value) for t in n.targets if isinstance(t, gast.Subscript))
        elif isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    facts = (values, changed, items - other, stores)
    norm._s2s_bindings = (norm.fn, facts)
    return facts


def global_entry(norm, a) -> bool:
    """`a` is `TABLE[key]` of a global (or attribute chain) with a literal key."""
    return isinstance(a, gast.Subscript) and isinstance(a.slice, gast.Constant) \
        and isinstance(a.value, (gast.Name, gast.Attribute)) and norm.rooted_global(a.value) \
        and not (isinstance(a.value, gast.Name) and (a.value.id in norm.fvalues or a.value.id in norm.lifted))


def is_dict_call(norm, v) -> bool:
    """`v` is a call of the builtin `dict`."""
    if not (isinstance(v, gast.Call) and isinstance(v.func, gast.Name) and v.func.id not in norm.locals):
        return False
    found, obj = norm.env.lookup(v.func.id)
    return found and obj is dict


class NotStatic(Exception):
    """A subscript or value that is not known when the function is transformed."""


def text(node) -> str:
    """A name or attribute chain as written (`self.params`), else `...`: for messages and as a key."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return text(node.value) + "." + node.attr
    return "..."


def bound_once(norm, node) -> bool:
    """Whether every local `node` reads is bound once (so `node` means the same wherever it is read)."""
    stores = store_counts(norm)
    return all(stores.get(n.id, 0) <= 1 for n in gast.walk(node) if isinstance(n, gast.Name) and n.id in norm.locals)


def literal_value(a):
    """The number a literal (or a negated literal) is, else None."""
    if isinstance(a, gast.Constant):
        return a.value
    if isinstance(a, gast.UnaryOp) and isinstance(a.op, gast.USub) and isinstance(a.operand, gast.Constant):
        return -a.operand.value
    return None


def static_or_none(norm, node):
    """The object `node` denotes when transforming (`norm.static`), or None when that is not known."""
    try:
        return norm.static(node)
    except Exception:  # noqa: BLE001 - not known now
        return None


def store_counts(norm) -> dict:
    """How many times each name is bound in the function (assignments, loop targets, defs, params)."""
    key = id(norm.fn)
    cached = getattr(norm, "_s2s_stores", None)
    if cached is not None and cached[0] == key:
        return cached[1]
    stores: dict[str, int] = {}
    for n in gast.walk(norm.fn):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del)):
            stores[n.id] = stores.get(n.id, 0) + 1
        elif isinstance(n, gast.FunctionDef) and n is not norm.fn:
            stores[n.name] = stores.get(n.name, 0) + 1
    norm._s2s_stores = (key, stores)
    return stores


def find(fn: gast.FunctionDef, locals_: set[str], static, stores: dict[str, int]) -> dict:
    """{local name: object} for the once-bound aliases of `fn`; `static(node)` evaluates a
    non-local name or attribute chain (raising when it cannot); `stores`: how often each name is
    bound in `fn` (its census: 2 for a nested def)."""
    out = {}
    for s in fn.body:  # top-level statements only: the binding runs before every read after it
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)):
            continue
        name, value = s.targets[0].id, s.value
        if stores.get(name) != 1 or not _rooted_outside(value, locals_):
            continue
        try:
            obj = static(value)
        except Exception:  # noqa: BLE001 - not a static value: an ordinary local
            continue
        if isinstance(obj, types.ModuleType) or callable(obj) and (
                resolve.prim_key(obj) is not None or resolve.is_user_function(obj)):
            out[name] = obj
    return out


def _rooted_outside(node, locals_: set[str]) -> bool:
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name) and node.id not in locals_
