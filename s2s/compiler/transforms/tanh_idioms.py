"""tanh written out with `exp`, seen as tanh by reverse mode: `(np.exp(2*x) - 1) / (np.exp(2*x) + 1)`
and `(np.exp(x) - np.exp(-x)) / (np.exp(x) + np.exp(-x))`, common in NumPy code written from
scratch, become one call, `rt.tanh_by_exp(x)` or `rt.tanh_by_exps(x)`, before reverse mode
differentiates the function.

Why: the chain rule through the written-out form keeps five or seven arrays of the forward sweep
(both `exp`s, the numerator, the denominator, the result) and takes nine operations in the
backward sweep; the derivative of tanh is `1 - y * y` of its result alone (what the authors'
own backward passes use), so the tape keeps the result only and the backward takes three. The
helpers compute the author's expression as written (the same NumPy calls on the same operands),
so the forward values are unchanged; the derivative equals the chain rule's up to rounding (the
two are equal in exact arithmetic: `4 e / (e + 1)**2 = 1 - ((e - 1) / (e + 1))**2`).

Before (core form)::

    t0 = 2 * x
    t1 = xp.exp(t0)
    t2 = t1 - 1
    t3 = 2 * x
    t4 = xp.exp(t3)
    t5 = t4 + 1
    y = t2 / t5

After::

    y = rt.tanh_by_exp(x)

Only where every intermediate is assigned once, in the same block as the division, and read by
the pattern alone, and `x` is a name assigned nowhere between the pattern's first statement and
its division (`_match`); the literals are 2 and 1 (int or float).
"""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build
from ..primitives import registry
from . import idiom_blocks


def rewrite(body: list, params=()) -> list:
    """`body` (core form, modified in place) with each written-out tanh replaced by one call."""
    return idiom_blocks.rewrite_each(body, params, _match)


def _match(block, k, s, temp):
    """(the call, indices of the statements it replaces, x) where statement `k` of `block` divides
    a written-out tanh's numerator by its denominator, else None."""
    if not (isinstance(s, gast.Assign) and isinstance(s.value, gast.BinOp) and isinstance(s.value.op, gast.Div)):
        return None

    def value(e, kind=None):
        i = temp(e)
        v = None if i is None else block[i].value
        return v if kind is None or isinstance(v, gast.BinOp) and isinstance(v.op, kind) else None

    def exp_arg(e):
        v = value(e)
        ok = isinstance(v, gast.Call) and analysis.dotted(v.func) == "xp.exp" and len(v.args) == 1 and not v.keywords
        return v.args[0] if ok else None

    num, den = s.value.left, s.value.right
    n, d = value(num, gast.Sub), value(den, gast.Add)
    if n is None or d is None:
        return None
    x = helper = None
    temps = [num, den]
    if _is(n.right, 1) and (_is(d.right, 1) or _is(d.left, 1)):  # (e^2x - 1) / (e^2x + 1)
        e1, e2 = n.left, d.left if _is(d.right, 1) else d.right
        a1, a2 = exp_arg(e1), exp_arg(e2)
        x1, x2 = _twice(value(a1, gast.Mult)), _twice(value(a2, gast.Mult))
        if x1 is not None and x1 == x2:
            x, helper, temps = x1, _helper("(exp(2x) - 1) / (exp(2x) + 1)"), temps + [e1, e2, a1, a2]
    else:  # (e^x - e^-x) / (e^x + e^-x), the sum in either order
        p, m = exp_arg(n.left), exp_arg(n.right)
        x1 = p.id if isinstance(p, gast.Name) else None
        pair = (d.left, d.right) if x1 is not None and _negated(value(exp_arg(d.right))) == x1 else (d.right, d.left)
        q, r = exp_arg(pair[0]), exp_arg(pair[1])
        if x1 is not None and _negated(value(m)) == x1 and isinstance(q, gast.Name) and q.id == x1 \
                and _negated(value(r)) == x1:
            x, helper, temps = x1, _helper("(exp(x) - exp(-x)) / (exp(x) + exp(-x))"), \
                temps + [n.left, n.right, pair[0], pair[1], m, r]
    if x is None:
        return None
    used = {temp(t) for t in temps}
    return build.call(helper, [build.name(x)]), used, x


def _helper(form: str) -> str:
    """The runtime helper declared as computing `form` as written (`Prim.written_out`)."""
    return next(name for name, p in registry.PRIMS.items() if p.written_out == form)


def _is(e, value) -> bool:
    """Whether `e` is the number literal `value` (int or float, not bool)."""
    return isinstance(e, gast.Constant) and type(e.value) in (int, float) and e.value == value


def _twice(v) -> str | None:
    """x of `2 * x` or `x * 2` (x a name), else None."""
    if v is None:
        return None
    for lit, other in ((v.left, v.right), (v.right, v.left)):
        if _is(lit, 2) and isinstance(other, gast.Name):
            return other.id
    return None


def _negated(v) -> str | None:
    """x of `-x` (x a name), else None."""
    ok = isinstance(v, gast.UnaryOp) and isinstance(v.op, gast.USub) and isinstance(v.operand, gast.Name)
    return v.operand.id if ok else None
