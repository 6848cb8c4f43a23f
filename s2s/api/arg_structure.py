"""Cotangents in their arguments' structure: for an argument given as a (nested) list or tuple of
numbers or arrays, which NumPy reads as an array, grad and vjp hand back a cotangent of that same
list or tuple structure, as JAX does (a list is a pytree), not the array the rules computed."""
from __future__ import annotations

from typing import Any

from ..runtime.trees import restructure


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
