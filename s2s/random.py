"""Counter-based PRNG keys with ``jax.random``'s API and JAX's exact streams, on NumPy alone.

A key is a ``uint32`` array of shape ``(2,)`` (``key(seed)`` and ``PRNGKey(seed)`` both return
one; ``key_data`` gives the raw words). Functions never mutate a key, so the same key always
gives the same numbers. The generator is Threefry-2x32 (20 rounds), with JAX's two layouts of
counters: *classic* (``jax_threefry_partitionable=False``, the default here) and
*partitionable* (JAX's current default), picked with
``s2s.config.update("threefry_partitionable", True)``. The bits, the bits-to-float mapping, the
float32/float64 inverse error function and every sampler follow JAX's algorithms, so draws are
bit-identical to JAX's in float32 and, when ``dtype=np.float64`` is asked, to JAX's with x64 on.
Everything is vectorized NumPy ``uint32`` arithmetic, done in cache-sized blocks.

About 730 lines in one module, on purpose: it is the public ``s2s.random`` namespace (one
function per ``jax.random`` sampler, as users import it), and the samplers share the key
splitting, the bits-to-float mapping and the inverse error function.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from . import config as _config
from .base import record as _record
from .compiler.primitives import registry as _registry
from .errors import S2STypeError, S2SValueError

__all__ = [
    "PRNGKey",
    "bernoulli",
    "choice",
    "fold_in",
    "key",
    "key_data",
    "normal",
    "permutation",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
]

_U32 = np.uint32
_MASK32 = 0xFFFFFFFF
_MASK64 = 0xFFFFFFFFFFFFFFFF
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_BLOCK = 1 << 16  # counters hashed per block: keeps the working set in cache


# --- Threefry-2x32 -----------------------------------------------------------------------------


def _threefry_block(ks: tuple[int, int, int], x0: np.ndarray, x1: np.ndarray) -> None:
    """Threefry-2x32 with key schedule ``ks`` applied in place to the counter words ``x0, x1``."""
    tmp = np.empty_like(x0)
    x0 += _U32(ks[0])
    x1 += _U32(ks[1])
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            x0 += x1
            np.left_shift(x1, _U32(r), out=tmp)
            x1 >>= _U32(32 - r)
            x1 |= tmp
            x1 ^= x0
        x0 += _U32(ks[(i + 1) % 3])
        x1 += _U32((ks[(i + 2) % 3] + i + 1) & _MASK32)


def _key_schedule(k: np.ndarray) -> tuple[int, int, int]:
    k0, k1 = int(k[0]), int(k[1])
    return k0, k1, k0 ^ k1 ^ 0x1BD11BDA


def _threefry2x32(k: np.ndarray, x0: np.ndarray, x1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hash the counter pairs ``(x0[i], x1[i])`` under key ``k``; returns two new uint32 arrays."""
    ks = _key_schedule(k)
    y0 = np.array(x0, dtype=_U32, copy=True).ravel()
    y1 = np.array(x1, dtype=_U32, copy=True).ravel()
    for start in range(0, y0.size, _BLOCK):
        _threefry_block(ks, y0[start:start + _BLOCK], y1[start:start + _BLOCK])
    return y0, y1


def _hash_counters(k: np.ndarray, n: int, first: Any, second: Any) -> tuple[np.ndarray, np.ndarray]:
    """Hash ``n`` counter pairs made block by block by ``first(a, b)`` and ``second(a, b)``
    (the pairs ``a..b-1``), so no array of counters is ever built in full."""
    ks = _key_schedule(k)
    y0, y1 = np.empty(n, _U32), np.empty(n, _U32)
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        x0, x1 = first(a, b), second(a, b)
        _threefry_block(ks, x0, x1)
        y0[a:b], y1[a:b] = x0, x1
    return y0, y1


def _threefry_flat(k: np.ndarray, count: np.ndarray) -> np.ndarray:
    """JAX's ``threefry_2x32(key, count)``: hash the first half of the counters against the second."""
    n = count.size
    padded = np.concatenate([count, np.zeros(n % 2, _U32)])
    half = padded.size // 2
    y0, y1 = _threefry2x32(k, padded[:half], padded[half:])
    return np.concatenate([y0, y1])[:n]


def _threefry_iota(k: np.ndarray, n: int) -> np.ndarray:
    """``_threefry_flat(k, arange(n))`` (the classic layout), with the counters made per block."""
    half = (n + 1) // 2

    def second(a: int, b: int) -> np.ndarray:
        c = np.arange(half + a, half + b, dtype=np.uint64)
        c[c >= n] = 0  # an odd count is padded with one zero counter
        return c.astype(_U32)

    y0, y1 = _hash_counters(k, half, lambda a, b: np.arange(a, b, dtype=_U32), second)
    return np.concatenate([y0, y1])[:n]


def _threefry_iota_2x32(k: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Hash the 64-bit counters ``0..n-1``, split in (high, low) words (the partitionable layout)."""

    def words(shift: int) -> Any:
        return lambda a, b: ((np.arange(a, b, dtype=np.uint64) >> np.uint64(shift)) & np.uint64(_MASK32)).astype(_U32)

    return _hash_counters(k, n, words(32), words(0))


def _partitionable() -> bool:
    return bool(_config.read("threefry_partitionable"))


def _bits(k: np.ndarray, width: int, shape: tuple[int, ...]) -> np.ndarray:
    """JAX's ``_random_bits``: ``width``-bit unsigned random words of the given shape."""
    size = math.prod(shape)
    udtype = np.dtype(f"uint{width}")
    if _partitionable():
        b0, b1 = _threefry_iota_2x32(k, size)
        if width == 64:
            out = (b0.astype(np.uint64) << np.uint64(32)) | b1.astype(np.uint64)
        else:
            out = (b0 ^ b1).astype(udtype)
        return out.reshape(shape)
    words = -(-width * size // 32)
    if words >= _MASK32:
        raise S2SValueError(f"s2s.random: {size} draws of {width} bits is more than the classic layout allows")
    raw = _threefry_iota(k, words)
    if width == 64:
        hi, lo = np.split(raw.astype(np.uint64), 2)
        out = (hi << np.uint64(32)) | lo
    elif width == 32:
        out = raw
    else:  # 8 or 16 bits: the words' little-endian pieces, in order
        out = raw.astype("<u4").view(f"<u{width // 8}")[:size].astype(udtype)
    return out.reshape(shape)


# --- keys ------------------------------------------------------------------------------------


def _seed_words(seed: Any) -> np.ndarray:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) and not (
        isinstance(seed, np.ndarray) and seed.shape == () and np.issubdtype(seed.dtype, np.integer)
    ):
        raise S2STypeError(f"s2s.random.key: the seed must be an integer, got {seed!r}")
    s = int(seed)
    if not -(2**63) <= s < 2**64:
        raise S2SValueError(f"s2s.random.key: seed {s} does not fit in 64 bits")
    s &= _MASK64
    return np.array([s >> 32, s & _MASK32], dtype=_U32)


def PRNGKey(seed: int) -> np.ndarray:
    """A key from an integer seed: its 64 bits as two ``uint32`` words (high, low), as in JAX.

    Negative seeds are taken as 64-bit two's complement (JAX's behaviour with x64 on).
    """
    return _seed_words(seed)


def key(seed: int) -> np.ndarray:
    """Same words as :func:`PRNGKey` (JAX's typed key; here a raw ``uint32[2]`` too)."""
    return _seed_words(seed)


def key_data(keys: ArrayLike) -> np.ndarray:
    """The raw ``uint32`` words of a key or of an array of keys (shape ``(..., 2)``)."""
    arr = np.asarray(keys)
    if arr.dtype != _U32 or arr.ndim < 1 or arr.shape[-1] != 2:
        raise S2STypeError(_bad_key("key_data", arr))
    return arr.copy()


def _bad_key(fn: str, arr: np.ndarray) -> str:
    return (
        f"s2s.random.{fn}: expected a PRNG key (a uint32 array of shape (2,)), got a {arr.dtype} "
        f"array of shape {arr.shape}; make one with s2s.random.key(seed) and split it for more keys"
    )


def _check_key(fn: str, k: Any) -> np.ndarray:
    arr = np.asarray(k)
    if arr.dtype == _U32 and arr.ndim > 1 and arr.shape[-1] == 2:
        raise S2STypeError(
            f"s2s.random.{fn} accepts a single key, but was given {arr.shape[0]} keys (shape "
            f"{arr.shape}); index one, e.g. keys[0], or loop over them"
        )
    if arr.dtype != _U32 or arr.shape != (2,):
        raise S2STypeError(_bad_key(fn, arr))
    return arr


def split(key: ArrayLike, num: int | Sequence[int] = 2) -> np.ndarray:
    """``num`` new keys derived from ``key``: a ``uint32`` array of shape ``(num, 2)``, or
    ``(*num, 2)`` when ``num`` is a shape tuple (as in JAX)."""
    k = _check_key("split", key)
    shape = _shape("split", num) if isinstance(num, (tuple, list)) else (_dim("split", num),)
    count = math.prod(shape)
    if _partitionable():
        return np.stack(_threefry_iota_2x32(k, count), axis=-1).reshape(*shape, 2)
    return _threefry_iota(k, 2 * count).reshape(*shape, 2)


def fold_in(key: ArrayLike, data: int) -> np.ndarray:
    """A new key determined by ``key`` and the 32-bit integer ``data`` (e.g. a step number)."""
    k = _check_key("fold_in", key)
    if not isinstance(data, (int, np.integer)) or isinstance(data, (bool, np.bool_)):
        raise S2STypeError(f"s2s.random.fold_in: data must be an integer, got {data!r}")
    return _threefry_flat(k, np.array([0, int(data) & _MASK32], dtype=_U32))


def _split2(k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ks = split(k, 2)
    return ks[0], ks[1]


# --- argument checks -------------------------------------------------------------------------


def _dim(fn: str, d: Any) -> int:
    try:
        if isinstance(d, (bool, np.bool_)):
            raise TypeError
        n = operator.index(d)
    except TypeError:
        raise S2STypeError(f"s2s.random.{fn}: sizes must be integers, got {d!r}") from None
    if n < 0:
        raise S2SValueError(f"s2s.random.{fn}: sizes must be >= 0, got {n}")
    return n


def _shape(fn: str, shape: Any) -> tuple[int, ...]:
    if not isinstance(shape, Sequence) or isinstance(shape, str):
        if isinstance(shape, np.ndarray) and shape.ndim == 1:
            shape = shape.tolist()
        else:
            raise S2STypeError(
                f"s2s.random.{fn}: shape must be a sequence of integers, got {shape!r}"
                + (f"; write ({shape},)" if isinstance(shape, int) else "")
            )
    return tuple(_dim(fn, d) for d in shape)


def _check_param_shapes(fn: str, shape: tuple[int, ...], *params: Any) -> None:
    """JAX's rule: parameters broadcast to ``shape`` and broadcasting them with it gives ``shape``."""
    try:
        result = np.broadcast_shapes(shape, *(np.shape(p) for p in params))
    except ValueError:
        result = None
    if result != shape:
        raise S2SValueError(
            f"s2s.random.{fn}: parameter shapes {[np.shape(p) for p in params]} must broadcast to "
            f"the shape argument {shape}"
        )


def _float_dtype(fn: str, dtype: DTypeLike | None) -> np.dtype:
    """`dtype`, or float32 (float64 with ``enable_x64``) when it is None, as JAX's default."""
    dt = np.dtype(_config.default_float() if dtype is None else dtype)
    if dt.kind != "f" or dt.itemsize not in (2, 4, 8):
        raise S2SValueError(f"s2s.random.{fn}: dtype must be float16, float32 or float64, got {dt}")
    return dt


# --- floats ----------------------------------------------------------------------------------


def _unit_floats(bits: np.ndarray, dt: np.dtype) -> np.ndarray:
    """Floats in ``[0, 1)`` from random words (overwritten): mantissa bits under 1.0's exponent, minus 1."""
    width = dt.itemsize * 8
    udtype = bits.dtype.type
    bits >>= udtype(width - np.finfo(dt).nmant)
    bits |= np.array(1.0, dt).view(bits.dtype)
    out = bits.view(dt)
    out -= dt.type(1.0)
    return out


def _uniform(k: np.ndarray, shape: tuple[int, ...], dt: np.dtype, minval: Any, maxval: Any,
             then: Any = None) -> np.ndarray:
    """JAX's ``max(minval, u * (maxval - minval) + minval)``, then ``then(result)`` if given.

    With scalar bounds the work after drawing the bits is done in cache-sized blocks.
    """
    lo = np.asarray(minval).astype(dt)
    hi = np.asarray(maxval).astype(dt)
    bits = _bits(k, dt.itemsize * 8, shape)

    def finish(b: np.ndarray, lo: np.ndarray = lo, hi: np.ndarray = hi) -> np.ndarray:
        f = np.maximum(lo, _fma(_unit_floats(b, dt), hi - lo, lo))
        return f if then is None else then(f)

    if lo.size != 1 or hi.size != 1:
        return finish(bits)
    flat = bits.reshape(-1)
    out = np.empty(flat.shape, dt)
    for start in range(0, flat.size, _BLOCK):
        out[start:start + _BLOCK] = finish(flat[start:start + _BLOCK], lo.reshape(()), hi.reshape(()))
    return out.reshape(shape)


def uniform(
    key: ArrayLike,
    shape: Sequence[int] = (),
    dtype: DTypeLike | None = None,
    minval: ArrayLike = 0.0,
    maxval: ArrayLike = 1.0,
) -> np.ndarray:
    """Uniform samples in ``[minval, maxval)`` (``minval`` everywhere when ``maxval <= minval``)."""
    k = _check_key("uniform", key)
    shape = _shape("uniform", shape)
    dt = _float_dtype("uniform", dtype)
    _check_param_shapes("uniform", shape, minval, maxval)
    return _uniform(k, shape, dt, minval, maxval)


# Giles' single-precision erfinv polynomials (as XLA evaluates erf_inv in float32).
_ERFINV32_CENTRAL = (
    2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
    -0.00125372503, -0.00417768164, 0.246640727, 1.50140941,
)
_ERFINV32_TAIL = (
    -0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
    -0.0076224613, 0.00943887047, 1.00167406, 2.83297682,
)
# Giles' double-precision polynomials for w < 6.25, w < 16 and beyond.
_ERFINV64 = (
    (
        -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
        1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
        6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
        2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
        1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
        4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
        0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
        0.24015818242558961693, 1.6536545626831027356,
    ),
    (
        2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
        1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
        2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
        6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
        0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
        -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
        3.0838856104922207635,
    ),
    (
        -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
        -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
        2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
        -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
        7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
        1.0103004648645343977, 4.8499064014085844221,
    ),
)


def _two_prod(a: np.ndarray, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """``a * b`` as a rounded product and its exact error (Dekker), in float64."""
    p = a * b
    ah, al = _split_f64(a)
    bh, bl = _split_f64(np.asarray(b, np.float64))
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _split_f64(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = a * 134217729.0  # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def _fma(a: np.ndarray, b: Any, c: Any) -> np.ndarray:
    """``a * b + c`` rounded once, as XLA's CPU code computes a fused multiply-add."""
    dt = a.dtype
    if dt != np.float64:  # the float32 product is exact in float64
        return (a.astype(np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(dt)
    p, e = _two_prod(a, b)
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)
    return s + (t + e)


def _horner64(coeffs: Sequence[float], w: np.ndarray) -> np.ndarray:
    """Horner's rule in float64 with each step an exact fused multiply-add (Dekker's product
    error plus Knuth's sum error), written in place; ``w`` is split once for all steps."""
    wh, wl = _split_f64(w)
    p = np.full_like(w, coeffs[0])
    prod, ph, pl, e, s, bb, t = (np.empty_like(w) for _ in range(7))
    for c in coeffs[1:]:
        np.multiply(p, w, out=prod)
        np.multiply(p, 134217729.0, out=ph)  # split p into 26-bit halves ph + pl
        np.subtract(ph, p, out=pl)
        np.subtract(ph, pl, out=ph)
        np.subtract(p, ph, out=pl)
        np.multiply(ph, wh, out=e)  # e: the rounding error of prod = p * w
        e -= prod
        for u, v in ((ph, wl), (pl, wh), (pl, wl)):
            np.multiply(u, v, out=s)
            e += s
        np.add(prod, c, out=s)  # s + t == prod + c exactly
        np.subtract(s, prod, out=bb)
        np.subtract(s, bb, out=t)
        np.subtract(prod, t, out=t)
        np.subtract(c, bb, out=bb)
        t += bb
        t += e
        np.add(s, t, out=p)
    return p


def _horner(coeffs: Sequence[float], w: np.ndarray) -> np.ndarray:
    """Horner's rule with one rounding per step (a fused multiply-add, as XLA emits)."""
    dt = w.dtype
    if dt == np.float64:
        return _horner64(coeffs, w)
    # float32: the product of two float32 numbers is exact in float64, so p * w + c computed
    # in float64 and rounded to float32 is the fused multiply-add (up to rare double rounding).
    w64 = w.astype(np.float64)
    p = np.full_like(w64, float(dt.type(coeffs[0])))
    for c in coeffs[1:]:
        p *= w64
        p += float(dt.type(c))
        p = p.astype(dt).astype(np.float64)
    return p.astype(dt)


def _erfinv(x: np.ndarray) -> np.ndarray:
    """Inverse error function, evaluated as XLA does (float16 goes through float32)."""
    out = np.empty_like(x)
    flat, res = x.reshape(-1), out.reshape(-1)
    for start in range(0, flat.size, _BLOCK):
        res[start:start + _BLOCK] = _erfinv_block(flat[start:start + _BLOCK])
    return out


def _erfinv_block(x: np.ndarray) -> np.ndarray:
    """Giles' polynomials in ``w = -log1p(-x*x)``, with fused multiply-adds as XLA's CPU code."""
    dt = x.dtype
    if dt == np.float16:
        return _erfinv_block(x.astype(np.float32)).astype(np.float16)
    with np.errstate(divide="ignore", invalid="ignore"):  # |x| == 1 is patched below
        return _erfinv_poly(x)


def _erfinv_poly(x: np.ndarray) -> np.ndarray:
    """XLA's erf_inv for float32/float64; the logarithm is taken in double precision, rounded once."""
    dt = x.dtype
    w = np.log1p(-(x * x).astype(np.float64))
    np.negative(w, out=w)
    w = w.astype(dt)
    if dt == np.float32:
        pieces = [(None, 5.0, 2.5, _ERFINV32_CENTRAL), (5.0, None, 3.0, _ERFINV32_TAIL)]
    else:
        pieces = [(None, 6.25, 3.125, _ERFINV64[0]), (6.25, 16.0, 3.25, _ERFINV64[1]),
                  (16.0, None, 5.0, _ERFINV64[2])]
    p = _erfinv_piece(w, *pieces[0][2:])  # the central piece covers nearly every draw
    for low, high, shift, coeffs in pieces[1:]:
        idx = np.flatnonzero((w >= low) if high is None else (w >= low) & (w < high))
        if idx.size:
            p[idx] = _erfinv_piece(w[idx], shift, coeffs, sqrt=True)
    out = p * x
    edge = np.flatnonzero(np.abs(x) == dt.type(1.0))
    out[edge] = x[edge] * dt.type(np.inf)
    return out


def _erfinv_piece(w: np.ndarray, shift: float, coeffs: Sequence[float], sqrt: bool = False) -> np.ndarray:
    t = np.sqrt(w) if sqrt else w
    return _horner(coeffs, t - t.dtype.type(shift))


def _normal(k: np.ndarray, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    """``sqrt(2) * erfinv(u)`` for ``u`` uniform in ``[nextafter(-1, 0), 1)``, as JAX draws normals."""
    lo = np.nextafter(np.array(-1.0, dt), np.array(0.0, dt))
    sqrt2 = dt.type(np.sqrt(2))
    return _uniform(k, shape, dt, lo, np.array(1.0, dt), then=lambda u: _erfinv_block(u) * sqrt2)


def normal(key: ArrayLike, shape: Sequence[int] = (), dtype: DTypeLike | None = None) -> np.ndarray:
    """Standard normal samples: ``sqrt(2) * erfinv(u)`` for ``u`` uniform in ``(-1, 1)``."""
    k = _check_key("normal", key)
    return _normal(k, _shape("normal", shape), _float_dtype("normal", dtype))


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function of the (few) truncation bounds, in double precision, rounded to x's dtype."""
    values = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(values, dtype=np.float64).astype(x.dtype)


def truncated_normal(
    key: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    shape: Sequence[int] | None = None,
    dtype: DTypeLike | None = None,
) -> np.ndarray:
    """Standard normal samples conditioned on ``lower < x < upper`` (inverse-CDF method)."""
    k = _check_key("truncated_normal", key)
    dt = _float_dtype("truncated_normal", dtype)
    if shape is None:
        shape = np.broadcast_shapes(np.shape(lower), np.shape(upper))
    else:
        shape = _shape("truncated_normal", shape)
        _check_param_shapes("truncated_normal", shape, lower, upper)
    sqrt2 = dt.type(np.sqrt(2))
    lo = np.asarray(lower).astype(dt)
    hi = np.asarray(upper).astype(dt)
    a, b = _erf(np.asarray(lo / sqrt2)), _erf(np.asarray(hi / sqrt2))
    out = _erfinv(np.asarray(_uniform(k, shape, dt, a, b))) * sqrt2
    # Keep rounding (or u == a) from landing on or outside the bounds.
    return np.clip(out, np.nextafter(lo, dt.type(np.inf)), np.nextafter(hi, dt.type(-np.inf)))


# --- integers, booleans, permutations --------------------------------------------------------


def _int_bound(v: Any, dt: np.dtype) -> np.ndarray:
    """A bound as exact Python integers (object array), clipped to ``dt``'s range as JAX does."""
    info = np.iinfo(dt)
    arr = np.asarray(v)
    if arr.dtype.kind == "f":
        arr = np.trunc(np.clip(arr, float(info.min), float(info.max)))
    elif arr.dtype.kind not in "iub":
        raise S2STypeError(f"s2s.random.randint: bounds must be numbers, got {v!r}")
    return np.asarray(np.clip(np.vectorize(int, otypes=[object])(arr), info.min, info.max), dtype=object)


def _rem(a: np.ndarray, span: np.ndarray) -> np.ndarray:
    """Unsigned ``a % span`` with XLA's convention ``a % 0 == a`` (a span of 2**nbits wraps to 0)."""
    with np.errstate(divide="ignore"):
        r = np.remainder(a, span)
    return np.where(span == 0, a, r) if not span.all() else r


def randint(
    key: ArrayLike,
    shape: Sequence[int],
    minval: ArrayLike,
    maxval: ArrayLike,
    dtype: DTypeLike | None = None,
) -> np.ndarray:
    """Integers in ``[minval, maxval)``; ``minval`` everywhere when ``maxval <= minval``.

    Two draws of ``nbits`` random bits each make a ``2 * nbits``-bit number that is reduced
    modulo the span without overflow, which keeps the bias of the modulo tiny.
    """
    k = _check_key("randint", key)
    shape = _shape("randint", shape)
    dt = np.dtype(_config.default_int() if dtype is None else dtype)
    if dt.kind not in "iu":
        raise S2STypeError(f"s2s.random.randint: dtype must be an integer type, got {dt}")
    _check_param_shapes("randint", shape, minval, maxval)
    nbits = dt.itemsize * 8
    ut = np.dtype(f"uint{nbits}")
    lo, hi = _int_bound(minval, dt), _int_bound(maxval, dt)
    # The span in nbits-bit unsigned arithmetic: 1 when empty, one more when maxval was clipped.
    above = np.asarray(maxval) > np.iinfo(dt).max
    span = np.vectorize(
        lambda a, b, c: 1 if b <= a else (b - a + bool(c)) % 2**nbits, otypes=[object]
    )(lo, hi, above).astype(ut)
    mult = _rem(np.asarray(2 ** (nbits // 2), dtype=ut), span)
    with np.errstate(over="ignore"):  # wraps as XLA's unsigned multiply does
        mult = _rem(mult * mult, span)  # 2**nbits mod span
    higher, lower = (_bits(sub, nbits, shape) for sub in _split2(k))
    offset = _rem(higher, span)
    offset *= mult
    offset += _rem(lower, span)
    offset = _rem(offset, span)
    with np.errstate(over="ignore"):
        out = lo.astype(np.int64 if dt.kind == "i" else np.uint64).astype(dt) + offset.astype(dt)
    return np.asarray(out, dtype=dt)


def bernoulli(key: ArrayLike, p: ArrayLike = 0.5, shape: Sequence[int] | None = None) -> np.ndarray:
    """Booleans that are ``True`` with probability ``p`` (``uniform(key, shape, p.dtype) < p``).

    A Python float ``p`` is float32, as in JAX; pass a float64 ``p`` for JAX's x64 stream.
    """
    k = _check_key("bernoulli", key)
    dt = np.dtype(_config.default_float()) if type(p) is float else np.asarray(p).dtype
    if dt.kind != "f":
        raise S2STypeError(f"s2s.random.bernoulli: the probability p must have a floating dtype, got {dt}")
    p = np.asarray(p).astype(dt)
    shape = p.shape if shape is None else _shape("bernoulli", shape)
    _check_param_shapes("bernoulli", shape, p)
    return _unit_floats(_bits(k, dt.itemsize * 8, shape), dt) < p


def _shuffle(k: np.ndarray, x: np.ndarray, axis: int) -> np.ndarray:
    """Sort by random 32-bit keys, enough rounds that ties are negligible (as JAX does)."""
    rounds = math.ceil(3 * math.log(max(1, x.size)) / math.log(_MASK32))
    for _ in range(rounds):
        k, sub = _split2(k)
        order = np.argsort(_bits(sub, 32, x.shape), axis=axis, kind="stable")
        x = np.take_along_axis(x, order, axis=axis)
    return x


def _axis(fn: str, axis: Any, ndim: int) -> int:
    a = operator.index(axis)
    if not -ndim <= a < ndim:
        raise S2SValueError(f"s2s.random.{fn}: axis {a} is out of bounds for an array of {ndim} dimensions")
    return a % ndim


def permutation(key: ArrayLike, x: int | ArrayLike, axis: int = 0, independent: bool = False) -> np.ndarray:
    """A shuffled copy of ``x`` along ``axis``, or a permutation of ``range(x)`` for an integer."""
    k = _check_key("permutation", key)
    arr = np.asarray(x)
    if arr.ndim == 0:
        if arr.dtype.kind not in "iu" or isinstance(x, (bool, np.bool_)):
            raise S2STypeError("s2s.random.permutation: x must be an integer or at least 1-dimensional")
        return _shuffle(k, np.arange(int(arr), dtype=_config.default_int()), 0)
    axis = _axis("permutation", axis, arr.ndim)
    if independent or arr.ndim == 1:
        return _shuffle(k, arr, axis)
    idx = _shuffle(k, np.arange(arr.shape[axis]), 0)
    return np.take(arr, idx, axis=axis)


def choice(
    key: ArrayLike,
    a: int | ArrayLike,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: ArrayLike | None = None,
    axis: int = 0,
) -> np.ndarray:
    """Samples from ``a`` (or ``range(a)``) along ``axis``, optionally weighted by ``p``."""
    k = _check_key("choice", key)
    shape = _shape("choice", shape)
    arr = np.asarray(a)
    if arr.ndim == 0:
        if arr.dtype.kind not in "iu":
            raise S2STypeError(f"s2s.random.choice: a must be an integer or an array, got {a!r}")
        n = int(arr)
    else:
        axis = _axis("choice", axis, arr.ndim)
        n = arr.shape[axis]
    draws = math.prod(shape)
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:]
    if draws == 0:
        return np.zeros(out_shape, dtype=np.int32 if arr.ndim == 0 else arr.dtype)
    if n <= 0:
        raise S2SValueError("s2s.random.choice: a must be greater than 0 unless no samples are taken")
    if not replace and draws > n:
        raise S2SValueError(
            f"s2s.random.choice: cannot take a larger sample (size {draws}) than the population "
            f"(size {n}) when replace=False"
        )
    if p is None:
        if replace:
            ind = randint(k, shape, 0, n)
        else:
            ind = _shuffle(k, np.arange(n, dtype=np.int32), 0)[:draws]
    else:
        pa = np.asarray(p)
        pa = pa.astype(np.float32) if pa.dtype.kind in "iub" or isinstance(p, (list, tuple)) else pa
        if pa.shape != (n,):
            raise S2SValueError(f"s2s.random.choice: p must be None or have shape ({n},), got {pa.shape}")
        if replace:
            cum = np.cumsum(pa)
            r = cum[-1] * (pa.dtype.type(1) - _uniform(k, shape, pa.dtype, 0.0, 1.0))
            ind = np.searchsorted(cum, r).astype(np.int32)
        else:  # Gumbel top-k
            tiny = np.finfo(pa.dtype).tiny
            u = _uniform(k, (n,), pa.dtype, tiny, 1.0)
            with np.errstate(divide="ignore"):
                g = -np.log(-np.log(u)) + np.log(pa)
            ind = np.argsort(-g, kind="stable")[:draws].astype(np.int32)
    if arr.ndim == 0:
        return np.asarray(ind).reshape(shape)
    return np.take(arr, np.asarray(ind).reshape(-1), axis=axis).reshape(out_shape)


# --- inside transforms -----------------------------------------------------------------------
# Each function above is a primitive when a transformed function calls it (its checks and block
# loops are not code s2s transforms): `ext.random_<name>` in the rule table. Keys and draws carry
# no derivative, except `uniform`'s in `minval`/`maxval` (the draw is minval + u (maxval - minval)),
# and `truncated_normal` has none in its bounds (differentiating through them is an error, never
# a zero). Under vmap each runs once per example, so a batch of keys gives each example its own
# key's draws, exactly as the unbatched call would.

_UNIFORM_U = "(ans - minval) / (maxval - minval)"  # the unit draw behind `ans`


def _declare(fn: Any, nondiff: bool = True, vjp: dict | None = None, jvp: dict | None = None,
             zero_args: tuple = ()) -> None:
    key = f"ext.random_{fn.__name__}"
    sig = ", ".join(str(p).split(":")[0] + ("" if p.default is p.empty else f"={p.default!r}")
                    for p in __import__("inspect").signature(fn).parameters.values())
    _registry.prim(key, sig, nondiff=nondiff, zero_args=zero_args, batch=_registry.LOOP)
    _registry.RULE_NAMES.add("ext")
    for arg, rule in (vjp or {}).items():
        _registry.defvjp(key, **{arg: rule})
    for arg, rule in (jvp or {}).items():
        _registry.defjvp(key, **{arg: rule})
    setattr(_registry.EXT, key[4:], fn)
    _record.attach(fn, prim=key)


for _fn in (PRNGKey, key, key_data, split, fold_in, normal, randint, bernoulli):
    _declare(_fn)
_declare(uniform, nondiff=False, zero_args=("key", "shape", "dtype"),
         vjp={"minval": f"rt.unbroadcast(g * (1 - {_UNIFORM_U}), minval)",
              "maxval": f"rt.unbroadcast(g * {_UNIFORM_U}, maxval)"},
         jvp={"minval": f"dminval * (1 - {_UNIFORM_U})", "maxval": f"dmaxval * {_UNIFORM_U}"})
_declare(truncated_normal, nondiff=False, zero_args=("key", "shape", "dtype"))
_registry.refuse("ext.random_truncated_normal", "jax.random.truncated_normal with respect to its bounds", "lower", "upper")
