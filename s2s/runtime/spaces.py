"""Calls of vector-space values (s2s/vspace.py) in transformed code (rules_spaces.py declares them):
`f(x)` with `f` a parameter is resolved only when it runs. `f` must be an instance of a class
registered as a vector space whose `__call__` has s2s.defvjp/defjvp rules: the call is that
primitive with `f` as its first argument, its derivatives the rules (kept as callables on the
function's record). Anything else is refused at the user's line."""
from __future__ import annotations

from .. import record, vspace
from ..errors import S2SError

__all__ = ("call_value0", "call_value1", "call_value2", "call_value3", "call_value4", "call_value_vjp",
           "call_value_jvp", "batched_call_value", "batched_call_value_rule")


def _err(at: str, msg: str, hint: str = "") -> S2SError:
    return S2SError((at + "\n" if at else "") + msg + ("\n" + hint if hint else ""))


def _parameter_error(at: str, name: str, fn) -> S2SError:
    """The refusal of calling parameter `name` holding `fn`, which is no vector-space value."""
    return _err(at, f"s2s can only call functions it can resolve when transforming; `{name}` is a parameter "
                    f"holding a {type(fn).__name__}.",
                f"`{name}` is a parameter: s2s specializes on a function known when it transforms, so give it as a "
                f"default (`{name}=np.tanh`), bind it with functools.partial(f, {name}=...), or pass it from a "
                "transformed caller. (A parameter s2s calls when it runs must hold an object of a class registered "
                "as a vector space, autograd.extend.VSpace, whose `__call__` has s2s.defvjp rules.)")


def _method(fn, at: str):
    """The function `type(fn).__call__` and its rules, or the refusal of calling `fn`."""
    method = next((vars(c)["__call__"] for c in type(fn).__mro__ if "__call__" in vars(c)), None)
    rec = record.of(method)
    if rec is None or not rec.rules:
        raise _err(at, f"s2s calls a {type(fn).__name__} (a vector-space value) only through the derivative rules "
                       f"of `{type(fn).__name__}.__call__` (s2s.defvjp, autograd.extend.defvjp); it has none.",
                   "Declare its rules, or compute the value with functions s2s transforms.")
    return method, rec.rules


def _call_value(at: str, param: str, fn, *args):
    """`fn(*args)` for a vector-space value `fn` (the parameter `param`) whose class's `__call__`
    has rules (`at`: the user's line, named by a refusal)."""
    if vspace.space_of(fn) is None:
        raise _parameter_error(at, param, fn)
    method, _ = _method(fn, at)
    return method(fn, *args)


def _of_arity(n: int):
    """rt.call_value<n>, a call with n positional arguments: one primitive (and one function: s2s
    finds a primitive by its function) per arity, rules_spaces.py."""
    def call(at, param, fn, *args):
        return _call_value(at, param, fn, *args)
    call.__name__ = call.__qualname__ = f"call_value{n}"
    return call


call_value0, call_value1, call_value2, call_value3, call_value4 = map(_of_arity, range(5))


def _rule(fn, mode: str, i: int, at: str):
    method, rules = _method(fn, at)
    params = list(record.signature_of(method).parameters)
    rule = rules.get((mode, params[i])) if i < len(params) else None
    if rule is None:
        word = "VJP" if mode == "vjp" else "JVP"
        name = params[i] if i < len(params) else f"#{i}"
        raise _err(at, f"s2s has no {word} rule of `{type(fn).__name__}.__call__` for its argument `{name}`, "
                       "which a derivative reaches.", f"Declare one with s2s.def{mode} (or autograd.extend.def{mode}).")
    return rule


def call_value_vjp(g, ans, at: str, i: int, fn, args: tuple):
    """The cotangent of argument `i` of `fn(*args)` (0: `fn` itself, a value of its space): the
    rule of `__call__`'s parameter i, called as `rule(g, ans, fn, *args)`."""
    return _rule(fn, "vjp", i, at)(g, ans, fn, *args)


def call_value_jvp(d, ans, at: str, i: int, fn, args: tuple):
    """The tangent of `fn(*args)` from the tangent `d` of its argument `i` (0: `fn`)."""
    return _rule(fn, "jvp", i, at)(d, ans, fn, *args)


def batched_call_value(flags, at, param, fn, *args):
    """vmap of a call of a vector-space value: refused (its rules are for one example)."""
    if vspace.space_of(fn) is None:
        raise _parameter_error(at, param, fn)
    raise _refuse_batch(at, fn)


def _refuse_batch(at: str, fn) -> S2SError:
    return _err(at, f"s2s does not batch (vmap) a call of a {type(fn).__name__} (a vector-space value): the rules "
                    f"of `{type(fn).__name__}.__call__` are for one example.", "Loop over the examples.")


def batched_call_value_rule(flags, d, ans, at, i, fn, args):
    """vmap of a derivative rule of such a call: refused as the call is."""
    raise _refuse_batch(at, fn)
