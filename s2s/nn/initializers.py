"""`s2s.nn.initializers`: JAX's parameter initializers, `init = normal(stddev); init(key, shape, dtype)`.

They draw from `s2s.random` with the keys it makes, so the same key gives the same numbers as
`s2s.random` itself. The default dtype is float32, or float64 with `s2s.config.update("jax_enable_x64", True)`, as
in JAX.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import config, random
from ..errors import S2SValueError

__all__ = ["constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "kaiming_normal",
           "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "truncated_normal",
           "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]

Initializer = Callable[..., np.ndarray]
_TRUNC_STD = 0.87962566103423978  # stddev of a standard normal truncated to (-2, 2)


def _dtype(dtype: Any) -> Any:
    """`dtype`, or JAX's default float dtype (float32; float64 with x64) when it is None."""
    return config.default_float() if dtype is None else dtype


def zeros(key: Any, shape: Sequence[int], dtype: Any = None) -> np.ndarray:
    """An array of zeros (the key is unused)."""
    dtype = _dtype(dtype)
    return np.zeros(tuple(shape), dtype)


def ones(key: Any, shape: Sequence[int], dtype: Any = None) -> np.ndarray:
    """An array of ones (the key is unused)."""
    dtype = _dtype(dtype)
    return np.ones(tuple(shape), dtype)


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer filling every entry with `value`."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> np.ndarray:
        dtype = _dtype(dtype)
        return np.full(tuple(shape), value, dtype)
    return init


def normal(stddev: float = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing normal samples with standard deviation `stddev`."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> np.ndarray:
        dtype = _dtype(dtype)
        return (random.normal(key, tuple(shape), dtype) * np.asarray(stddev, dtype)).astype(dtype)
    return init


def uniform(scale: float = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing uniform samples in [0, scale)."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> np.ndarray:
        dtype = _dtype(dtype)
        return (random.uniform(key, tuple(shape), dtype) * np.asarray(scale, dtype)).astype(dtype)
    return init


def truncated_normal(stddev: float = 1e-2, dtype: Any = None, lower: float = -2.0,
                     upper: float = 2.0) -> Initializer:
    """An initializer drawing a normal truncated to [lower, upper], times `stddev`."""
    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> np.ndarray:
        dtype = _dtype(dtype)
        draws = random.truncated_normal(key, lower, upper, tuple(shape), dtype)
        return (draws * np.asarray(stddev, dtype)).astype(dtype)
    return init


def _axes(axes: Any, ndim: int) -> tuple[int, ...]:
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    return tuple(a % ndim for a in axes)


def _fans(shape: tuple[int, ...], in_axis: Any, out_axis: Any, batch_axis: Any) -> tuple[float, float]:
    """(fan_in, fan_out) as JAX computes them: the in/out axes' sizes times the receptive field
    (the product of the other non-batch axes)."""
    if len(shape) < 2:
        raise S2SValueError(f"variance_scaling needs a shape with at least 2 axes, got {shape}")
    ins, outs, batch = _axes(in_axis, len(shape)), _axes(out_axis, len(shape)), _axes(batch_axis, len(shape))
    size = lambda axes: math.prod(shape[a] for a in axes)  # noqa: E731
    receptive = size([a for a in range(len(shape)) if a not in ins + outs + batch])
    return size(ins) * receptive, size(outs) * receptive


def variance_scaling(scale: float, mode: str, distribution: str, in_axis: Any = -2, out_axis: Any = -1,
                     batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """JAX's variance_scaling: samples with variance scale / fan, fan by `mode` ("fan_in",
    "fan_out", "fan_avg", "fan_geo"), from `distribution` ("truncated_normal", "normal", "uniform")."""
    modes = ("fan_in", "fan_out", "fan_avg", "fan_geo")
    dists = ("truncated_normal", "normal", "uniform")
    if mode not in modes:
        raise S2SValueError(f"variance_scaling: mode must be one of {modes}, got {mode!r}")
    if distribution not in dists:
        raise S2SValueError(f"variance_scaling: distribution must be one of {dists}, got {distribution!r}")

    def init(key: Any, shape: Sequence[int], dtype: Any = dtype) -> np.ndarray:
        dtype = _dtype(dtype)
        shape = tuple(shape)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2,
               "fan_geo": math.sqrt(fan_in * fan_out)}[mode]
        variance = scale / fan
        if distribution == "truncated_normal":
            draws = random.truncated_normal(key, -2.0, 2.0, shape, dtype) * (math.sqrt(variance) / _TRUNC_STD)
        elif distribution == "normal":
            draws = random.normal(key, shape, dtype) * math.sqrt(variance)
        else:
            draws = random.uniform(key, shape, dtype, -1.0, 1.0) * math.sqrt(3.0 * variance)
        return draws.astype(dtype)
    return init


def glorot_uniform(in_axis: Any = -2, out_axis: Any = -1, batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_avg", "uniform")."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis: Any = -2, out_axis: Any = -1, batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_avg", "truncated_normal")."""
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def lecun_uniform(in_axis: Any = -2, out_axis: Any = -1, batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_in", "uniform")."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis: Any = -2, out_axis: Any = -1, batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """variance_scaling(1.0, "fan_in", "truncated_normal")."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis: Any = -2, out_axis: Any = -1, batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """variance_scaling(2.0, "fan_in", "uniform")."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis: Any = -2, out_axis: Any = -1, batch_axis: Any = (), dtype: Any = None) -> Initializer:
    """variance_scaling(2.0, "fan_in", "truncated_normal")."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal
