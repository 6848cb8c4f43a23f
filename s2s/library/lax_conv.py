"""`s2s.lax`'s convolution and windowed reduction, with JAX's signatures, and the shape helpers
`jax.example_libraries.stax` calls (`conv_general_shape_tuple`, `padtype_to_pads`, ...).

`conv_general_dilated` is a primitive (`rt.lax_conv`, rules in primitives/rules_conv.py): strides,
'SAME'/'SAME_LOWER'/'VALID' or explicit (lo, hi) padding, lhs and rhs dilation,
dimension_numbers and feature_group_count. `reduce_window` is ordinary Python that s2s transforms
like user code: the windows are gathered by a primitive (`rt.lax_windows`) and reduced with the
`computation` given (lax.max and lax.add by np.max and np.sum, any other binary function folded
over them), so its derivative is the one of that function.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..runtime.conv import conv_perms, dilate_dim, lax_conv, lax_windows, pads_of

__all__ = ["ConvDimensionNumbers", "conv", "conv_dimension_numbers", "conv_general_dilated", "conv_general_permutations",
           "conv_general_shape_tuple", "conv_shape_tuple", "conv_with_general_padding", "padtype_to_pads", "reduce_window",
           "reduce_window_shape_tuple"]


class ConvDimensionNumbers(NamedTuple):
    """Where batch/feature and spatial axes are: lhs (N, C, spatial...), rhs (O, I, spatial...),
    out (N, C, spatial...), each a tuple of axis positions (JAX's type)."""
    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
                         preferred_element_type=None):
    """JAX's general convolution (`precision` and `preferred_element_type` accepted and ignored;
    batch_group_count other than 1 is refused)."""
    return lax_conv(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers,
                    feature_group_count, batch_group_count)


def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None):
    """conv_general_dilated with NCHW/OIHW layouts and no dilation."""
    return lax_conv(lhs, rhs, window_strides, padding, None, None, None, 1, 1)


def conv_with_general_padding(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, precision=None,
                              preferred_element_type=None):
    """conv_general_dilated with NCHW/OIHW layouts, explicit (lo, hi) pairs or 'SAME'/'VALID' padding
    and both dilations (JAX's signature)."""
    return lax_conv(lhs, rhs, window_strides, padding, lhs_dilation, rhs_dilation, None, 1, 1)


def reduce_window(operand, init_value, computation, window_dimensions, window_strides, padding,
                  base_dilation=None, window_dilation=None):
    """`computation` (binary: lax.max, lax.add, ...) folded over each window of `operand`, from
    `init_value`, which also fills the padding."""
    windows = lax_windows(operand, window_dimensions, window_strides, padding, base_dilation, window_dilation,
                          init_value)
    if computation is np.maximum:  # (decided when transforming: `computation` is a function known then)
        return np.maximum(np.max(windows, axis=-1), init_value)
    if computation is np.add:
        return np.sum(windows, axis=-1) + init_value
    out = computation(init_value, windows[..., 0])
    for k in range(1, windows.shape[-1]):
        out = computation(out, windows[..., k])
    return out


# ---------------------------------------------------------------- shape helpers (plain Python)

def conv_general_permutations(dimension_numbers):
    """(lhs, rhs, out) permutations to (N, C, spatial...), (O, I, spatial...), (N, C, spatial...)."""
    lhs_spec = dimension_numbers[0]
    return conv_perms(len(lhs_spec), dimension_numbers)


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """`dimension_numbers` (None, spec strings, or a ConvDimensionNumbers) as a ConvDimensionNumbers."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    return ConvDimensionNumbers(*conv_perms(len(lhs_shape), dimension_numbers))


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list:
    """'SAME', 'SAME_LOWER' or 'VALID' as (lo, hi) pairs for these shapes (pairs pass through)."""
    return [tuple(p) for p in pads_of(padding, tuple(in_shape), tuple(window_shape), tuple(window_strides))]


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count=1) -> tuple:
    """The output shape (N, O, spatial...) of a convolution of (N, C, spatial...) by (O, I,
    spatial...), `pads` pairs or a padding name."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    out = []
    for n, k, s, (lo, hi) in zip(lhs_shape[2:], rhs_shape[2:], strides, pads):
        out.append(max(0, (n + lo + hi - k) // s + 1))
    return (lhs_shape[0] // batch_group_count, rhs_shape[0]) + tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers) -> tuple:
    """The output shape of conv_general_dilated in the layout `dimension_numbers` gives it."""
    lp, rp, op = conv_perms(len(lhs_shape), dimension_numbers)
    out = conv_shape_tuple(tuple(lhs_shape[i] for i in lp), tuple(rhs_shape[i] for i in rp), window_strides, padding)
    return tuple(int(out[i]) for i in np.argsort(op))


def reduce_window_shape_tuple(operand_shape, window_dimensions, window_strides, padding, base_dilation=None,
                              window_dilation=None) -> tuple:
    """The output shape of reduce_window (`padding` as (lo, hi) pairs)."""
    n = len(operand_shape)
    base = base_dilation or (1,) * n
    wdil = window_dilation or (1,) * n
    out = []
    for d, w, s, (lo, hi), b, r in zip(operand_shape, window_dimensions, window_strides, padding, base, wdil):
        size = dilate_dim(d, b) + lo + hi
        out.append(max(0, (size - dilate_dim(w, r)) // s + 1))
    return tuple(out)
