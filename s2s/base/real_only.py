"""Where complex values meet derivatives. s2s's rules follow JAX's convention for complex values
(a vjp is the transpose of the jvp, without conjugates: the vjp of a holomorphic f at z is
`ct * f'(z)`), so a complex primal's tangent or cotangent is complex and right; a real primal's
cotangent is the real part of the complex one that reaches it (the transpose of the cast of a real
value to complex), which reverse mode takes where it leaves the generated code. What is refused
here is a complex derivative of a real value where none may be: a tangent, and a result of a
derivative transform that returns real derivatives."""
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
    is complex and its primal is not: a complex value reached the derivative of a real one."""
    for p, d in zip(tree_leaves(primals), tree_leaves(derivatives)):
        if np.iscomplexobj(d) and not np.iscomplexobj(p):
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
