"""s2s.lax's convolution and window primitives (runtime/conv.py computes them): `rt.lax_conv`
(conv_general_dilated) is bilinear in lhs and rhs, its transposes `rt.lax_conv_t_lhs`/`_t_rhs`
are bilinear too, and the three close under differentiation (each one's derivative is another of
them), so every order has rules; `rt.lax_windows` (reduce_window's gather of windows, the reduction
is ordinary Python over it) is affine in x (its holes hold the init value), its transpose `rt.lax_windows_t` scatters back.

Batching: the windows work on the trailing axes, leading axes (a batch) kept, so they run on a
batched array as they are; a convolution runs once per example (runtime/conv.py's batched_* helpers,
which take only the arrays' batched flags: the settings are never per example)."""
from __future__ import annotations

from .registry import LOOP, SAME, by, defjvp, defvjp, linear, prim

_CONV = "strides, padding, lhs_dilation=None, rhs_dilation=None, dn=None, groups=1, batch_groups=1"
_SETTINGS = "strides, padding, lhs_dilation, rhs_dilation, dn, groups, batch_groups"
_STATIC = ("strides", "padding", "lhs_dilation", "rhs_dilation", "dn", "groups", "batch_groups")

prim("rt.lax_conv", f"lhs, rhs, {_CONV}", zero_args=_STATIC, batch=by("rt.batched_lax_conv"))
defvjp("rt.lax_conv", lhs=f"rt.lax_conv_t_lhs(g, rhs, xp.shape(lhs), {_SETTINGS})",
       rhs=f"rt.lax_conv_t_rhs(g, lhs, xp.shape(rhs), {_SETTINGS})")
defjvp("rt.lax_conv", lhs=f"rt.lax_conv(dlhs, rhs, {_SETTINGS})", rhs=f"rt.lax_conv(lhs, drhs, {_SETTINGS})")
# <G, t_lhs(ct, rhs)> = <conv(G, rhs), ct> = <rhs, t_rhs(ct, G)>; and likewise for t_rhs (each
# transpose `_t` of argument `_me` takes the other argument `_op`; `_conv`: conv's arguments for its ct)
for _me, _op, _conv in (("lhs", "rhs", "g, rhs"), ("rhs", "lhs", "lhs, g")):
    _t = f"rt.lax_conv_t_{_me}"
    prim(_t, f"ct, {_op}, {_me}_shape, {_CONV}", zero_args=(f"{_me}_shape",) + _STATIC,
         batch=by(f"rt.batched_lax_conv_t_{_me}"))
    defvjp(_t, **{"ct": f"rt.lax_conv({_conv}, {_SETTINGS})",
                  _op: f"rt.lax_conv_t_{_op}(ct, g, xp.shape({_op}), {_SETTINGS})"})
    defjvp(_t, **{"ct": f"{_t}(dct, {_op}, {_me}_shape, {_SETTINGS})",
                  _op: f"{_t}(ct, d{_op}, {_me}_shape, {_SETTINGS})"})

_WIN = "window, strides, padding, base_dilation=None, window_dilation=None"
_WSET = "window, strides, padding, base_dilation, window_dilation"
# affine in x (holes hold the init value): its tangent's holes hold zero
prim("rt.lax_windows", f"x, {_WIN}, fill=0.0", zero_args=("window", "strides", "padding", "base_dilation",
                                                         "window_dilation", "fill"), batch=SAME)
defvjp("rt.lax_windows", x=f"rt.lax_windows_t(g, xp.shape(x), {_WSET})")
defjvp("rt.lax_windows", x=f"rt.lax_windows(dx, {_WSET}, 0.0)")
linear("rt.lax_windows_t", f"v, shape, {_WIN}", "v", f"rt.lax_windows(g, {_WSET}, 0.0)", batch=SAME)

# the batched convolution is bilinear too (vmap(grad(f)) may run as grad of the batched f): its
# transposes are the batched transposes, summed over the batch for an argument all examples share;
# the batched transposes' own derivatives (a third order) are refused when they run
prim("rt.batched_lax_conv", f"flags, lhs, rhs, {_CONV}", zero_args=("flags",) + _STATIC, batch=LOOP)
defvjp("rt.batched_lax_conv",
       lhs="rt.conv_unbatch(flags[0], rt.batched_lax_conv_t_lhs((True, flags[1], False) + flags[2:], g, rhs, "
           f"rt.conv_example_shape(flags[0], lhs), {_SETTINGS}))",
       rhs="rt.conv_unbatch(flags[1], rt.batched_lax_conv_t_rhs((True, flags[0], False) + flags[2:], g, lhs, "
           f"rt.conv_example_shape(flags[1], rhs), {_SETTINGS}))")
defjvp("rt.batched_lax_conv", lhs=f"rt.batched_lax_conv(flags, dlhs, rhs, {_SETTINGS})",
       rhs=f"rt.batched_lax_conv(flags, lhs, drhs, {_SETTINGS})")
prim("rt.conv_example_shape", "batched, x", nondiff=True, batch=LOOP)
linear("rt.conv_unbatch", "batched, v", "v", "rt.no_batched_derivative(g, 'conv_unbatch')", batch=LOOP)
