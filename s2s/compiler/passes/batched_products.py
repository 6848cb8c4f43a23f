"""(jit, final stage.) vmap's product of a matrix and many batched vectors, `rt.batched_dot((False,
True), M, v)`, written `rt.batched_matrix_dot(matmul_<i>, M, v)`: the product `v @ M.T` of a
version whose `v` is known to be a large matrix goes to a `Product`, whose rows threads may share
(W3: `vmap(lambda v: np.dot(MAT, v))` over 10,000 vectors, MAT a global whose shape no version
knows). Where `M` is no NumPy matrix at run time the helper multiplies as `rt.batched_dot` does."""
from __future__ import annotations

import gast

from .. import analysis
from ..ir import build

# the fewest elements of the batched vectors whose product goes to a `Product` (below it the
# product is small, and `Product` would multiply it whole after its checks)
ELEMENTS_MIN = 1 << 16


def rewrite(e, shape_of, shapes, products):
    """The call of a product for `e` when it is such a `rt.batched_dot`, else None."""
    if not (isinstance(e, gast.Call) and analysis.dotted(e.func) == "rt.batched_dot" and len(e.args) == 3
            and not e.keywords and isinstance(e.args[0], gast.Tuple)
            and [getattr(x, "value", None) for x in e.args[0].elts] == [False, True]):
        return None
    v = shape_of(e.args[2], shapes)
    if v is None or len(v) != 2 or not all(type(d) is int for d in v) or v[0] * v[1] < ELEMENTS_MIN:
        return None
    products.append(f"matmul_{len(products)}")
    return build.call("rt.batched_matrix_dot", [build.name(products[-1]), e.args[1], e.args[2]])
