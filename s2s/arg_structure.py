"""Cotangents in their arguments' structure: for an argument given as a (nested) list or tuple of
numbers or arrays, which NumPy reads as an array, grad and vjp hand back a cotangent of that same
list or tuple structure, as JAX does (a list is a pytree), not the array the rules computed."""
from __future__ import annotations

from typing import Any

import numpy as np


def restructure(v: Any, like: Any) -> Any:
    """`v` (a cotangent or tangent of `like`) with `like`'s lists and tuples: an array of a list
    is split along its first axis, item by item; a list of an array is stacked back into one.
    Linear in `v`; its transpose is `restructure(g, v)`."""
    kind = type(like)
    if kind is list or kind is tuple:
        if type(v) is list or type(v) is tuple:
            items = [restructure(a, b) for a, b in zip(v, like)] + list(v[len(like):])
            return kind(items) if len(v) == len(like) else type(v)(items)
        shape = getattr(v, "shape", None)
        if shape and shape[0] == len(like):
            return kind(restructure(v[i], b) for i, b in enumerate(like))
        return v
    if kind is dict and type(v) is dict:
        return {k: restructure(a, like[k]) if k in like else a for k, a in v.items()}
    shape = getattr(like, "shape", None)
    if shape and (type(v) is list or type(v) is tuple) and len(v) == shape[0]:
        return np.stack([np.asarray(restructure(a, like[i])) for i, a in enumerate(v)])
    return v


def has_sequence(args, nums) -> bool:
    """Whether an argument at a position in `nums` is a plain list or tuple."""
    return any(i < len(args) and type(args[i]) in (list, tuple) for i in nums)


def grad_result(result: Any, args: tuple, options: tuple) -> Any:
    """`result` of grad/value_and_grad (options: argnums, has_aux, with_value) with each gradient
    in its argument's structure."""
    argnums, has_aux, with_value = options
    if with_value:
        value, grads = result
    elif has_aux:
        grads, aux = result
    else:
        grads = result
    if isinstance(argnums, int):
        grads = restructure(grads, args[argnums]) if argnums < len(args) else grads
    else:
        grads = tuple(restructure(g, args[i]) if i < len(args) else g for g, i in zip(grads, argnums))
    return (value, grads) if with_value else (grads, aux) if has_aux else grads
