"""User-defined vector spaces: a class registered here is a leaf whose cotangents are values of
its own space (an object of the class, not a pytree of arrays), met through the space's `add`,
zeroed by its `zeros`, scaled by its `scalar_mul`. autograd.extend.VSpace registers its classes
here; s2s's runtime consults the registry where cotangents are zeroed and summed."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Space", "is_space_value", "register_space", "space_of", "wrong_cotangent"]


@dataclass(frozen=True)
class Space:
    """How values of one registered class meet: `zeros(x)` the zero of `x`'s space, `add(a, b)`,
    `scalar_mul(x, a)` (a a float), `inner(a, b)` a float (None: the space has none)."""

    cls: type
    zeros: Callable[[Any], Any]
    add: Callable[[Any, Any], Any]
    scalar_mul: Callable[[Any, Any], Any]
    inner: Callable[[Any, Any], Any] | None = None


SPACES: dict[type, Space] = {}


def register_space(cls: type, zeros: Callable, add: Callable, scalar_mul: Callable,
                   inner: Callable | None = None) -> Space:
    """Make instances of `cls` (exactly that class) values of a vector space with these operations."""
    space = SPACES[cls] = Space(cls, zeros, add, scalar_mul, inner)
    return space


def space_of(x: Any) -> Space | None:
    """The registered space of `x`'s class, None for any other value."""
    return SPACES.get(type(x)) if SPACES else None


def is_space_value(x: Any) -> bool:
    """Whether `x` is an instance of a class registered as a vector space."""
    return bool(SPACES) and type(x) in SPACES


def wrong_cotangent(primal: Any, ct: Any) -> str | None:
    """What is wrong with `ct` as the cotangent of `primal` (tuples, lists and dicts of them walked
    alike): a vector-space value's must be a value of its space (or None); None when all is well.
    A derivative s2s computed through operations it cannot see on such a value (arithmetic, an
    attribute read) comes back as a number, which must not reach the user."""
    if not SPACES:
        return None
    space = space_of(primal)
    if space is not None:
        if ct is None or space_of(ct) is space:
            return None
        return (f"the derivative with respect to a {space.cls.__name__} (a vector-space value) came out as a "
                f"{type(ct).__name__}: the function uses the {space.cls.__name__} in a way s2s does not "
                f"differentiate (arithmetic on it, or an attribute read); s2s differentiates a "
                f"{space.cls.__name__} only through calls of it whose class's `__call__` has derivative rules")
    if isinstance(primal, (tuple, list)) and isinstance(ct, (tuple, list)):
        return next((w for w in map(wrong_cotangent, primal, ct) if w is not None), None)
    if isinstance(primal, dict) and isinstance(ct, dict):
        return next((w for w in (wrong_cotangent(v, ct.get(k)) for k, v in primal.items()) if w is not None), None)
    return None
