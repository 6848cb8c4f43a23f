"""User-defined derivative rules: custom_vjp, custom_jvp, and rules for new primitive functions."""
from __future__ import annotations

import functools
import itertools
import linecache

from . import driver, record
from .errors import S2STypeError
from .primitives import registry
from .runtime import tree_all_zero, zeros_like_tree


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
        src = (f"def fwd({', '.join(a)}):\n"
               f"    return fun({', '.join(a)}), ({', '.join(a)},)\n\n\n"
               f"def bwd(args, g):\n"
               f"    {', '.join(a)}, = args\n"
               + "".join(f"    {zi} = zeros_like_tree({ai})\n" for zi, ai in zip(z, a))
               + f"    if tree_all_zero(g):\n        return ({''.join(f'{zi}, ' for zi in z)})\n"
               f"    _, saved = tfwd({', '.join(a + z)})\n"
               f"    cts = tbwd(saved, g)\n"
               f"    return ({''.join(f'cts[{n + i}], ' for i in range(n))})\n")
        glob = {"fun": self.fun, "tfwd": tfwd, "tbwd": tbwd, "zeros_like_tree": zeros_like_tree,
                "tree_all_zero": tree_all_zero}
        return _exec_pair("custom_jvp_split", src, glob)


def _custom_vjp_split(user_fwd, user_bwd, nd: tuple, n: int):
    """(fwd, bwd) of a custom_vjp function of `n` arguments, as generated Python with explicit
    arities, so that s2s can differentiate them again (hessian, jacrev(grad(f)))."""
    a = [f"a{i}" for i in range(n)]
    nds = [a[i] for i in nd]
    outs, j = [], 0
    for i in range(n):
        outs.append("None" if i in nd else f"cts[{j}]")
        j += i not in nd
    src = (f"def fwd({', '.join(a)}):\n"
           f"    out, res = user_fwd({', '.join(a)})\n"
           + (f"    return out, (({''.join(v + ', ' for v in nds)}), res)\n\n\n" if nd
              else "    return out, res\n\n\n")  # no empty tuple in the record (vmap batches it)
           + "def bwd(saved, g):\n"
           + ("    nd_vals, res = saved\n" if nd else "    res = saved\n")
           + (f"    {', '.join(f'nd{i}' for i in range(len(nd)))}, = nd_vals\n" if nd else "")
           + f"    cts = user_bwd({''.join(f'nd{i}, ' for i in range(len(nd)))}res, g)\n"
           f"    return ({''.join(o + ', ' for o in outs)})\n")
    return _exec_pair("custom_vjp_split", src, {"user_fwd": user_fwd, "user_bwd": user_bwd})


def _exec_pair(name: str, src: str, glob: dict):
    """The `fwd` and `bwd` defined by `src` (readable source registered for tracebacks and s2s)."""
    filename = f"<s2s:{name}:{next(_DEFINED)}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), glob)
    return glob["fwd"], glob["bwd"]


_DEFINED = itertools.count()


def _exec_function(name: str, src: str, glob: dict):
    """Define a small generated helper with readable source (registered for tracebacks and s2s);
    the file name is unique so that each helper's source stays readable."""
    filename = f"<s2s:{name}:{next(_DEFINED)}>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    exec(compile(src, filename, "exec"), glob)
    return glob[name]


_CALLERS: dict = {}


def caller_of(custom):
    """A plain function that calls `custom` (a custom_vjp/custom_jvp function), so that
    `grad(custom)` transforms a call to it and its rules apply, as in JAX."""
    hit = _CALLERS.get(id(custom))
    if hit is None or hit[0] is not custom:
        params = list(record.signature_of(custom.fun).parameters)
        name = f"call_{custom.__name__}"
        src = f"def {name}({', '.join(params)}):\n    return custom({', '.join(params)})\n"
        hit = _CALLERS[id(custom)] = (custom, _exec_function(name, src, {"custom": custom}))
    return hit[1]


@functools.cache
def _tangent_out_function(rule, n):
    """A Python function (with readable source for s2s) computing rule(primals, tangents)[1]."""
    ps = [f"p{i}" for i in range(n)]
    ts = [f"t{i}" for i in range(n)]
    src = (f"def tangent_out({', '.join(ps + ts)}):\n"
           f"    out, tout = rule(({', '.join(ps)},), ({', '.join(ts)},))\n"
           f"    return tout\n")
    return _exec_function("tangent_out", src, {"rule": rule})


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
        if callable(rule):
            helper = f"{key[4:]}__{mode}_{arg}"
            setattr(registry.EXT, helper, rule)
            first = "g" if mode == "vjp" else f"d{arg}"
            rule = f"ext.{helper}({first}, ans, {params})"
        (registry.defvjp if mode == "vjp" else registry.defjvp)(key, **{arg: rule})
    return fn


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
