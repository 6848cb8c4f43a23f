"""Helpers of the batched Jacobians: the whole input (or output) basis as one batch, the Jacobian
assembled from a batch of jvp columns or vjp rows, and the diagonal Jacobian of an elementwise
function. Each works on pytrees; `batched_*` are their batching rules (an outer vmap)."""
from __future__ import annotations

import math

import numpy as np

from ..base.tree import tree_flatten, tree_map, tree_structure, tree_unflatten
from ._values import float_dtype, is_tree, shape_of, size_of
from .batch import num_examples
from .core import namespace

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("tree_size", "basis", "jac_from_columns", "jac_from_rows", "jac_columns_t", "jac_rows_t", "basis_stack",
           "ones_tangent", "jac_from_batch_cols", "jac_batch_cols_t", "jac_from_batch_rows", "jac_batch_rows_t", "diag_ok",
           "NotDiagonal", "not_diagonal", "dot_vjp_a_diag", "dot_vjp_b_diag", "diag_jacobian", "diag_matrix",
           "diag_of_vector", "diag_const", "scalar_output", "jac_diag", "jac_diag_t", "batched_basis_stack",
           "batched_ones_tangent", "batched_diag_ok", "batched_scalar_output", "batched_jac_from_batch_cols",
           "batched_jac_from_batch_rows", "batched_jac_diag", "batched_jac_batch_cols_t", "batched_jac_batch_rows_t",
           "batched_jac_diag_t", "jac_nest", "jac_unnest")


def tree_size(x) -> int:
    """How many numbers the pytree `x` holds: the length of its flattened vector."""
    return int(size_of(x)) if not is_tree(x) else sum(_leaf_sizes(x)[2])


def basis(x, k):
    """The k-th standard basis vector of pytree `x`: zeros like each leaf, a single 1 (float64
    unless the leaf is floating)."""
    if not is_tree(x):
        return _one_hot(x, k)
    leaves, treedef, sizes = _leaf_sizes(x)
    out = []
    for leaf, n in zip(leaves, sizes):
        e = _one_hot(leaf, k) if 0 <= k < n else namespace(leaf).zeros(np.shape(leaf), dtype=float_dtype(leaf))
        k -= n
        out.append(e)
    return tree_unflatten(treedef, out)


def _split_last(m, like_leaves, sizes, lead_shape):
    """Split the last axis of `m` per leaf of the input tree, each reshaped to lead + leaf shape."""
    parts = np.split(m, np.cumsum(sizes)[:-1], axis=-1) if len(sizes) > 1 else [m]
    return [np.reshape(p, lead_shape + np.shape(leaf)) for p, leaf in zip(parts, like_leaves)]


def jac_from_columns(cols, out, x):
    """Jacobian from jvp columns (one per number of `x`): for each output leaf, a tree like `x`
    of arrays shaped out_leaf.shape + x_leaf.shape."""
    if not (is_tree(out) or is_tree(x)) and cols:
        return np.reshape(np.stack(cols, axis=-1), np.shape(out) + np.shape(x))
    out_leaves, out_def = tree_flatten(out)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    col_leaves = [tree_flatten(c)[0] for c in cols]
    blocks = []
    for j, o in enumerate(out_leaves):
        m = np.stack([namespace(c[j]).asarray(c[j]) for c in col_leaves], axis=-1) if cols else \
            namespace(o).zeros(np.shape(o) + (0,))
        blocks.append(tree_unflatten(x_def, _split_last(m, x_leaves, sizes, np.shape(o))))
    return tree_unflatten(out_def, blocks)


def jac_from_rows(rows, out, x):
    """Jacobian from vjp rows (one per number of `out`), in the layout of `jac_from_columns`."""
    if not (is_tree(out) or is_tree(x)) and rows:
        return np.reshape(np.stack(rows), np.shape(out) + np.shape(x))
    out_leaves, out_def, out_sizes = _leaf_sizes(out)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    row_leaves = [tree_flatten(r)[0] for r in rows]
    # one matrix per input leaf: (number of outputs) x (the leaf's numbers)
    mats = [np.reshape(np.stack([namespace(r[i]).asarray(r[i]) for r in row_leaves]), (len(rows), -1))
            for i in range(len(x_leaves))]
    full = np.concatenate(mats, axis=1) if len(mats) > 1 else mats[0]
    blocks, start = [], 0
    for o, n in zip(out_leaves, out_sizes):
        part = np.moveaxis(np.reshape(full[start:start + n], np.shape(o) + (-1,)), -1, -1)
        blocks.append(tree_unflatten(x_def, _split_last(part, x_leaves, sizes, np.shape(o))))
        start += n
    return tree_unflatten(out_def, blocks)


def _jac_matrix(g, out, x):
    """The Jacobian pytree `g` as one matrix: (numbers of out) x (numbers of x)."""
    out_leaves, out_def = tree_flatten(out)
    x_n = tree_size(x)
    blocks = tree_flatten(g, )[0]
    per_out = len(tree_flatten(x)[0])
    rows = []
    for j, o in enumerate(out_leaves):
        leaves = blocks[j * per_out:(j + 1) * per_out]
        rows.append(np.concatenate([np.reshape(b, (int(size_of(o)), -1)) for b in leaves], axis=1)
                    if leaves else namespace(o).zeros((int(size_of(o)), x_n)))
    return np.concatenate(rows, axis=0)


def jac_columns_t(g, cols, out, x):
    """Transpose of `jac_from_columns`: the cotangent of each column."""
    mat = _jac_matrix(g, out, x)
    out_leaves, out_def, sizes = _leaf_sizes(out)
    result = []
    for k in range(mat.shape[1]):
        parts = np.split(mat[:, k], np.cumsum(sizes)[:-1]) if len(sizes) > 1 else [mat[:, k]]
        result.append(tree_unflatten(out_def, [np.reshape(p, np.shape(o)) for p, o in zip(parts, out_leaves)]))
    return result


def jac_rows_t(g, rows, out, x):
    """Transpose of `jac_from_rows`: the cotangent of each row."""
    mat = _jac_matrix(g, out, x)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    return [tree_unflatten(x_def, _split_last(mat[k], x_leaves, sizes, ())) for k in range(mat.shape[0])]


def basis_stack(x):
    """Every standard basis vector of pytree `x` at once: a tree like `x` whose leaves carry a
    leading axis of length tree_size(x) (the k-th slice is `rt.basis(x, k)`)."""
    if not is_tree(x):
        xp, shape = namespace(x), np.shape(x)
        n = int(np.prod(shape, dtype=np.int64))
        return xp.reshape(xp.eye(n, dtype=float_dtype(x)), (n,) + shape)
    leaves, treedef, sizes = _leaf_sizes(x)
    total, start, out = sum(sizes), 0, []
    for leaf, n in zip(leaves, sizes):
        xp = namespace(leaf)
        e = xp.zeros((total, n), dtype=float_dtype(leaf))
        e[xp.arange(start, start + n), xp.arange(n)] = 1
        out.append(xp.reshape(e, (total,) + np.shape(leaf)))
        start += n
    return tree_unflatten(treedef, out)


def ones_tangent(x):
    """A tangent of ones like pytree `x` (floating): the sum of every basis vector."""
    if type(x) is np.ndarray:
        return np.ones(x.shape, dtype=x.dtype if x.dtype.kind in "fc" else np.float64)
    return tree_map(lambda leaf: namespace(leaf).ones(np.shape(leaf), dtype=float_dtype(leaf)), x)


def jac_from_batch_cols(cols, x):
    """The Jacobian (out.shape + x.shape per pair of leaves) from a batch of jvp columns: `cols`
    is a tree like the output whose leaves lead with one axis over the numbers of `x`."""
    if not is_tree(cols) and not is_tree(x):
        xp = namespace(cols)
        return xp.reshape(xp.moveaxis(xp.asarray(cols), 0, -1), np.shape(cols)[1:] + np.shape(x))
    leaves, treedef = tree_flatten(cols)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    blocks = [tree_unflatten(x_def, _split_last(namespace(c).moveaxis(namespace(c).asarray(c), 0, -1), x_leaves,
                                                sizes, np.shape(c)[1:])) for c in leaves]
    return tree_unflatten(treedef, blocks)


def jac_batch_cols_t(g, cols, x):
    """Transpose of `jac_from_batch_cols`: the cotangent of the batch of columns."""
    if not is_tree(cols) and not is_tree(x):
        xp = namespace(g)
        n = np.shape(cols)[0]
        return xp.moveaxis(xp.reshape(g, np.shape(cols)[1:] + (n,)), -1, 0)
    leaves, treedef = tree_flatten(cols)
    sizes = _leaf_sizes(x)[2]
    out = []
    for c, b in zip(leaves, _up_to(g, treedef)):
        lead, xp = np.shape(c)[1:], namespace(c)
        parts = tree_flatten(b)[0]
        flat = [xp.reshape(p, lead + (s,)) for p, s in zip(parts, sizes)]
        m = xp.concatenate(flat, axis=-1) if len(flat) > 1 else flat[0]
        out.append(xp.moveaxis(m, -1, 0))
    return tree_unflatten(treedef, out)


def _up_to(g, treedef):
    """The subtrees of `g` at the leaves of `treedef` (g's structure extends treedef's)."""
    probe = tree_unflatten(treedef, list(range(treedef.num_leaves)))
    out = [None] * treedef.num_leaves

    def walk(p, v):
        if isinstance(p, int) and not isinstance(p, bool):
            out[p] = v
        elif isinstance(p, dict):
            for k in p:
                walk(p[k], v[k])
        else:
            for a, b in zip(p, v):
                walk(a, b)
    walk(probe, g)
    return out


def jac_from_batch_rows(rows, out, x):
    """The Jacobian from a batch of vjp rows: `rows` is a tree like `x` whose leaves lead with one
    axis over the numbers of the output `out`."""
    if not is_tree(out) and not is_tree(x) and not is_tree(rows):
        return namespace(rows).reshape(rows, np.shape(out) + np.shape(x))
    out_leaves, out_def, out_sizes = _leaf_sizes(out)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    m = sum(out_sizes)
    row_leaves = tree_flatten(rows)[0]
    xp = namespace(row_leaves[0]) if row_leaves else np
    mats = [xp.reshape(r, (m, n)) for r, n in zip(row_leaves, sizes)]
    full = xp.concatenate(mats, axis=1) if len(mats) > 1 else mats[0] if mats else xp.zeros((m, 0))
    blocks, start = [], 0
    for o, n in zip(out_leaves, out_sizes):
        part = xp.reshape(full[start:start + n], np.shape(o) + (full.shape[1],))
        blocks.append(tree_unflatten(x_def, _split_last(part, x_leaves, sizes, np.shape(o))))
        start += n
    return tree_unflatten(out_def, blocks)


def jac_batch_rows_t(g, rows, out, x):
    """Transpose of `jac_from_batch_rows`: the cotangent of the batch of rows."""
    if not is_tree(out) and not is_tree(x) and not is_tree(rows):
        return namespace(g).reshape(g, np.shape(rows))
    out_leaves, out_def, out_sizes = _leaf_sizes(out)
    x_leaves, x_def, sizes = _leaf_sizes(x)
    m = sum(out_sizes)
    per_out = _up_to(g, out_def)
    rows_of = []
    for o, n, b in zip(out_leaves, out_sizes, per_out):
        parts = tree_flatten(b)[0] if is_tree(b) else [b]
        rows_of.append(np.concatenate([np.reshape(p, (n, s)) for p, s in zip(parts, sizes)], axis=1)
                       if len(parts) > 1 else np.reshape(parts[0], (n, sizes[0])))
    full = np.concatenate(rows_of, axis=0) if len(rows_of) > 1 else rows_of[0]
    cols = np.split(full, np.cumsum(sizes)[:-1], axis=1) if len(sizes) > 1 else [full]
    return tree_unflatten(x_def, [np.reshape(c, (m,) + np.shape(leaf)) for c, leaf in zip(cols, x_leaves)])


def diag_ok(t, x) -> bool:
    """Whether the jvp `t` of an elementwise function along ones can stand for its Jacobian's
    diagonal: single arrays of the input's shape (broadcasting to a larger shape cannot)."""
    if type(t) is np.ndarray and type(x) is np.ndarray:
        return t.shape == x.shape
    return not is_tree(t) and not is_tree(x) and np.shape(t) == np.shape(x)


class NotDiagonal(Exception):
    """Raised by a diagonal function (`jacobian.diagonal_fn`) where the Jacobian may not be diagonal."""


def not_diagonal():
    raise NotDiagonal


_SCALARS = frozenset({float, np.float64, np.float32})


def dot_vjp_a_diag(v, a, b, x):
    """`dot_vjp_a(v, a, b)` where it is elementwise in `b`, `v * b`: a scalar cotangent and vectors
    (`b` computed with the tangent 1 has the input `x`'s rank at least when computed with ones)."""
    if type(v) in _SCALARS and type(a) is np.ndarray and a.ndim == 1 and type(b) in _SCALARS \
            and type(x) is np.ndarray and x.ndim == 1:  # the common case, quickly
        return v * b
    if _rank(v) == 0 and _rank(a) == 1 and _rank(b) <= 1 and _rank(x) <= 1:
        return v * b
    raise NotDiagonal


def dot_vjp_b_diag(v, a, b, x):
    """`dot_vjp_b(v, a, b)` where it is elementwise in `a`: `v * a` (as `dot_vjp_a_diag`)."""
    if type(v) in _SCALARS and type(b) is np.ndarray and b.ndim == 1 and type(a) in _SCALARS \
            and type(x) is np.ndarray and x.ndim == 1:
        return v * a
    if _rank(v) == 0 and _rank(b) == 1 and _rank(a) <= 1 and _rank(x) <= 1:
        return v * a
    raise NotDiagonal


def _rank(v) -> int:
    t = type(v)
    return 0 if t is float or t is int else v.ndim if t is np.ndarray or isinstance(v, np.generic) else np.ndim(v)


def diag_jacobian(fn, x, *args):
    """The diagonal Jacobian (x.shape + x.shape) from `fn(*args)`, the tangent along ones computed
    with the number 1 (so it may have a smaller shape, broadcast here, and a narrower dtype, cast
    to the one the tangent of ones gives); None when `fn` refuses, its shape does not broadcast
    to x's, or it is not finite (then the caller runs the basis, whose zero tangents turn a NaN or
    inf factor into NaN off the diagonal too)."""
    try:
        t = fn(*args)
    except (NotDiagonal, ArithmeticError):  # Python numbers where the ones tangent had arrays: 1.0 / 0.0
        return None
    return diag_matrix(t, x)


def diag_matrix(t, x):
    """The diagonal Jacobian (x.shape + x.shape) whose diagonal is `t`, the tangent along ones of
    an elementwise function (see `diag_jacobian`); None where `t` does not stand for it."""
    if type(x) is np.ndarray and x.ndim == 1 and x.dtype.kind == "f":  # the common cases, quickly
        if type(t) is np.ndarray and t.shape == x.shape and t.dtype == x.dtype:
            return _finite_diag(t)
        if type(t) is float or isinstance(t, np.generic) and t.dtype == x.dtype:
            return diag_const(x, t) if t - t == 0 else None
    if type(x) is not np.ndarray and is_tree(x) or type(t) is not np.ndarray and is_tree(t):
        return None
    xp = namespace(x)
    if type(t) is np.ndarray and t.ndim == 1:
        square = t.dot(t)
    elif np.ndim(t):
        flat = xp.ravel(t)
        square = xp.dot(flat, flat)
    else:
        square = t * t
    if not bool(square - square == 0):  # a NaN or inf (or an overflow): the basis gives NaN off the diagonal too
        return None
    shape = np.shape(x)
    st = np.shape(t)
    if st != shape:
        try:
            if np.broadcast_shapes(st, shape) != shape:
                return None
        except ValueError:
            return None
    dt = np.result_type(getattr(t, "dtype", t), float_dtype(x))
    if type(t) is not np.ndarray or t.dtype != dt or st != shape:
        t = xp.broadcast_to(xp.asarray(t, dtype=dt), shape)
    return jac_diag(t)


def diag_of_vector(t, x):
    """`diag_matrix(t, x)` where `x` is known to be a float NumPy vector (a Jacobian specialized on
    the ranks of its arguments): the checks of `t` alone, then the matrix."""
    if type(t) is np.ndarray and t.shape == x.shape and t.dtype == x.dtype:
        return _finite_diag(t)
    return diag_matrix(t, x)


def _finite_diag(t):
    """The matrix with vector `t` on its diagonal, or None if `t` is not finite (a NaN or inf, or
    an overflow of the test: then the basis gives NaN off the diagonal too)."""
    return _diag_vector(t.shape[0], t.dtype, t) if math.isfinite(t.dot(t)) else None


def diag_const(x, c):
    """The Jacobian (x.shape + x.shape) with the number `c` at each diagonal position, in x's
    floating dtype: what `diag_jacobian` gives when a specialized Jacobian's diagonal is `c`."""
    if type(x) is np.ndarray and x.ndim == 1:  # the common case, quickly
        return _diag_vector(x.shape[0], float_dtype(x), c)
    xp = namespace(x)
    return jac_diag(xp.broadcast_to(xp.asarray(c, dtype=float_dtype(x)), np.shape(x)))


def scalar_output(out) -> bool:
    """Whether a function's output is a floating scalar (then its jacrev is its gradient)."""
    if type(out) is np.float64 or type(out) is float:
        return True
    dt = getattr(out, "dtype", None)
    if dt is None:
        return isinstance(out, (float, complex))
    return np.ndim(out) == 0 and dt.kind in "fc"


def _diag_vector(n: int, dtype, diagonal):
    """The n x n NumPy matrix with `diagonal` (a vector or a number) on its diagonal: np.diag of
    a vector without np.diag's general path (half its time on a few elements)."""
    out = np.zeros((n, n), dtype=dtype)
    out.ravel()[::n + 1] = diagonal  # (a view of `out`; `.flat` costs more)
    return out


def jac_diag(t):
    """The Jacobian (t.shape + t.shape) whose diagonal is `t` and every other entry zero."""
    if type(t) is np.ndarray and t.ndim == 1:
        return _diag_vector(t.shape[0], t.dtype, t)
    xp = namespace(t)
    t = xp.asarray(t)
    if t.ndim == 1:
        return xp.diag(t)
    if t.ndim == 0:
        return t
    return xp.reshape(xp.diag(xp.ravel(t)), t.shape + t.shape)


def jac_diag_t(g, t):
    """Transpose of `jac_diag`: the diagonal of `g`, shaped like `t`."""
    xp = namespace(g)
    n = int(np.size(t))
    return xp.reshape(xp.diagonal(xp.reshape(g, (n, n))), np.shape(t))


# ---- batching rules (an outer vmap: a flag per argument says which carry a batch at axis 0) ----

def _jac_each(fn, flags, *args):
    """The per-example fallback: one call per example, stacked."""
    n = num_examples(next(a for a, f in zip(args, flags) if f))
    outs = [fn(*[tree_map(lambda leaf, k=k: leaf[k], a) if b else a for a, b in zip(args, flags)]) for k in range(n)]
    return tree_map(lambda *leaves: namespace(leaves[0]).stack(leaves), *outs)


def _jac_first(x, batched):
    return tree_map(lambda leaf: leaf[0], x) if batched else x


def batched_basis_stack(flags, x):
    return basis_stack(_jac_first(x, flags[0]))


def batched_ones_tangent(flags, x):
    return ones_tangent(_jac_first(x, flags[0]))


def batched_diag_ok(flags, t, x):
    shape = lambda v, b: np.shape(v)[1:] if b else np.shape(v)  # noqa: E731
    return not is_tree(t) and not is_tree(x) and shape(t, flags[0]) == shape(x, flags[1])


def batched_scalar_output(flags, out):
    return scalar_output(tree_map(lambda leaf: leaf[0], out) if flags[0] else out)


def batched_jac_from_batch_cols(flags, cols, x):
    if flags == (True, False) and not is_tree(cols) and not is_tree(x):
        xp = namespace(cols)
        return xp.reshape(xp.moveaxis(cols, 1, -1), np.shape(cols)[:1] + np.shape(cols)[2:] + np.shape(x))
    return _jac_each(jac_from_batch_cols, flags, cols, x)


def batched_jac_from_batch_rows(flags, rows, out, x):
    if flags == (True, False, False) and not is_tree(out) and not is_tree(x) and not is_tree(rows):
        return namespace(rows).reshape(rows, np.shape(rows)[:1] + np.shape(out) + np.shape(x))
    return _jac_each(jac_from_batch_rows, flags, rows, out, x)


def batched_jac_diag(flags, t):
    if not flags[0]:
        return jac_diag(t)
    xp = namespace(t)
    t = xp.asarray(t)
    b, shape = t.shape[0], t.shape[1:]
    n = int(np.prod(shape, dtype=np.int64))
    out = xp.zeros((b, n * n), dtype=t.dtype)
    out[:, ::n + 1] = xp.reshape(t, (b, n))
    return xp.reshape(out, (b,) + shape + shape)


def batched_jac_batch_cols_t(flags, g, cols, x):
    return _jac_each(jac_batch_cols_t, flags, g, cols, x)


def batched_jac_batch_rows_t(flags, g, rows, out, x):
    return _jac_each(jac_batch_rows_t, flags, g, rows, out, x)


def batched_jac_diag_t(flags, g, t):
    if flags == (True, False):
        xp = namespace(g)
        n = int(np.size(t))
        return xp.reshape(xp.diagonal(xp.reshape(g, (g.shape[0], n, n)), axis1=1, axis2=2), g.shape[:1] + np.shape(t))
    return _jac_each(jac_diag_t, flags, g, t)


def _split_at(tree, inner):
    """`tree`'s structure above its subtrees of structure `inner` (the first met from the top), and
    those subtrees: a Jacobian's output structure and its blocks."""
    return tree_flatten(tree, is_leaf=lambda t: tree_structure(t) == inner)[::-1]


def jac_nest(jacs, xs):
    """JAX's nesting of a Jacobian wrt several arguments, from one Jacobian per argument (`jacs`,
    each with the output's structure over blocks shaped like its argument `xs[j]`): the output's
    structure first, then a tuple over the arguments (`jac[out_i][arg_j]`)."""
    out_def, first = _split_at(jacs[0], tree_structure(xs[0]))
    if out_def.num_leaves == 1 and out_def == tree_structure(0.0):
        return tuple(jacs)
    parts = [first] + [_split_at(j, tree_structure(x))[1] for j, x in zip(jacs[1:], xs[1:])]
    return tree_unflatten(out_def, [tuple(p[k] for p in parts) for k in range(len(first))])


def jac_unnest(g, xs):
    """The inverse (and transpose) of `jac_nest`: a tuple of one Jacobian per argument from JAX's
    nesting (the output's structure over tuples of blocks, one per argument)."""
    out_def, blocks = _split_at(g, tree_structure(tuple(xs)))
    if out_def.num_leaves == 1 and out_def == tree_structure(0.0):
        return tuple(g)
    return tuple(tree_unflatten(out_def, [b[j] for b in blocks]) for j in range(len(xs)))


# ---- leaves ----
def _one_hot(like, k):
    """Zeros shaped like `like` (floating dtype) with a 1 at flat position `k`, on its backend."""
    xp, shp, dt = namespace(like), shape_of(like), float_dtype(like)
    e = xp.zeros(shp, dtype=dt)
    if hasattr(e, "flat"):  # NumPy, CuPy: set in place
        e.flat[k] = 1
        return e
    return xp.reshape((xp.arange(size_of(like)) == k).astype(dt), shp)  # Dask arrays are immutable here


def _leaf_sizes(tree):
    leaves, treedef = tree_flatten(tree)
    return leaves, treedef, [int(size_of(leaf)) for leaf in leaves]
