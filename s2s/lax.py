"""`s2s.lax`: JAX's `lax` control flow, slicing and elementwise functions, in plain Python.

Each function here is ordinary Python over NumPy calls s2s has rules for, so s2s transforms it
like user code when a transformed function calls it (the convolution and reduce_window's windows
are primitives, s2s/library/lax_conv.py): `fori_loop` and `while_loop` are Python loops
calling the body function, `cond` is an `if`, `scan` a loop that stacks its outputs. A body
function passed to them is specialized on, as any function passed to a function is. Hence `grad`
of a `while_loop` is a reverse-mode derivative (JAX computes only forward mode there). Outside a
transform they simply run on NumPy. Signatures follow `jax.lax`.
"""
from __future__ import annotations

import enum
import importlib.util

import numpy as np

from .api.entry_points import stop_gradient
from .library.lax_conv import (
    ConvDimensionNumbers,
    conv,
    conv_dimension_numbers,
    conv_general_dilated,
    conv_general_permutations,
    conv_general_shape_tuple,
    conv_shape_tuple,
    conv_with_general_padding,
    padtype_to_pads,
    reduce_window,
    reduce_window_shape_tuple,
)
from .runtime.special import erf as special_erf

__all__ = ["ConvDimensionNumbers", "Precision", "abs", "acos", "add", "asin", "atan", "atan2", "cbrt", "ceil",
           "concatenate", "cond", "conv", "conv_dimension_numbers", "conv_general_dilated", "conv_general_permutations",
           "conv_general_shape_tuple", "conv_shape_tuple", "conv_with_general_padding",
           "convert_element_type", "cos", "cosh", "div", "dot",
           "dot_general", "dynamic_index_in_dim",
           "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
           "erf", "exp", "exp2", "expm1", "floor", "fori_loop", "index_in_dim", "integer_pow", "log", "log1p",
           "logistic", "map", "max", "min", "mul", "neg", "pad", "padtype_to_pads", "pow", "reduce_window",
           "reduce_window_shape_tuple", "rem", "round", "rsqrt", "scan",
           "select", "sign", "sin", "sinh", "slice", "slice_in_dim", "sqrt", "square", "stop_gradient", "sub",
           "switch", "tan", "tanh", "while_loop"]


class Precision(enum.Enum):
    """Accepted for JAX compatibility and ignored: s2s computes at the arrays' own precision."""
    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


# ---- control flow: Python loops and branches that s2s transforms like the user's own ----

def fori_loop(lower, upper, body_fun, init_val):
    """`val = body_fun(i, val)` for i in range(lower, upper); returns the final val."""
    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
    return val


def while_loop(cond_fun, body_fun, init_val):
    """`val = body_fun(val)` while `cond_fun(val)`; returns the final val."""
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """`carry, y = f(carry, x)` over the leading axis of the array `xs`, or of each array of a tuple
    `xs` (x is then the tuple of their rows), or `length` times with x = None when xs is None;
    returns (final carry, the ys stacked: a tuple of stacks where y is a tuple). `unroll` is ignored."""
    if isinstance(xs, (tuple, list)):
        return _scan_tuple(f, init, tuple(xs), reverse)
    n = length if xs is None else xs.shape[0]
    carry = init
    ys = []
    for k in range(n):
        i = n - 1 - k if reverse else k
        x = None if xs is None else xs[i]
        carry, y = f(carry, x)
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    return carry, _stacked(ys)


def _scan_tuple(f, init, xs, reverse):
    n = xs[0].shape[0]
    carry = init
    ys = []
    for k in range(n):
        i = n - 1 - k if reverse else k
        carry, y = f(carry, tuple(a[i] for a in xs))
        ys.append(y)
    if reverse:
        ys = ys[::-1]
    return carry, _stacked(ys)


def _stacked(ys):
    """The ys of a scan stacked: a tuple of stacks when each y is a tuple."""
    if len(ys) > 0 and isinstance(ys[0], tuple):
        return tuple(np.stack([y[j] for y in ys]) for j in range(len(ys[0])))
    return np.stack(ys)


def map_(f, xs):
    """`np.stack([f(x) for x in xs])` over the leading axis of the array `xs`."""
    ys = []
    for i in range(xs.shape[0]):
        ys.append(f(xs[i]))
    return np.stack(ys)


def cond(pred, true_fun, false_fun, *operands):
    """`true_fun(*operands)` if pred else `false_fun(*operands)`; only the branch taken runs."""
    if pred:
        return true_fun(*operands)
    return false_fun(*operands)


def switch(index, branches, *operands):
    """`branches[index](*operands)`, the index clamped to the branches as in JAX; only the branch
    taken runs (batched over an index that differs per example: every branch, then a select)."""
    k = np.clip(index, 0, len(branches) - 1)
    j = 0
    out = None
    for branch in branches:
        if j == k:
            out = branch(*operands)
        j = j + 1
    return out


def select(pred, on_true, on_false):
    """Elementwise `on_true` where `pred`, else `on_false`."""
    return np.where(pred, on_true, on_false)


# ---- slicing ----

def _clamped(start, size, dim):
    """A start index moved, as JAX does, so that `size` entries from it fit in `dim`."""
    return np.clip(start, 0, dim - size)


# The slices index the axis moved to the front with an index array (`x[start + np.arange(size)]`),
# whose derivative and batching (a start that differs per example included) s2s has in every
# order, and which an array library's 0-d start (CuPy's, under jit) can build; np.take would go
# through a batched helper without derivative rules under grad(vmap(f)).

def _window(operand, start, size, axis):
    """`size` entries of `axis` from `start` (which must fit)."""
    x = np.moveaxis(operand, axis, 0)
    return np.moveaxis(x[start + np.arange(size)], 0, axis)


def dynamic_slice_in_dim(operand, start_index, slice_size, axis=0):
    """`slice_size` entries of `axis` from `start_index` (clamped so the slice fits)."""
    return _window(operand, _clamped(start_index, slice_size, operand.shape[axis]), slice_size, axis)


def dynamic_slice(operand, start_indices, slice_sizes):
    """The block of shape `slice_sizes` at `start_indices` (each clamped so the block fits)."""
    out = operand
    for ax in range(operand.ndim):
        out = _window(out, _clamped(start_indices[ax], slice_sizes[ax], operand.shape[ax]), slice_sizes[ax], ax)
    return out


def dynamic_index_in_dim(operand, index, axis=0, keepdims=True):
    """Entry `index` of `axis`, keeping that axis (of size 1) when `keepdims`."""
    out = _window(operand, _clamped(index, 1, operand.shape[axis]), 1, axis)
    return out if keepdims else np.squeeze(out, axis)


def index_in_dim(operand, index, axis=0, keepdims=True):
    """Entry `index` (negative counts from the end) of `axis`, keeping the axis when `keepdims`."""
    out = _window(operand, index % operand.shape[axis], 1, axis)
    return out if keepdims else np.squeeze(out, axis)


def slice_in_dim(operand, start_index, limit_index, stride=1, axis=0):
    """Entries start_index, start_index + stride, ... below limit_index of `axis`."""
    n = operand.shape[axis]
    start = start_index % n if start_index < 0 else start_index
    limit = limit_index % n if limit_index < 0 else limit_index
    x = np.moveaxis(operand, axis, 0)
    return np.moveaxis(x[np.arange(start, limit, stride)], 0, axis)


def slice_(operand, start_indices, limit_indices, strides=None):
    """The block from `start_indices` up to `limit_indices` (exclusive), every `strides` entry."""
    out = operand
    for ax in range(operand.ndim):
        step = 1 if strides is None else strides[ax]
        out = slice_in_dim(out, start_indices[ax], limit_indices[ax], step, ax)
    return out


def dynamic_update_slice(operand, update, start_indices):
    """`operand` with the block at `start_indices` (clamped so it fits) replaced by `update`: the
    update moved into place along each axis by a product with a one-hot matrix (so that a start
    may differ per example under vmap), and a mask of where it lands, moved alike. (Written out
    here, not in a helper: a helper called on the mask alone, which carries no derivative, would
    run as plain NumPy, whose arrays CuPy refuses beside its own.)"""
    placed = update
    inside = np.ones(update.shape)
    for ax in range(operand.ndim):
        start = _clamped(start_indices[ax], update.shape[ax], operand.shape[ax])
        n, k = operand.shape[ax], update.shape[ax]
        onehot = (np.arange(n)[:, None] == start + np.arange(k)[None, :]).astype(update.dtype)
        placed = np.moveaxis(np.moveaxis(placed, ax, -1) @ onehot.T, -1, ax)
        inside = np.moveaxis(np.moveaxis(inside, ax, -1) @ onehot.T, -1, ax)
    return np.where(inside > 0.5, placed, operand)


def dynamic_update_slice_in_dim(operand, update, start_index, axis):
    """`dynamic_update_slice` with the block starting at `start_index` of `axis` (0 elsewhere)."""
    starts = []
    for ax in range(operand.ndim):
        starts.append(start_index if ax == axis else 0)
    return dynamic_update_slice(operand, update, starts)


def concatenate(operands, dimension):
    """The arrays `operands` joined along axis `dimension`."""
    return np.concatenate(operands, axis=dimension)


def _pad_axis0(x, padding_value, lo, hi, interior):
    """Axis 0 of `x` with `interior` fill entries between neighbours, then `lo`/`hi` at the ends
    (negative: that many entries removed)."""
    n = x.shape[0]
    if interior > 0 and n > 1:
        m = n + (n - 1) * interior
        pick = (np.arange(m)[:, None] == np.arange(n)[None, :] * (interior + 1)).astype(float)
        fill = (1.0 - np.sum(pick, axis=1)).reshape((m,) + (1,) * (x.ndim - 1))
        x = np.moveaxis(np.moveaxis(x, 0, -1) @ pick.T, -1, 0) + padding_value * fill
    if lo > 0:
        x = np.concatenate([padding_value + np.zeros((lo,) + x.shape[1:]), x])
    if lo < 0:
        x = x[-lo:]
    if hi > 0:
        x = np.concatenate([x, padding_value + np.zeros((hi,) + x.shape[1:])])
    if hi < 0:
        x = x[:x.shape[0] + hi]
    return x


def pad(operand, padding_value, padding_config):
    """`operand` padded with `padding_value` by `(lo, hi, interior)` per axis; negative lo/hi
    remove entries, `interior` inserts that many between neighbours."""
    x = operand
    for ax in range(operand.ndim):
        lo, hi, interior = padding_config[ax]
        x = np.moveaxis(_pad_axis0(np.moveaxis(x, ax, 0), padding_value, lo, hi, interior), 0, ax)
    return x


def _free(ndim, contract, batch):
    out = []
    for d in range(ndim):
        if d not in contract and d not in batch:
            out.append(d)
    return out


def _size(shape, axes):
    n = 1
    for a in axes:
        n = n * shape[a]
    return n


def _dims(shape, axes):
    out = []
    for a in axes:
        out.append(shape[a])
    return out


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """JAX's general contraction: `dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch,
    rhs_batch))`; the result's axes are the batch axes, then lhs's free axes, then rhs's.
    `precision` and `preferred_element_type` are accepted and ignored."""
    contracting, batching = dimension_numbers
    lc, rc = list(contracting[0]), list(contracting[1])
    lb, rb = list(batching[0]), list(batching[1])
    lf = _free(lhs.ndim, lc, lb)
    rf = _free(rhs.ndim, rc, rb)
    a = np.transpose(lhs, lb + lf + lc).reshape((_size(lhs.shape, lb), _size(lhs.shape, lf), _size(lhs.shape, lc)))
    b = np.transpose(rhs, rb + rc + rf).reshape((_size(rhs.shape, rb), _size(rhs.shape, rc), _size(rhs.shape, rf)))
    out = np.matmul(a, b)
    return out.reshape(tuple(_dims(lhs.shape, lb) + _dims(lhs.shape, lf) + _dims(rhs.shape, rf)))


def dot(lhs, rhs, precision=None, preferred_element_type=None):
    """Vector/matrix products (`np.dot` of 1-d and 2-d arrays)."""
    return np.dot(lhs, rhs)


# ---- elementwise ----

exp = np.exp
log = np.log
sin = np.sin
cos = np.cos
tan = np.tan
tanh = np.tanh
sinh = np.sinh
cosh = np.cosh
asin = np.arcsin
acos = np.arccos
atan = np.arctan
atan2 = np.arctan2
exp2 = np.exp2
expm1 = np.expm1
log1p = np.log1p
sqrt = np.sqrt
cbrt = np.cbrt
abs = np.abs  # noqa: A001
add = np.add
sub = np.subtract
mul = np.multiply
neg = np.negative
sign = np.sign
square = np.square
max = np.maximum  # noqa: A001
min = np.minimum  # noqa: A001
pow = np.power  # noqa: A001
floor = np.floor
ceil = np.ceil
rem = np.fmod


def div(x, y):
    """x / y (floating point; s2s does not emulate lax's integer division)."""
    return np.divide(x, y)


def round_(x, rounding_method=0):
    """Rounded to the nearest integer, halves away from zero (lax's default)."""
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def rsqrt(x):
    """1 / sqrt(x)."""
    return 1.0 / np.sqrt(x)


def logistic(x):
    """1 / (1 + exp(-x)), written with tanh so no input overflows."""
    return 0.5 * np.tanh(0.5 * x) + 0.5


def integer_pow(x, y):
    """x ** y for a Python integer y."""
    return x ** y


def convert_element_type(operand, new_dtype):
    """`operand` cast to `new_dtype`."""
    return operand.astype(new_dtype)


_ERF_TERMS = 160  # the series below has converged to double precision by then for |x| <= 6


def _erf_special(x):
    """The error function: SciPy's (`cupyx.scipy.special`'s on CuPy, block by block on Dask), the
    primitive rt.erf, whose derivative 2/sqrt(pi) exp(-x^2) s2s differentiates to any order."""
    return special_erf(x)


def _erf_series(x):
    """The error function, from its everywhere-convergent series of positive terms,
    erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)), on |x| <= 6 (beyond,
    erf is +-1 in double precision). Plain NumPy, so s2s differentiates it to any order: the
    error function where SciPy is not installed (its graph is large on Dask)."""
    z = np.clip(x, -6.0, 6.0)
    z2 = 2.0 * z * z
    term = z
    total = z
    for n in range(1, _ERF_TERMS):
        term = term * z2 / (2 * n + 1)
        total = total + term
    return 1.1283791670955126 * np.exp(-z * z) * total


erf = _erf_special if importlib.util.find_spec("scipy") is not None else _erf_series

# JAX's names; the functions are defined as `map_`, `slice_`, `round_` so that the name s2s binds
# them under in generated code is never a builtin the generated code itself uses (`slice`)
map, slice, round = map_, slice_, round_  # noqa: A001
