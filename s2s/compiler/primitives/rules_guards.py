"""Primitives behind guards that raise (s2s/compiler/frontend/guards.py) and `with np.errstate` (contexts.py).

`ext.s2s_raise(exc, *args)` raises `exc(*args)` (or `exc` itself, an exception instance) where
the plain function raises it: an effect, never removed or moved, with no derivative. Under vmap a
branch runs only when some example takes it, so a guard whose condition differs per example raises
when any example would, with the first such example's arguments (`ext.s2s_raise_where`,
which vmap writes). `ext.s2s_format(fmt, *values)` is an f-string's text (`fmt.format`), for
the messages those exceptions carry. `ext.s2s_errstate_enter`/`_exit` set and restore NumPy's
floating-point error settings around a `with np.errstate(...)` body. `ext.s2s_keep(v)` reads a
value the user's function computes and never reads (s2s/compiler/frontend/dead_calls.py), so that
no pass drops the operation, which may raise where the plain function raises.
`ext.s2s_python_division(mask, a, b, op)` is vmap's check of a division of Python numbers held one
per example (`float(v) / 0.0`): Python raises ZeroDivisionError where NumPy's array division
gives inf (analysis/python_numbers.py).
"""
from __future__ import annotations

import operator

import numpy as np

from ...base import record
from .registry import EXT, LOOP, SAME, nondiff

_NO_CAUSE = object()


def s2s_raise(exc, *args, cause=_NO_CAUSE):
    """Raise `exc(*args)`, or the instance `exc`, chained to `cause` when given (`raise E from c`)."""
    err = exc(*args) if isinstance(exc, type) else exc
    if cause is _NO_CAUSE:
        raise err
    raise err from cause


def s2s_raise_where(mask, batched, exc, *args, cause=_NO_CAUSE):
    """vmap's `ext.s2s_raise` whose arguments differ per example: raise with the arguments of the
    first example that reaches it (`mask`: the examples the branch runs for, None for all;
    `batched`: which arguments hold one value per example)."""
    first = 0 if mask is None else int(np.flatnonzero(np.asarray(mask))[0])
    s2s_raise(exc, *(a[first] if b else a for a, b in zip(args, batched)), cause=cause)


def s2s_format(fmt, *values):
    """An f-string's text: `fmt` has one `{}` field (with its conversion and format spec) per value."""
    return fmt.format(*values)


def s2s_keep(value):
    """Nothing: it reads `value`, so the operation that made it runs (an effect no pass removes)."""
    return None


_DIVISIONS = {"/": operator.truediv, "//": operator.floordiv, "%": operator.mod}


def s2s_python_division(mask, a, b, op):
    """Raise what Python's `a op b` raises for the first example (of those `mask` selects, None for
    all) whose divisor is zero, with that example's values as Python numbers, so the error and its
    message are Python's own; else nothing."""
    a, b = np.asarray(a), np.asarray(b)
    zero = b == 0
    if mask is not None:
        m = np.asarray(mask)
        zero = zero & m.reshape(m.shape + (1,) * (zero.ndim - m.ndim)) if zero.ndim >= m.ndim else zero & m.any()
    if not np.any(zero):
        return None
    a, b, zero = np.broadcast_arrays(a, b, zero)
    k = np.unravel_index(int(np.argmax(zero)), zero.shape) if zero.ndim else ()
    _DIVISIONS[op](a[k].item(), b[k].item())
    return None


def s2s_errstate_enter(**kw):
    """Set NumPy's floating-point error handling (`with np.errstate(**kw):`); the old settings."""
    return np.seterr(**kw)


def s2s_errstate_exit(old):
    """Restore the settings `s2s_errstate_enter` replaced."""
    np.seterr(**old)


nondiff("ext.s2s_raise", sig="exc, *args, **kw", effect=True, batch=SAME)
nondiff("ext.s2s_raise_where", sig="mask, batched, exc, *args, **kw", effect=True, batch=SAME)
nondiff("ext.s2s_format", sig="fmt, *values", batch=LOOP)  # (a message per example)
nondiff("ext.s2s_errstate_enter", sig="**kw", effect=True, batch=SAME)
nondiff("ext.s2s_errstate_exit", sig="old", effect=True, batch=SAME)
nondiff("ext.s2s_keep", sig="value", effect=True, batch=SAME)
nondiff("ext.s2s_python_division", sig="mask, a, b, op", effect=True, batch=SAME)
for _f in (s2s_raise, s2s_raise_where, s2s_format, s2s_keep, s2s_python_division, s2s_errstate_enter,
           s2s_errstate_exit):
    record.attach(_f, prim="ext." + _f.__name__)
    setattr(EXT, _f.__name__, _f)  # (generated code calls it as ext.<name>)
