"""autograd.extend: `primitive` and `defvjp`/`defjvp` with autograd's rule-makers, over
`s2s.defvjp`/`s2s.defjvp`; `VSpace` (user-defined vector spaces, over s2s.base.vspace) and `Box`.

autograd's VJP maker for argument i is `maker(ans, *args) -> (g -> cotangent)`; its JVP rule is
`rule(tangent, ans, *args)`. s2s calls a callable rule as `rule(g, ans, *args)`, so each maker
is adapted by one closure. The rules run as given (s2s does not differentiate through them).
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import s2s
from s2s.base import record
from s2s.base import vspace as _vspace

__all__ = ["Box", "VSpace", "defjvp", "defvjp", "primitive", "vspace"]


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


class VSpace:
    """autograd's vector space of a value type: a subclass defines `zeros`, `_add`, `_scalar_mul`,
    `_inner_prod` (and `randn`), and `Sub.register(ValueType)` makes ValueType's instances values
    s2s differentiates with respect to (s2s.base.vspace: their cotangents are values of the space)."""

    mappings: dict = {}
    iscomplex = False

    def __init__(self, value: Any) -> None:
        pass

    def zeros(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.zeros")

    def ones(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.ones")

    def standard_basis(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.standard_basis")

    def randn(self) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.randn")

    def add(self, x_prev: Any, x_new: Any) -> Any:
        return self._add(x_prev, x_new)

    def mut_add(self, x_prev: Any, x_new: Any) -> Any:
        return self._mut_add(self.zeros() if x_prev is None else x_prev, x_new)

    def scalar_mul(self, x: Any, a: Any) -> Any:
        return self._scalar_mul(x, a)

    def inner_prod(self, x: Any, y: Any) -> Any:
        return self._inner_prod(x, y)

    def covector(self, x: Any) -> Any:
        return self._covector(x)

    def _add(self, x: Any, y: Any) -> Any:
        return x + y

    def _mut_add(self, x: Any, y: Any) -> Any:
        x += y
        return x

    def _scalar_mul(self, x: Any, a: Any) -> Any:
        return x * a

    def _inner_prod(self, x: Any, y: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}._inner_prod")

    def _covector(self, x: Any) -> Any:
        return x

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and vars(self) == vars(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}_{vars(self)}"

    @classmethod
    def register(cls, value_type: type, vspace_maker: Callable | None = None) -> None:
        """Make `value_type`'s instances values of the space `vspace_maker(value)` (default: this
        class): s2s sums their cotangents with its `add`, zeroes them with its `zeros`."""
        maker = vspace_maker or cls
        VSpace.mappings[value_type] = maker
        _vspace.register_space(value_type, zeros=lambda x: maker(x).zeros(),
                               add=lambda a, b: maker(a).add(a, b),
                               scalar_mul=lambda x, a: maker(x).scalar_mul(x, a),
                               inner=lambda a, b: maker(a).inner_prod(a, b))


def vspace(value: Any) -> VSpace:
    """The vector space of `value` (a registered type's)."""
    try:
        return VSpace.mappings[type(value)](value)
    except KeyError:
        raise TypeError(f"Can't find vector space for type {type(value)}") from None


class Box:
    """autograd's tracing box. s2s traces nothing and boxes no value, so a Box subclass is never
    instantiated by s2s; `register` is accepted and does nothing."""

    type_mappings: dict = {}
    types: set = set()

    def __init__(self, value: Any, trace: Any = None, node: Any = None) -> None:
        self._value, self._trace, self._node = value, trace, node

    @classmethod
    def register(cls, value_type: type) -> None:
        """Accepted for autograd's programs; s2s has no boxes to map `value_type` to."""
        Box.types.add(cls)
        Box.type_mappings[value_type] = cls
