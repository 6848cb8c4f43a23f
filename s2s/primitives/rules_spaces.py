"""Calls of a parameter `f(a0, ...)` (runtime/spaces.py): resolved when they run, to a vector-space
value's `__call__` with s2s.defvjp/defjvp rules; argument i's derivative is that rule, looked up
then (0: `f` itself, whose cotangent is a value of its space). The rules' own derivatives (a second
order through them) and vmap are refused."""
from __future__ import annotations

from .registry import by, defjvp, defvjp, prim, refuse

_WHAT = "the rule of a vector-space value's __call__ (a second derivative through it)"

for _n in range(5):
    _args = [f"a{k}" for k in range(_n)]
    _name, _packed = f"rt.call_value{_n}", "(" + "".join(a + ", " for a in _args) + ")"
    prim(_name, ", ".join(["at", "param", "fn", *_args]), zero_args=("at", "param"), tree_args=tuple(range(2, _n + 3)),
         batch=by("rt.batched_call_value"))
    defvjp(_name, **{a: f"rt.call_value_vjp(g, ans, at, {i}, fn, {_packed})" for i, a in enumerate(["fn", *_args])})
    defjvp(_name, **{a: f"rt.call_value_jvp(d{a}, ans, at, {i}, fn, {_packed})" for i, a in enumerate(["fn", *_args])})

prim("rt.call_value_vjp", "g, ans, at, i, fn, args", zero_args=("at", "i"), batch=by("rt.batched_call_value_rule"))
prim("rt.call_value_jvp", "d, ans, at, i, fn, args", zero_args=("at", "i"), batch=by("rt.batched_call_value_rule"))
refuse("rt.call_value_vjp", _WHAT, "g", "ans", "fn", "args")
refuse("rt.call_value_jvp", _WHAT, "d", "ans", "fn", "args")
