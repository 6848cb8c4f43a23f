"""What a result's dtype does to its derivative: an integer or bool result (a cast, a `dtype=`
keyword, a store into an integer array) truncates, so no derivative flows through it (issue 44:
`v - v.astype(int)` had the gradient 0); a complex one carries it, with JAX's convention (a real
value cast to complex: its cotangent is the real part, taken where reverse mode hands it out), and
a complex value cast to a real one keeps the real part of its derivative, as NumPy keeps the real
part of the value."""
from __future__ import annotations

import numpy as np

from ..errors import S2STypeError
from .core import namespace

# what generated code reaches as `rt.<name>` (s2s/runtime/__init__.py reads it)
__all__ = ("dtype_gate", "cast_check", "stored_as", "inplace", "inplace_checked", "batched_inplace", "inplace_ct",
           "dtype_ct")


def dtype_gate(x, at):
    """The result `x` of an operation whose dtype keyword (or cast) decides its derivative: `x`
    itself; its derivative rule reads its dtype (`dtype_ct`). `at`: the user's line."""
    return x


def cast_check(x, dtype, casting):
    """`x`, once NumPy's casting rule allows its dtype to become `dtype` (`np.vstack(xs,
    dtype=int)` of floats raises TypeError under 'same_kind', as NumPy's does)."""
    src = np.result_type(x)
    if not np.can_cast(src, dtype, casting):
        raise S2STypeError(f"Cannot cast array data from {src!r} to {np.dtype(dtype)!r} according to the rule "
                        f"{casting!r}")
    return x


def stored_as(v, into, at):
    """`v`, stored into the array `into` (`into[i] = v`): the value itself; its derivative is that
    of a cast to `into`'s dtype (`dtype_ct`)."""
    return v


def _numpy_inplace(a) -> bool:
    """Whether `a op= v` updates `a` in place with NumPy's rules: an array of NumPy or CuPy (a
    Python number, a NumPy scalar, a list, a tuple and a Dask array rebind the name instead)."""
    return hasattr(a, "dtype") and hasattr(a, "shape") and not isinstance(a, np.generic) \
        and not type(a).__module__.startswith("dask")


def _shown(shape) -> str:
    """A shape as NumPy's messages write it: `(2,3)`, `(3,)`."""
    return f"({shape[0]},)" if len(shape) == 1 else "(" + ",".join(map(str, shape)) + ")"


def _refuse_inplace(r, a, shape, example, ufunc, at):
    """Raise what NumPy raises for `a op= v` whose out-of-place result `r` has another shape than
    `a`'s `example` shape (`shape`: r's), or a dtype that `a`'s does not take by same_kind casting:
    NumPy's ValueError or its UFuncTypeError (raised by the ufunc itself, so its class and text are
    NumPy's), with the user's line `at` as a note."""
    try:
        if shape != example:
            raise ValueError(f"non-broadcastable output operand with shape {_shown(example)} doesn't match the "
                             f"broadcast shape {_shown(shape)}")
        fn = getattr(np, ufunc, None)
        if isinstance(fn, np.ufunc):
            fn(np.zeros(1, a.dtype), np.ones(1, r.dtype), out=np.zeros(1, a.dtype))
        raise TypeError(f"Cannot cast ufunc {ufunc!r} output from {r.dtype!r} to {a.dtype!r} with casting rule "
                        "'same_kind'")
    except (TypeError, ValueError) as e:
        e.add_note(f"(s2s: `op=` on an array at {at}: NumPy updates the array in place)")
        raise


_REBOUND = frozenset({float, int, np.float64})


def inplace(r, a, ufunc, at, array=False):
    """What `a op= v` leaves in the name `a`, given `r = a op v` computed out of place: for an
    array, NumPy's in-place update (the ufunc with `out=a`, casting='same_kind'), so `r` cast to
    `a`'s dtype (a float32 array stays float32), and NumPy's error where `r`'s shape is not `a`'s
    (`np.zeros(3) += np.ones((2, 3))`) or its dtype does not cast to `a`'s by same_kind (an int
    array += a float); `r` itself for a number, a list or a tuple. `ufunc`: the operator's NumPy
    ufunc ("add"), `at`: the user's line; `array`: `a` is known to be an ndarray (frontend/dtypes.py),
    which only vmap asks. Its derivative is the derivative of `r`."""
    if type(a) in _REBOUND:  # (a loop's running total: what `_numpy_inplace` says of it, at once)
        return r
    if not _numpy_inplace(a) or r is a:
        return r
    rd, rs = getattr(r, "dtype", None), np.shape(r)
    if rd == a.dtype and rs == a.shape:
        return r if type(r) is type(a) else namespace(a).asarray(r)
    rd = rd if rd is not None else np.asarray(r).dtype
    if rs != a.shape or not np.can_cast(rd, a.dtype, casting="same_kind"):
        _refuse_inplace(namespace(a).asarray(r), a, rs, a.shape, ufunc, at)
    return namespace(a).asarray(r).astype(a.dtype)


def inplace_checked(r, a, ufunc, at, array=False):
    """`inplace`, where reverse mode keeps the check though no sweep reads its value (an effect no
    pass removes until shape folding shows it passes: passes/inplace_folds.py)."""
    return inplace(r, a, ufunc, at)


def batched_inplace(flags, r, a, ufunc, at, array=False):
    """`inplace` under vmap (`flags`: which of r, a are batched, along axis 0): each example's
    shape is compared. Examples of rank 0 may be NumPy's scalars, which `op=` rebinds, so `r` is
    kept, unless `array` says that `a` is an ndarray (`np.zeros((), dtype=int)`, frontend/dtypes.py),
    which NumPy updates in place: its dtype kept, an int one given floats raising NumPy's
    UFuncTypeError (issue 44)."""
    if not _numpy_inplace(a):
        return r
    example = a.shape[1:] if flags[1] else a.shape
    shape = np.shape(r)[1:] if flags[0] else np.shape(r)
    if not example and not array:
        return r
    rd = getattr(r, "dtype", None)
    if rd == a.dtype and shape == example:
        return r
    rd = rd if rd is not None else np.asarray(r).dtype
    if shape != example or not np.can_cast(rd, a.dtype, casting="same_kind"):
        _refuse_inplace(namespace(a).asarray(r), a, shape, example, ufunc, at)
    return namespace(a).asarray(r).astype(a.dtype)


def inplace_ct(g, r, a):
    """The cotangent of `r`, the out-of-place value of `a op= v`, from the cotangent `g` of what
    `a` keeps: `g` in `r`'s floating dtype where `a`'s is another (a float32 array updated by a
    float64 value: the transpose of the cast to float32, as JAX's; `g` itself otherwise). `a` is
    there for the passes: both float64, it is `g` (passes/shapefold.py)."""
    if type(g) is np.float64 is type(r):  # (a running total of numbers: `g`, at once)
        return g
    rd, gd = getattr(r, "dtype", None), getattr(g, "dtype", None)
    if rd is None or gd is None or rd == gd or rd.kind != "f" or gd.kind != "f":
        return g
    return g.astype(rd)


def _kind(like) -> str:
    dt = getattr(like, "dtype", None)
    return dt.kind if dt is not None else np.asarray(like).dtype.kind


def dtype_ct(g, like, at):
    """The derivative `g` (a tangent or cotangent) through a value of `like`'s dtype: zero where it
    is an integer or bool (a truncation has no derivative), `g` where it is complex, the real part
    of `g` where it is real floating."""
    kind = _kind(like)
    if kind in "biu":
        if isinstance(g, (int, float)) or np.ndim(g) == 0 and not hasattr(g, "shape"):
            return 0.0
        # (floating zeros: a tangent that went through the cast itself is bool or int, and
        # `-` of a bool array is NumPy's TypeError)
        dt = getattr(g, "dtype", None)
        return namespace(g).zeros(np.shape(g), dtype=dt if dt is not None and dt.kind == "f" else np.float64)
    if kind == "f" and (g.dtype.kind == "c" if type(g) is np.ndarray else isinstance(g, complex)):
        return g.real  # (a complex value cast to a real one: NumPy keeps the real part, and so the derivative)
    return g  # (a complex result: the derivative itself, JAX's convention; a real value's cotangent is
    #          the real part of it where reverse mode hands it out, rt.real_cotangent)
