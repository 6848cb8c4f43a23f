"""s2s.scipy.signal's convolution (runtime/signal.py computes it): `rt.signal_convolve` (autograd's
generalized convolve with axes and dot_axes) is bilinear in a and b; its transposes
`rt.signal_convolve_t_a`/`_t_b` are bilinear too, and the three close under differentiation (each
one's derivative is another of them), so every order has rules. Batching: once per example
(runtime/signal.py's batched_* helpers, which take only the arrays' batched flags). A derivative of the batched
helpers themselves (grad of a function that calls vmap) is refused: differentiate inside the vmap."""
from __future__ import annotations

from .registry import by, defjvp, defvjp, prim

_SET = "axes, dot_axes, mode"
_STATIC = ("axes", "dot_axes", "mode")

prim("rt.signal_convolve", f"a, b, {_SET}", zero_args=_STATIC, batch=by("rt.batched_signal_convolve"))
defvjp("rt.signal_convolve", a=f"rt.signal_convolve_t_a(g, b, xp.shape(a), {_SET})",
       b=f"rt.signal_convolve_t_b(g, a, xp.shape(b), {_SET})")
defjvp("rt.signal_convolve", a=f"rt.signal_convolve(da, b, {_SET})", b=f"rt.signal_convolve(a, db, {_SET})")
# <t_a(ct, b), G> = <conv(G, b), ct> = <b, t_b(ct, G)>; and likewise for t_b
prim("rt.signal_convolve_t_a", f"ct, b, a_shape, {_SET}", zero_args=("a_shape",) + _STATIC,
     batch=by("rt.batched_signal_convolve_t_a"))
defvjp("rt.signal_convolve_t_a", ct=f"rt.signal_convolve(g, b, {_SET})",
       b=f"rt.signal_convolve_t_b(ct, g, xp.shape(b), {_SET})")
defjvp("rt.signal_convolve_t_a", ct=f"rt.signal_convolve_t_a(dct, b, a_shape, {_SET})",
       b=f"rt.signal_convolve_t_a(ct, db, a_shape, {_SET})")
prim("rt.signal_convolve_t_b", f"ct, a, b_shape, {_SET}", zero_args=("b_shape",) + _STATIC,
     batch=by("rt.batched_signal_convolve_t_b"))
defvjp("rt.signal_convolve_t_b", ct=f"rt.signal_convolve(a, g, {_SET})",
       a=f"rt.signal_convolve_t_a(ct, g, xp.shape(a), {_SET})")
defjvp("rt.signal_convolve_t_b", ct=f"rt.signal_convolve_t_b(dct, a, b_shape, {_SET})",
       a=f"rt.signal_convolve_t_b(ct, da, b_shape, {_SET})")

