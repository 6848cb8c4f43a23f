"""autograd.extend: `primitive` and `defvjp`/`defjvp` with autograd's rule-makers, over
`s2s.defvjp`/`s2s.defjvp`.

autograd's VJP maker for argument i is `maker(ans, *args) -> (g -> cotangent)`; its JVP rule is
`rule(tangent, ans, *args)`. s2s calls a callable rule as `rule(g, ans, *args)`, so each maker
is adapted by one closure. The rules run as given (s2s does not differentiate through them).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import s2s
from s2s import record

__all__ = ["defjvp", "defvjp", "primitive"]


def primitive(fn: Callable) -> Callable:
    """Mark `fn` as a function whose derivatives are given by `defvjp`/`defjvp`, not read from
    its body. (s2s needs no mark: the rules make it a primitive; this returns `fn`.)"""
    return fn


def _names(fn: Callable, argnums: Any, count: int) -> list[str]:
    params = list(record.signature_of(fn).parameters)
    nums = range(count) if argnums is None else argnums
    return [params[i] for i in nums]


def defvjp(fn: Callable, *makers: Callable | None, argnums: Any = None) -> None:
    """`makers[i](ans, *args)` returns the VJP `g -> cotangent` of argument i (None: no rule)."""
    arity = len(record.signature_of(fn).parameters)
    for name, maker in zip(_names(fn, argnums, len(makers)), makers):
        if maker is not None:
            s2s.defvjp(fn, **{name: _vjp_rule(maker, arity)})


def defjvp(fn: Callable, *rules: Callable | None, argnums: Any = None) -> None:
    """`rules[i](tangent, ans, *args)` is the output's tangent from argument i's."""
    for name, rule in zip(_names(fn, argnums, len(rules)), rules):
        if rule is not None:
            s2s.defjvp(fn, **{name: rule})


def _vjp_rule(maker: Callable, arity: int) -> Callable:
    """s2s's callable rule `(g, ans, *args)` for an autograd VJP maker: fixed arity, so that s2s
    can transform it in turn (a second derivative through the rule)."""
    return functools.partial(_VJP_RULES[arity], maker)


def _vjp1(maker, g, ans, a):
    return maker(ans, a)(g)


def _vjp2(maker, g, ans, a, b):
    return maker(ans, a, b)(g)


def _vjp3(maker, g, ans, a, b, c):
    return maker(ans, a, b, c)(g)


def _vjp4(maker, g, ans, a, b, c, d):
    return maker(ans, a, b, c, d)(g)


def _vjp5(maker, g, ans, a, b, c, d, e):
    return maker(ans, a, b, c, d, e)(g)


def _vjp6(maker, g, ans, a, b, c, d, e, f):
    return maker(ans, a, b, c, d, e, f)(g)


_VJP_RULES = {1: _vjp1, 2: _vjp2, 3: _vjp3, 4: _vjp4, 5: _vjp5, 6: _vjp6}
