"""What each core-form statement reads and writes: the kind of a right-hand side (`classify`),
its operands, the names a statement assigns, walks over statements and nodes, and the names a
block reads before assigning them."""
from __future__ import annotations

import builtins

import gast

from ...base.stats import STATS
from ..ir import build
from ..ir.names import GLOBALS
from ..primitives import registry


def _operators() -> tuple[dict, dict, dict]:
    """(binary, unary, comparison) operator node type -> the primitive it is, read from the
    declarations' `symbol` facts ("+" is add, "unary -" is neg, "<" is lt)."""
    binops: dict = {}
    unops: dict = {}
    cmpops: dict = {}
    for key, p in registry.PRIMS.items():
        if p.symbol:
            unary = p.symbol.startswith("unary ")
            node = gast.parse(f"{p.symbol[6:]} a" if unary else f"a {p.symbol} b").body[0].value
            if isinstance(node, gast.Compare):
                cmpops[type(node.ops[0])] = key
            else:
                (unops if unary else binops)[type(node.op)] = key
    return binops, unops, cmpops


BINOPS, UNOPS, CMPOPS = _operators()
# primitives called by name in core form: those named after a Python builtin or a global of
# generated code (`len`, `range`, `stop_gradient`) that are not operators
BUILTINS = frozenset(k for k, p in registry.PRIMS.items() if "." not in k and not p.symbol
                     and (hasattr(builtins, k) or k in GLOBALS))


def dotted(node) -> str | None:
    """`a.b.c` of a chain of attributes of a name (a call's function), else None."""
    cls = node.__class__
    if cls is gast.Attribute:
        value = node.value
        if value.__class__ is gast.Name:  # (core form's `xp.f`, `rt.f`: no recursion)
            return value.id + "." + node.attr
        base = dotted(value)
        return None if base is None else base + "." + node.attr
    if cls is gast.Name or isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = dotted(node.value)
        return None if base is None else base + "." + node.attr
    return None


_KINDS = {gast.Name: "copy", gast.Constant: "const", gast.Tuple: "pack", gast.List: "pack", gast.Dict: "dict",
          gast.Subscript: "getitem", gast.Attribute: "attr"}  # (by the node's exact class)


def classify(value) -> str:
    """The kind of a core-form right-hand side: a primitive key, or atom/pack/getitem/call/pop/...."""
    cls = value.__class__
    if cls is gast.Call:
        return _call_kind(value)
    if cls is gast.BinOp:
        return BINOPS[type(value.op)]
    kind = _KINDS.get(cls)
    if kind is not None:
        return kind
    if isinstance(value, gast.Name):
        return "copy"
    if isinstance(value, gast.Constant):
        return "const"
    if isinstance(value, gast.BinOp):
        return BINOPS[type(value.op)]
    if isinstance(value, gast.UnaryOp):
        return UNOPS[type(value.op)]
    if isinstance(value, gast.Compare):
        return CMPOPS[type(value.ops[0])]
    if isinstance(value, (gast.Tuple, gast.List)):
        return "pack"
    if isinstance(value, gast.Dict):
        return "dict"
    if isinstance(value, gast.Subscript):
        return "getitem"
    if isinstance(value, gast.Attribute):
        return "attr"
    if isinstance(value, gast.Call):
        return _call_kind(value)
    raise TypeError(f"not a core-form value: {gast.dump(value)}")


def _call_kind(value) -> str:
    """`classify` of a call."""
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr == "pop" and not value.args:
        return "list.pop"
    key = dotted(func)
    if key is not None and key.startswith(("xp.", "rt.", "ext.")):
        if key.startswith("ext.") and registry.lookup(key) is None:
            return "call"
        return key
    if isinstance(func, gast.Name) and func.id in BUILTINS:
        return func.id
    return "call"


def operands(value) -> list[str]:
    """Names a right-hand side reads (including indices and keyword values), with repeats, in no
    particular order."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and value.func.attr == "pop":
        return [value.func.value.id]
    out = loads(value)  # in no particular order
    if isinstance(value, gast.Call):
        fname = dotted(value.func)
        if fname and fname in out:
            out.remove(fname.split(".")[0]) if "." not in fname else None
        if isinstance(value.func, gast.Name) and value.func.id in out:
            out.remove(value.func.id)
        for head in ("xp", "rt", "ext"):
            while head in out:
                out.remove(head)
    return out


def diff_operands(value) -> list[str]:
    """Names through which a derivative can flow into the value (not indices, shapes, conditions)."""
    kind = classify(value)
    if kind in ("const", "attr"):
        return []
    if kind == "getitem":
        return [value.value.id] if isinstance(value.value, gast.Name) else []
    p = registry.lookup(kind)
    if p is not None and p.nondiff:
        return []
    if kind in ("copy",):
        return [value.id]
    if kind in ("pack",):
        return [e.id for e in value.elts if isinstance(e, gast.Name)]
    if kind == "dict":
        return [v.id for v in value.values if isinstance(v, gast.Name)]
    return operands(value)


def targets(stmt) -> list[str]:
    """Names a statement (not descending into blocks) assigns."""
    cls = stmt.__class__
    if cls is gast.Assign:  # (core form's usual statements first, by exact class)
        t = stmt.targets[0]
        if t.__class__ is gast.Name:
            return [t.id]
    elif cls is gast.Expr or cls is build.Comment:
        return []
    if isinstance(stmt, gast.Assign):
        t = stmt.targets[0]
        if isinstance(t, gast.Name):
            return [t.id]
        if isinstance(t, gast.Tuple):
            return [e.id for e in t.elts]
    if isinstance(stmt, gast.For):
        return [stmt.target.id]
    return []


def walk_stmts(stmts):
    """Every statement of `stmts` and of the blocks nested in them, in program order."""
    stack = [iter(stmts)]
    count, flat = 0, _FLAT_STMTS
    try:
        while stack:
            for s in stack[-1]:
                count += 1
                yield s
                if s.__class__ in flat:  # (no blocks to look into)
                    continue
                body, orelse = getattr(s, "body", None), getattr(s, "orelse", None)
                if orelse:
                    stack.append(iter(orelse))
                if body:
                    stack.append(iter(body))
                if body or orelse:
                    break
            else:
                stack.pop()
    finally:
        STATS["stmt_walk"] += count


# statements that hold no blocks (core form's and the final passes'), by exact class
_FLAT_STMTS = frozenset((gast.Assign, gast.Expr, gast.Return, gast.Delete, gast.Pass, gast.Break, gast.Continue,
                         gast.AugAssign, gast.Assert, gast.Raise, build.Comment))
_LEAF_FIELDS = {"ctx", "op", "ops", "type_comment", "kind", "id", "attr", "arg", "name", "level", "module",
                "conversion", "is_async", "simple", "value_kind"}
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls) -> tuple[str, ...]:
    """The fields of a node type that may hold expressions or statements (not ctx, op, names)."""
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    return fields


def loads(node_or_stmts) -> list[str]:
    """Every name read under a statement or list of statements (with repeats): `_walk`'s names in
    its order, without a generator (the passes ask for every statement's). Counts the nodes it
    looks at in STATS (`load_walk`)."""
    if node_or_stmts.__class__ in _SIMPLE:
        quick = _simple_loads(node_or_stmts)
        if quick is not None:
            return quick
    return _loads(node_or_stmts, False)


def _loads(node_or_stmts, as_nodes: bool) -> list:
    """`_walk`'s Names read, as names or (`as_nodes`) as nodes, in its order, into a list."""
    out: list = []
    stack = list(node_or_stmts) if isinstance(node_or_stmts, list) else [node_or_stmts]
    pop, push, extend, add, count = stack.pop, stack.append, stack.extend, out.append, 0
    name, constant, load, child_fields = gast.Name, gast.Constant, gast.Load, _CHILD_FIELDS
    while stack:
        node = pop()
        cls = node.__class__
        if cls is name:
            count += 1
            if node.ctx.__class__ is load:
                add(node if as_nodes else node.id)
            if node.annotation is not None:  # (a parameter's)
                push(node.annotation)
            continue
        if cls is constant:
            count += 1
            continue
        fields = child_fields.get(cls)
        if fields is None:
            if not isinstance(node, gast.AST):  # (a list's None or string, pushed unchecked)
                continue
            fields = _child_fields(cls)
        count += 1
        for field in fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                extend(value)
            elif value is not None:
                push(value)
    STATS["load_walk"] += count
    return out


_NAME, _CONSTANT, _LOAD, _ASSIGN, _EXPR, _BINOP, _CALL, _ATTRIBUTE = (
    gast.Name, gast.Constant, gast.Load, gast.Assign, gast.Expr, gast.BinOp, gast.Call, gast.Attribute)
_SIMPLE = (_ASSIGN, _EXPR, _BINOP, _CALL)


def _atom(node, out: list) -> bool:
    """Add what an atom reads to `out`; False if `node` is not an atom."""
    cls = node.__class__
    if cls is _NAME:
        if node.ctx.__class__ is _LOAD and node.annotation is None:
            out.append(node.id)
            return True
        return False
    return cls is _CONSTANT


def _simple_loads(s) -> list[str] | None:
    """`loads` of core form's usual `x = a`, `x = a op b`, `x = f(a, ...)`, `x = m.f(a, ...)`, their
    expression statements and their right-hand sides (atoms `a`, `b`: in `_walk`'s order, with its
    count), or None for anything else."""
    cls = s.__class__
    if cls is _ASSIGN:
        t = s.targets
        if len(t) != 1 or t[0].__class__ is not _NAME or t[0].annotation is not None:
            return None
        n, v = 2, s.value  # (the statement and its target)
    elif cls is _EXPR:
        n, v = 1, s.value
    else:
        n, v = 0, s
    out: list[str] = []
    cls = v.__class__
    if cls is _BINOP:
        if not (_atom(v.right, out) and _atom(v.left, out)):
            return None
        n += 3
    elif cls is _CALL:
        if v.keywords:
            return None
        args = v.args
        for a in reversed(args):
            if not _atom(a, out):
                return None
        f = v.func
        n += 2 + len(args)
        if f.__class__ is _ATTRIBUTE:
            n += 1
            f = f.value
        if f.__class__ is not _NAME or not _atom(f, out):
            return None
    elif _atom(v, out):
        n += 1
    else:
        return None
    STATS["load_walk"] += n
    return out


def load_nodes(node_or_stmts) -> list:
    """The Name nodes read under a statement or list of statements (`loads`, as nodes)."""
    return _loads(node_or_stmts, True)


def iter_nodes(node_or_stmts):
    """Every AST node under a node or list of nodes, themselves included, in no particular order:
    `gast.walk` without its per-field generators (the passes look at every node of every round)."""
    return _walk(node_or_stmts, False)


def any_node(node_or_stmts, types: tuple) -> bool:
    """Whether a node of one of `types` is under a node or list of nodes (`iter_nodes` without a
    generator: a question some analyses ask of the whole function). Counts as `iter_nodes` does."""
    stack = list(node_or_stmts) if isinstance(node_or_stmts, list) else [node_or_stmts]
    pop, push, extend, count = stack.pop, stack.append, stack.extend, 0
    name, constant, child_fields = gast.Name, gast.Constant, _CHILD_FIELDS
    try:
        while stack:
            node = pop()
            cls = node.__class__
            if cls is name or cls is constant:
                count += 1
                if cls in types:
                    return True
                continue
            fields = child_fields.get(cls)
            if fields is None:
                if not isinstance(node, gast.AST):
                    continue
                fields = _child_fields(cls)
            count += 1
            if cls in types or isinstance(node, types):
                return True
            for field in fields:
                value = getattr(node, field, None)
                if value.__class__ is list:
                    extend(value)
                elif value is not None:
                    push(value)
        return False
    finally:
        STATS["node_walk"] += count


def _walk(node_or_stmts, only_loads: bool):
    """The one walk behind `iter_nodes` (every node) and `loads` (only the Names read, and then it
    yields nothing else): a plain stack over the fields that may hold nodes, instead of
    `gast.walk`'s generator per field, since it runs for every statement of every pass. Counts
    the nodes it looks at in STATS (`load_walk` or `node_walk`)."""
    stack = list(node_or_stmts) if isinstance(node_or_stmts, list) else [node_or_stmts]
    pop, push, extend, count = stack.pop, stack.append, stack.extend, 0
    name, constant, load, child_fields = gast.Name, gast.Constant, gast.Load, _CHILD_FIELDS
    try:
        while stack:
            node = pop()
            count += 1
            cls = type(node)
            if cls is name:
                if only_loads:
                    if type(node.ctx) is load:
                        yield node
                    if node.annotation is not None:  # (a parameter's; iter_nodes stops at Names)
                        push(node.annotation)
                    continue
                yield node
                continue
            if not only_loads:
                yield node
            if cls is constant:
                continue
            for field in child_fields.get(cls) or _child_fields(cls):
                value = getattr(node, field, None)
                if value.__class__ is list:
                    extend(v for v in value if isinstance(v, gast.AST))
                elif isinstance(value, gast.AST):
                    push(value)
    finally:
        STATS["load_walk" if only_loads else "node_walk"] += count


def exposed(stmts) -> set[str]:
    """Names a block may read before assigning them (its live-in names)."""
    return exposed_and_assigned(stmts)[0]


def exposed_and_assigned(stmts) -> tuple[set[str], set[str]]:
    """(names the block may read before assigning them, names it assigns on every path)."""
    reads: set[str] = set()

    def visit(block, assigned):
        for s in block:
            if isinstance(s, gast.If):
                reads.update(set(loads(s.test)) - assigned)
                a1, a2 = set(assigned), set(assigned)
                visit(s.body, a1)
                visit(s.orelse, a2)
                assigned |= a1 & a2  # assigned on both paths
            elif isinstance(s, gast.While):
                reads.update(set(loads(s.test)) - assigned)
                visit(s.body, set(assigned))
            elif isinstance(s, gast.For):
                reads.update(set(loads(s.iter)) - assigned)
                visit(s.body, assigned | {s.target.id})
            else:
                reads.update(set(loads(s)) - assigned)
                assigned |= set(targets(s))
        return assigned
    assigned = visit(stmts, set())
    return reads, assigned


def assigned_counts(body, params=()) -> dict[str, int]:
    """How many statements assign each name (a parameter counts once): one walk of the body."""
    counts = dict.fromkeys(params, 1)
    for s in walk_stmts(body):
        for t in targets(s):
            counts[t] = counts.get(t, 0) + 1
    return counts


def loop_level(stmts):
    """Statements of a loop body through its branches, not descending into nested loops (where a
    `break` or `continue` belongs to this loop)."""
    for s in stmts:
        yield s
        if isinstance(s, gast.If):
            yield from loop_level(s.body)
            yield from loop_level(s.orelse)
