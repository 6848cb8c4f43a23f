"""Jacobians and linear maps as generated core-form code that calls the jvp or the split vjp of
the function: a loop of jvp calls (columns, jacfwd) or of backward sweeps (rows, jacrev)."""
from __future__ import annotations

from ..ir import build as A
from ..ir.core import CoreFn
from ..ir.names import Namer
from .base import Callees, GeneratedFn, header_for


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
        target = A.tuple_([A.name(first), A.name(aux)], store_=True) if has_aux else A.name(first, store=True)
        return A.assign(target, A.name(pair))

    for i in nums:
        mask = tuple(j == i for j in range(len(params)))
        k, acc, res, out, jac = (namer.fresh(b) for b in ("k", "parts", "res", "out", "jac"))
        loop_body = []
        if kind == "jacfwd":
            jf = namer.exact(f"jvp_{core.name}")
            ns[jf] = calls.jvp(fun, mask)
            e, tres, t, n = namer.fresh("e"), namer.fresh("tres"), namer.fresh("col"), namer.fresh("n")
            body.append(A.assign(n, A.call("rt.tree_size", [A.name(params[i])])))
            loop_body += [A.assign(e, A.call("rt.basis", [A.name(params[i]), A.name(k)])),
                          A.assign(A.tuple_([A.name(res), A.name(tres)], store_=True),
                                   A.call(A.name(jf), [A.name(p) for p in params] + [A.name(e)])),
                          split_aux(res, out),
                          A.assign(t, A.subscript(A.name(tres), A.const(0))) if has_aux else A.assign(t, A.name(tres)),
                          A.expr_stmt(A.call(A.attr(A.name(acc), "append"), [A.name(t)]))]
            body.append(A.assign(acc, A.list_([])))
            body.append(A.for_range(k, [A.name(n)], loop_body))
            body.append(A.assign(jac, A.call("rt.jac_from_columns", [A.name(acc), A.name(out),
                                                                     A.name(params[i])])))
        else:
            fwd, bwd = calls.split(fun, mask)
            fname, bname = namer.exact(f"fwd_{core.name}"), namer.exact(f"bwd_{core.name}")
            ns[fname], ns[bname] = fwd, bwd
            saved, m, e, seed, cts, row = (namer.fresh(b) for b in ("saved", "m", "e", "seed", "cts", "row"))
            body.append(A.assign(A.tuple_([A.name(res), A.name(saved)], store_=True),
                                 A.call(A.name(fname), [A.name(p) for p in params])))
            body.append(split_aux(res, out))
            body.append(A.assign(m, A.call("rt.tree_size", [A.name(out)])))
            body.append(A.assign(acc, A.list_([])))
            loop_body += [A.assign(e, A.call("rt.basis", [A.name(out), A.name(k)])),
                          A.assign(seed, A.tuple_([A.name(e), A.call("rt.zeros_like_tree", [A.name(aux)])]))
                          if has_aux else A.assign(seed, A.name(e)),
                          A.assign(cts, A.call(A.name(bname), [A.name(saved), A.name(seed)])),
                          A.assign(row, A.subscript(A.name(cts), A.const(i))),
                          A.expr_stmt(A.call(A.attr(A.name(acc), "append"), [A.name(row)]))]
            body.append(A.for_range(k, [A.name(m)], loop_body))
            body.append(A.assign(jac, A.call("rt.jac_from_rows", [A.name(acc), A.name(out), A.name(params[i])])))
        results.append(A.name(jac))
    result = results[0] if isinstance(argnums, int) else A.tuple_(results)
    body.append(A.ret(A.tuple_([result, A.name(aux)]) if has_aux else result))
    name = namer.exact(f"{kind}_{core.name}")
    return GeneratedFn(name, A.function(name, params, body), ns, core.filename,
                       header_for(kind, core, f"wrt argument {argnums}"))


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
        body.append(A.assign(A.tuple_([A.name(out), A.name(tan)], store_=True),
                             A.call(A.name(jf), [A.name(p) for p in params + extra] + [A.name(t) for t in tans])))
        body.append(A.ret(A.name(tan)))
    else:
        fwd, bwd = calls.split(fun, mask)
        fname, bname, u = namer.exact(f"fwd_{core.name}"), namer.exact(f"bwd_{core.name}"), namer.exact("u")
        ns.update({fname: fwd, bname: bwd, u: direction})
        out, saved, cts = namer.fresh("out"), namer.fresh("saved"), namer.fresh("cts")
        body.append(A.assign(A.tuple_([A.name(out), A.name(saved)], store_=True),
                             A.call(A.name(fname), [A.name(p) for p in params + extra])))
        body.append(A.assign(cts, A.call(A.name(bname), [A.name(saved), A.name(u)])))
        body.append(A.ret(A.name(cts)))
    name = namer.exact(f"{kind}_of_{core.name}")
    return GeneratedFn(name, A.function(name, params, body), ns, core.filename, header_for(kind, core))
