"""The transforms users call. Each builds a spec, looks up the cache, and compiles on a miss."""
from __future__ import annotations

import copy
import functools

import gast

from . import astutil as A
from . import compiler as C
from .errors import S2STypeError, S2SValueError
from .passes import optimize
from .primitives import registry
from .transforms import analysis as an
from .transforms.reverse import Reverse


def _api(fn):
    fn.__s2s_api__ = True
    return fn


# ---------------------------------------------------------------- reverse mode builders

def _argnums_tuple(argnums, nparams, what="grad"):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -nparams <= a < nparams:
            raise S2SValueError(f"{what}: argnums {argnums!r} out of range for a function of {nparams} "
                                "positional parameters")
    return tuple(a % nparams for a in nums)


def grad_function(fn, argnums, has_aux: bool, with_value: bool):
    """Compile `grad`/`value_and_grad` of `fn`: one function with both sweeps."""
    def build():
        core = C.core_of(fn)
        nums = _argnums_tuple(argnums, len(core.params))
        rev = Reverse(core, [core.params[i] for i in nums])
        seed = (lambda out: A.call("rt.seed_aux", [out])) if has_aux else (lambda out: _seed(core, out))
        init, fwd, out, seed_stmts, bwd, grads = rev.run("grad", seed)
        picked = [grads[i] for i in nums]
        gout = picked[0] if isinstance(argnums, int) else A.tuple_(picked)
        result = gout
        if has_aux:
            aux = rev.namer.fresh("aux")
            value = rev.namer.fresh("value")
            seed_stmts.insert(1, A.assign(A.tuple_([A.name(value), A.name(aux)], store_=True), out))
            result = A.tuple_([A.tuple_([A.name(value), A.name(aux)]), gout]) if with_value \
                else A.tuple_([gout, A.name(aux)])
        elif with_value:
            value = rev.namer.fresh("value")
            seed_stmts.insert(0, A.assign(value, out))  # before the backward sweep restores variables
            result = A.tuple_([A.name(value), gout])
        kind = "value_and_grad" if with_value else "grad"
        name = rev.namer.exact(f"{kind}_{core.name}")
        body = init + fwd + [A.comment("---- backward ----")] + seed_stmts + bwd + [A.ret(result)]
        ns = {**core.ns, **rev.ns}
        what = f"wrt argument {argnums}"
        return C.compile_fn(name, optimize(A.function(name, core.params, body)), ns, core.filename,
                            C.header_for(kind, core, what))
    return C.cached("value_and_grad" if with_value else "grad", fn, (argnums, has_aux), build)


def _seed(core, out):
    """The cotangent that starts the backward sweep of `grad`: the literal 1.0 when the output is
    certainly a scalar (a full sum/mean/max of an array), else a run-time check that it is."""
    for s in core.node.body:
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) and s.targets[0].id == out.id:
            p = registry.lookup(an.classify(s.value))
            if p is not None and p.full_reduction and isinstance(s.value, gast.Call) and len(s.value.args) == 1 \
                    and not s.value.keywords:
                return A.const(1.0)
    return A.call("rt.seed", [out])


def split_vjp(fn, mask):
    """Compile (fwd, bwd): fwd(*args) -> (out, saved); bwd(saved, g) -> cotangent per parameter."""
    mask = tuple(mask)

    def build():
        core = C.core_of(fn)
        active = [p for p, m in zip(core.params, mask) if m]
        rev = Reverse(core, active)
        g = rev.namer.exact("g")
        init, fwd, out, seed_stmts, bwd, grads = rev.run("split", lambda out: A.name(g))
        assigned = set(core.params)
        for s in an.walk_stmts(fwd):
            assigned.update(an.targets(s))
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple):
                assigned.update(e.id for e in s.targets[0].elts if isinstance(e, gast.Name))
        assigned.update(t.targets[0].id for t in init)
        loaded = []
        for s in bwd + [A.ret(A.tuple_(grads))]:
            for n in gast.walk(s):
                if isinstance(n, gast.Name) and n.id in assigned and n.id not in loaded:
                    loaded.append(n.id)
        first_nested = {v for v, nested in an.first_assignment_nested(fwd).items() if nested}
        extra_init = [A.assign(v, A.const(None)) for v in loaded if v in first_nested
                      and v not in {t.targets[0].id for t in init} and v not in core.params]
        saved = rev.namer.exact("saved")
        fname = rev.namer.exact(f"fwd_{core.name}")
        bname = rev.namer.exact(f"bwd_{core.name}")
        fwd_body = init + extra_init + fwd + [A.ret(A.tuple_([out, A.tuple_([A.name(v) for v in loaded])]))]
        unpack = [A.assign(A.tuple_([A.name(v) for v in loaded], store_=True), A.name(saved))] if loaded else []
        outs = [gr if m else A.const(None) for gr, m in zip(grads, mask)]
        bwd_body = unpack + seed_stmts + bwd + [A.ret(A.tuple_(outs))]
        ns = {**core.ns, **rev.ns}
        f = C.compile_fn(fname, A.function(fname, core.params, fwd_body), ns, core.filename,
                         C.header_for("forward sweep", core))
        b = C.compile_fn(bname, A.function(bname, [saved, g], bwd_body), ns, core.filename,
                         C.header_for("backward sweep", core))
        return f, b
    custom = getattr(fn, "__s2s_custom_vjp__", None) or getattr(fn, "__s2s_custom_jvp__", None)
    if custom is not None:
        return custom.split(mask)
    return C.cached("split", fn, mask, build)


# ---------------------------------------------------------------- public API

def _check_diff_args(args, nums, what):
    """JAX's rule: differentiate only with respect to floating (or complex) inputs."""
    for i in nums:
        if not -len(args) <= i < len(args):
            raise S2SValueError(f"{what}: argnums {i} is out of range for a call with {len(args)} arguments")
        bad = _non_float_leaf(args[i])
        if bad is not None:
            raise S2STypeError(f"{what} requires real- or complex-valued inputs (input dtype that is a "
                               f"sub-dtype of np.inexact), but got {bad} for argument {i}. Pass floats "
                               "(e.g. 1.0 or x.astype(float)), or differentiate with respect to another argument.")


def _non_float_leaf(x):
    """The type name of the first leaf of pytree `x` that is not floating, or None."""
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return None if dt.kind in "fc" else str(dt)
    if isinstance(x, float):
        return None
    if isinstance(x, (tuple, list)):
        return next((b for b in map(_non_float_leaf, x) if b is not None), None)
    if isinstance(x, dict):
        return next((b for b in map(_non_float_leaf, x.values()) if b is not None), None)
    if x is None:
        return None
    return type(x).__name__ if isinstance(x, (bool, int)) or not isinstance(x, complex) else None


class Transformed:
    """A transformed function: calls the compiled code, and carries it for further transforms."""

    def __init__(self, kind, fun, compile_, nums, label):
        self.kind, self.fun, self._compile, self.nums = kind, fun, compile_, nums
        self._fn = None
        functools.update_wrapper(self, fun, updated=())
        self.__name__ = f"{label}_{getattr(fun, '__name__', 'f')}"

    @property
    def compiled(self):
        from .frontend import idioms
        arity = idioms.current_arity(self._root)
        if arity is not None:  # a transform of a transform of a `*args` function: one per arity
            by_arity = self.__dict__.setdefault("_compiled_by_arity", {})
            if arity not in by_arity:
                by_arity[arity] = self._compile()
            return by_arity[arity]
        if self._fn is None:
            self._fn = self._compile()
        return self._fn

    @property
    def __s2s_core__(self):
        return self.compiled.__s2s_core__

    def __call__(self, *args, **kwargs):
        from .frontend import idioms
        if idioms.has_varargs(self._root):  # one compiled version per number of arguments
            return idioms.varargs_call(self._root, len(args), lambda: self.compiled)(*args, **kwargs)
        if kwargs or self._defaults and len(args) < self._nparams:
            args = self._bind(args, kwargs)
        if self.nums is not None:
            _check_diff_args(args, self.nums, self.kind)
        return self.compiled(*args)

    @property
    def _root(self):
        """The user's function under this chain of transforms."""
        fun = self.fun
        while isinstance(fun, Transformed):
            fun = fun.fun
        return fun

    @functools.cached_property
    def _signature(self):
        import inspect
        return inspect.signature(self.fun)

    @property
    def _defaults(self):
        return getattr(self.fun, "__defaults__", None)

    @property
    def _nparams(self):
        return len(self._signature.parameters)

    def _bind(self, args, kwargs):
        """Keyword and default arguments become positional, as the generated code takes them."""
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args

    def __repr__(self):
        return f"<s2s.{self.kind} of {getattr(self.fun, '__name__', self.fun)!r}>"


@_api
def grad(fun, argnums=0, has_aux: bool = False):
    """Gradient of scalar-valued `fun` with respect to the arguments at `argnums` (reverse mode)."""
    return _grad_like(fun, argnums, has_aux, False)


@_api
def value_and_grad(fun, argnums=0, has_aux: bool = False):
    """Like grad, but returns `(value, gradient)` computed in one pass."""
    return _grad_like(fun, argnums, has_aux, True)


def _grad_like(fun, argnums, has_aux, with_value):
    kind = "value_and_grad" if with_value else "grad"
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    t = Transformed(kind, fun, lambda: grad_function(fun, argnums, has_aux, with_value), None, kind)
    t.nums = nums
    return t


@_api
def vjp(fun, *primals, has_aux: bool = False):
    """(fun(*primals), vjp_fn): vjp_fn(cotangent) returns one cotangent per primal, as a tuple."""
    from .frontend.idioms import with_arity
    from .runtime import copy_saved, zeros_like_tree
    fun = with_arity(fun, len(primals))
    args, mask = _with_defaults(fun, primals)
    fwd, bwd = split_vjp(fun, mask)
    out, saved = fwd(*args)
    aux = None
    if has_aux:
        out, aux = out

    def vjp_fn(ct):
        seed = (ct, zeros_like_tree(aux)) if has_aux else ct
        return tuple(bwd(copy_saved(saved), seed))[:len(primals)]  # the record is popped: copy it
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


@_api
def stop_gradient(x):
    """The value of `x`, through which no derivative flows."""
    return x


stop_gradient.__s2s_prim__ = "stop_gradient"


def source(fn) -> str:
    """The generated Python source of a transformed function (what `python -m s2s dump` prints)."""
    compiled = getattr(fn, "compiled", None)
    if compiled is not None:
        return compiled.__s2s_source__
    if hasattr(fn, "__s2s_source__"):
        return fn.__s2s_source__
    raise S2STypeError(f"{fn!r} is not a function produced by an s2s transform (grad, vjp, jvp, ...)")


# ---------------------------------------------------------------- forward mode

def jvp_function(fn, mask):
    """Compile jvp_f(*params, *tangents of the params flagged in `mask`) -> (out, tangent_out)."""
    mask = tuple(mask)

    def build():
        from .transforms.forward import Forward
        core = C.core_of(fn)
        active = [p for p, m in zip(core.params, mask) if m]
        fw = Forward(core, active)
        body, tparams = fw.run(active)
        name = fw.namer.exact(f"jvp_{core.name}")
        ns = {**core.ns, **fw.ns}
        return C.compile_fn(name, A.function(name, core.params + tparams, body), ns, core.filename,
                            C.header_for("jvp", core))
    custom = getattr(fn, "__s2s_custom_jvp__", None)
    if custom is not None:
        return custom.jvp_fn(mask)
    if getattr(fn, "__s2s_custom_vjp__", None) is not None:
        fn = fn.fun  # forward mode differentiates the function itself
    return C.cached("jvp", fn, mask, build)


@_api
def jvp(fun, primals, tangents):
    """(fun(*primals), J @ tangents): forward-mode Jacobian-vector product, with JAX's conventions."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise S2STypeError("jvp expects primals and tangents as tuples or lists, e.g. jvp(f, (x,), (v,))")
    if len(primals) != len(tangents):
        raise S2SValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    from .tree import tree_structure
    for p, t in zip(primals, tangents):
        if tree_structure(p) != tree_structure(t):
            raise S2SValueError("jvp: primal and tangent arguments must have the same tree structure")
    from .frontend.idioms import with_arity
    fun = with_arity(fun, len(primals))
    args, mask = _with_defaults(fun, primals)
    return jvp_function(fun, mask)(*args, *tangents)


def _with_defaults(fun, primals):
    """All positional arguments of `fun` (defaults filled in) and which of them were given."""
    import inspect
    try:
        params = [p for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]  # a partial's bound keywords are not
    except (TypeError, ValueError):
        return tuple(primals), (True,) * len(primals)
    if len(primals) >= len(params):
        return tuple(primals), (True,) * len(primals)
    missing = params[len(primals):]
    if any(p.default is inspect.Parameter.empty for p in missing):
        raise S2STypeError(f"{getattr(fun, '__name__', fun)}() takes {len(params)} arguments, "
                           f"but {len(primals)} primals were given")
    return tuple(primals) + tuple(p.default for p in missing), (True,) * len(primals) + (False,) * len(missing)


# ---------------------------------------------------------------- Jacobians and Hessians

def _jac_build(kind, fun, argnums, has_aux=False):
    """jacfwd/jacrev as generated core-form code: a loop of jvp (columns) or vjp (rows) calls.

    With `has_aux`, `fun` returns `(out, aux)`: the Jacobian is of `out`, and `aux` is returned
    beside it, as in JAX.
    """
    from .frontend.normalize import Namer
    core = C.core_of(fun)
    params = core.params
    nums = _argnums_tuple(argnums, len(params), kind)
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
            ns[jf] = jvp_function(fun, mask)
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
            fwd, bwd = split_vjp(fun, mask)
            fname, bname = namer.exact(f"fwd_{core.name}"), namer.exact(f"bwd_{core.name}")
            ns[fname], ns[bname] = fwd, bwd
            saved, m, e, seed, cts, row, cp = (namer.fresh(b) for b in ("saved", "m", "e", "seed", "cts", "row", "rec"))
            body.append(A.assign(A.tuple_([A.name(res), A.name(saved)], store_=True),
                                 A.call(A.name(fname), [A.name(p) for p in params])))
            body.append(split_aux(res, out))
            body.append(A.assign(m, A.call("rt.tree_size", [A.name(out)])))
            body.append(A.assign(acc, A.list_([])))
            loop_body += [A.assign(e, A.call("rt.basis", [A.name(out), A.name(k)])),
                          A.assign(seed, A.tuple_([A.name(e), A.call("rt.zeros_like_tree", [A.name(aux)])]))
                          if has_aux else A.assign(seed, A.name(e)),
                          A.assign(cp, A.call("rt.copy_saved", [A.name(saved)])),
                          A.assign(cts, A.call(A.name(bname), [A.name(cp), A.name(seed)])),
                          A.assign(row, A.subscript(A.name(cts), A.const(i))),
                          A.expr_stmt(A.call(A.attr(A.name(acc), "append"), [A.name(row)]))]
            body.append(A.for_range(k, [A.name(m)], loop_body))
            body.append(A.assign(jac, A.call("rt.jac_from_rows", [A.name(acc), A.name(out), A.name(params[i])])))
        results.append(A.name(jac))
    result = results[0] if isinstance(argnums, int) else A.tuple_(results)
    body.append(A.ret(A.tuple_([result, A.name(aux)]) if has_aux else result))
    name = namer.exact(f"{kind}_{core.name}")
    return C.compile_fn(name, A.function(name, params, body), ns, core.filename,
                        C.header_for(kind, core, f"wrt argument {argnums}"))


@_api
def jacfwd(fun, argnums=0, has_aux: bool = False):
    """Jacobian by forward mode, one jvp per input element: shape out.shape + in.shape."""
    return _jacobian("jacfwd", fun, argnums, has_aux)


@_api
def jacrev(fun, argnums=0, has_aux: bool = False):
    """Jacobian by reverse mode, one backward sweep per output element: shape out.shape + in.shape."""
    return _jacobian("jacrev", fun, argnums, has_aux)


def _jacobian(kind, fun, argnums, has_aux):
    build = lambda: C.cached(kind, fun, (argnums, has_aux),  # noqa: E731
                             lambda: _jac_build(kind, fun, argnums, has_aux))
    return Transformed(kind, fun, build, None, kind)


@_api
def hessian(fun, argnums=0):
    """Hessian as forward-over-reverse, jacfwd(jacrev(fun)): shape out.shape + in.shape + in.shape."""
    return jacfwd(jacrev(fun, argnums), argnums)


# ---------------------------------------------------------------- jit

@_api
def jit(fun):
    """Compile `fun` through the s2s pipeline into normalized, optimized (dead code removed),
    cached Python that composes with every transform. It does not fuse or specialize yet."""
    def build():
        core = C.core_of(fun)
        name = f"jit_{core.name}"
        node = copy.deepcopy(core.node)
        node.name = name
        return C.compile_fn(name, optimize(node), core.ns, core.filename, C.header_for("jit", core))
    return Transformed("jit", fun, lambda: C.cached("jit", fun, (), build), None, "jit")


def linear_map(kind: str, fun, nargs: int, direction):
    """A generated, further-transformable function of the primals: `a -> jvp(fun, a, direction)[1]`
    (kind "jvp", direction = tangents) or `a -> vjp(fun, *a)[1](direction)` (kind "vjp")."""
    from .frontend.idioms import with_arity
    from .frontend.normalize import Namer
    fun = with_arity(fun, nargs)
    core = C.core_of(fun)
    namer = Namer(set(core.params) | {"xp", "rt"})
    params = [namer.fresh("a") for _ in range(nargs)]
    ns: dict = {}
    body = []
    full, mask = _with_defaults(fun, (None,) * nargs)  # parameters left to their defaults
    extra = []
    for value in full[nargs:]:
        extra.append(namer.fresh("default"))
        ns[extra[-1]] = value
    if kind == "jvp":
        jf = namer.exact(f"jvp_{core.name}")
        ns[jf] = jvp_function(fun, mask)
        tans = []
        for t in direction:
            tans.append(namer.fresh("v"))
            ns[tans[-1]] = t
        out, tan = namer.fresh("out"), namer.fresh("tangent")
        body.append(A.assign(A.tuple_([A.name(out), A.name(tan)], store_=True),
                             A.call(A.name(jf), [A.name(p) for p in params + extra] + [A.name(t) for t in tans])))
        body.append(A.ret(A.name(tan)))
    else:
        fwd, bwd = split_vjp(fun, mask)
        fname, bname, u = namer.exact(f"fwd_{core.name}"), namer.exact(f"bwd_{core.name}"), namer.exact("u")
        ns.update({fname: fwd, bname: bwd, u: direction})
        out, saved, cts = namer.fresh("out"), namer.fresh("saved"), namer.fresh("cts")
        body.append(A.assign(A.tuple_([A.name(out), A.name(saved)], store_=True),
                             A.call(A.name(fname), [A.name(p) for p in params + extra])))
        body.append(A.assign(cts, A.call(A.name(bname), [A.name(saved), A.name(u)])))
        body.append(A.ret(A.name(cts)))
    name = namer.exact(f"{kind}_of_{core.name}")
    return C.compile_fn(name, A.function(name, params, body), ns, core.filename, C.header_for(kind, core))


def transformed_source(fun, transform: str, argnums=None) -> str:
    """The generated source for `transform` of `fun` (what `python -m s2s dump` prints).

    `vjp` shows the forward and the backward sweep, `jvp` the function of primals and tangents;
    `argnums` picks the differentiated arguments (all of them for vjp and jvp when omitted).
    """
    import inspect
    n = len(inspect.signature(fun).parameters)
    if transform in ("vjp", "jvp"):
        nums = range(n) if argnums is None else _argnums_tuple(argnums, n, transform)
        mask = tuple(i in nums for i in range(n))
        roots = [jvp_function(fun, mask)] if transform == "jvp" else list(split_vjp(fun, mask))
    else:
        kwargs = {} if argnums is None else {"argnums": argnums}
        roots = [globals()[transform](fun, **kwargs).compiled]
    return "\n\n".join(f.__s2s_source__ for f in _generated_closure(roots))


def _generated_closure(roots) -> list:
    """`roots` and every generated function they call, each once, in the order first reached."""
    seen, order, queue = set(), [], list(roots)
    while queue:
        f = queue.pop(0)
        f = f.target() if hasattr(f, "__s2s_lazy__") else f
        if id(f) in seen or not hasattr(f, "__s2s_source__"):
            continue
        seen.add(id(f))
        order.append(f)
        ns = f.__s2s_core__[1]
        queue.extend(ns[name] for name in sorted(ns) if hasattr(ns[name], "__s2s_source__")
                     or hasattr(ns[name], "__s2s_lazy__"))
    return order
