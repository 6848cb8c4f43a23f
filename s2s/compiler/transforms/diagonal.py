"""The diagonal of a Jacobian from one jvp: when the jvp's tangent is elementwise in the input's
tangent (every op on it keeps positions apart and maps zeros to zeros), the Jacobian is diagonal,
and the jvp along ones gives that diagonal. `diagonal_fn` specializes the tangent function to it:
the tangent is the number 1, and the code is reduced to what the diagonal needs (see its steps).
"""
from __future__ import annotations

import copy

import gast

from .. import analysis
from ..ir import build
from ..ir.names import Namer
from ..primitives import registry
from .base import FOLD
from .batch_ranks import atom_rank, per_example_ranks
from .batch_vars import batched_vars


def _prim(kind):
    return registry.lookup(kind) if kind else None


def _sequence_op(kind) -> bool:
    """`kind` is an operator that also concatenates or repeats sequences (`+`, `*`: Prim.sequence_op)."""
    p = registry.lookup(kind) if isinstance(kind, str) else None
    return p is not None and p.sequence_op


_DIAG_FORMS: dict = {"size": -1}


def _diag_form_of(kind):
    """The product cotangent (`rt.dot_vjp_a`) whose diagonal form (`rt.dot_vjp_a_diag`) `kind` is, or None."""
    if _DIAG_FORMS["size"] != len(registry.PRIMS):  # (declarations come first; rebuilt if more arrive)
        _DIAG_FORMS.clear()
        _DIAG_FORMS.update({p.diag_form: p for p in registry.PRIMS.values() if p.diag_form}, size=len(registry.PRIMS))
    return _DIAG_FORMS.get(kind) if kind else None


def elementwise_tangent(node, tangent: str) -> bool:
    """Whether the tangent function `node` is elementwise in its parameter `tangent`: each value
    that depends on it comes from ops that keep positions apart and map zeros to zeros (products
    by other values, sums of such values, negation, selection, broadcasting to a larger shape). Then
    its result at a basis vector is zero off the vector's position: the Jacobian is diagonal."""
    body = node.body
    dep = batched_vars(body, [tangent])
    diag = set(dep)
    stmts = list(analysis.walk_stmts(body))
    for s in stmts:
        if isinstance(s, (gast.If, gast.While)) and any(n in dep for n in build.names_in(s.test)) or \
                isinstance(s, gast.For) and any(n in dep for n in build.names_in(s.iter) | build.names_in(s.target)):
            return False
        if isinstance(s, gast.Expr) and any(n in dep for n in build.names_in(s)):
            return False
        if isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Name) \
                and any(n in dep for n in build.names_in(s)):
            return False  # a store into part of a tangent (`d_acc[1] = v`) mixes positions
    changed = True
    while changed:
        changed = False
        for s in stmts:
            if not isinstance(s, gast.Assign):
                continue
            t = s.targets[0]
            if isinstance(t, gast.Name) and t.id in diag and not _diag_value(s.value, diag, dep):
                diag.discard(t.id)
                changed = True
    ret = body[-1] if body else None
    return isinstance(ret, gast.Return) and isinstance(ret.value, gast.Name) and ret.value.id in diag


def diagonal_fn(node, tangent: str, primal: str, name: str, ranks: dict | None = None) -> gast.FunctionDef | None:
    """The tangent function `node` specialized to give the Jacobian's diagonal (None when its
    tangent is not elementwise): the tangent is the number 1 (`d * y` is `y`, and the caller
    broadcasts the result to the input's shape, `rt.diag_jacobian`); a branch (under a condition
    free of the tangent) that calls another function with the tangent raises `rt.not_diagonal()`
    instead, and a dot's cotangent (`rt.dot_vjp_a(v, a, d)`) checks at run time that it is the
    elementwise product of vectors (`primal`, the input, a vector too) -- either refusal makes the caller run the basis.
    `ranks`: the ranks of parameters known to be float NumPy arrays (a Jacobian specialized on its
    arguments), which decide those run-time tests here (`decide_ranks`)."""
    node = copy.deepcopy(node)
    dep = batched_vars(node.body, [tangent])
    _cut_branches(node.body, dep)
    for s in analysis.walk_stmts(node.body):
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and len(s.value.args) == 3:
            p = _prim(analysis.classify(s.value))
            if p is not None and p.diag_form:  # a product's cotangent: its diagonal form
                s.value.func = build.attr("rt", p.diag_form[3:])
                s.value.args.append(build.name(primal))
    if ranks:
        known = dict(ranks)
        if primal in known:
            known[tangent] = known[primal]
        shapes = {p: p for p in known} | ({tangent: primal} if primal in known else {})
        decide_ranks(node.body, known, [a.id for a in node.args.args], shapes)
    if not elementwise_tangent(node, tangent):
        return None
    node.args.args = [a for a in node.args.args if a.id != tangent]
    node.name = name
    if any(tangent in analysis.targets(s) for s in analysis.walk_stmts(node.body)):  # a loop carries it: start it at 1
        node.body.insert(0, build.assign(tangent, build.const(1.0)))
        return node
    for s in analysis.walk_stmts(node.body):
        v = getattr(s, "value", None)
        if isinstance(s, gast.Assign) and isinstance(v, gast.BinOp) and isinstance(v.op, gast.Mult):
            for one, other in ((v.left, v.right), (v.right, v.left)):
                if isinstance(one, gast.Name) and one.id == tangent:
                    s.value = other
                    break
    for n in gast.walk(node):
        for field, value in gast.iter_fields(n):
            if isinstance(value, gast.Name) and value.id == tangent:
                setattr(n, field, build.const(1.0))
            elif isinstance(value, list):
                value[:] = [build.const(1.0) if isinstance(v, gast.Name) and v.id == tangent else v for v in value]
    node.body = reduce_diagonal(node.body, primal, [a.id for a in node.args.args],
                                Namer(build.names_in(node) | {"xp", "rt"}))
    return node


_RAISING_OPS = (gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)  # raise ArithmeticError on Python numbers


def _nonzero_divisor(e) -> bool:
    """`a / 4.0`, `a // 2`, `a % 3`: a division by a nonzero number, which no number makes raise."""
    return not isinstance(e.op, gast.Pow) and isinstance(e.right, gast.Constant) \
        and type(e.right.value) in (int, float) and e.right.value != 0


def raises_nothing(node: gast.FunctionDef, ranks: dict) -> bool:
    """Whether diagonal function `node` certainly neither refuses (`rt.not_diagonal`, a `_diag`
    helper's run-time test) nor raises ArithmeticError, with the parameters in `ranks` (name ->
    rank) float NumPy arrays: it calls only primitives of `xp` and `rt` other than those, and each
    division, modulo or power has an operand that is an array (NumPy gives inf or nan where Python
    numbers raise) or divides by a nonzero number. Then a Jacobian can call it as a plain function
    (which jit inlines) instead of through `rt.diag_jacobian`, which catches those refusals."""
    refusals = {p.diag_form for p in registry.PRIMS.values() if p.diag_form} | {"rt.not_diagonal"}
    counts = analysis.assigned_counts(node.body, [a.id for a in node.args.args])
    arrays = analysis.bound_ranks(node.body, {n: r for n, r in ranks.items() if r and counts.get(n) == 1}, counts)
    for s in analysis.walk_stmts(node.body):
        if build.is_comment(s):
            continue
        if not isinstance(s, (gast.Assign, gast.Return, gast.Delete)) \
                or isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Name):
            return False
        for e in gast.walk(s):
            if isinstance(e, gast.Call) and (not (f := analysis.dotted(e.func) or "").startswith(("xp.", "rt."))
                                             or registry.lookup(f) is None or f in refusals):
                return False
            if isinstance(e, gast.BinOp) and isinstance(e.op, _RAISING_OPS) and not _nonzero_divisor(e) \
                    and not (analysis.array_rank(e.left, arrays) or analysis.array_rank(e.right, arrays)):
                return False
    return True


def decide_ranks(body: list, known: dict, params, shapes: dict | None = None) -> None:
    """Decide, in place, the run-time tests of the diagonal's helpers that the ranks of float NumPy
    parameters (`known`: name -> rank) settle: a float scalar is a scalar output
    (`rt.scalar_output(t)` is True, and an `if` on it keeps its body), its seed is 1.0; a dot's
    cotangent of vectors is the elementwise product the `_diag` helper would check for; a
    product's tangent with an array operand is no repetition (`rt.operand_cotangent_t`); and
    `rt.unbroadcast(g, like)` of a `g` with `like`'s shape is `g` (`shapes`: parameter -> the
    parameter whose shape it has; arithmetic of arrays of one shape has that shape).

    Before (x a float vector)::

        t0 = xp.dot(x, x)
        scalar0 = rt.scalar_output(t0)
        if scalar0:
            b_t0 = rt.seed(t0)
            d_b_x = rt.dot_vjp_a_diag(b_t0, x, d_x, x)
            d_t1 = rt.unbroadcast(d_b_x, x)

    After (`d_x` has the shape of `x`)::

        t0 = xp.dot(x, x)
        scalar0 = True
        b_t0 = 1.0
        d_b_x = b_t0 * d_x
        d_t1 = d_b_x
    """
    rank = per_example_ranks(body, known)
    counts = analysis.assigned_counts(body, params)
    floats = _float_values(body, set(known), counts)
    real = _certainly_real(body, params, known)
    true = set()
    for s in analysis.walk_stmts(body):
        v = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) else None
        if not isinstance(v, gast.Call) or v.keywords or not all(isinstance(a, (gast.Name, gast.Constant)) for a in v.args):
            continue
        f, args = analysis.dotted(v.func), v.args
        scalar = len(args) == 1 and isinstance(args[0], gast.Name) and args[0].id in floats \
            and atom_rank(args[0], rank) == 0
        if f == "rt.scalar_output" and scalar:
            s.value = build.const(True)
            true.add(s.targets[0].id)
        elif f == "rt.seed" and scalar:
            s.value = build.const(1.0)
        elif f in _REAL_CHECKS and real and len(args) == 2:
            s.value = args[0]  # (a real value's real part, JAX's check of a real output: the value itself)
        elif f == "rt.operand_cotangent_t" and len(args) in (6, 7) and isinstance(args[2],
                                                                                  gast.Name) and args[2].id in known \
                and isinstance(args[4], gast.Constant) and _sequence_op(args[4].value) \
                and (len(args) == 6 or isinstance(args[6], gast.Constant) and args[6].value == 0):
            g, like = args[0], args[1]  # an array operand: no repetition or concatenation (rt.operand_cotangent_t)
            moved = build.binop(g, gast.Mult(), args[3]) if args[4].value == "mul" else g
            s.value = build.call("rt.broadcast_to_like", [moved, like])
        elif (q := _diag_form_of(f)) is not None and len(args) == 4:
            r = [atom_rank(a, rank) for a in args]
            vec, other = q.cotangent_of, 3 - q.cotangent_of
            if r[0] == 0 and r[vec] == 1 and None not in (r[other], r[3]) and r[other] <= 1 and r[3] <= 1:
                s.value = build.binop(args[0], gast.Mult(), args[other])
    _keep_taken(body, {n for n in true if counts.get(n) == 1})
    shape = _shape_of(body, counts, shapes or {})

    class SumsNothing(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if analysis.dotted(node.func) == "rt.unbroadcast" and len(node.args) == 2 and not node.keywords \
                    and shape(node.args[0]) and shape(node.args[0]) == shape(node.args[1]):
                return node.args[0]
            return node
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign):
            s.value = SumsNothing().visit(s.value)


def _shape_of(body: list, counts: dict, shapes: dict):
    """`shape(e)`: the parameter in `shapes` whose shape the value of expression `e` certainly
    has ("" for a number, which has any shape; None if unknown), through names assigned once at
    the top level (the parameters in `shapes` are NumPy arrays, so every product is one too)."""
    defs = {s.targets[0].id: s.value for s in body if isinstance(s, gast.Assign)
            and isinstance(s.targets[0], gast.Name) and counts.get(s.targets[0].id) == 1}
    seen: dict = dict(shapes)

    def shape(e):
        if isinstance(e, gast.Name):
            if e.id not in seen:
                seen[e.id] = None  # (a cycle is unknown)
                seen[e.id] = shape(defs[e.id]) if e.id in defs else None
            return seen[e.id]
        if _number(e):
            return ""
        if isinstance(e, gast.BinOp) and isinstance(e.op, (*analysis.ARITH, gast.Pow)):
            found = {shape(e.left), shape(e.right)}
        elif isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            found = {shape(e.operand)}
        elif isinstance(e, gast.Call) and not e.keywords and e.args:
            f = analysis.dotted(e.func)
            try:
                p = registry.lookup(analysis.classify(e)) if f and f.startswith("xp.") else None
            except TypeError:
                p = None
            like = analysis.shape_like(e)
            if like is not None:
                found = {shape(like)}
            elif p is not None and p.same_shape and len(e.args) == 1:
                found = {shape(e.args[0])}
            else:
                return None
        else:
            return None
        found.discard("")
        return None if None in found or len(found) > 1 else found.pop() if found else ""
    return shape


def _float_values(body: list, floats: set, counts: dict) -> set:
    """The names certainly holding floating values: `floats`, and names assigned once from
    arithmetic, dots and sums of them (and numbers)."""
    floats = set(floats)
    stmts = [s for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
             and counts.get(s.targets[0].id) == 1]
    changed = True
    while changed:
        changed = False
        for s in stmts:
            t, v = s.targets[0].id, s.value
            if t in floats:
                continue
            if isinstance(v, gast.BinOp) and isinstance(v.op, analysis.ARITH):
                ops = [v.left, v.right]
            elif isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.USub):
                ops = [v.operand]
            elif isinstance(v, gast.Call) and _float_of_floats(v) and v.args \
                    and not any(k.arg == "dtype" for k in v.keywords):
                ops = list(v.args)
            else:
                ops = [v] if isinstance(v, gast.Name) else None
            names = [o for o in ops or () if isinstance(o, gast.Name)]
            if ops and names and all(o.id in floats for o in names) and \
                    all(isinstance(o, gast.Name) or _number(o) for o in ops):
                floats.add(t)
                changed = True
    return floats


_REAL_CHECKS = frozenset(k for k, p in registry.PRIMS.items() if p.real_identity)


def _certainly_real(body: list, params, known: dict) -> bool:
    """Whether every value of `body` is real: its parameters are the float arrays `known` and
    numbers, it reads no other name (a global may be a complex array), and nothing in it makes a
    complex value (a complex literal, a dtype or cast, np.fft, np.emath)."""
    if set(params) - set(known):
        return False
    local = set(params) | {t for s in analysis.walk_stmts(body) for t in analysis.targets(s)} | {"xp", "rt"}
    for n in (n for s in body for n in gast.walk(s)):
        if isinstance(n, gast.Constant) and isinstance(n.value, complex) or isinstance(n, gast.keyword) \
                and n.arg == "dtype":
            return False
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in local:
            return False
        if isinstance(n, gast.Call):
            f = analysis.dotted(n.func) or ""
            p = registry.lookup(f)
            if p is None or p.dtype_cast or p.dtype_gate or f.startswith(("xp.fft.", "xp.emath.")):
                return False
    return True


def _float_of_floats(call) -> bool:
    """Whether a call is a product or a sum (linear full reduction), floating for floating operands."""
    p = registry.lookup(analysis.dotted(call.func))
    return p is not None and (p.maybe_scalar or p.full_reduction and bool(p.linear_in))


def _keep_taken(stmts: list, true: set) -> None:
    """Each `if` on a name in `true` becomes its body (recursively)."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                _keep_taken(getattr(s, field), true)
        if isinstance(s, gast.If) and isinstance(s.test, gast.Name) and s.test.id in true:
            out.extend(s.body)
        else:
            out.append(s)
    stmts[:] = out


def reduce_diagonal(body: list, primal: str, params, namer: Namer) -> list:
    """What the diagonal needs, less than the jvp computed (the optimization passes then merge equal
    values and drop dead ones), each step exact in IEEE arithmetic unless it says otherwise:

    - nested expressions become one operation per line, so that equal parts can merge;
    - `y ** 2` of a NumPy value is `y * y` (NumPy squares an array that way; for a NumPy scalar
      `y * y` is the correctly rounded square);
    - the operands of a product stand in name order (`a * b + b * a` merges into `p + p`);
    - a value that only fills or broadcasts to the input's shape (`rt.sum_vjp(1.0, x, None,
      False)`, `rt.broadcast_to_like(v, x)`) is its number or `v` when everything computed from
      it is elementwise: `rt.diag_jacobian` broadcasts the result to the input's shape at the end;
    - `n = -a; m = b * n; r = c + m` becomes `m = b * a; r = c - m` (each used once);
    - names assigned a number once are that number, and arithmetic of numbers is done;
    - a product of at most two names and numbers through single-use products is `(a * b) * c`
      with the numbers multiplied, when all but one are powers of two and every |c| >= 1 (scaling
      by a power of two rounds nothing; documented reassociation: an intermediate overflow, where
      `(a * 2) * b` is inf and `(a * b) * 2` may not be).

    Before::

        d_t0 = 1 - t0 * t0
        b_t1 = rt.sum_vjp(1.0, x, None, False)
        t1 = b_t1 * 3
        d_t2 = t1 * (d_t0 * 2 * t0)
        n = -d_t0
        d_t3 = d_t2 + t0 * d_t0 * n

    After (the passes then merge `u5` and `u3` and drop `b_t1`, `t1`, `u1`, `u2`, `n`)::

        u0 = t0 * t0
        d_t0 = 1 - u0
        b_t1 = 1.0
        t1 = 3.0
        u1 = d_t0 * 2
        u2 = t0 * u1
        u5 = d_t0 * t0
        d_t2 = u5 * 6.0
        n = d_t0
        u3 = d_t0 * t0
        u4 = d_t0 * u3
        d_t3 = d_t2 - u4
    """
    body = _flatten(body, namer)
    counts = analysis.assigned_counts(body, params)
    arrays = {t for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call)
              and (analysis.dotted(s.value.func) or "").startswith("xp.") for t in analysis.targets(s) if counts[t] == 1}
    for s in analysis.walk_stmts(body):
        v = getattr(s, "value", None)
        if not isinstance(s, gast.Assign) or not isinstance(v, gast.BinOp):
            continue
        if isinstance(v.op, gast.Pow) and isinstance(v.left, gast.Name) and v.left.id in arrays \
                and isinstance(v.right, gast.Constant) and type(v.right.value) is int and v.right.value == 2:
            s.value = v = build.binop(v.left, gast.Mult(), build.name(v.left.id))
        if isinstance(v.op, gast.Mult) and isinstance(v.left, gast.Name) and isinstance(v.right, gast.Name) \
                and v.left.id > v.right.id:
            v.left, v.right = v.right, v.left
    _drop_fills(body, primal, params)
    _sink_negations(body, params)
    _propagate_numbers(body, params)
    _collect_factors(body, params, namer)
    return body


def _propagate_numbers(body: list, params) -> None:
    """Names assigned once a number are that number where read, and arithmetic of two numbers is
    done (by Python, as the code would at run time), until nothing changes."""
    counts = analysis.assigned_counts(body, params)
    changed = True
    while changed:
        changed = False
        numbers = {}
        for s in analysis.walk_stmts(body):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1:
                v = s.value
                if isinstance(v, gast.BinOp) and type(v.op) in FOLD and _number(v.left) and _number(v.right):
                    s.value = v = build.const(FOLD[type(v.op)](v.left.value, v.right.value))
                    changed = True
                if _number(v):
                    numbers[s.targets[0].id] = v.value
        for s in analysis.walk_stmts(body):
            v = s.value if isinstance(s, gast.Assign) else None
            for field in ("left", "right", "operand"):
                o = getattr(v, field, None)
                if isinstance(o, gast.Name) and o.id in numbers:
                    setattr(v, field, build.const(numbers[o.id]))
                    changed = True


def _number(n) -> bool:
    return isinstance(n, gast.Constant) and type(n.value) in (int, float)


def _collect_factors(body: list, params, namer: Namer) -> None:
    """A product of at most two names and numbers, through single-use products, becomes
    `(a * b) * c` with the numbers multiplied (`t0 * (d * 2) * 3.0` -> `u = d * t0; u * 6.0`), so
    that `a * b` can merge with an equal product. Only where it is exact: every number is finite
    with |c| >= 1 and all but one are powers of two (scaling by those rounds nothing); the one
    reassociation is an intermediate overflow (`(a * 2) * b` is inf where `a * b * 2` may not be)."""
    uses: dict[str, int] = {}
    for s in analysis.walk_stmts(body):
        for n in gast.walk(s.value if isinstance(s, gast.Assign) else s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                uses[n.id] = uses.get(n.id, 0) + 1
    counts = analysis.assigned_counts(body, params)
    products = {s.targets[0].id: s.value for s in body if isinstance(s, gast.Assign)
                and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1
                and isinstance(s.value, gast.BinOp) and isinstance(s.value.op, gast.Mult)}
    out = []
    for s in body:
        v = products.get(s.targets[0].id) if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
            else None
        factors = _factors(v, products, uses, counts) if v is not None else None
        if factors is not None:
            names, numbers = factors
            odd = [c for c in numbers if not _power_of_two(c)]
            c = 1
            for k in numbers:
                c *= k
            if len(numbers) >= 2 and 1 <= len(names) <= 2 and len(odd) <= 1 \
                    and all(abs(k) >= 1 and k == k and abs(k) != float("inf") for k in numbers):
                names = sorted(names)
                if len(names) == 2:
                    p = namer.fresh("u")
                    out.append(build.assign(p, build.binop(build.name(names[0]), gast.Mult(), build.name(names[1]))))
                    names = [p]
                s.value = build.binop(build.name(names[0]), gast.Mult(), build.const(c))
        out.append(s)
    body[:] = out


def _factors(v, products, uses, counts):
    """(names, numbers) multiplied in product `v`, through names that are single-use products."""
    names, numbers = [], []
    for o in (v.left, v.right):
        if isinstance(o, gast.Constant) and type(o.value) in (int, float):
            numbers.append(o.value)
        elif isinstance(o, gast.Name) and o.id in products and uses.get(o.id) == 1:
            inner = _factors(products[o.id], products, uses, counts)
            if inner is None:
                return None
            names += inner[0]
            numbers += inner[1]
        elif isinstance(o, gast.Name) and counts.get(o.id, 0) <= 1:
            names.append(o.id)
        else:
            return None
    return names, numbers


def _power_of_two(c) -> bool:
    m = abs(float(c))
    return m != 0 and m != float("inf") and m == m and float.hex(m).startswith("0x1.0000000000000p")


def _sink_negations(body: list, params) -> None:
    """`n = -a; m = b * n; r = c + m` (each used once, in that order) becomes `m = b * a; r = c - m`
    (and `c - m` becomes `c + m`): one operation less, equal in IEEE arithmetic, where
    `c + -y` is `c - y` and `b * -a` is `-(b * a)`."""
    stmts = [s for s in analysis.walk_stmts(body) if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    uses: dict[str, list] = {}
    for s in analysis.walk_stmts(body):
        for n in gast.walk(s.value if isinstance(s, gast.Assign) else s):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                uses.setdefault(n.id, []).append(s)
    counts = analysis.assigned_counts(body, params)
    defs = {s.targets[0].id: s for s in stmts}
    for neg in stmts:
        v, n = neg.value, neg.targets[0].id
        if not (isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.USub) and isinstance(v.operand, gast.Name)) \
                or counts[n] != 1 or len(uses.get(n, ())) != 1:
            continue
        prod = uses[n][0]
        m = prod.targets[0].id if prod in stmts else None
        if m is None or counts[m] != 1 or len(uses.get(m, ())) != 1 or not _product_of(prod.value, n) \
                or counts.get(v.operand.id, 0) > 1:
            continue
        total = uses[m][0]
        tv = total.value if total in stmts else None
        if not isinstance(tv, gast.BinOp) or not isinstance(tv.op, (gast.Add, gast.Sub)) \
                or build.names_in(tv.left) & build.names_in(tv.right) or defs.get(m) is not prod:
            continue
        if isinstance(tv.op, gast.Add) and isinstance(tv.right, gast.Name) and tv.right.id == m:
            tv.op = gast.Sub()
        elif isinstance(tv.op, gast.Add) and isinstance(tv.left, gast.Name) and tv.left.id == m:
            tv.left, tv.right, tv.op = tv.right, tv.left, gast.Sub()
        elif isinstance(tv.op, gast.Sub) and isinstance(tv.right, gast.Name) and tv.right.id == m:
            tv.op = gast.Add()
        else:
            continue
        for side in ("left", "right"):
            if isinstance(getattr(prod.value, side), gast.Name) and getattr(prod.value, side).id == n:
                setattr(prod.value, side, build.name(v.operand.id))
        neg.value = build.name(v.operand.id)  # now dead (or a copy), for the passes to remove


def _product_of(v, n: str) -> bool:
    """Whether `v` is a product with the name `n` as exactly one operand."""
    return isinstance(v, gast.BinOp) and isinstance(v.op, gast.Mult) and \
        [isinstance(o, gast.Name) and o.id == n for o in (v.left, v.right)].count(True) == 1


def _flatten(stmts: list, namer: Namer) -> list:
    """`stmts` with each nested operand of an assigned operation computed on a line before it."""
    out: list = []
    for s in stmts:
        for field in ("body", "orelse"):
            if getattr(s, field, None):
                setattr(s, field, _flatten(getattr(s, field), namer))
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            s.value = _operands_named(s.value, out, namer)
        out.append(s)
    return out


def _operands_named(e, out: list, namer: Namer):
    if isinstance(e, gast.BinOp):
        e.left, e.right = _named(e.left, out, namer), _named(e.right, out, namer)
    elif isinstance(e, gast.UnaryOp):
        e.operand = _named(e.operand, out, namer)
    elif isinstance(e, gast.Call) and not any(isinstance(a, gast.Starred) for a in e.args):
        e.args = [_named(a, out, namer) for a in e.args]
    return e


def _named(e, out: list, namer: Namer):
    if not isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Call)):
        return e
    e = _operands_named(e, out, namer)
    t = namer.fresh("u")
    out.append(build.assign(t, e))
    return build.name(t)


_ARITH = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def _drop_fills(body: list, primal: str, params) -> None:
    """Fills of the input's shape replaced by what they fill (see `reduce_diagonal`), when every
    value computed from them is elementwise and assigned once; else nothing changes."""
    counts = analysis.assigned_counts(body, params)
    fills = {}
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and counts[s.targets[0].id] == 1:
            fill = _fill_of(s.value, primal)
            if fill is not None:
                fills[s.targets[0].id] = fill
    derived = set(fills)
    grew = bool(fills)
    while grew:
        grew = False
        for s in analysis.walk_stmts(body):
            if isinstance(s, (gast.If, gast.For, gast.While)):
                if build.names_in(s.test if not isinstance(s, gast.For) else s.iter) & derived:
                    return
                continue
            if isinstance(s, gast.Return) or not build.names_in(s.value if isinstance(s, gast.Assign) else s) & derived:
                continue
            t = s.targets[0] if isinstance(s, gast.Assign) else None
            if not isinstance(t, gast.Name) or counts[t.id] != 1 or not _elementwise(s.value, derived, primal):
                return
            if t.id not in derived:
                derived.add(t.id)
                grew = True
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id in fills:
            s.value = fills[s.targets[0].id]


def _fill_of(v, primal: str):
    """What `v` fills the input's shape with (a number, or a name), or None."""
    k = analysis.classify(v) if isinstance(v, gast.Call) else None
    if k is None or v.keywords or not v.args or not (isinstance(v.args[1], gast.Name) if len(v.args) > 1 else False) \
            or v.args[1].id != primal:
        return None
    if k == "rt.sum_vjp" and len(v.args) == 4 and isinstance(v.args[0], gast.Constant) \
            and type(v.args[0].value) in (int, float) and all(
                isinstance(a, gast.Constant) and a.value in (None, False) for a in v.args[2:]) \
            and v.args[2].value is None and v.args[3].value is False:
        return build.const(v.args[0].value)
    if k == "rt.broadcast_to_like" and len(v.args) == 2 and isinstance(v.args[0], (gast.Name, gast.Constant)):
        return v.args[0]
    return None


def _elementwise(v, derived, primal: str) -> bool:
    """Whether right-hand side `v` is an elementwise operation (so it commutes with broadcasting),
    with no derived value as a shape source."""
    if isinstance(v, (gast.Name, gast.Constant)):
        return True
    if isinstance(v, gast.BinOp):
        return isinstance(v.op, _ARITH)
    if isinstance(v, gast.UnaryOp):
        return isinstance(v.op, (gast.USub, gast.UAdd))
    if not isinstance(v, gast.Call) or v.keywords:
        return False
    k = analysis.classify(v)
    if k == "rt.broadcast_to_like":
        return len(v.args) == 2 and isinstance(v.args[1], gast.Name) and v.args[1].id == primal
    rule = registry.BATCH.get(k)
    return k.startswith("xp.") and rule is not None and rule.kind in ("same", "broadcast")


def _cut_branches(stmts, dep) -> None:
    """Each branch of an `if` (on a condition free of the tangent) that passes a tangent value to
    another function becomes `rt.not_diagonal()`."""
    for s in stmts:
        if isinstance(s, gast.If) and not build.names_in(s.test) & dep:
            for field in ("body", "orelse"):
                branch = getattr(s, field)
                if any(isinstance(t, gast.Assign) and analysis.classify(t.value) == "call" and build.names_in(t.value) & dep
                       for t in analysis.walk_stmts(branch)):
                    setattr(s, field, [build.expr_stmt(build.call("rt.not_diagonal"))])
                else:
                    _cut_branches(branch, dep)


def _diag_value(value, diag, dep) -> bool:
    """Whether right-hand side `value` (nested expressions too: the optimized jvp) keeps the
    diagonal structure: it depends on the tangent only through diagonal values ("diag"), or is
    the literal zero."""
    if isinstance(value, gast.Constant):
        return value.value == 0 and not isinstance(value.value, bool)
    return _diag(value, diag, dep) == "diag"


def _diag(e, diag, dep) -> str:
    """"diag" (zero off the basis vector's position), "free" (independent of the tangent) or "bad"."""
    if not any(n in dep for n in build.names_in(e)):
        return "free"
    if isinstance(e, gast.Name):
        return "diag" if e.id in diag else "bad"
    kind = analysis.classify(e) if isinstance(e, (gast.BinOp, gast.UnaryOp, gast.Call)) else None
    p = _prim(kind)
    same, arith = p is not None and p.diag == "same", p.arith if p is not None else ""
    if isinstance(e, gast.UnaryOp):
        return _diag(e.operand, diag, dep) if same else "bad"
    if isinstance(e, gast.BinOp) or arith and len(e.args) == 2 and not e.keywords:
        left, right = (e.left, e.right) if isinstance(e, gast.BinOp) else e.args
        a, b = _diag(left, diag, dep), _diag(right, diag, dep)
        if "bad" in (a, b):
            return "bad"
        if arith == "*":
            return "diag"
        if arith == "/":
            return "diag" if b == "free" else "bad"
        return "diag" if arith in ("+", "-") and a == b == "diag" else "bad"
    zero = p is not None and p.diag == "zero"
    if not isinstance(e, gast.Call) or e.keywords and not zero:
        return "bad"
    if zero:
        return "diag"
    if (q := _diag_form_of(kind)) is not None and len(e.args) == 4:  # rt.dot_vjp_*_diag: v*b (v*a) or a refusal
        parts = [_diag(a, diag, dep) for a in e.args]
        tangent_at = 3 - q.cotangent_of
        ok = parts[tangent_at] == "diag" and all(p == "free" for k, p in enumerate(parts) if k != tangent_at)
        return "diag" if ok else "bad"
    if same and e.args:
        rest = [_diag(a, diag, dep) for a in e.args[1:]]
        return _diag(e.args[0], diag, dep) if all(r == "free" for r in rest) else "bad"
    if kind == "xp.where" and len(e.args) == 3:
        cond, a, b = e.args
        ok = all(_diag(v, diag, dep) == "diag" or isinstance(v, gast.Constant) and v.value == 0 for v in (a, b))
        return "diag" if ok and _diag(cond, diag, dep) == "free" else "bad"
    return "bad"
