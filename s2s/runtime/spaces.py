"""Calls of parameters in transformed code (rules_spaces.py declares them): `f(x)` with `f` a
parameter s2s cannot resolve when transforming is resolved when it runs. Its value is computed
by calling `f`; a derivative through it needs `f` to be an instance of a class registered as a
vector space (s2s/base/vspace.py) whose `__call__` has s2s.defvjp/defjvp rules: the call is then that
primitive with `f` as its first argument, its derivatives the rules (kept as callables on the
function's record). A derivative or a batch through anything else is refused at the user's line."""
from __future__ import annotations

from ..base import record, vspace
from ..errors import S2SError

__all__ = ("call_value0", "call_value1", "call_value2", "call_value3", "call_value4", "call_value_vjp",
           "call_value_jvp", "batched_call_value", "batched_call_value_rule")


def _err(at: str, msg: str, hint: str = "") -> S2SError:
    return S2SError((at + "\n" if at else "") + msg + ("\n" + hint if hint else ""))


def _parameter_error(at: str, param: str, fn, doing: str) -> S2SError:
    """The refusal of `doing` (a derivative, a batch) through a call of parameter `param` holding
    `fn`, which is no vector-space value."""
    return _err(at, f"s2s cannot {doing} through a call of `{param}`, a parameter holding a {type(fn).__name__} "
                    "that s2s could not resolve when transforming.",
                f"`{param}` is a parameter: s2s specializes on a function known when it transforms, so give it as a "
                f"default (`{param}=np.tanh`), bind it with functools.partial(f, {param}=...), or pass it from a "
                "transformed caller. (s2s differentiates a call of a parameter only when it holds an object of a "
                "class registered as a vector space, autograd.extend.VSpace, whose `__call__` has s2s.defvjp rules.)")


def _of_arity(n: int):
    """rt.call_value<n>(at, param, fn, *args): `fn(*args)`, a call of the parameter `param` with n
    positional arguments (`at`: the user's line, named by a refusal). One primitive, and one
    function (s2s finds a primitive by its function), per arity: rules_spaces.py."""
    def call(at, param, fn, *args):
        return fn(*args)
    call.__name__ = call.__qualname__ = f"call_value{n}"
    return call


call_value0 = _of_arity(0)
call_value1 = _of_arity(1)
call_value2 = _of_arity(2)
call_value3 = _of_arity(3)
call_value4 = _of_arity(4)


def _rule(fn, mode: str, i: int, at: str, param: str):
    """The rule of `type(fn).__call__` in `mode` for its parameter `i` (0: `fn` itself, which must
    be a vector-space value; an object of another class with rules is differentiated in its other
    arguments only)."""
    cls = type(fn).__name__
    method = next((vars(c)["__call__"] for c in type(fn).__mro__ if "__call__" in vars(c)), None)
    rec = record.of(method) if not isinstance(fn, type) else None
    if vspace.space_of(fn) is None and (i == 0 or rec is None or not rec.rules):
        raise _parameter_error(at, param, fn, "differentiate")
    if rec is None or not rec.rules:
        raise _err(at, f"s2s differentiates a call of a {cls} (a vector-space value) only through the derivative "
                       f"rules of `{cls}.__call__` (s2s.defvjp, autograd.extend.defvjp); it has none.",
                   "Declare its rules, or compute the value with functions s2s transforms.")
    params = list(record.signature_of(method).parameters)
    rule = rec.rules.get((mode, params[i])) if i < len(params) else None
    if rule is None:
        word = "VJP" if mode == "vjp" else "JVP"
        name = params[i] if i < len(params) else f"#{i}"
        raise _err(at, f"s2s has no {word} rule of `{cls}.__call__` for its argument `{name}`, which a derivative "
                       "reaches.", f"Declare one with s2s.def{mode} (or autograd.extend.def{mode}).")
    return rule


def call_value_vjp(g, ans, at: str, param: str, i: int, fn, args: tuple):
    """The cotangent of argument `i` of `fn(*args)` (0: `fn` itself, a value of its space): the
    rule of `__call__`'s parameter i, called as `rule(g, ans, fn, *args)`."""
    return _rule(fn, "vjp", i, at, param)(g, ans, fn, *args)


def call_value_jvp(d, ans, at: str, param: str, i: int, fn, args: tuple):
    """The tangent of `fn(*args)` from the tangent `d` of its argument `i` (0: `fn`)."""
    return _rule(fn, "jvp", i, at, param)(d, ans, fn, *args)


def batched_call_value(flags, at, param, fn, *args):
    """vmap of a call of a parameter: refused (a vector-space value's rules are for one example)."""
    raise _refuse_batch(at, param, fn)


def _refuse_batch(at: str, param: str, fn) -> S2SError:
    if vspace.space_of(fn) is None:
        return _parameter_error(at, param, fn, "batch (vmap)")
    return _err(at, f"s2s does not batch (vmap) a call of a {type(fn).__name__} (a vector-space value): the rules "
                    f"of `{type(fn).__name__}.__call__` are for one example.", "Loop over the examples.")


def batched_call_value_rule(flags, d, ans, at, param, i, fn, args):
    """vmap of a derivative rule of such a call: refused as the call is."""
    raise _refuse_batch(at, param, fn)
