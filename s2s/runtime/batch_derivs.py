"""Derivatives of batched helpers, example by example: a batched helper `batched_<op>(flags, *args)`
is `<op>` mapped over the batch axis, so its VJP (JVP) with respect to an argument is `<op>`'s own
VJP (JVP) rule, evaluated on each example and stacked (a VJP for an argument shared by every
example is summed over the examples). `per_example(kind, op, which)` builds that function for
one argument of one operation; rules_batch_derivs.py declares each one a primitive (`ext.pe_*`)
with rules of its own, so that the derivatives can be differentiated again."""
from __future__ import annotations

import ast
import functools
import inspect

import numpy as np

from ..base.tree import tree_leaves, tree_map
from ..errors import S2SError
from ._examples import op_named, own_copy, stack_examples
from ._registered import declarations, ext_namespace, runtime_namespace
from .core import namespace, tree_add, zeros_like_tree

# what generated code reaches as `rt.<name>` (the per-example derivatives themselves are `ext.` primitives)
__all__ = ("zero_or_refuse", "per_example", "map_examples_vjp", "map_examples_jvp")


def zero_or_refuse(x, like, what):
    """A derivative s2s does not know, with tangent or cotangent `x`: zeros shaped like `like` when
    `x` is zero (a value the sweep carries that does not vary), else a _Refused value, which raises
    an S2SError naming it as soon as it is used (a cotangent a sweep computes for a constant it
    saved, and then drops, is never used)."""
    if all(not np.any(leaf) for leaf in tree_leaves(x) if leaf is not None):
        return zeros_like_tree(like)
    return _Refused(f"s2s cannot differentiate the batched helper {what} (a function that calls vmap uses it, at "
                   "order 2). Differentiate inside the vmap instead: vmap(hessian(f)), vmap(grad(grad(f))).")


class _Refused:
    """A derivative s2s cannot compute: any use of it (arithmetic, NumPy, its shape) raises the
    S2SError it carries."""

    __array_priority__ = 1e9

    def __init__(self, message):
        self._message = message

    def _refuse(self, *args, **kwargs):
        raise S2SError(self._message)

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __iter__ = __len__ = __bool__ = _refuse
    __float__ = __int__ = __index__ = __neg__ = __pos__ = __abs__ = __invert__ = __repr__ = __str__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = _refuse

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise S2SError(self.__dict__.get("_message", "s2s cannot differentiate this"))


def per_example(kind: str, op: str, which: int, label: str, fast=None):
    """The function `f(flags, t, *args)`: for each example k, `op`'s `kind` ("vjp" or "jvp") rule
    for its argument number `which`, applied to `t[k]` (the output cotangent, or that argument's
    tangent) at the arguments of example k (`flags`: which arguments are batched). `label`
    names the helper in errors; `fast(flags, t, *args)`, where given, computes the same on the
    whole batch at once."""
    def fn(flags, t, *args):
        if fast is not None:
            return fast(flags, t, *args)
        return _run(kind, op, which, label, tuple(flags), args, t)
    fn.__name__ = fn.__qualname__ = f"per_example_{kind}"
    return fn


def map_examples_vjp(fn, which, flags, g_, *args):
    """The VJP of `rt.map_examples(fn, flags, n, *args)` for its argument number `which`: `fn`'s own
    rule, example by example (its arguments not given: their defaults)."""
    return _run("vjp", fn, which, "map_examples", *_given(fn, flags, args), g_)


def map_examples_jvp(fn, which, flags, d, *args):
    """The JVP of `rt.map_examples(fn, flags, n, *args)` for its argument number `which`."""
    return _run("jvp", fn, which, "map_examples", *_given(fn, flags, args), d)


def _given(op, flags, args):
    p = declarations().get(op)
    if p is None or any(q.startswith("*") for q in p.params) or len(args) > len(p.params) and any(a is not None for a in
                                                                                    args[len(p.params):]):
        raise S2SError(f"s2s cannot differentiate `{op}` run once per example by vmap (its arguments are not "
                       "its declared ones). Differentiate inside the vmap instead.")
    full = [a if a is not None else p.defaults.get(q) for q, a in zip(p.params, list(args) + [None] * len(p.params))]
    return tuple(flags[:len(args)]) + (False,) * (len(p.params) - len(args)), full


def _part(a, batched, k):
    return tree_map(lambda leaf: leaf[k], a) if batched else tree_map(own_copy, a)


def _count(x):
    leaves = [leaf for leaf in tree_leaves(x) if np.ndim(leaf) > 0]
    return np.shape(leaves[0])[0] if leaves else None


def _run(kind, op, which, label, flags, args, t):
    p = declarations()[op]
    flags = tuple(flags[:len(args)]) + (False,) * (len(args) - len(flags))
    t_batched = kind == "vjp" or flags[which]
    n = _count(t) if t_batched else None
    if n is None:
        n = next(_count(a) for a, f in zip(args, flags) if f)
    fn = op_named(op)
    if p.params[which] in p.zero_args:  # (a shape, an index, a setting: no derivative)
        if kind == "vjp":
            return zeros_like_tree(args[which])
        return zeros_like_tree(stack_examples([_call(fn, p, [_part(a, f, k) for a, f in zip(args, flags)])
                                          for k in range(n)]))
    how, lam, uses_ans = _rule(kind, op, which, label)
    rt = runtime_namespace()
    ext = ext_namespace()
    outs = []
    for k in range(n):
        ak = [_part(a, f, k) for a, f in zip(args, flags)]
        if p.mutates:  # (rt.add_at: each example updates its own copy)
            ak = [tree_map(own_copy, a) for a in ak]
        tk = _part(t, t_batched, k)
        if how == "linear":  # the op itself on the tangent (declared linear in it)
            sub = list(ak)
            sub[which] = tk
            out = _call(fn, p, sub)
        else:
            ans = _call(fn, p, ak) if uses_ans or (kind == "jvp" and p.broadcasting) else None
            xp = namespace(next((leaf for leaf in tree_leaves([tk] + ak) if hasattr(leaf, "shape")), 0.0))
            out = lam(xp, rt, ext, tk, ans, *ak)
            if kind == "jvp" and p.broadcasting and np.shape(out) != np.shape(ans):
                out = np.broadcast_to(out, np.shape(ans))
        if out is None:
            out = zeros_like_tree(ak[which])
        outs.append(out)
    if kind == "vjp" and not flags[which]:  # an argument every example shares: the examples' sum
        return functools.reduce(tree_add, outs)
    return stack_examples(outs)


def _call(fn, p, vals):
    """`fn` (the op) called with its declared parameters: an argument left at a default of None is
    left out (NumPy's own default applies), the rest positional until then and by keyword after it
    and for NumPy's keyword-only ones (np.average's `keepdims`)."""
    try:
        sig = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        sig = None
    pos, kw, by_kw = [], {}, False
    for name, v in zip(p.params, vals):
        s = sig.get(name) if sig is not None else None
        if v is None and p.defaults.get(name, 0) is None:
            by_kw = True
            continue
        if s is not None and (s.kind is inspect.Parameter.KEYWORD_ONLY or by_kw):
            kw[name] = v
        elif by_kw:
            raise S2SError(f"s2s cannot call `{p.name}` example by example (its argument `{name}`), as the "
                           "derivative of its batched helper needs. Differentiate inside the vmap instead.")
        else:
            pos.append(v)
    return fn(*pos, **kw)


@functools.cache
def _rule(kind, op, which, label):
    """("linear", None, False) when the op is declared linear in that argument (its tangent is the
    op applied to the tangent), else ("rule", the rule as a function, whether it reads `ans`)."""
    p = declarations()[op]
    name = p.params[which]
    table = p.vjp if kind == "vjp" else p.jvp
    src = table.get(name)
    if src is None and kind == "jvp" and name in p.linear_in:
        return "linear", None, False
    if src is None:
        raise S2SError(f"s2s cannot differentiate the batched helper `{label}` (a function that calls vmap uses "
                       f"it): `{op}` has no {'reverse' if kind == 'vjp' else 'forward'}-mode rule for its argument "
                       f"`{name}`. Differentiate inside the vmap instead.")
    tangent = "g" if kind == "vjp" else "d" + name
    names = {q: f"_a{i}" for i, q in enumerate(p.params)}
    for own, new in ((tangent, "_t"), ("ans", "_ans"), ("xp", "_xp"), ("rt", "_rt"), ("ext", "_ext")):
        names.setdefault(own, new)  # (an op's parameter named `xp`, np.interp's, keeps its name)
    tree = ast.parse(src, mode="eval")
    uses_ans = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in names and node.id != "tuple":
                raise S2SError(f"s2s cannot differentiate the batched helper `{label}`: the rule of `{op}` for "
                               f"`{name}` reads `{node.id}`. Differentiate inside the vmap instead.")
            uses_ans = uses_ans or node.id == "ans"
            node.id = names.get(node.id, node.id)
    args = ", ".join(["_xp", "_rt", "_ext", "_t", "_ans"] + [f"_a{i}" for i in range(len(p.params))])
    lam = eval(f"lambda {args}: {ast.unparse(tree)}", {"tuple": tuple})  # noqa: S307 (a declared rule)
    return "rule", lam, uses_ans
