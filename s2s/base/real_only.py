"""s2s's derivative rules are written for real numbers (no conjugates, no complex sign), so a
complex value on a derivative's path gives a wrong number: refused where a derivative leaves s2s.
`grad(lambda x: np.real(x * (1 + 0.2j)))(1.0)` returned (1+0.2j) for the derivative 1.0."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import S2STypeError
from .tree import tree_leaves

__all__ = ["DERIVATIVES", "refuse_complex", "refuse_complex_result"]

# the transforms whose results are derivatives (or a value and derivatives)
DERIVATIVES = frozenset({"grad", "value_and_grad", "jacfwd", "jacrev", "hessian"})


def refuse_complex(what: str, primals: Any, derivatives: Any) -> Any:
    """`derivatives` (a tangent or cotangent of each leaf of `primals`), refused when one of them
    is complex: a complex value reached the derivative."""
    for p, d in zip(tree_leaves(primals), tree_leaves(derivatives)):
        if np.iscomplexobj(d) or np.iscomplexobj(p):
            raise S2STypeError(f"{what}: a complex value reached the derivative ({np.result_type(d)}); s2s "
                               "differentiates real floating-point arithmetic only, and its rules would give a "
                               "wrong number for complex values. Compute with real and imaginary parts as real "
                               "arrays, or use JAX for complex differentiation.")
    return derivatives


def refuse_complex_result(what: str, result: Any) -> Any:
    """`result` of a derivative transform, refused when a leaf of it is complex."""
    for leaf in tree_leaves(result):
        if np.iscomplexobj(leaf):
            raise S2STypeError(f"{what}: a complex value reached the derivative ({np.result_type(leaf)}); s2s "
                               "differentiates real floating-point arithmetic only, and its rules would give a "
                               "wrong number for complex values. Compute with real and imaginary parts as real "
                               "arrays, or use JAX for complex differentiation.")
    return result
