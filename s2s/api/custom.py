"""User-defined derivative rules: custom_vjp, custom_jvp, and rules for new primitive functions."""
from __future__ import annotations

import copy
import functools
import itertools

import gast
import numpy as np

from .. import runtime
from ..base import record
from ..compiler import driver
from ..compiler.emit.loader import compile_fn
from ..compiler.ir import build
from ..compiler.primitives import registry
from ..errors import S2STypeError
from ..runtime import tree_all_zero, zeros_like_tree


class custom_vjp:
    """A function whose reverse-mode derivative is the user's (fwd, bwd) pair, as in JAX.

    fwd(*args) -> (out, residuals); bwd(*nondiff_args, residuals, g) -> one cotangent per
    differentiable argument. Forward-mode transforms differentiate `fun` itself.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd = self.bwd = None
        self.__s2s__ = record.Record(custom=self)

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args):
        return self.fun(*args)

    def split(self, mask):
        """(fwd, bwd) in the protocol reverse mode uses for calls; `bwd` returns one entry per argument."""
        if self.fwd is None:
            raise S2STypeError(f"custom_vjp function {self.__name__!r} has no rule: call .defvjp(fwd, bwd) first")
        return _custom_vjp_split(self.fwd, self.bwd, tuple(self.nondiff_argnums), len(mask))

    def jvp(self, mask):
        """Forward mode differentiates the function itself."""
        return driver.jvp_function(self.fun, mask)

    def batched(self, mask):
        """This function batched on every argument (vmap calls it so), with its rules batched:
        the batched fwd gives batched residuals, which the batched bwd takes."""
        out = custom_vjp(driver.batch_function(self.fun, mask), self.nondiff_argnums)
        if self.fwd is not None:
            nd = tuple(mask[i] for i in self.nondiff_argnums)
            out.defvjp(driver.batch_function(self.fwd, mask), driver.batch_function(self.bwd, nd + (True, True)))
        return out

    def caller(self):
        return caller_of(self)


class custom_jvp:
    """A function whose forward-mode derivative is the user's rule, as in JAX.

    rule(primals, tangents) -> (out, tangent_out). Reverse mode transposes the rule: it
    differentiates `tangent_out` with respect to the tangents (a linear map) with s2s's own
    reverse mode.
    """

    def __init__(self, fun, nondiff_argnums=()):
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.rule = None
        self.__s2s__ = record.Record(custom=self)

    def defjvp(self, rule):
        self.rule = rule
        return rule

    def __call__(self, *args):
        return self.fun(*args)

    def caller(self):
        return caller_of(self)

    def batched(self, mask):
        """This function batched on every argument (vmap calls it so), with its rule batched."""
        out = custom_jvp(driver.batch_function(self.fun, mask), self.nondiff_argnums)
        if self.rule is not None:
            out.defjvp(driver.batch_function(self.rule, (True, True)))
        return out

    def jvp(self, mask):
        """jvp(*args, *tangents of the args flagged in mask) -> (out, tangent_out)."""
        if self.rule is None:
            raise S2STypeError(f"custom_jvp function {self.__name__!r} has no rule: call .defjvp(rule) first")
        rule, n = self.rule, len(mask)

        def jvp(*args):
            primals, given = args[:n], iter(args[n:])
            tangents = tuple(next(given) if m else zeros_like_tree(p) for p, m in zip(primals, mask))
            return rule(primals, tangents)
        return jvp

    def split(self, mask):
        tangent_fn = _tangent_out_function(self.rule, len(mask))
        # the primals are active too, so the transposed rule stays differentiable in them
        # (reverse over reverse: grad(grad(f)) was 0 with them inactive)
        tmask = tuple(mask) + tuple(mask)
        tfwd, tbwd = driver.split_vjp(tangent_fn, tmask)
        n = len(mask)
        a, z = [f"a{i}" for i in range(n)], [f"z{i}" for i in range(n)]
        fwd = build.function("fwd", a, [build.ret(build.tuple_([build.call("fun", build.names(a)),
                                                                build.tuple_(build.names(a))]))])
        bwd = build.function("bwd", ["args", "g"], [
            build.assign(build.tuple_(build.names(a), store_=True), build.name("args")),
            *(build.assign(zi, build.call("zeros_like_tree", [build.name(ai)])) for zi, ai in zip(z, a)),
            build.if_(build.call("tree_all_zero", [build.name("g")]), [build.ret(build.tuple_(build.names(z)))]),
            build.assign(build.tuple_(build.names(["_", "saved"]), store_=True), build.call("tfwd", build.names(a + z))),
            build.assign("cts", build.call("tbwd", build.names(["saved", "g"]))),
            build.ret(build.tuple_([_item("cts", n + i) for i in range(n)]))])
        glob = {"fun": self.fun, "tfwd": tfwd, "tbwd": tbwd, "zeros_like_tree": zeros_like_tree,
                "tree_all_zero": tree_all_zero}
        return generated_def(fwd, glob, "custom_jvp_split"), generated_def(bwd, glob, "custom_jvp_split")


def _custom_vjp_split(user_fwd, user_bwd, nd: tuple, n: int):
    """(fwd, bwd) of a custom_vjp function of `n` arguments, generated functions with explicit
    arities, so that s2s can differentiate them again (hessian, jacrev(grad(f)))."""
    a = [f"a{i}" for i in range(n)]
    nds = [f"nd{i}" for i in range(len(nd))]
    outs, j = [], 0
    for i in range(n):
        outs.append(build.const(None) if i in nd else _item("cts", j))
        j += i not in nd
    saved = build.tuple_([build.tuple_([build.name(a[i]) for i in nd]), build.name("res")]) if nd \
        else build.name("res")  # no empty tuple in the record (vmap batches it)
    fwd = build.function("fwd", a, [
        build.assign(build.tuple_(build.names(["out", "res"]), store_=True), build.call("user_fwd", build.names(a))),
        build.ret(build.tuple_([build.name("out"), saved]))])
    unpack = [build.assign(build.tuple_(build.names(["nd_vals", "res"]), store_=True), build.name("saved")),
              build.assign(build.tuple_(build.names(nds), store_=True), build.name("nd_vals"))] if nd \
        else [build.assign("res", build.name("saved"))]
    bwd = build.function("bwd", ["saved", "g"], [
        *unpack,
        build.assign("cts", build.call("user_bwd", build.names(nds + ["res", "g"]))),
        build.ret(build.tuple_(outs))])
    glob = {"user_fwd": user_fwd, "user_bwd": user_bwd}
    return generated_def(fwd, glob, "custom_vjp_split"), generated_def(bwd, glob, "custom_vjp_split")


def _item(seq: str, i: int):
    return build.subscript(build.name(seq), build.const(i))


def generated_def(node: gast.FunctionDef, ns: dict, what: str):
    """Def `node` (built with s2s.compiler.ir.build) compiled with the names `ns`, as the frontend's
    synthesized functions are: s2s transforms it from the AST it carries, normalized as written
    (its errors name `<s2s:what:n>`, unique), and its printed source is what tracebacks show."""
    filename = f"<s2s:{what}:{next(_DEFINED)}>"
    fn = compile_fn(node.name, copy.deepcopy(node), ns, filename)
    record.attach(fn, core=(node, {**ns, "xp": fn.__globals__["xp"], "rt": fn.__globals__["rt"]}, filename),
                  written=True)
    return fn


_DEFINED = itertools.count()


_CALLERS: dict = {}


def caller_of(custom):
    """A plain function that calls `custom` (a custom_vjp/custom_jvp function), so that
    `grad(custom)` transforms a call to it and its rules apply, as in JAX."""
    hit = _CALLERS.get(id(custom))
    if hit is None or hit[0] is not custom:
        params = list(record.signature_of(custom.fun).parameters)
        node = build.function(f"call_{custom.__name__}", params, [build.ret(build.call("custom", build.names(params)))])
        hit = _CALLERS[id(custom)] = (custom, generated_def(node, {"custom": custom}, node.name))
    return hit[1]


@functools.cache
def _tangent_out_function(rule, n):
    """A Python function (with readable source for s2s) computing rule(primals, tangents)[1]."""
    ps = [f"p{i}" for i in range(n)]
    ts = [f"t{i}" for i in range(n)]
    node = build.function("tangent_out", ps + ts, [
        build.assign(build.tuple_(build.names(["out", "tout"]), store_=True),
                     build.call("rule", [build.tuple_(build.names(ps)), build.tuple_(build.names(ts))])),
        build.ret(build.name("tout"))])
    return generated_def(node, {"rule": rule}, "tangent_out")


def defvjp(fn, **rules):
    """Register reverse-mode rules for a function s2s should treat as a primitive.

    Each rule is an expression string over the function's parameter names, `g` (output
    cotangent), `ans` (output), `xp`, or a callable taking (g, ans, *args).
    """
    return _define(fn, rules, "vjp")


def defjvp(fn, **rules):
    """Register forward-mode rules (expressions over params, `d<param>`, `ans`, `xp`, or callables
    taking (dparam, ans, *args)) for a function s2s should treat as a primitive."""
    return _define(fn, rules, "jvp")


def _define(fn, rules: dict, mode: str):
    key = _register(fn)
    params = ", ".join(registry.PRIMS[key].params)
    registry.RULE_NAMES.add("ext")
    for arg, rule in rules.items():
        _keep_callable(fn, mode, arg, rule, params)
        if callable(rule):
            helper = f"{key[4:]}__{mode}_{arg}"
            setattr(registry.EXT, helper, rule)
            first = "g" if mode == "vjp" else f"d{arg}"
            rule = f"ext.{helper}({first}, ans, {params})"
        (registry.defvjp if mode == "vjp" else registry.defjvp)(key, **{arg: rule})
    return fn


def _keep_callable(fn, mode: str, arg: str, rule, params: str) -> None:
    """Keep `rule` on `fn`'s record as a callable `(g or d<arg>, ans, *args)`, for a call of `fn`
    that is resolved only when it runs (a vector-space value's `__call__`: runtime/spaces.py)."""
    if not callable(rule):
        rule = _expression_rule(f"lambda {'g' if mode == 'vjp' else 'd' + arg}, ans, {params}: {rule}")
    rec = record.of(fn)
    rec.rules = {**(rec.rules or {}), (mode, arg): rule}


def _expression_rule(text: str):
    """A rule expression as a callable, compiled on its first call (NumPy as `xp`)."""
    compiled: list = []

    def rule(*args):
        if not compiled:
            compiled.append(eval(text, {"xp": np, "rt": runtime, "ext": registry.EXT}))
        return compiled[0](*args)
    return rule


def _register(fn) -> str:
    """The rule-table key of user function `fn`: `ext.<name>`, or `ext.<name>_<n>` when another
    function of the same name already has rules (functions are told apart by identity)."""
    rec = record.of(fn)
    if rec is not None and rec.prim is not None:
        return rec.prim
    base = f"ext.{fn.__name__}"
    key, n = base, 0
    while key in registry.PRIMS:
        n += 1
        key = f"{base}_{n}"
    registry.prim(key, ", ".join(record.signature_of(fn).parameters))
    setattr(registry.EXT, key[4:], fn)
    record.attach(fn, prim=key)
    return key
