"""The driver: core forms of functions, the cache of generated functions, the call graph.

Transforms (s2s.compiler.transforms) never import this module: for a function their input calls, they
ask the `Callees` interface the driver hands them (`CALLEES`) for its core form or its generated
split/jvp version, which the driver builds (once per key, thread-safe) with the same pipeline.
"""
from __future__ import annotations

import inspect
import linecache
import os
import threading
import types

import gast

from ..base import record
from ..base.stats import paused_gc
from ..errors import S2SError, S2SValueError
from . import analysis
from .cachekey import fn_key, is_generated, key_and_watch, watched_key  # noqa: F401 - the call objects'
from .emit import backend_callees, blas_calls, kernels, numba_arrayloops, numba_kernels, numba_loops, numba_small, products
from .emit.loader import call, compile_fn
from .emit.tape_blocks import block_loops
from .frontend import idioms, reads
from .frontend.dead_calls import keep_dead_calls
from .frontend.normalize import Normalizer
from .frontend.parse import parse_function
from .frontend.resolve import Env
from .ir import build
from .ir.core import CoreFn
from .ir.validate import validate
from .passes import INLINING, SETTLED, clone, finalize, loopvec, optimize
from .transforms import batching, compose, forward, jacobian, reverse, trace
from .transforms.base import GeneratedFn, header_for

idioms.set_compiler(compile_fn)
LOCK = threading.RLock()
_CORES: dict = {}
_TRANSFORMS: dict = {}
_IN_PROGRESS: dict = {}


def core_of(fn) -> CoreFn:
    """The core form of a user function or of an s2s-generated one (from the AST it carries)."""
    rules = record.custom(fn)
    if rules is not None:
        fn = rules.caller()
    if isinstance(fn, types.FunctionType) and inspect.isgeneratorfunction(fn):
        idioms.refuse_generator(fn)  # given to a transform itself (a call site adapts the ones it calls)
    fn = idioms.adapt(fn)
    key = fn_key(fn)
    with LOCK:
        hit = _CORES.get(key)
        if hit is not None and (hit[0] is fn or key[0] not in ("s2s", "gen")) and hit[2].holds() \
                and not hit[2].folds_stored():  # (compiled before for itself, it folded what a caller here stores)
            reads.forward(hit[2])  # (what its normalization read from objects: the caller's reads too)
            return hit[1]
        with reads.collecting() as got:
            composable = getattr(fn, "composable", None)  # jacfwd/jacrev: transforms start from the loop
            gen = record.generated(composable() if composable is not None else fn)
            if gen is not None:
                reads.forward(record.of(gen).reads)
                node, ns, filename = record.of(gen).core
                lines = None if filename.startswith("<") else linecache.getlines(filename)
                core = Normalizer(clone(node), Env(ns=ns), filename, source_lines=lines,
                                  compile_nested=_compile_nested).run()
            else:
                parsed = parse_function(fn)
                lines = linecache.getlines(parsed.filename)
                core = Normalizer(parsed.node, Env(fn), parsed.filename, parsed.line_offset, parsed.col_offset,
                                  lines, compile_nested=_compile_nested).run()
                keep_dead_calls(core)  # (an unread operation that may raise still runs)
        if os.environ.get("S2S_VALIDATE"):
            validate(core.node)
        _CORES[key] = (fn, core, got)
        return core


def _compile_nested(name: str, node, ns: dict, filename: str):
    """How the frontend compiles a lifted nested function (a `def` inside a transformed one)."""
    return compile_fn(name, node, ns, filename)


def _compile(gen: GeneratedFn, optimized: bool = False, known=None, jit: bool = False, fuse: bool | str = False,
             prologue=(), settled: bool = False):
    """Optimize (to a fixed point) and compile; the code that runs also gets the final passes
    (temporaries released) after the statements `prologue`, while the record keeps the core form
    later transforms start from. `settled`: `gen.node` is already a fixed point of the pipeline
    run with other facts (then the passes that read none start with nothing to do)."""
    node = optimize(gen.node, known, settled=SETTLED if settled else ()) if optimized else gen.node
    numba = numba_kernels.available()
    known = dict(known or {}, kernels=[], loops=[] if numba else None, arrayloops=[] if numba else None,
                 compiled=numba_kernels.wanted if numba else None, products=[], constants={} if jit else None,
                 small=[] if numba and jit else None)
    ns = gen.ns
    fusing = kernels.available()
    run = finalize(node, jit, fuse=fuse if fusing else False, known=known)
    # Whether its fused kernels may have every core: asked only where there are some (a walk of
    # the code), before the prologue (the version it calls for other shapes runs none of them)
    blas = True
    if known["kernels"]:
        loop_nodes = {k[0]: k[4] for k in known["loops"] or ()} | {k[0]: k[5] for k in known["arrayloops"] or ()}
        blas = blas_calls.may_call_blas(run, ns, [k[0] for k in known["kernels"]], known["products"], loop_nodes)
    if prologue:  # (a caller that tested the shapes itself, the jit fast path, skips the test)
        run.body[:0] = prologue
        run.args.kwonlyargs.append(build.name("shapes_tested", param=True))
        run.args.kw_defaults.append(build.const(False))
    if jit and _is_stop_gradient(gen.ns.get("stop_gradient")) and not _binds(run, "stop_gradient"):
        _StopGradientDropped().visit(run)  # finalize cloned it: the record keeps the calls
    loops = known["loops"] or []  # (None: no loop kernels were offered)
    arrayloops = known["arrayloops"] or []
    small = {k[0]: numba_small.SmallKernel(*k[:5], compile_fn, gen.filename, shape=k[5]) for k in known["small"] or ()}
    if known["kernels"] or loops or arrayloops or known["products"] or known["constants"] or small:
        fused = {k[0]: kernels.Fused(*k, every_core=not blas) for k in known["kernels"]}
        ns = dict(ns, **(known["constants"] or {}), **small, **fused,
                  **{k: products.Product(k) for k in known["products"]},
                  **{k[0]: numba_loops.LoopKernel(*k) for k in loops},
                  **{k[0]: numba_arrayloops.ArrayLoop(*k) for k in arrayloops})
        for k in block_loops(run, arrayloops):  # (tapes whose pops are all kernels': TapeRows)
            ns[k].blocks = True
    fn = compile_fn(gen.name, run, ns, gen.filename, gen.header)
    rec = record.of(fn)
    rec.core = (node,) + tuple(rec.core[1:])
    rec.settled = optimized
    rec.blas = blas
    rec.constants = tuple(known["constants"] or ())
    rec.small = tuple(small.items())
    for kernel in small.values():
        kernel.namespace = fn.__globals__  # (where its compiled loop goes)
    for k, v in (known["constants"] or {}).items():
        rec.source += f"\n# constant {k} = array({float(v)!r}) (a 0-d float64 array: passes/constants.py)"
    for what, k in [("fused kernel", k) for k in known["kernels"]] + [("loop kernel", k) for k in loops] \
            + [("array loop kernel", k) for k in arrayloops] + [("product", (k,)) for k in known["products"]] \
            + [("small-array kernel", (k,)) for k in small]:
        kernel = "".join(f"# {line}\n" for line in ns[k[0]].source().splitlines())
        rec.source += f"\n# {what} {k[0]} ({ns[k[0]].banner()}):\n" + kernel
    if jit and not fuse:  # would large arrays get other code? Only if something fuses
        probe = dict(known, kernels=[], loops=None, arrayloops=None)
        if fusing:
            finalize(node, jit, fuse=True, known=probe, kernels_only=True)
        rec.any_size = not probe["kernels"]
    return fn


def _binds(fn, name: str) -> bool:
    return any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) for n in gast.walk(fn))


def _is_stop_gradient(obj) -> bool:
    rec = record.of(obj)
    return rec is not None and rec.prim == "stop_gradient"


class _StopGradientDropped(gast.NodeTransformer):
    """`stop_gradient(x)` written `x` in jit code that runs: it is the identity when run, and
    later transforms start from the record's core form, which keeps the call."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "stop_gradient" and len(node.args) == 1 \
                and not node.keywords and not isinstance(node.args[0], gast.Starred):
            return node.args[0]
        return node


def clear_caches() -> None:
    """Forget every compiled function and core form: the next transform compiles from scratch
    (objects already transformed keep their code until their key changes)."""
    with LOCK:
        _CORES.clear()
        _TRANSFORMS.clear()
        idioms.clear()


def cached(kind: str, fn, options, compute):
    """Build (once per key) the transform `kind` of `fn` with `options`; recursion gets a lazy handle.
    The key holds which kernel engines are on (`S2S_NO_NUMBA`, `S2S_NO_FUSE`): code built without
    numba's kernels is not reused once they are switched back on, nor the other way round."""
    key = (kind, fn_key(fn), options, numba_kernels.available(), kernels.available())
    with LOCK:
        hit = _TRANSFORMS.get(key)
        if hit is not None and hit[2].holds():  # (built from values read from objects that still hold)
            reads.forward(hit[2])
            return hit[1]
        if key in _IN_PROGRESS:
            return _IN_PROGRESS[key]
        holder = _Lazy()
        _IN_PROGRESS[key] = holder.handles(kind)
        try:
            with paused_gc(), reads.collecting() as got:
                result = compute()
        finally:
            del _IN_PROGRESS[key]
        holder.result = result
        for part in result if isinstance(result, tuple) else (result,):
            rec = record.of(part)
            if rec is not None and rec.core is not None:  # (a generated function: calls.py watches its reads)
                rec.reads = got if rec.reads is None else _union(rec.reads, got)
        _TRANSFORMS[key] = (fn, result, got)
        return result


def _union(a: reads.Reads, b: reads.Reads) -> reads.Reads:
    out = reads.Reads()
    out.update(a)
    out.update(b)
    return out


class _Lazy:
    """Stands for a transform still being built (a recursive function calls itself)."""

    def __init__(self):
        self.result = None

    def handles(self, kind):
        if kind == "split":
            return (_LazyFn(self, 0), _LazyFn(self, 1))
        return _LazyFn(self, None)


class _LazyFn:
    def __init__(self, holder, index):
        self.holder, self.index = holder, index
        self.__s2s__ = record.Record(target=self.target, lazy=True)

    def target(self):
        r = self.holder.result
        return r if self.index is None else r[self.index]

    def __call__(self, *args):
        return self.target()(*args)

    @property
    def __name__(self):
        return self.target().__name__

    @property
    def __signature__(self):
        return record.signature_of(self.target())


class _Callees:
    """The driver's side of `transforms.base.Callees` (a handle of a finished recursive build
    stands for what it built: a custom function keeps its rules)."""

    def core(self, fn) -> CoreFn:
        return core_of(_built(fn))

    def split(self, fn, mask, outputs=None):
        return split_vjp(_built(fn), mask, outputs=outputs)

    def jvp(self, fn, mask):
        return jvp_function(_built(fn), mask)

    def has_rules(self, fn) -> bool:
        return record.custom(_built(fn)) is not None

    def batch(self, fn, mask):
        return batch_function(_built(fn), mask)

    def trace(self, fn, mask):
        return trace_function(_built(fn), mask)


def _built(fn):
    rec = record.of(fn)
    if rec is not None and rec.lazy and isinstance(fn, _LazyFn) and fn.holder.result is not None:
        return fn.target()
    return fn


CALLEES = _Callees()


# ---------------------------------------------------------------- which transform runs which pipeline

def argnums_tuple(argnums, nparams, what="grad"):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for a in nums:
        if not isinstance(a, int) or not -nparams <= a < nparams:
            raise S2SValueError(f"{what}: argnums {argnums!r} out of range for a function of {nparams} "
                                "positional parameters")
    return tuple(a % nparams for a in nums)


def grad_function(fn, argnums, has_aux: bool, with_value: bool, checkpoint=None, complex_params: tuple | None = (),
                  kind: str = ""):
    """`grad`/`value_and_grad` of `fn`: one function with both sweeps, optimized (`checkpoint`:
    the schedule of its top-level loops, runtime/checkpoints.py). `complex_params`: the positions
    of the arguments that may be complex (None: any; the default, none: a call whose arguments
    were checked), where JAX's check of a real output is needed; `kind`: the transform its error
    names (jacrev's, of a scalar output)."""
    def compute():
        core = core_of(fn)
        nums = argnums_tuple(argnums, len(core.params))
        return _compile(reverse.grad_fn(core, argnums, nums, has_aux, with_value, CALLEES, checkpoint,
                                        complex_params, kind), optimized=True)
    options = (argnums, has_aux) if checkpoint is None else (argnums, has_aux, checkpoint)
    if complex_params != () or kind:
        options = (*options, "complex", complex_params, kind)
    return cached("value_and_grad" if with_value else "grad", fn, options, compute)


def split_vjp(fn, mask, checkpoint=None, outputs=None):
    """(fwd, bwd): fwd(*args) -> (out, saved); bwd(saved, g) -> cotangent per parameter.
    `outputs`: the items of its returned tuple the caller reads; fwd may return None for the others
    (and not compute them)."""
    mask = tuple(mask)
    rules = record.custom(fn)
    if rules is not None:
        return rules.split(mask)

    def compute():
        f, b = reverse.split_fns(core_of(fn), mask, CALLEES, checkpoint=checkpoint, outputs=outputs)
        # (a forward sweep returning None for items nobody reads is optimized: dce drops their work)
        return _compile(f, optimized=outputs is not None), _compile(b)
    options = mask if checkpoint is None else (mask, checkpoint)
    if outputs is not None:
        options = (options, "outputs", tuple(sorted(outputs)))
    return cached("split", fn, options, compute)


def split_replay(fn, mask, policy, saves):
    """(fwd, bwd) of reverse mode for s2s.checkpoint with a saving `policy`: fwd(residuals, *args)
    takes the values the statements `saves` picks from the iterator `residuals` (see saving_function)."""
    mask = tuple(mask)

    def compute():
        f, b = reverse.split_fns(core_of(fn), mask, CALLEES, replay=saves)
        return _compile(f), _compile(b)
    return cached("split_replay", fn, (mask, policy), compute)


def saving_function(fn, policy, saves):
    """save(*args) -> (fn(*args), [the values of the statements `saves` picks, in order])."""
    return cached("saving", fn, policy, lambda: _compile(reverse.saving_fn(core_of(fn), saves)))


def jvp_function(fn, mask):
    """jvp_f(*params, *tangents of the params flagged in `mask`) -> (out, tangent_out)."""
    mask = tuple(mask)
    rules = record.custom(fn)
    if rules is not None:
        return rules.jvp(mask)
    return cached("jvp", fn, mask, lambda: _compile(forward.jvp_fn(core_of(fn), mask, CALLEES)))


def trace_function(fn, mask):
    """trace_f(make, *params, *nodes of the params flagged in `mask`) -> (out, node of out): `fn`
    traced as autograd's tracer traces it (transforms/trace.py), its callees traced too."""
    mask = tuple(mask)
    return cached("trace", fn, mask, lambda: _compile(trace.trace_fn(core_of(fn), mask, CALLEES)))


def jacobian_function(kind: str, fn, argnums, has_aux: bool, batched: bool = True, ranks: tuple = ()):
    """jacfwd/jacrev of `fn`: batched over the basis (one batched jvp, or one forward sweep and its
    batched backward sweep; a scalar output's jacrev is its gradient); where vmap cannot batch the
    function, a loop of jvp or backward-sweep calls (also with `batched` False or S2S_JAC_LOOP=1:
    what further transforms start from, since not every batched helper has derivative rules).
    `ranks`: (position, rank) of the parameters this version may assume are float NumPy arrays."""
    def compute():
        core = core_of(fn)
        nums = argnums_tuple(argnums, len(core.params), kind)
        if kind == "jacrev" and not has_aux and jacobian.certainly_scalar(core):
            return grad_function(fn, argnums, False, False, complex_params=None, kind="jacrev")  # (any argument)
        general = None
        if batched and not os.environ.get("S2S_JAC_LOOP"):
            try:
                known = {core.params[i]: r for i, r in ranks if i < len(core.params)}
                general = _compile(jacobian.batched_jacobian_fn(kind, fn, core, argnums, nums, has_aux, CALLEES,
                                                                tangent_function, _compile, known))
            except S2SError:
                pass  # not batchable: the loop below
        if general is None:
            general = _compile(jacobian.jacobian_fn(kind, fn, core, argnums, nums, has_aux, CALLEES))
        if kind == "jacrev" and not has_aux and jacobian.possibly_scalar(core):
            try:
                return _compile(jacobian.scalar_or_rows_fn(core, argnums, nums, CALLEES, general), optimized=True)
            except S2SError:
                pass  # no scalar shortcut: the general Jacobian
        return general
    return cached(kind, fn, (argnums, has_aux, batched, ranks), compute)


def tangent_function(fn, mask, has_aux: bool = False):
    """The jvp of `fn` (tangents for the arguments flagged in `mask`) returning only its tangent
    (of `out` when `fn` returns `(out, aux)`): what jacfwd batches over the basis."""
    def compute():
        return _compile(jacobian.tangent_fn(record.of(jvp_function(fn, mask)).core, has_aux), optimized=True,
                        known={"checks_kept": True})  # (inlined callees' checks of `a op= v` too)
    return cached("tangent", fn, (tuple(mask), has_aux), compute)


def linear_map(kind: str, fn, nargs: int, direction, defaults: tuple = ()):
    """A generated, further-transformable function of the primals: `a -> jvp(fn, a, direction)[1]`
    (kind "jvp", direction = tangents) or `a -> vjp(fn, *a)[1](direction)` (kind "vjp")."""
    with LOCK:  # like every build: codegen retypes the tree it prints, which may share nodes with records
        return _compile(jacobian.linear_map_fn(kind, fn, core_of(fn), nargs, direction, CALLEES, defaults))


def _generated_core(fn, kinds=None, dtypes=None) -> CoreFn | None:
    """For a transformed function, the core form its generated code was printed from (already
    normalized and optimized: jit starts from it instead of parsing the printed code again);
    `kinds` (position -> ndim of an array argument, or "float") picks the version a transform
    specialized on its arguments would run (vmap's, on their ranks; a Jacobian's, on the ranks of
    the arrays whose `dtypes`, position -> dtype char, are floating)."""
    if record.custom(fn) is not None or isinstance(fn, types.FunctionType) and not is_generated(fn):
        return None
    special = getattr(fn, "for_arguments", None) if kinds else None
    gen = record.generated(special(kinds, dtypes or {}) if special is not None else fn)
    if gen is None:
        return None
    rec = record.of(gen)
    reads.forward(rec.reads)  # (what it was built from is what code built from it depends on)
    if rec.written:  # a function s2s specialized: its source, which core_of normalizes
        return None
    node, ns, filename = rec.core
    return CoreFn(node.name, clone(node), ns, filename, settled=rec.settled)


def jit_function(fn, floats: tuple = (), fuse: bool | str = True, arrays: tuple = (), shapes: tuple = (),
                 ints: tuple = ()):
    """`fn` normalized and optimized, as a generated function; `floats` are the positions of
    parameters that this version may assume are Python floats (a jit signature); `fuse`: whether
    elementwise expressions become fused kernels (worth it only for large arrays; "every": every
    elementwise chain, for a backend that compiles kernels, CuPy); `arrays`:
    (position, dtype char, ndim) of the parameters that are NumPy arrays; `shapes`: (position,
    shape) of those arrays and (position, "tuple" or "list", shape or None per item) of sequences
    of arrays, for a version specialized on them (`_shape_guard`); `ints`: the positions of
    parameters that are Python ints (`xs[k]` is one item)."""
    def compute():
        kinds = {i: nd for i, _, nd in arrays} | {i: "float" for i in floats}
        generated = _generated_core(fn, kinds, {i: d for i, d, _ in arrays})
        core = generated or core_of(fn)
        name = f"jit_{core.name}"
        node = core.node if generated else clone(core.node)  # (a generated core is a copy already; core_of's is cached)
        node.name = name
        ns = dict(core.ns)  # inlining adds the callees' globals
        known = {"ns": ns, "callees": _inline_callees(ns),
                 "floats": {core.params[i] for i in floats if i < len(core.params)},
                 "ints": {core.params[i] for i in ints if i < len(core.params)},
                 "arrays": {core.params[i]: (d, nd) for i, d, nd in arrays if i < len(core.params)}}
        if not os.environ.get("S2S_NO_LOOPVEC"):
            known["vectorize"] = _vectorizer(CoreFn(core.name, core.node, ns, core.filename))
        what = f"for float arguments {', '.join(known['floats'])}" if floats else ""
        prologue = ()
        if shapes and all(spec[0] < len(core.params) for spec in shapes):
            known["shapes"] = {core.params[s[0]]: s[1] for s in shapes if len(s) == 2}
            known["items"] = {core.params[s[0]]: s[1:3] for s in shapes if len(s) == 4}
            known["item_dtypes"] = {core.params[s[0]]: s[3] for s in shapes if len(s) == 4}
            other = next(n for k in range(len(ns) + 1) if (n := f"any_shape{k or ''}") not in ns and n not in core.params)
            guard, ns[other] = _shape_guard(core.params, shapes, other,
                                            lambda: jit_function(fn, floats, fuse, arrays, (), ints))
            prologue = (guard,)
            what = (what + " and" if what else "for") + " arrays of the shapes tested first"
        out = _compile(GeneratedFn(name, node, ns, core.filename, header_for("jit", core, what)),
                       optimized=True, known=known, jit=True, fuse=fuse, prologue=prologue, settled=core.settled)
        if prologue:
            record.of(out).shapes = shapes
        return out
    return cached("jit", fn, (tuple(floats), fuse, tuple(arrays), tuple(shapes), tuple(ints)), compute)


backend_callees.use_compiler(lambda fn: jit_function(fn, fuse=False))  # (plain callees off NumPy: their jit version)


def _shape_guard(params, shapes, other: str, general):
    """The first statement of a version specialized on its arguments' shapes (unless its caller says
    `shapes_tested=True`), and the function it calls (named `other`) for any other arguments: the
    version for every shape, built by `general` on its first call."""
    tested = [None] * len(params)
    for spec in shapes:
        tested[spec[0]] = spec[1] if len(spec) == 2 else spec[1:]
    built = []

    def any_shape(*args):
        if not built:
            built.append(general())
        return call(built[0], args)  # (on the arguments' backend)

    args = build.tuple_([build.name(p) for p in params])
    test = build.template("shapes_tested or rt.shapes_match(args, shapes)", args=args, shapes=build.const(tuple(tested)))
    return build.if_(build.not_(test), [build.ret(build.call(other, [build.name(p) for p in params]))]), any_shape


def _inline_callees(ns, normalized=False):
    """How the inline pass finds a callee under jit: (core-form node, namespace, function) of a
    user or generated function named in `ns`; None for anything else, and for functions with the
    user's own derivative rules (a later grad must still call them). With `normalized`, a
    generated callee is normalized again (one operation per statement, as a transform needs),
    not taken as optimized."""
    def lookup(name):
        fn = ns.get(name)
        if fn is None or record.custom(fn) is not None:
            return None
        try:
            if isinstance(fn, types.FunctionType):
                core = (None if normalized else _generated_core(fn)) or core_of(fn)
            elif record.generated(fn) is not None:  # a transformed function: its generated code
                core = core_of(fn)
            else:
                return None
        except S2SError:
            return None
        if core.inplace_params:  # inlined, `p = arg; p[0] = v` would no longer update the caller's
            return None          # value for a later transform: the call stays, and transforms check it
        return core.node, core.ns, fn, core.filename
    return lookup


def _vectorizer(core: CoreFn):
    """The batching that loop vectorization (passes/loopvec.py) applies to a loop body of `core`."""
    def run(stmts, index, taken):
        return batching.batch_loop(core.name, core.ns, core.filename, CALLEES, stmts, index, taken)
    return run


def loops_vectorized(core: CoreFn, in_axes) -> CoreFn:
    """`core` with its independent loops vectorized before vmap batches it (loops whose range is
    per example stay loops); `core` itself when none is, or with S2S_NO_LOOPVEC=1."""
    if os.environ.get("S2S_NO_LOOPVEC") or not any(isinstance(s, gast.For) for s in analysis.walk_stmts(core.node.body)):
        return core
    batched = batching.batched_vars(core.node.body, batching.mapped_params(core.params, in_axes))
    node = clone(core.node)
    node.body, changed = loopvec.PASS(node.body, set(core.params), {"vectorize": _vectorizer(core), "batched": batched})
    return CoreFn(core.name, node, core.ns, core.filename, core.inplace_params) if changed else core


def _freeze(spec):
    """A hashable cache key for an in_axes/out_axes specification."""
    if isinstance(spec, (tuple, list)):
        return (type(spec).__name__,) + tuple(_freeze(s) for s in spec)
    if isinstance(spec, dict):
        return ("dict",) + tuple((k, _freeze(v)) for k, v in spec.items())
    return spec


def calls_inlined(core: CoreFn, plain=()) -> CoreFn:
    """`core` with the calls of user and generated functions inlined (passes/inline.py), before
    vmap batches it: batchedness is then known per value, so a helper's record `(theta, state)`
    saved by its forward sweep for its backward sweep is no longer one batched tuple (which would
    repeat an unbatched `theta` once per example), and no call costs a Python frame per example
    batch. `plain`: parameters certainly not lists (arrays and numbers of known rank)."""
    if not any(isinstance(s, gast.Assign)
               and analysis.classify(s.value) == "call" for s in analysis.walk_stmts(core.node.body)):
        return core
    node = clone(core.node)
    ns = dict(core.ns)
    known = {"ns": ns, "callees": _inline_callees(ns, normalized=True), "arrays": set(plain),
             "checks_kept": core.name.startswith(jacobian.TANGENT_PREFIX)}  # (jacfwd drops the primal output)
    node = optimize(node, known, pipeline=INLINING)
    return CoreFn(core.name, node, ns, core.filename, core.inplace_params)


def vmap_function(fn, in_axes, out_axes, axis_size, ranks=None):
    """`vmap(fn)`: the batched function, batch axes moved to the front once on entry and to
    `out_axes` once on exit; `ranks` (per-example rank of each argument, when known) specializes it."""
    def compute():
        core = core_of(fn)
        plain = [p for p, r in zip(core.params, ranks) if r is not None] if ranks is not None else ()
        core = loops_vectorized(calls_inlined(core, plain), in_axes)
        return _compile(batching.vmap_fn(core, in_axes, out_axes, axis_size, CALLEES, ranks), optimized=True)
    return cached("vmap", fn, (_freeze(in_axes), _freeze(out_axes), axis_size, ranks), compute)


def grad_of_batched(fn, names: tuple, argnums, has_aux: bool, with_value: bool, in_axes, out_axes, axis_size):
    """vmap(grad(fn)) whose gradient code cannot be batched (its tape under per-example control
    flow), as the gradient of the sum of vmap(fn) over the examples (transforms/compose.py): reverse
    mode then records the batched code's masks and trip counts like any other value. `names`: the
    parameters of `fn`. Optimized as jit optimizes (the wrapper's callees inlined)."""
    def compute():
        core = core_of(fn)
        moved = compose.moved_params(len(names), argnums_tuple(argnums, len(names)), in_axes)
        inner = vmap_function(fn, tuple(0 if m else None for m in moved), 0, axis_size)
        summed = _compile(compose.summed_fn(core, names, inner, "grad", has_aux, with_value))
        grad_summed = grad_function(summed, argnums, has_aux or with_value, False)
        return jit_function(_compile(compose.batched_grad_fn(core, names, grad_summed, moved, with_value, in_axes,
                                                             out_axes, axis_size)))
    options = (names, argnums, has_aux, with_value, _freeze(in_axes), _freeze(out_axes), axis_size)
    return cached("vmap_grad", fn, options, compute)


def jacrev_of_batched(fn, names: tuple, argnums, in_axes, out_axes, axis_size):
    """vmap(jacrev(fn)) as the Jacobian of the batched fn's output summed over the examples (each
    example's output depends on its own inputs only, so the rows of each example are its
    Jacobian), for an array output; the batched tape is not needed. See grad_of_batched."""
    def compute():
        core = core_of(fn)
        moved = compose.moved_params(len(names), argnums_tuple(argnums, len(names), "jacrev"), in_axes)
        inner = vmap_function(fn, tuple(0 if m else None for m in moved), 0, axis_size)
        summed = _compile(compose.summed_fn(core, names, inner, "jacrev"))
        jac = jacobian_function("jacrev", summed, argnums, True)
        return _compile(compose.batched_jacrev_fn(core, names, jac, moved, argnums, in_axes, out_axes, axis_size))
    return cached("vmap_jacrev", fn, (names, argnums, _freeze(in_axes), _freeze(out_axes), axis_size), compute)


def pullback_function(fn, mask, picks: tuple):
    """The pullback of s2s.vjp(fn, ...) called inside a transformed function
    (compose.pullback_fn): the cotangents at `picks` of fn's backward sweep for `mask`."""
    def compute():
        return _compile(compose.pullback_fn(core_of(fn), split_vjp(fn, mask)[1], picks))
    return cached("pullback", fn, (mask, picks), compute)


def merged_vmap_function(root, kind: str, names: tuple, flat, outer: tuple, inner: tuple, specs0: tuple,
                         specs1: tuple):
    """vmap(vmap(g)), g the transform `kind` (grad, value_and_grad) of the user's function `root`,
    as one vmap over both batch axes merged (transforms/compose.py): `flat` is vmap(g) batched at
    axis 0 of every argument either vmap maps; `outer`/`inner` are the two vmaps' (in_axes,
    out_axes, axis_size), `specs0`/`specs1` their axis per argument."""
    def compute():
        return _compile(compose.merged_vmap_fn(core_of(root), kind, names, flat, outer, inner, specs0, specs1))
    return cached("merged_vmap", flat, (kind, names, _freeze(outer), _freeze(inner), specs0, specs1), compute)


def batch_function(fn, mask):
    """`fn` batched on the arguments flagged in `mask` (at axis 0), called from batched code. A
    custom_vjp/custom_jvp function gives one with its rules batched (called with every argument
    batched, so that cotangents of shared arguments sum over the batch outside it)."""
    mask = tuple(mask)
    rules = record.custom(fn)
    if rules is not None:
        return cached("batch", fn, mask, lambda: rules.batched(mask))
    in_axes = tuple(0 if m else None for m in mask)
    return cached("batch", fn, mask, lambda: _compile(batching.body_fn(
        loops_vectorized(calls_inlined(core_of(fn)), in_axes), mask, CALLEES)))
