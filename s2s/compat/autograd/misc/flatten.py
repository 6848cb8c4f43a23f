"""autograd's `flatten`: a pytree of arrays as one 1-D vector, and the function that undoes it.

Leaves are raveled and joined in `s2s.tree_util`'s order (dict keys sorted, as autograd sorts
them); `unflatten` splits the vector at the same offsets and restores each leaf's shape.
"""
from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

import s2s
from s2s.tree_util import tree_flatten, tree_unflatten


def plain_flatten(value: Any) -> tuple[np.ndarray, Callable[[Any], Any]]:
    """(the leaves of `value` raveled and concatenated, a function from such a vector back)."""
    leaves, treedef = tree_flatten(value)
    shapes = [np.shape(leaf) for leaf in leaves]
    sizes = [int(np.prod(s)) for s in shapes]
    flat = np.concatenate([np.ravel(leaf) for leaf in leaves]) if leaves else np.zeros(0)

    def unflatten(vector: Any) -> Any:
        parts, start = [], 0
        for shape, size in zip(shapes, sizes):
            parts.append(np.reshape(vector[start:start + size], shape))
            start += size
        return tree_unflatten(treedef, parts)
    return flat, unflatten


def _flatten_fwd(value: Any) -> tuple[tuple[np.ndarray, Callable[[Any], Any]], Callable[[Any], Any]]:
    out = plain_flatten(value)
    return out, out[1]


def _flatten_bwd(unflatten: Callable[[Any], Any], g: tuple[np.ndarray, Any]) -> tuple[Any]:
    return (unflatten(g[0]),)  # the vector's cotangent, split back into the leaves' shapes


# inside a function s2s differentiates in reverse mode (`flat, _ = flatten(params)` in a loss),
# `flatten` is a primitive with this VJP, since s2s does not follow `tree_flatten` through the
# code it transforms; the function it returns carries no cotangent
flatten = s2s.custom_vjp(plain_flatten)
flatten.defvjp(_flatten_fwd, _flatten_bwd)


def flatten_func(func: Callable, example: Any) -> tuple[Callable, Callable, np.ndarray]:
    """`func` of a pytree as a function of its flattened vector (with any further arguments):
    (that function, unflatten, the flattened `example`)."""
    flat_example, unflatten = flatten(example)

    def flat_func(vector, *args):
        return flatten(func(unflatten(vector), *args))[0]

    def flat_func1(vector):  # the same without `*args` (which s2s's transforms refuse) for `func(params)`
        return np.ravel(func(unflatten(vector)))
    return (flat_func1 if _positional(func) == 1 else flat_func), unflatten, flat_example


def _positional(func: Callable) -> int | None:
    """How many positional parameters `func` takes (None for `*args` or no signature)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
