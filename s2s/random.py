"""Counter-based PRNG keys in the style of ``jax.random``, on NumPy alone.

A key is a ``uint32`` array of shape ``(2,)``; functions never mutate it, so the same key always
gives the same numbers. Every draw builds a fresh ``numpy.random.Philox`` generator whose 128-bit
Philox key packs the two key words, a domain tag (sampling, splitting, folding in) and, for
``fold_in``, the folded-in data. Philox is a keyed bijection, so distinct keys or domains give
streams with no usable relation to each other; reusing a key for two purposes is still a bug in
the caller's code, exactly as in JAX.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

__all__ = [
    "PRNGKey",
    "bernoulli",
    "choice",
    "fold_in",
    "key",
    "normal",
    "permutation",
    "randint",
    "split",
    "uniform",
]

Shape = int | Sequence[int]

_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
# Domain tags, kept in the top 32 bits of the 128-bit Philox key.
_SAMPLE, _SPLIT, _FOLD = 1, 2, 3


def PRNGKey(seed: int) -> np.ndarray:
    """A key from an integer seed: the seed's 64 bits as two ``uint32`` words (high, low)."""
    s = operator.index(seed) & _MASK64
    return np.array([s >> 32, s & _MASK32], dtype=np.uint32)


def key(seed: int) -> np.ndarray:
    """Same as :func:`PRNGKey`; keys are plain ``uint32`` arrays of shape ``(2,)``."""
    return PRNGKey(seed)


def _key_words(k: ArrayLike) -> int:
    """The key as one 64-bit integer, after checking it looks like a key."""
    arr = np.asarray(k)
    if arr.shape != (2,) or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(
            f"expected a PRNG key (uint32 array of shape (2,)), got {arr.dtype} array of shape "
            f"{arr.shape}; make one with s2s.random.key(seed) and split it for more keys"
        )
    hi, lo = (int(w) & _MASK32 for w in arr)
    return (hi << 32) | lo


def _bitgen(k: ArrayLike, domain: int, data: int = 0) -> np.random.Philox:
    philox_key = _key_words(k) | ((data & _MASK32) << 64) | (domain << 96)
    return np.random.Philox(key=philox_key)


def _generator(k: ArrayLike) -> np.random.Generator:
    return np.random.Generator(_bitgen(k, _SAMPLE))


def _keys_from_raw(raw: np.ndarray) -> np.ndarray:
    raw = raw.astype(np.uint64)
    return np.stack([raw >> np.uint64(32), raw & np.uint64(_MASK32)], axis=-1).astype(
        np.uint32
    )


def _shape(shape: Shape | None) -> tuple[int, ...]:
    if shape is None:
        return ()
    if isinstance(shape, Sequence):
        return tuple(operator.index(d) for d in shape)
    return (operator.index(shape),)


def _float_dtype(dtype: DTypeLike, fn: str) -> np.dtype:
    dt = np.dtype(dtype)
    if not np.issubdtype(dt, np.floating):
        raise TypeError(f"s2s.random.{fn}: dtype must be a floating type, got {dt}")
    return dt


def split(key: ArrayLike, num: int = 2) -> np.ndarray:
    """``num`` new keys derived from ``key``, as a ``uint32`` array of shape ``(num, 2)``."""
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"s2s.random.split: num must be >= 0, got {num}")
    return _keys_from_raw(_bitgen(key, _SPLIT).random_raw(num))


def fold_in(key: ArrayLike, data: int) -> np.ndarray:
    """A new key determined by ``key`` and the 32-bit integer ``data`` (e.g. a step number)."""
    raw = _bitgen(key, _FOLD, operator.index(data)).random_raw(1)
    return _keys_from_raw(raw)[0]


def uniform(
    key: ArrayLike,
    shape: Shape = (),
    dtype: DTypeLike = np.float64,
    minval: ArrayLike = 0.0,
    maxval: ArrayLike = 1.0,
) -> np.ndarray:
    """Uniform samples in ``[minval, maxval)`` with the given shape and floating dtype."""
    dt = _float_dtype(dtype, "uniform")
    shape = _shape(shape)
    u = _generator(key).random(shape)
    lo = np.asarray(minval, dtype=np.float64)
    hi = np.asarray(maxval, dtype=np.float64)
    out = np.broadcast_to(lo + (hi - lo) * u, shape).astype(dt)
    # Rounding to a narrower dtype can land on maxval; keep the interval half-open.
    top = np.nextafter(hi.astype(dt), np.asarray(-np.inf, dtype=dt))
    return np.asarray(
        np.clip(out, lo.astype(dt), np.maximum(top, lo.astype(dt))), dtype=dt
    )


def normal(
    key: ArrayLike, shape: Shape = (), dtype: DTypeLike = np.float64
) -> np.ndarray:
    """Standard normal samples with the given shape and floating dtype."""
    dt = _float_dtype(dtype, "normal")
    z = _generator(key).standard_normal(_shape(shape))
    return np.asarray(z, dtype=dt)


def randint(
    key: ArrayLike,
    shape: Shape,
    minval: ArrayLike,
    maxval: ArrayLike,
    dtype: DTypeLike = np.int64,
) -> np.ndarray:
    """Integers drawn uniformly from ``[minval, maxval)``; bounds broadcast against ``shape``."""
    dt = np.dtype(dtype)
    if not np.issubdtype(dt, np.integer):
        raise TypeError(f"s2s.random.randint: dtype must be an integer type, got {dt}")
    out = _generator(key).integers(minval, maxval, size=_shape(shape), dtype=dt)
    return np.asarray(out)


def bernoulli(
    key: ArrayLike, p: ArrayLike = 0.5, shape: Shape | None = None
) -> np.ndarray:
    """Booleans that are ``True`` with probability ``p``; ``shape`` defaults to ``p``'s shape."""
    p = np.asarray(p, dtype=np.float64)
    shape = p.shape if shape is None else _shape(shape)
    return np.asarray(_generator(key).random(shape) < p)


def permutation(key: ArrayLike, x: int | ArrayLike, axis: int = 0) -> np.ndarray:
    """A shuffled copy of ``x`` along ``axis``, or a permutation of ``range(x)`` for an int."""
    gen = _generator(key)
    if isinstance(x, (int, np.integer)):
        return gen.permutation(operator.index(x))
    return gen.permutation(np.asarray(x), axis=axis)


def choice(
    key: ArrayLike,
    a: int | ArrayLike,
    shape: Shape = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
) -> np.ndarray:
    """Samples from ``a`` (or ``range(a)``) along ``axis``, optionally weighted by ``p``."""
    a = operator.index(a) if isinstance(a, (int, np.integer)) else np.asarray(a)
    out = _generator(key).choice(a, size=_shape(shape), replace=replace, p=p, axis=axis)
    return np.asarray(out)
