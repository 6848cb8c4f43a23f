"""Batching helpers of products and linear algebra (primitives/rules_linalg.py): vmap's `a @ b`,
dot and outer, einsum with one more index, tensordot, kron, vecdot, cross, solve, multi_dot, and
the einsum derivative helper."""
from __future__ import annotations

import numpy as np

from . import batch as _b
from ._batch_operands import (
    array_of,
    count_examples,
    dot_spec,
    example_rank,
    example_rows,
    lift_loop_axes,
    lift_to_rank,
    loop_examples,
    one_example,
    static_rule,
    with_batch,
)
from ._linalg_common import LETTERS, einsum_parse, own_dtype
from .batch import flatten_examples
from .core import namespace, unbroadcast
from .linalg import (
    einsum_const,
    einsum_spec1,
    einsum_spec2,
    einsum_sublist_spec,
    einsum_subscripts,
    inner_spec,
    kron_shape,
    kron_spec,
    tensordot_spec,
)
from .linalg_norms import svd_check, vecdot_spec

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("is_stack_matmul", "stack_matmul", "stack_matmul_vjp",
           "example_product", "batched_product_vjp", "example_outer", "batched_einsum", "batched_tensordot",
           "batched_linalg_tensordot", "batched_vdot",
           "batched_kron", "batched_matvec", "batched_vecmat", "batched_vecdot", "batched_linalg_vecdot", "batched_cross",
           "batched_linalg_cross", "batched_linalg_solve", "batched_polyval", "batched_multi_dot", "batched_einsum_n",
           "batched_einsum_spec1", "batched_einsum_spec2", "batched_einsum_const",
           "batched_tensordot_spec", "batched_inner_spec", "batched_kron_spec", "batched_kron_shape",
           "batched_vecdot_spec", "batched_svd_check", "batched_einsum_subscripts",
           "batched_einsum_sublist_spec")


# ---- products ----
def _einsum_batched(spec, ops, flags, **kw):
    """`einsum(spec, *ops)` per example, as one einsum with a batch index on the batched operands."""
    exs = [one_example(o, fl) for o, fl in zip(ops, flags)]
    ins, out = einsum_parse(spec, exs)
    z = next(c for c in LETTERS if c not in "".join(ins) + out)
    terms = [z + s if fl else s for s, fl in zip(ins, flags)]
    return np.einsum(",".join(terms) + "->" + z + out, *ops, **kw)


# ---- products of batched operands (vmap's `a @ b`, dot, outer) ----


def _stack_aligned(x, present, rank):
    """`x`, whose leading axes are the batch axes marked True in `present` (outermost first), with
    unit axes in place of the others and before its own stack axes up to per-example rank `rank`:
    np.matmul then broadcasts the stacks per example as it does for one example. (An operand
    with no batch axis broadcasts from the right already.)"""
    x = array_of(x)
    k = sum(present)
    if not k:
        return x
    lead, it = [], iter(x.shape[:k])
    for p in present:
        lead.append(next(it) if p else 1)
    ex = x.shape[k:]
    return x.reshape(tuple(lead) + (1,) * (rank - len(ex)) + ex)


def is_stack_matmul(op, pa, pb):
    """Whether a product of per-example ranks `pa`, `pb` is matmul of stacks of matrices: their stack
    axes broadcast per example, where np.dot (the einsum of dot_spec) pairs every stack of one
    with every stack of the other."""
    return op == "matmul" and pa >= 2 and pb >= 2 and max(pa, pb) > 2


def stack_matmul(a, b, pres_a, pres_b, pa, pb):
    """matmul per example of stacks of matrices (`pres_*`: which batch axes each operand has)."""
    r = max(pa, pb)
    return np.matmul(_stack_aligned(a, pres_a, r), _stack_aligned(b, pres_b, r))


def stack_matmul_vjp(g, a, b, pres_a, pres_b, pa, pb, which):
    """Cotangent of operand `which` (0: a, 1: b) of `stack_matmul`: g b^T or a^T g, summed over the
    axes the operand was broadcast along (the batch, where it is shared, and its stack axes)."""
    r = max(pa, pb)
    la, lb = _stack_aligned(a, pres_a, r), _stack_aligned(b, pres_b, r)
    ct = np.matmul(g, np.swapaxes(lb, -1, -2)) if which == 0 else np.matmul(np.swapaxes(la, -1, -2), g)
    return np.reshape(unbroadcast(ct, la if which == 0 else lb), np.shape(a if which == 0 else b))


def example_product(a, b, ab, bb, op="dot"):
    """dot/matmul/inner per example: matmul where the batch rides along, else einsum."""
    pa, pb = np.ndim(a) - ab, np.ndim(b) - bb
    if is_stack_matmul(op, pa, pb):
        return stack_matmul(a, b, (ab,), (bb,), pa, pb)
    if pa and pb and op != "inner":
        if ab and not bb and pb <= 2:
            return np.matmul(a, b)
        if bb and not ab and pb == 1 and pa <= 2:
            return np.matmul(b, np.swapaxes(a, -1, -2) if pa == 2 else a)
        if bb and not ab and pa == 1 and pb == 2:
            return np.matmul(a, b)
        if ab and bb and pa == 2 and pb == 2:
            return np.matmul(a, b)
    sa, sb, so = dot_spec(a, b, ab, bb, op)
    return np.einsum(f"{sa},{sb}->{so}", a, b)


def batched_product_vjp(flags, g, a, b, which, op):
    """Cotangent of argument `which` (0: a, 1: b) of the batched dot: the einsum transposed (an
    unbatched argument's cotangent sums over the batch)."""
    pa, pb = np.ndim(a) - flags[0], np.ndim(b) - flags[1]
    if is_stack_matmul(op, pa, pb):
        out = stack_matmul_vjp(g, a, b, (flags[0],), (flags[1],), pa, pb, which)
    else:
        sa, sb, so = dot_spec(a, b, flags[0], flags[1], op)
        out = np.einsum(f"{so},{sb}->{sa}", g, b) if which == 0 else np.einsum(f"{so},{sa}->{sb}", g, a)
    return own_dtype(out, b if which else a)  # (in its operand's float dtype, as dot_vjp_a/b)


def example_outer(a, b, ab, bb):
    fa = flatten_examples(a) if ab else np.ravel(a)[None]
    fb = flatten_examples(b) if bb else np.ravel(b)[None]
    return fa[:, :, None] * fb[:, None, :]


def batched_einsum(flags, subscripts, a, b=None, c=None, d=None, e=None, f_=None, h=None, **kw):
    if flags[0] or h is not None:
        n = count_examples(flags, (subscripts, a, b, c, d, e, f_, h))
        return _b.map_examples("xp.einsum", flags, n, subscripts, a, b, c, d, e, f_, h, **kw)
    pairs = [(o, fl) for o, fl in zip((a, b, c, d, e, f_), flags[1:7]) if o is not None]
    return _einsum_batched(subscripts, [o for o, _ in pairs], [fl for _, fl in pairs], **kw)


def _tensordot(name):
    def rule(flags, a, b, axes=2):
        if flags[2]:
            return loop_examples(name, flags, a, b, axes)
        spec = tensordot_spec(one_example(a, flags[0]), one_example(b, flags[1]), axes)
        return _einsum_batched(spec, [a, b], list(flags[:2]))
    return rule


batched_tensordot = _tensordot("xp.tensordot")


batched_linalg_tensordot = _tensordot("xp.linalg.tensordot")


def batched_vdot(flags, a, b):
    """np.vdot per example: the conjugate of `a` (a complex one) dotted with `b`, both flattened."""
    n = count_examples(flags, (a, b))
    rows = example_rows(a, flags[0], n)
    return np.einsum("ij,ij->i", np.conj(rows) if np.iscomplexobj(rows) else rows, example_rows(b, flags[1], n))


def batched_kron(flags, a, b):
    n = count_examples(flags, (a, b))
    sa, sb = np.shape(one_example(a, flags[0])), np.shape(one_example(b, flags[1]))
    r = max(len(sa), len(sb))
    sa, sb = (1,) * (r - len(sa)) + sa, (1,) * (r - len(sb)) + sb
    A = np.reshape(a, (n if flags[0] else 1,) + tuple(x for d in sa for x in (d, 1)))
    B = np.reshape(b, (n if flags[1] else 1,) + tuple(x for d in sb for x in (1, d)))
    return np.reshape(A * B, (n,) + tuple(p * q for p, q in zip(sa, sb)))


def _gufunc2(name, core_a, core_b):
    """A two-operand gufunc (matvec, vecmat) per example: loop axes lifted so the batch lines up; the
    operands' array module's version (CuPy's is s2s's composition, s2s/backends/array_fill.py)."""
    def rule(flags, a, b):
        loops = max(example_rank(a, flags[0]) - core_a, example_rank(b, flags[1]) - core_b, 0)
        fn = getattr(namespace(a), name)
        return fn(lift_loop_axes(a, flags[0], core_a, loops), lift_loop_axes(b, flags[1], core_b, loops))
    return rule


batched_matvec = _gufunc2("matvec", 2, 1)


batched_vecmat = _gufunc2("vecmat", 1, 2)


def _vecdot(linalg):
    def rule(flags, a, b, axis=-1):
        xp = namespace(a)
        fn = xp.linalg.vecdot if linalg else xp.vecdot
        ra, rb = example_rank(a, flags[0]), example_rank(b, flags[1])
        a = np.moveaxis(a, axis + flags[0] if axis >= 0 else axis, -1)
        b = np.moveaxis(b, axis + flags[1] if axis >= 0 else axis, -1)
        loops = max(ra, rb) - 1
        return fn(lift_loop_axes(a, flags[0], 1, loops), lift_loop_axes(b, flags[1], 1, loops), axis=-1)
    return rule


batched_vecdot = _vecdot(False)


batched_linalg_vecdot = _vecdot(True)


def _cross_axes(ax, nd):
    return ax - nd if ax >= 0 else ax


def batched_cross(flags, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    if axis is not None:
        axisa = axisb = axisc = axis
    ra, rb = example_rank(a, flags[0]), example_rank(b, flags[1])
    r = max(ra, rb)
    return np.cross(lift_to_rank(a, flags[0], r), lift_to_rank(b, flags[1], r), axisa=_cross_axes(axisa, ra),
                    axisb=_cross_axes(axisb, rb), axisc=_cross_axes(axisc, r))


def batched_linalg_cross(flags, a, b, axis=-1):
    r = max(example_rank(a, flags[0]), example_rank(b, flags[1]))
    axis = _b.shared_setting(axis) if len(flags) > 2 and flags[2] else axis
    axis = axis + 1 if axis >= 0 else axis  # a per-example axis
    a, b = lift_to_rank(a, flags[0], r), lift_to_rank(b, flags[1], r)
    return np.linalg.cross(*np.broadcast_arrays(a, b), axis=axis)  # CuPy: one shape


def batched_linalg_solve(flags, a, b):
    ra, rb = example_rank(a, flags[0]), example_rank(b, flags[1])
    if rb == 1:   # one right-hand side vector (per example, as NumPy 2 reads a 1-D b)
        loops = ra - 2
        bb = lift_loop_axes(b, flags[1], 1, loops)[..., None]
        return _solve(lift_loop_axes(a, flags[0], 2, loops), bb)[..., 0]
    loops = max(ra, rb) - 2
    return _solve(lift_loop_axes(a, flags[0], 2, loops), lift_loop_axes(b, flags[1], 2, loops))


def _solve(a, b):
    """`linalg.solve` of stacked `a` (..., M, M) and `b` (..., M, K) with the batch axes broadcast
    out first: CuPy wants them equal."""
    batch = np.broadcast_shapes(np.shape(a)[:-2], np.shape(b)[:-2])
    a = np.broadcast_to(a, batch + np.shape(a)[-2:])
    b = np.broadcast_to(b, batch + np.shape(b)[-2:])
    return namespace(a).linalg.solve(a, b)  # (Dask's own, reached by NumPy's dispatch, takes one 2-D matrix)


def batched_polyval(flags, p, x):
    if not flags[0]:
        return np.polyval(p, x)
    n = count_examples(flags, (p, x))
    p = array_of(p)
    x = array_of(x)
    rx = example_rank(x, flags[1])
    y = np.zeros_like(with_batch(x, flags[1], n) * p[:, :1].reshape((n,) + (1,) * rx))
    for j in range(p.shape[1]):
        y = y * x + p[:, j].reshape((n,) + (1,) * rx)
    return y


def batched_multi_dot(flags, arrays, out=None):
    """multi_dot per example: the chain as batched matmuls (1-D ends as a row and a column)."""
    mats = [array_of(a) for a in arrays]
    first, last = mats[0].ndim == 2, mats[-1].ndim == 2
    if first:
        mats[0] = mats[0][:, None, :]
    if last:
        mats[-1] = mats[-1][:, :, None]
    out = mats[0]
    for m in mats[1:]:
        out = np.matmul(out, m)
    if last:
        out = out[:, :, 0]
    if first:
        out = out[:, 0]
    return out


def batched_einsum_n(flags, spec, a, b=None, c=None, d=None, e=None, f_=None, g_=None, h=None):
    if flags[0] or h is not None:
        n = count_examples(flags, (spec, a, b, c, d, e, f_, g_, h))
        return _b.map_examples("rt.einsum_n", flags, n, spec, a, b, c, d, e, f_, g_, h)
    pairs = [(o, fl) for o, fl in zip((a, b, c, d, e, f_, g_), flags[1:8]) if o is not None]
    return _einsum_batched(spec, [o for o, _ in pairs], [fl for _, fl in pairs])


# derivative helpers that read only shapes and settings (the listed arguments only for their shapes):
# one example's answer serves the batch
batched_einsum_spec1 = static_rule(einsum_spec1, (2, 3, 4, 5, 6, 7))
batched_einsum_spec2 = static_rule(einsum_spec2, (2, 3, 4, 5, 6, 7))
batched_einsum_const = static_rule(einsum_const, (2, 3, 4, 5, 6, 7))
batched_tensordot_spec = static_rule(tensordot_spec, (0, 1))
batched_inner_spec = static_rule(inner_spec, (0, 1))
batched_kron_spec = static_rule(kron_spec, (0, 1))
batched_kron_shape = static_rule(kron_shape, (0, 1))
batched_vecdot_spec = static_rule(vecdot_spec, (0, 1))
batched_svd_check = static_rule(svd_check, (0,))
batched_einsum_subscripts = static_rule(einsum_subscripts, (0,))
batched_einsum_sublist_spec = static_rule(einsum_sublist_spec, (2,))
