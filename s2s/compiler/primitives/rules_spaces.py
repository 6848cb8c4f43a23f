"""Calls of a parameter `f(a0, ...)` (runtime/spaces.py): `f` is called when they run; argument i's
derivative is the rule of a vector-space value's `__call__` (s2s.defvjp/defjvp), looked up then (0:
`f` itself, whose cotangent is a value of its space), or an S2SError. The rules' own derivatives (a
second order through them) and vmap are refused."""
from __future__ import annotations

from .registry import by, defjvp, defvjp, prim, refuse

_WHAT = "the rule of a vector-space value's __call__ (a second derivative through it)"

for _n in range(5):
    _args = [f"a{k}" for k in range(_n)]
    _name, _packed = f"rt.call_value{_n}", "(" + "".join(a + ", " for a in _args) + ")"
    prim(_name, ", ".join(["at", "param", "fn", *_args]), zero_args=("at", "param"),
         tree_args=tuple(range(2, _n + 3)), batch=by("rt.batched_call_value"))
    for _i, _a in enumerate(["fn", *_args]):
        defvjp(_name, **{_a: f"rt.call_value_vjp(g, ans, at, param, {_i}, fn, {_packed})"})
        defjvp(_name, **{_a: f"rt.call_value_jvp(d{_a}, ans, at, param, {_i}, fn, {_packed})"})

for _rule in ("rt.call_value_vjp", "rt.call_value_jvp"):
    prim(_rule, "d, ans, at, param, i, fn, args", zero_args=("at", "param", "i"), batch=by("rt.batched_call_value_rule"))
    refuse(_rule, _WHAT, "d", "ans", "fn", "args")
