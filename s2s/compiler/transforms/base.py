"""What every transform shares: the setup of one core-form function, errors at the user's line,
binding arguments to parameters, names for per-variable derivative companions, and the
interface through which a transform gets the versions of the functions it calls.

A transform (reverse.py, forward.py, batching.py) subclasses `Transform`:

    class Batcher(Transform):
        def __init__(self, core, batched_params, calls):
            super().__init__(core, batched_params, calls)  # body, namer, active, containers, ns
            self.bset = batched_vars(self.body, batched_params)

and returns a `GeneratedFn` (or several) that the driver compiles. It never imports the driver
or the api: for a call `y = f(x)` it asks `self.calls` (a `Callees`, given by the driver) for
`core(f)`, `split(f, mask)`, `jvp(f, mask)`, `batch(f, mask)` or `trace(f, mask)`.
"""
from __future__ import annotations

import dataclasses
import inspect
import operator
from collections.abc import Callable
from typing import Any, Protocol

import gast

from ...base import record, tracebacks
from ...base.stats import STATS
from ...errors import S2STypeError, error_at, shown_path
from .. import analysis
from ..ir import build
from ..ir.core import SOURCE_FILE, CoreFn, source_file
from ..ir.names import Namer
from ..primitives import keywords, registry
from . import softmax_idioms, tanh_idioms


class Callees(Protocol):
    """What a transform may ask about a function its input calls (implemented by the driver)."""

    def core(self, fn) -> CoreFn:
        """The core form of `fn` (a user function or a generated one)."""

    def split(self, fn, mask: tuple, outputs: frozenset[int] | None = None) -> tuple[Callable, Callable]:
        """(fwd, bwd): fwd(*args) -> (out, saved); bwd(saved, g) -> one cotangent per argument.
        `outputs`: the items of a returned tuple the caller reads (fwd may return None for others)."""

    def jvp(self, fn, mask: tuple) -> Callable:
        """jvp(*args, *tangents of the args flagged in mask) -> (out, tangent_out)."""

    def has_rules(self, fn) -> bool:
        """Whether `fn` carries the user's own derivative rules (custom_vjp/custom_jvp)."""

    def batch(self, fn, mask: tuple) -> Callable:
        """`fn` batched on the arguments flagged in `mask` (batch at axis 0 of those arguments
        and of the result, which is always batched)."""

    def trace(self, fn, mask: tuple) -> Callable:
        """trace(make, *args, *nodes of the args flagged in mask) -> (out, node of out)."""


@dataclasses.dataclass
class GeneratedFn:
    """A transform's output: a core-form function definition, the namespace its code refers to,
    and the header comment codegen prints above it. The driver optimizes and compiles it."""

    name: str
    node: gast.FunctionDef
    ns: dict[str, Any]
    filename: str
    header: str


def header_for(kind: str, core: CoreFn, what: str = "") -> str:
    """`s2s: <kind> of <name> (<file>:<line>) <what>`, the first line of generated source."""
    line = getattr(core.node, "lineno", None)
    where = shown_path(core.filename) + (f":{line}" if line else "")
    return f"s2s: {kind} of {core.name} ({where}){' ' + what if what else ''}"


class Companions:
    """One generated name per variable for a derivative that travels beside it: adjoints `b_x`
    (reverse), tangents `d_x` (forward). Names come from the scope's one Namer."""

    def __init__(self, namer: Namer, prefix: str):
        self.namer, self.prefix = namer, prefix
        self.names: dict[str, str] = {}
        self.vars: dict[str, str] = {}  # companion -> variable, so `var_of` costs no search

    def name(self, var: str) -> str:
        if var not in self.names:
            self.names[var] = b = self.namer.exact(self.prefix + var)
            self.vars.setdefault(b, var)
        return self.names[var]

    def zero(self, var: str) -> gast.Assign:
        return build.assign(self.name(var), build.call("rt.zeros_like_tree", [build.name(var)]))

    def var_of(self, companion: str) -> str:
        return self.vars[companion]


class Defined:
    """A `defined` map (companion name -> owned by the sweep) that remembers which companions were
    set or removed since it was made (`changed`). A branch or loop body starts from the map before
    it, and the join then looks only at what the body changed, not at every companion defined so
    far: in forward-over-reverse every saved value of the gradient has a tangent, so a join over
    all of them at each `if` made forward mode quadratic. `Defined(parent)` is such a start: it
    reads through to `parent` for what it did not change (copying the map at every `if` was
    quadratic too), so `parent` must not change while it is read through (a body's map is joined
    into its parent after the body)."""

    __slots__ = ("own", "gone", "base", "changed")

    def __init__(self, init=()):
        self.base = init if isinstance(init, Defined) else None
        self.own: dict = {} if self.base is not None else dict(init)
        self.gone: set = set()  # (removed here: hidden in `base`)
        self.changed: set = set()

    def __contains__(self, key) -> bool:
        if key in self.own:
            return True
        return key not in self.gone and self.base is not None and key in self.base

    def __getitem__(self, key):
        if key in self.own:
            return self.own[key]
        if key in self.gone or self.base is None:
            raise KeyError(key)
        return self.base[key]

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __setitem__(self, key, value):
        self.changed.add(key)
        self.own[key] = value
        self.gone.discard(key)

    def __delitem__(self, key):
        self.changed.add(key)
        if key not in self:
            raise KeyError(key)
        self.own.pop(key, None)
        self.gone.add(key)

    def pop(self, key, *default):
        self.changed.add(key)
        if key not in self:
            if default:
                return default[0]
            raise KeyError(key)
        value = self[key]
        self.own.pop(key, None)
        self.gone.add(key)
        return value

    def update(self, *args, **kwargs):
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def keys(self) -> set:
        """Every companion in the map (a walk of the maps it reads through)."""
        out = set(self.base.keys()) - self.gone if self.base is not None else set()
        return out | self.own.keys()

    def __iter__(self):
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.keys())

    def apply(self, result: dict, keys) -> None:
        """Set each of `keys` to its value in `result`, or remove it where `result` lacks it."""
        for b in keys:
            if b in result:
                self[b] = result[b]
            else:
                self.pop(b, None)


def join(paths: list, companions: Companions, live, fill, keys=None) -> dict[str, bool]:
    """Join the `defined` maps (companion name -> owned by the sweep) of alternative paths, each
    `(stmts, defined, ...)`. A companion whose variable is not in `live` (None: all) is dropped;
    on a path that lacks one, `fill(var, path)` gives the statement that sets it there (or None)
    and whether the path then owns it. Reverse and forward mode differ only in `fill`. With
    `keys`, only those companions are joined (those the paths changed: see `Defined`)."""
    out = {}
    if keys is None:
        keys = set().union(*(p[1].keys() for p in paths))
    STATS["join_key"] += len(keys)
    for b in sorted(keys):
        if not any(b in path[1] for path in paths):
            continue  # (removed on every path)
        var = companions.var_of(b)
        if live is not None and var not in live:
            continue
        owned = True
        for path in paths:
            if b in path[1]:
                owned = owned and path[1][b]
                continue
            stmt, own = fill(var, path)
            if stmt is not None:
                path[0].append(stmt)
            owned = owned and own
        out[b] = owned
    return out


class Transform:
    """The shared setup of a transform of `core` with respect to `active_params`."""

    def __init__(self, core: CoreFn, active_params, calls: Callees):
        self.core = core
        self.calls = calls
        self.params = core.params
        self.namer = Namer(build.names_in(core.node) | set(core.ns) | {"xp", "rt"})  # every name of the output
        self.body = split_self_updates(build.clone(core.node.body), self.namer)
        if getattr(self, "tanh_idioms", False):  # (reverse mode's: tanh written with exp is tanh)
            self.body = softmax_idioms.rewrite(tanh_idioms.rewrite(self.body, core.params), core.params)
        self.active = analysis.activity(self.body, active_params)
        self.containers = containers(self.body, self.active)
        # (a generated function's parameters, a sweep's record and cotangent, may be whole pytrees)
        self.leaves = known_leaves(self.body, () if core.filename.startswith("<s2s") else self.params) \
            - self.containers
        self.ns: dict = {}

    def fail(self, stmt, msg, hint=""):
        """Raise an S2SError at `stmt`'s line of the user's file."""
        filename = source_file(stmt, self.core.filename)
        if filename.startswith("<s2s:"):  # generated code keeps its user's line numbers: name the user's file
            filename = tracebacks.origin(filename) or filename
        where = (filename, getattr(stmt, "lineno", None), getattr(stmt, "col_offset", None))
        raise error_at(where, msg, hint, S2STypeError)

    def bind(self, label, obj) -> str:
        """The name under which the generated code finds `obj` (added to `self.ns` if new)."""
        return self.namer.bind(self.ns, label, obj)

    def check_no_mutated_arguments(self, s, fn, mask):
        """A callee that updates an array or list it was passed changes the caller's value too, which
        the caller's derivative cannot see (its tangent or backward sweep follows the callee's
        result only): reject it at the call."""
        if self.calls.has_rules(fn):
            return  # the user's rules decide
        callee = self.calls.core(fn)
        for base, line in callee.inplace_params.items():
            # an inactive list or array the callee stores an active value into becomes active too
            if mask[callee.params.index(base)] or any(mask) and stores_into(callee.node, base):
                self.fail(s, f"`{callee.name}` updates its parameter `{base}` in place "
                             f"({shown_path(callee.filename)}:{line}), which changes the caller's value; s2s cannot "
                             "differentiate through that.",
                          f"Copy it inside `{callee.name}` first (`{base} = {base}.copy()`, `list({base})`), "
                          "or return the new value instead of updating the argument.")

    def callee_label(self, fn) -> str:
        return getattr(fn, "__name__", "f").replace("<lambda>", "lambda_")

    def bind_call(self, fn, call) -> list:
        """Positional atoms for a user-function call, with keywords and defaults resolved."""
        try:  # (a transform object knows the parameters of what it compiles: `vmap(np.sin)` takes x)
            sig = fn._signature if hasattr(type(fn), "_signature") else record.signature_of(fn)
        except (TypeError, ValueError):
            return list(call.args)
        params = list(sig.parameters.values())
        args = list(call.args)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            return args
        kws = {k.arg: k.value for k in call.keywords}
        out = []
        for i, prm in enumerate(params):
            if i < len(args):
                out.append(args[i])
            elif prm.name in kws:
                out.append(kws[prm.name])
            elif prm.default is not inspect.Parameter.empty:
                d = prm.default
                out.append(build.const(d) if isinstance(d, (int, float, bool, str, type(None))) else
                           build.name(self.bind(f"default_{prm.name}", d)))
        return out


def loc(new, old):
    if hasattr(old, "lineno"):
        new.lineno, new.col_offset = old.lineno, getattr(old, "col_offset", 0)
    if hasattr(old, SOURCE_FILE):  # (a statement inlined from another file: errors name that file)
        setattr(new, SOURCE_FILE, getattr(old, SOURCE_FILE))
    return new


def index_value(sl):
    """The index of a subscript as a value: slices become slice(...) calls so they can be passed."""
    if isinstance(sl, gast.Slice):
        parts = [p if p is not None else build.const(None) for p in (sl.lower, sl.upper, sl.step)]
        return build.call("slice", parts)
    if isinstance(sl, gast.Tuple):
        return build.tuple_([index_value(e) for e in sl.elts])
    return build.clone(sl)


def is_list_op(s) -> bool:
    return (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append")


# keywords that change a reduction's value and that no rule honours yet: refused, never ignored
_UNRULED_KEYWORDS = ("where", "initial")


def bind_prim(p, call) -> dict:
    """Map a primitive call's atoms to the primitive's parameter names (defaults filled in)."""
    if isinstance(call, gast.BinOp):
        vals = [call.left, call.right]
    elif isinstance(call, gast.UnaryOp):
        vals = [call.operand]
    elif isinstance(call, gast.Compare):
        vals = [call.left, call.comparators[0]]
    else:
        vals = list(call.args)
    out = {k: None for k in p.params}
    for k, v in p.defaults.items():
        out[k] = build.const(v)
    for k, v in zip(p.params, vals):
        out[k] = v
    if isinstance(call, gast.Call):
        for kw in call.keywords:
            if kw.arg in _UNRULED_KEYWORDS and kw.arg not in out and not p.nondiff:
                raise S2STypeError(f"s2s has no derivative rule for `{p.name}` with the argument `{kw.arg}=`; "
                                   "compute it another way (for `where=`: multiply or select with np.where first).")
            # a keyword the declaration lacks: refused unless it changes no value or the normalizer let it
            # through at NumPy's default (primitives/keywords.py), since no rule reads it
            if kw.arg is not None and kw.arg not in out and kw.arg not in keywords.passed_through(p.name) \
                    and not p.nondiff:
                raise S2STypeError(f"s2s does not know the argument `{kw.arg}=` of `{p.name}`: its rules would "
                                   "ignore it. Compute it another way.")
            out[kw.arg] = kw.value
    return out


def is_repeat(v) -> bool:
    """`x * 3` or `3 * x`: a list or tuple `x` repeated (for arrays, a product with an int)."""
    return isinstance(v, gast.BinOp) and isinstance(v.op, gast.Mult) and any(
        isinstance(e, gast.Constant) and type(e.value) is int for e in (v.left, v.right))


def maybe_sequence_op(v, containers) -> bool:
    """`x + y` or `x * y` that may concatenate or repeat a list or tuple: an operand may be one (is
    in `containers`) and, for `*`, neither operand is a float literal. The reverse transform then
    uses `rt.operand_cotangent`, which tells sequences from arrays at run time."""
    if not (isinstance(v, gast.BinOp) and isinstance(v.op, (gast.Add, gast.Mult))):
        return False
    ops = (v.left, v.right)
    if isinstance(v.op, gast.Mult) and any(isinstance(e, gast.Constant) and type(e.value) is not int for e in ops):
        return False
    return any(isinstance(e, gast.Name) and e.id in containers for e in ops)


def containers(body, active) -> set[str]:
    out = set()
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign):
            t = s.targets[0]
            if isinstance(s.value, (gast.Tuple, gast.List, gast.Dict)) and isinstance(t, gast.Name) \
                    or analysis.classify(s.value) in ("list", "tuple") and isinstance(t, gast.Name):
                out.add(t.id)
            if isinstance(t, gast.Tuple) and isinstance(s.value, gast.Name):
                out.add(s.value.id)
            if isinstance(s.value, gast.Subscript) and isinstance(s.value.slice, gast.Constant):
                out.add(s.value.value.id)
            if isinstance(s.value, gast.Call) and analysis.classify(s.value) == "call":
                # a user function may take or return tuples, lists and dicts
                out.update(a.id for a in s.value.args if isinstance(a, gast.Name))
                out.update(k.value.id for k in s.value.keywords if isinstance(k.value, gast.Name))
                if isinstance(t, gast.Name):
                    out.add(t.id)
            if isinstance(s.value, gast.Call) and (p := registry.lookup(analysis.classify(s.value))) is not None:
                args = s.value.args  # arguments that may be whole pytrees (`Prim.tree_args`)
                out.update(args[k].id for k in p.tree_args if k < len(args) and isinstance(args[k], gast.Name))
        elif is_list_op(s):
            out.add(s.value.func.value.id)
    # a copy of a pytree is a pytree, and so is what it was copied from
    links = [(s.targets[0].id, arg.id) for s in analysis.walk_stmts(body)
             if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
             and _tree_preserving(analysis.classify(s.value))
             for arg in ([s.value] if isinstance(s.value, gast.Name) else s.value.args[:1])
             if isinstance(arg, gast.Name)]
    # a slice of a list is a list, and so are `a + b` of lists (concatenation) and `a * n` (repetition)
    flows = []
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            v = s.value
            if isinstance(v, gast.Subscript) and isinstance(v.slice, gast.Slice) and isinstance(v.value, gast.Name):
                links.append((s.targets[0].id, v.value.id))
            if isinstance(v, gast.BinOp) and (isinstance(v.op, gast.Add) or is_repeat(v)):
                links += [(s.targets[0].id, e.id) for e in (v.left, v.right) if isinstance(e, gast.Name)]
            elif isinstance(v, gast.BinOp) and maybe_sequence_op(v, analysis.loads(v)):  # `L * n`: a repeated list
                flows += [(s.targets[0].id, e.id) for e in (v.left, v.right) if isinstance(e, gast.Name)]
    grown = True
    while grown:
        grown = False
        for a, b in links:
            if (a in out) != (b in out):
                out.update((a, b))
                grown = True
        for a, b in flows:
            if b in out and a not in out:
                out.add(a)
                grown = True
    return out


def known_leaves(body, params=()) -> set[str]:
    """Variables whose adjoint may be summed with `+`: every contribution to it has the shape of an
    array or a number. A contribution can be a tuple, list or dict only where a rule hands back a
    whole pytree: through a sequence argument (`np.concatenate(xs)`), a user function's argument,
    an unpacked value, an element of a literal or of a list, the returned value; a variable seen
    there, or assigned anything but an array or a number (a parameter counts as one until seen
    there), is summed leaf by leaf (`rt.tree_add`), so a pytree's cotangent never concatenates."""
    values: dict[str, list] = {}
    leaves = set(params)
    trees: set[str] = set()
    copies = []
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.For):
            leaves.update(analysis.targets(s))
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            values.setdefault(s.targets[0].id, []).append(s.value)
            if isinstance(s.value, gast.Name):
                copies.append((s.targets[0].id, s.value.id))
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple):
            trees.update(e.id for e in s.targets[0].elts if isinstance(e, gast.Name))
        trees.update(_tree_positions(s))
    leaves = (leaves | set(values)) - trees
    changed = True
    while changed:
        changed = False
        for var in sorted(leaves):
            if var in values and not all(_leaf_value(v, leaves) for v in values[var]):
                leaves.discard(var)
                changed = True
        for a, b in copies:  # `a = b`: b's adjoint takes a's
            if a not in leaves and b in leaves:
                leaves.discard(b)
                changed = True
    return leaves


def _tree_positions(s) -> list[str]:
    """Names in statement `s` whose adjoint may receive a whole pytree (see `known_leaves`)."""
    if isinstance(s, gast.Return):
        return [s.value.id] if isinstance(s.value, gast.Name) else []
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and is_list_op(s):
        return [a.id for a in s.value.args if isinstance(a, gast.Name)]
    v = getattr(s, "value", None) if isinstance(s, gast.Assign) else None
    if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple) and isinstance(v, gast.Name):
        return [v.id]
    if isinstance(v, (gast.Tuple, gast.List)):
        return [e.id for e in v.elts if isinstance(e, gast.Name)]
    if isinstance(v, gast.Dict):
        return [e.id for e in v.values if isinstance(e, gast.Name)]
    if not isinstance(v, gast.Call):
        return []
    kind = analysis.classify(v)
    if kind == "call":
        return [n for n in analysis.loads(v) if n != getattr(v.func, "id", None)]
    p = registry.lookup(kind)
    if p is None:
        return []
    if p.tree_args:  # arguments that may be whole pytrees (`Prim.tree_args`)
        return [v.args[k].id for k in p.tree_args if k < len(v.args) and isinstance(v.args[k], gast.Name)]
    if not p.list_args:
        return []
    out = [a.id for name, a in zip(p.params, v.args) if name in p.list_args and isinstance(a, gast.Name)]
    return out + [k.value.id for k in v.keywords if k.arg in p.list_args and isinstance(k.value, gast.Name)]


def _leaf_value(v, leaves) -> bool:
    """Whether core-form right-hand side `v` is an array or a number when the names in `leaves` are."""
    if isinstance(v, gast.Constant):
        return not isinstance(v.value, (tuple, str, bytes))
    if isinstance(v, gast.Name):
        return v.id in leaves
    if isinstance(v, (gast.BinOp, gast.UnaryOp)):
        return all(n in leaves for n in analysis.loads(v))
    if isinstance(v, gast.Compare):
        return True
    if isinstance(v, gast.Subscript):
        return isinstance(v.value, gast.Name) and v.value.id in leaves
    if isinstance(v, gast.Attribute):
        return v.attr in ("ndim", "size")
    if isinstance(v, gast.Call):
        key = analysis.classify(v)
        p = registry.lookup(key)
        return p is not None and (p.number_result in ("int", "float") or key.startswith("xp.") and (
            p.broadcasting or p.same_shape or p.full_reduction))  # facts the primitive declares
    return False


def _tree_preserving(kind) -> bool:
    """Whether a right-hand side of this kind is a pytree when its first argument is (a copy)."""
    p = registry.lookup(kind)
    return kind == "copy" or p is not None and p.tree_preserving


def split_self_updates(stmts, namer) -> list:
    """`x = f(x, ...)` becomes `t = f(x, ...); x = t` so each adjoint sees its inputs' old values."""
    out = []
    for s in stmts:
        for f in ("body", "orelse"):
            if getattr(s, f, None):
                setattr(s, f, split_self_updates(getattr(s, f), namer))
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and \
                not isinstance(s.value, gast.Name) and s.targets[0].id in analysis.operands(s.value):
            tmp = namer.fresh("t")
            out.append(loc(build.assign(tmp, s.value), s))
            out.append(loc(build.assign(s.targets[0].id, build.name(tmp)), s))
            continue
        out.append(s)
    return out


# the arithmetic operators (`arith`) whose constant operands fold, but `/` (a division by zero, an int turned
# float) -> the Python function computing them (`operator_fn`)
FOLD = {op: getattr(operator, registry.PRIMS[k].operator_fn) for op, k in analysis.BINOPS.items()
        if registry.PRIMS[k].arith in ("+", "-", "*")}


class _Fold(gast.NodeTransformer):
    """What `simplify` folds (one class: defining it per call cost a class build per rule)."""

    def visit(self, node):
        """`NodeTransformer.visit` without its lookups, and without visiting the leaves (names and
        literals, most of a rule's nodes), which it would return unchanged."""
        cls = type(node)
        if cls is gast.BinOp:
            return self.visit_BinOp(node)
        if cls is gast.Call:
            return self.visit_Call(node)
        if cls is gast.Constant or cls is gast.Name and node.annotation is None:
            return node
        return self.generic_visit(node)

    def visit_Call(self, node):
        """`rt.pow_d(x, c, 1)` with a literal c != 0 is `c * x ** (c - 1)`, folded further."""
        self.generic_visit(node)
        c = node.args[1].value if len(node.args) == 3 and isinstance(node.args[1], gast.Constant) else None
        if analysis.dotted(node.func) == "rt.pow_d" and isinstance(c, (int, float)) and not isinstance(c, bool) \
                and c != 0 and getattr(node.args[2], "value", None) == 1:
            power = build.binop(node.args[0], gast.Pow(), build.const(c - 1))
            return self.visit_BinOp(build.binop(build.const(c), gast.Mult(), self.visit_BinOp(power)))
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        r = node.right
        if isinstance(node.op, gast.Mult) and isinstance(r, gast.BinOp) and isinstance(r.op, gast.Mult) \
                and isinstance(r.left, gast.Constant) and not isinstance(node.left, gast.Constant):
            node = build.binop(build.binop(node.left, gast.Mult(), r.left), gast.Mult(), r.right)  # g * c * x
        lv = node.left.value if isinstance(node.left, gast.Constant) else None
        rv = node.right.value if isinstance(node.right, gast.Constant) else None
        if isinstance(lv, (int, float)) and isinstance(rv, (int, float)) and type(node.op) in FOLD:
            return build.const(FOLD[type(node.op)](lv, rv))
        if isinstance(node.op, (gast.Mult, gast.Pow, gast.Div)) and rv == 1 and not isinstance(rv, bool):
            return node.left
        if isinstance(node.op, gast.Mult) and lv == 1 and not isinstance(lv, bool):
            return node.right
        return node


def simplify(expr):
    """Fold literal arithmetic and drop `* 1`, `** 1`: keeps generated rules readable."""
    return _Fold().visit(expr)


def updates_whole_in_place(fn: gast.FunctionDef, name: str) -> bool:
    """Whether `fn`'s core form updates the array `name` holds by NumPy's `name op= v` (core form's
    `name = rt.inplace(r, name, ...)`, a rebinding there: an item store stays one)."""
    for n in gast.walk(fn):
        p = registry.lookup(analysis.dotted(n.value.func)) if isinstance(n, gast.Assign) \
            and isinstance(n.value, gast.Call) else None
        if p is not None and p.checks and "ufunc" in p.params and len(n.value.args) > p.params.index("a") \
                and isinstance(a := n.value.args[p.params.index("a")], gast.Name) and a.id == name:
            return True  # (`rt.inplace(r, a, ufunc, at)`: NumPy's `a op= v`)
    return False


def stores_into(fn: gast.FunctionDef, name: str, items_only: bool = False) -> bool:
    """Whether `fn`'s core form stores into `name`'s value (`name[k] = v`, `name.append(v)`,
    `name.pop()`; only the first with `items_only`), not only rebinds it (`name += v` on a number
    is `name = name + v` there)."""
    for n in gast.walk(fn):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(n.value, gast.Name) \
                and n.value.id == name:
            return True
        if not items_only and isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr in ("append", "pop") \
                and isinstance(n.func.value, gast.Name) and n.func.value.id == name:
            return True
    return False
