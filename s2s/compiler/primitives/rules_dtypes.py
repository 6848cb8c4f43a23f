"""Rules of the dtype gates (s2s/runtime/dtypes.py): an operation's result whose dtype a keyword,
a cast or the array it is stored into decides. Each is the value itself; its derivative is zero
for an integer or bool dtype, and passes a complex one with JAX's convention (runtime/dtypes.py;
frontend/normalize.py places them)."""
from __future__ import annotations

from .registry import SAME, defjvp, defvjp, linear, prim

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
