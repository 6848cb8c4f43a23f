"""Rules of the dtype gates (s2s/runtime/dtypes.py): an operation's result whose dtype a keyword,
a cast or the array it is stored into decides. Each is the value itself; its derivative is zero
for an integer or bool dtype, and passes a complex one with JAX's convention (runtime/dtypes.py;
frontend/normalize.py places them)."""
from __future__ import annotations

from .registry import LOOP, SAME, by, defjvp, defvjp, linear, prim

# (at: the user's file and line; aliasing: each hands
# back its first argument itself)
prim("rt.dtype_gate", "x, at", zero_args=("at",), same_shape=True, aliasing=True, dtype_cast=True, dtype_gate=True,
     batch=SAME, batched_by="x")
defvjp("rt.dtype_gate", x="rt.dtype_ct(g, ans, at)")
defjvp("rt.dtype_gate", x="rt.dtype_ct(dx, ans, at)")
prim("rt.stored_as", "v, into, at", zero_args=("into", "at"), same_shape=True, aliasing=True, dtype_gate=True,
     batch=SAME, batched_by="v")
defvjp("rt.stored_as", v="rt.dtype_ct(g, into, at)")
defjvp("rt.stored_as", v="rt.dtype_ct(dv, into, at)")
linear("rt.dtype_ct", "g_, like, at", "g_", "rt.dtype_ct(g, like, at)", same_shape=True, aliasing=True, batch=SAME,
       batched_by="g_")
# `a op= v` on an array (frontend/normalize.py): NumPy's in-place update of `r = a op v` computed
# out of place, cast to `a`'s dtype or refused as NumPy refuses it; the derivative is `r`'s (a cast
# between floating dtypes passes it, and an integer `a` takes no floating `r`)
# (no `same_shape`: a pass reading `a`'s shape from `r` would let `a`'s check go as dead code; reverse
# mode keeps the check where nothing reads `a`, `checks`; in a loop kernel, of numbers, it is `r`)
_CHECK_ARGS = ("a", "ufunc", "at", "array")  # (`array`: `a` is an ndarray even at rank 0, frontend/dtypes.py)
prim("rt.inplace", "r, a, ufunc, at, array=False", zero_args=_CHECK_ARGS, aliasing=True, batch=by("rt.batched_inplace"),
     loop_kernel=True, checks=True, result_like=0,  # (`r`: of `a`'s shape where `a` is an array, or NumPy raises)
     backward_loop=("vvss", 0))
defvjp("rt.inplace", r="rt.inplace_ct(g, r, a)")
defjvp("rt.inplace", r="dr")
prim("rt.inplace_checked", "r, a, ufunc, at, array=False", zero_args=_CHECK_ARGS, aliasing=True, effect=True,
     batch=by("rt.batched_inplace"), loop_kernel=True, checks=True, result_like=0, backward_loop=("vvss", 0))
defvjp("rt.inplace_checked", r="rt.inplace_ct(g, r, a)")
defjvp("rt.inplace_checked", r="dr")
prim("rt.batched_inplace", "flags, r, a, ufunc, at, array=False", zero_args=("flags", *_CHECK_ARGS), aliasing=True,
     batch=LOOP, checks=True)
defvjp("rt.batched_inplace", r="rt.inplace_ct(g, r, a)")
defjvp("rt.batched_inplace", r="dr")
linear("rt.inplace_ct", "g_, r, a", "g_", "rt.inplace_ct(g, r, a)", shape_only=(1, 2), same_shape=True, aliasing=True,
       batch=SAME, batched_by="g_", backward_loop=("vvv", 0))
# NumPy's casting rule checked before a cast that a `dtype=` asks for (frontend/keyword_calls.py):
# the value itself
prim("rt.cast_check", "x, dtype, casting", zero_args=("dtype", "casting"), same_shape=True, aliasing=True,
     checks=True, batch=SAME, batched_by="x")
defvjp("rt.cast_check", x="g")
defjvp("rt.cast_check", x="dx")
