"""Jacobians and linear maps as generated core-form code that calls the jvp or the split vjp of
the function.

Batched (the default): jacfwd is the jvp batched over the whole input basis (`rt.basis_stack`),
jacrev one forward sweep and its backward sweep batched over the whole output basis, so that
hessian = jacfwd(jacrev) is one batched pass, not n passes. When the jvp's tangent is elementwise
in the input's tangent (every op on it keeps positions apart), the Jacobian is diagonal: the jvp
specialized to the tangent 1 gives it (diagonal.py; `rt.diag_jacobian` checks its shape at run
time, and falls back to the basis where it refuses). A jacrev whose output is a dot, inner or
matmul is the gradient when that output is a floating scalar at run time (`scalar_or_rows_fn`).
Looped (the fallback when the function cannot be batched): one jvp per column or one backward
sweep per row.
"""
from __future__ import annotations

import copy
from collections.abc import Callable

import gast

from ...base import record
from ...errors import S2SValueError, shown_path
from .. import analysis
from ..analysis import raising
from ..ir import build
from ..ir.core import CoreFn
from ..ir.names import Namer
from . import complex_checks
from .base import Callees, GeneratedFn, header_for
from .diagonal import diagonal_fn, raises_nothing
from .reverse import Reverse, holomorphic_output, scalar_names


def jacobian_fn(kind: str, fun, core: CoreFn, argnums, nums: tuple, has_aux: bool, calls: Callees) -> GeneratedFn:
    """jacfwd/jacrev as generated core-form code: a loop of jvp (columns) or vjp (rows) calls.

    With `has_aux`, `fun` returns `(out, aux)`: the Jacobian is of `out`, and `aux` is returned
    beside it, as in JAX.
    """
    params = core.params
    namer = Namer(set(params) | {"xp", "rt"})
    ns: dict = {}
    body: list = []
    results = []
    aux = namer.fresh("aux")

    def split_aux(pair, first):
        """`first, aux = pair` when the function returns a pair, else `first = pair`."""
        target = build.tuple_([build.name(first), build.name(aux)], store_=True) if has_aux else build.name(first,
                                                                                                            store=True)
        return build.assign(target, build.name(pair))

    for i in nums:
        mask = tuple(j == i for j in range(len(params)))
        k, acc, res, out, jac = (namer.fresh(b) for b in ("k", "parts", "res", "out", "jac"))
        loop_body = []
        if kind == "jacfwd":
            jf = namer.exact(f"jvp_{core.name}")
            ns[jf] = calls.jvp(fun, mask)
            e, tres, t, n = namer.fresh("e"), namer.fresh("tres"), namer.fresh("col"), namer.fresh("n")
            body.append(build.assign(n, build.call("rt.tree_size", [build.name(params[i])])))
            loop_body += [build.assign(e, build.call("rt.basis", [build.name(params[i]), build.name(k)])),
                          build.assign(build.tuple_([build.name(res), build.name(tres)], store_=True),
                                   build.call(build.name(jf), [build.name(p) for p in params] + [build.name(e)])),
                          split_aux(res, out),
                          build.assign(t, build.subscript(build.name(tres), build.const(0))) if has_aux else build.assign(t,
                              build.name(tres)),
                          build.expr_stmt(build.call(build.attr(build.name(acc), "append"), [build.name(t)]))]
            body.append(build.assign(acc, build.list_([])))
            body.append(build.for_range(k, [build.name(n)], loop_body))
            body.append(build.assign(jac, build.call("rt.jac_from_columns", [build.name(acc), build.name(out),
                                                                     build.name(params[i])])))
        else:
            fwd, bwd = calls.split(fun, mask)
            fname, bname = namer.exact(f"fwd_{core.name}"), namer.exact(f"bwd_{core.name}")
            ns[fname], ns[bname] = fwd, bwd
            saved, m, e, seed, cts, row = (namer.fresh(b) for b in ("saved", "m", "e", "seed", "cts", "row"))
            body.append(build.assign(build.tuple_([build.name(res), build.name(saved)], store_=True),
                                 build.call(build.name(fname), [build.name(p) for p in params])))
            body.append(split_aux(res, out))
            body.extend(_real_output(core, out, namer, calls))
            body.append(build.assign(m, build.call("rt.tree_size", [build.name(out)])))
            body.append(build.assign(acc, build.list_([])))
            loop_body += [build.assign(e, build.call("rt.basis", [build.name(out), build.name(k)])),
                          build.assign(seed, build.tuple_([build.name(e), build.call("rt.zeros_like_tree",
                                                                                     [build.name(aux)])]))
                          if has_aux else build.assign(seed, build.name(e)),
                          build.assign(cts, build.call(build.name(bname), [build.name(saved), build.name(seed)])),
                          build.assign(row, build.call("rt.real_cotangent", [build.subscript(build.name(cts),
                                                                             build.const(i)), build.name(params[i])])),
                          build.expr_stmt(build.call(build.attr(build.name(acc), "append"), [build.name(row)]))]
            body.append(build.for_range(k, [build.name(m)], loop_body))
            body.append(build.assign(jac, build.call("rt.jac_from_rows", [build.name(acc), build.name(out),
                                                                          build.name(params[i])])))
        results.append(build.name(jac))
    result = results[0] if isinstance(argnums, int) else _nested(results, [params[i] for i in nums])
    body.append(build.ret(build.tuple_([result, build.name(aux)]) if has_aux else result))
    name = namer.exact(f"{kind}_{core.name}")
    return GeneratedFn(name, build.function(name, params, body), ns, core.filename,
                       header_for(kind, core, f"wrt argument {argnums}"))


def _nested(results: list, xs: list) -> gast.expr:
    """The Jacobians wrt several arguments nested as JAX's: output first, then argument."""
    return build.call("rt.jac_nest", [build.tuple_(results), build.tuple_([build.name(x) for x in xs])])


def linear_map_fn(kind: str, fun, core: CoreFn, nargs: int, direction, calls: Callees,
                  defaults: tuple = ()) -> GeneratedFn:
    """A generated, further-transformable function of the primals: `a -> jvp(fun, a, direction)[1]`
    (kind "jvp", direction = tangents) or `a -> vjp(fun, *a)[1](direction)` (kind "vjp").
    `defaults` are the values of the parameters after the first `nargs` (not differentiated)."""
    namer = Namer(set(core.params) | {"xp", "rt"})
    params = [namer.fresh("a") for _ in range(nargs)]
    ns: dict = {}
    body = []
    extra = []
    for value in defaults:
        extra.append(namer.fresh("default"))
        ns[extra[-1]] = value
    mask = (True,) * nargs + (False,) * len(defaults)
    if kind == "jvp":
        jf = namer.exact(f"jvp_{core.name}")
        ns[jf] = calls.jvp(fun, mask)
        tans = []
        for t in direction:
            tans.append(namer.fresh("v"))
            ns[tans[-1]] = t
        out, tan = namer.fresh("out"), namer.fresh("tangent")
        body.append(build.assign(build.tuple_([build.name(out), build.name(tan)], store_=True),
                             build.call(build.name(jf),
                                        [build.name(p) for p in params + extra] + [build.name(t) for t in tans])))
        body.append(build.ret(build.name(tan)))
    else:
        fwd, bwd = calls.split(fun, mask)
        fname, bname, u = namer.exact(f"fwd_{core.name}"), namer.exact(f"bwd_{core.name}"), namer.exact("u")
        ns.update({fname: fwd, bname: bwd, u: direction})
        out, saved, cts = namer.fresh("out"), namer.fresh("saved"), namer.fresh("cts")
        body.append(build.assign(build.tuple_([build.name(out), build.name(saved)], store_=True),
                             build.call(build.name(fname), [build.name(p) for p in params + extra])))
        body.append(build.assign(cts, build.call(build.name(bname), [build.name(saved), build.name(u)])))
        # (a list primal's cotangent is a list, as vjp's: s2s/api/arg_structure.py)
        body.append(build.ret(build.call("rt.restructure", [build.name(cts), build.tuple_([build.name(p)
                                                                                          for p in params])])))
    name = namer.exact(f"{kind}_of_{core.name}")
    return GeneratedFn(name, build.function(name, params, body), ns, core.filename, header_for(kind, core))


# ---------------------------------------------------------------- batched Jacobians

def certainly_scalar(core: CoreFn) -> bool:
    """Whether `core` returns a full reduction (sum/mean/max of an array, assigned once), or
    elementwise arithmetic of such reductions and numbers (`np.sum(x) ** 2`, `np.sqrt(np.sum(r *
    r)) / n`): then jacrev is its gradient, one backward sweep."""
    body = core.node.body
    returns = [s for s in analysis.walk_stmts(body) if isinstance(s, gast.Return)]
    if len(returns) != 1 or body[-1] is not returns[0] or not isinstance(returns[0].value, gast.Name):
        return False
    return returns[0].value.id in scalar_names(core)  # (assigned once, so that value is returned)


def possibly_scalar(core: CoreFn) -> bool:
    """Whether `core` returns a product that is a scalar when its operands are vectors (dot, inner,
    matmul or @, assigned once), or arithmetic of such products, reductions and numbers
    (`np.dot(x, x) * 2.75`): then jacrev tries its gradient first (`scalar_or_rows_fn`)."""
    body = core.node.body
    ret = body[-1] if body else None
    if not isinstance(ret, gast.Return) or not isinstance(ret.value, gast.Name) \
            or sum(isinstance(s, gast.Return) for s in analysis.walk_stmts(body)) != 1:
        return False
    return ret.value.id in scalar_names(core, products=True)


def scalar_or_rows_fn(core: CoreFn, argnums, nums: tuple, calls: Callees, rows) -> GeneratedFn:
    """jacrev of a function whose output may be a scalar: after the forward sweep, the backward
    sweep seeded with 1 (the gradient) when the output is a floating scalar, else `rows(*params)`
    (the general Jacobian, which runs the function again). So hessian(dot(x, x)) is
    forward-over-gradient, with no loop or batch over a one-element output basis."""
    rev = Reverse(core, [core.params[i] for i in nums], calls)
    sw = rev.run(lambda out: build.call("rt.seed", [out]))
    if rev.restores or not isinstance(sw.out, gast.Name):
        raise S2SValueError("jacrev: the output is updated in place; no scalar shortcut")
    picked = [build.call("rt.real_cotangent", [sw.grads[i], build.name(core.params[i])]) for i in nums]
    gout = picked[0] if isinstance(argnums, int) else build.tuple_(picked)
    ok, jac = rev.namer.fresh("scalar"), rev.namer.fresh("jac")
    rname = rev.namer.exact(f"jacrev_rows_{core.name}")
    general = [build.assign(jac, build.call(build.name(rname), [build.name(p) for p in core.params]))]
    body = sw.init + sw.forward + [build.assign(ok, build.call("rt.scalar_output", [sw.out])),
                                   build.if_(build.name(ok), sw.seed + sw.backward + [build.assign(jac, gout)], general),
                                   build.ret(build.name(jac))]
    name = rev.namer.exact(f"jacrev_{core.name}")
    return GeneratedFn(name, build.function(name, core.params, body), {**core.ns, **rev.ns, rname: rows},
                       core.filename, header_for("jacrev", core, f"wrt argument {argnums} (the gradient "
                                                                  "when the output is a scalar)"))


TANGENT_PREFIX = "tangent_of_"  # (a tangent function's name: vmap inlines its callees keeping their checks)


def tangent_fn(jvp_core: tuple, has_aux: bool) -> GeneratedFn:
    """The jvp function (node, ns, filename) returning only its tangent (of `out` when the function
    returns `(out, aux)`); what the primal output alone needs becomes dead code."""
    node, ns, filename = jvp_core
    node = copy.deepcopy(node)
    last = node.body[-1] if node.body else None
    if not isinstance(last, gast.Return) or not isinstance(last.value, gast.Tuple) or len(last.value.elts) != 2 \
            or sum(isinstance(s, gast.Return) for s in analysis.walk_stmts(node.body)) != 1:
        raise S2SValueError("jacfwd: the jvp has no single final `return (out, tangent)` to batch")
    tan = last.value.elts[1]
    namer = Namer(build.names_in(node))
    if has_aux:
        t = namer.fresh("t")
        node.body[-1:] = [build.assign(t, build.subscript(tan, build.const(0))), build.ret(build.name(t))]
    else:
        node.body[-1] = build.ret(tan)
    raising.checked(node.body)  # (`a op= v` of the primal still raises where NumPy does)
    name = namer.exact(f"{TANGENT_PREFIX}{node.name}")
    header = f"s2s: the tangent alone of {node.name} ({shown_path(filename)})"
    node.name = name
    return GeneratedFn(name, node, ns, filename, header)


def batched_jacobian_fn(kind: str, fun, core: CoreFn, argnums, nums: tuple, has_aux: bool, calls: Callees,
                        tangent: Callable, compile_: Callable, ranks: dict | None = None) -> GeneratedFn:
    """jacfwd/jacrev as one batched call: `tangent(fun, mask, has_aux)` gives the tangent-only jvp
    (compiled), `compile_` compiles a generated wrapper; `calls.batch` batches either. `ranks`:
    the ranks of the parameters that are float NumPy arrays, when the version is specialized."""
    params = core.params
    namer = Namer(set(params) | {"xp", "rt"})
    ns: dict = {}
    body: list = []
    args = [build.name(p) for p in params]
    if kind == "jacfwd":
        results = [_forward_block(fun, core, i, has_aux, calls, tangent, compile_, namer, ns, body, ranks or {})
                   for i in nums]
        aux = None
        if has_aux:
            f, res, out, aux = namer.exact("fun"), namer.fresh("res"), namer.fresh("out"), namer.fresh("aux")
            ns[f] = fun
            body += [build.assign(res, build.call(build.name(f), args)),
                     build.assign(build.tuple_([build.name(out), build.name(aux)], store_=True), build.name(res))]
    else:
        results, aux = _reverse_block(fun, core, nums, has_aux, calls, compile_, namer, ns, body)
    result = build.name(results[0]) if isinstance(argnums, int) else \
        _nested([build.name(r) for r in results], [params[i] for i in nums])
    body.append(build.ret(build.tuple_([result, build.name(aux)]) if has_aux else result))
    name = namer.exact(f"{kind}_{core.name}")
    given = ", ".join(f"{p} a float array of rank {r}" for p, r in (ranks or {}).items())
    return GeneratedFn(name, build.function(name, params, body), ns, core.filename,
                       header_for(kind, core, f"wrt argument {argnums} ({given or 'batched over the basis'})"))


def _forward_block(fun, core, i, has_aux, calls, tangent, compile_, namer, ns, body, ranks) -> str:
    """The Jacobian wrt parameter `i`: the diagonal from one jvp along ones when the tangent is
    elementwise (and its shape the input's), else the jvp batched over the input basis. With the
    ranks of float array parameters known, a diagonal that is a number is filled in directly."""
    params = core.params
    mask = tuple(j == i for j in range(len(params)))
    tf = tangent(fun, mask, has_aux)
    batched = calls.batch(tf, (False,) * len(params) + (True,))
    bname = namer.exact(f"vmap_tangent_{core.name}")
    ns[bname] = batched
    x = build.name(params[i])
    e, cols, jac = namer.fresh("basis"), namer.fresh("cols"), namer.fresh("jac")
    full = [build.assign(e, build.call("rt.basis_stack", [x])),
            build.assign(cols, build.call(build.name(bname), [build.name(p) for p in params] + [build.name(e)])),
            build.assign(jac, build.call("rt.jac_from_batch_cols", [build.name(cols), x]))]
    tnode = _record_core(tf)
    dname = namer.exact(f"diagonal_{core.name}")
    dnode = diagonal_fn(tnode, tnode.args.args[-1].id, params[i], dname, ranks) if tnode is not None else None
    if dnode is None:
        body.extend(full)
        return jac
    gen = GeneratedFn(dname, dnode, dict(record.of(tf).core[1]), core.filename,
                      header_for("jacfwd", core, f"the diagonal of the Jacobian wrt argument {i}"))
    diagonal = compile_(gen, optimized=True)
    number = _number_returned(diagonal, params[i]) if params[i] in ranks else None
    if number is not None:  # the same at every input: no run-time test is left
        body.append(build.assign(jac, build.call("rt.diag_const", [x, build.const(number)])))
        return jac
    ns[dname] = diagonal
    miss = namer.fresh("missing")
    args = [build.name(p) for p in params]
    if params[i] in ranks and raises_nothing(_record_core(diagonal), ranks):  # a plain call, which jit inlines
        d = namer.fresh("diagonal")
        body += [build.assign(d, build.call(build.name(dname), args)),
                 build.assign(jac, build.call("rt.diag_of_vector" if ranks[params[i]] == 1 else "rt.diag_matrix",
                                              [build.name(d), x]))]
    else:
        body.append(build.assign(jac, build.call("rt.diag_jacobian", [build.name(dname), x] + args)))
    body += [build.assign(miss, build.is_none(build.name(jac))), build.if_(build.name(miss), full)]
    return jac


def _number_returned(fn, real: str):
    """The finite number generated `fn` returns whatever its arguments, if its code is just that
    (or that number's `rt.real_cotangent` for the float array `real`, which is the number)."""
    node = _record_core(fn)
    stmts = [s for s in node.body if not isinstance(s, gast.Delete) and not build.is_comment(s)] if node is not None else []
    if len(stmts) == 2 and isinstance(stmts[0], gast.Assign) and isinstance(stmts[1], gast.Return) \
            and isinstance(stmts[1].value, gast.Name) and isinstance(stmts[0].targets[0], gast.Name) \
            and stmts[0].targets[0].id == stmts[1].value.id and isinstance(v := stmts[0].value, gast.Call) \
            and analysis.dotted(v.func) == "rt.real_cotangent" and len(v.args) == 2 \
            and isinstance(v.args[1], gast.Name) and v.args[1].id == real:
        stmts = [build.ret(v.args[0])]
    if len(stmts) == 1 and isinstance(stmts[0], gast.Return) and isinstance(stmts[0].value, gast.Constant):
        c = stmts[0].value.value
        if type(c) in (int, float) and c - c == 0:
            return c
    return None


def _record_core(fn):
    """The core-form node a compiled generated function carries (None if it has none)."""
    rec = record.of(fn)
    return rec.core[0] if rec is not None and rec.core is not None else None


def _reverse_block(fun, core, nums, has_aux, calls, compile_, namer, ns, body):
    """One forward sweep, then its backward sweep batched over the output basis: the rows of every
    Jacobian wrt `nums` at once."""
    params = core.params
    mask = tuple(j in nums for j in range(len(params)))
    fwd, bwd = calls.split(fun, mask)
    fname = namer.exact(f"fwd_{core.name}")
    ns[fname] = fwd
    rows_fn = compile_(_rows_fn(core, bwd, nums, has_aux))
    rname = namer.exact(f"vmap_rows_{core.name}")
    ns[rname] = calls.batch(rows_fn, (False, True, False) if has_aux else (False, True))
    res, saved, out, e, rows = (namer.fresh(b) for b in ("res", "saved", "out", "basis", "rows"))
    aux = namer.fresh("aux") if has_aux else None
    call = build.call(build.name(fname), [build.name(p) for p in params])
    body.append(build.assign(build.tuple_([build.name(res), build.name(saved)], store_=True), call))
    body.append(build.assign(build.tuple_([build.name(out), build.name(aux)], store_=True), build.name(res)) if has_aux
                else build.assign(out, build.name(res)))
    body.extend(_real_output(core, out, namer, calls))
    body.append(build.assign(e, build.call("rt.basis_stack", [build.name(out)])))
    body.append(build.assign(rows, build.call(build.name(rname), [build.name(saved), build.name(e)] + ([build.name(aux)]
                                                                                                       if has_aux else []))))
    results = []
    for k, i in enumerate(nums):
        r, jac = namer.fresh("row"), namer.fresh("jac")
        body.append(build.assign(r, build.call("rt.real_cotangent", [build.subscript(build.name(rows), build.const(k)),
                                                                     build.name(params[i])])))
        body.append(build.assign(jac, build.call("rt.jac_from_batch_rows", [build.name(r), build.name(out),
                                                                            build.name(params[i])])))
        results.append(jac)
    return results, aux


def _real_output(core, out: str, namer, calls=None) -> list:
    """JAX's check that jacrev's output is real (`rt.real_result`), where it may be complex whatever
    the arguments' dtypes (complex_checks.py); not for the function a `holomorphic=True` jacrev
    differentiates, whose output is checked to be complex."""
    if holomorphic_output(core) or not complex_checks.Fact(core, None, calls).output():
        return []
    return [build.assign(namer.fresh("real"), build.call("rt.real_result", [build.name(out), build.const("jacrev")]))]


def _rows_fn(core, bwd, nums, has_aux) -> GeneratedFn:
    """`rows(saved, e[, aux])`: the backward sweep's cotangents for seed `e` (aux's seed zero), as a
    tuple over `nums`: what is batched over the output basis."""
    namer = Namer({"xp", "rt"})
    saved, e, aux = namer.exact("saved"), namer.exact("e"), namer.exact("aux")
    bname = namer.exact(f"bwd_{core.name}")
    seed, cts, rows = namer.fresh("seed"), namer.fresh("cts"), namer.fresh("rows")
    body = []
    if has_aux:
        z = namer.fresh("zero")
        body += [build.assign(z, build.call("rt.zeros_like_tree", [build.name(aux)])),
                 build.assign(seed, build.tuple_([build.name(e), build.name(z)]))]
    else:
        body.append(build.assign(seed, build.name(e)))
    body.append(build.assign(cts, build.call(build.name(bname), [build.name(saved), build.name(seed)])))
    picked = []
    for i in nums:
        picked.append(namer.fresh("row"))
        body.append(build.assign(picked[-1], build.subscript(build.name(cts), build.const(i))))
    body.append(build.assign(rows, build.tuple_([build.name(p) for p in picked])))
    body.append(build.ret(build.name(rows)))
    params = [saved, e] + ([aux] if has_aux else [])
    name = namer.exact(f"rows_{core.name}")
    return GeneratedFn(name, build.function(name, params, body), {bname: bwd}, core.filename,
                       header_for("jacrev", core, "rows of the backward sweep"))
