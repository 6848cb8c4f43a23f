"""autograd's `argnum`: a function of the selected positional arguments, the others (and the
keywords) held fixed, as autograd's `unary_to_nary` builds. s2s transforms the function it gets
from its source, so the bound function is written out as source (registered with `linecache`)
that calls `f` with each argument in its place: s2s then sees every argument explicitly."""
from __future__ import annotations

import itertools
import linecache
import types
from collections.abc import Callable
from typing import Any

import s2s

_COUNT = itertools.count()


def nums_of(argnum: Any) -> tuple[int, ...]:
    """`argnum` (an int, or a tuple/list of ints) as a tuple of ints."""
    return tuple(argnum) if isinstance(argnum, (tuple, list)) else (argnum,)


def at_argnum(f: Callable, argnum: Any, args: tuple, kwargs: dict, packed: bool = False) -> tuple[Callable, tuple]:
    """(g, xs): `g(*xs) == f(*args, **kwargs)`, with `xs` the arguments `argnum` selects (a
    Python function calling `f`, unless `f` is one of all its arguments already); with
    `packed`, `g(xs) == f(*args, **kwargs)`, one argument holding the tuple (autograd's unary
    function of a tuple `argnum`)."""
    nums = nums_of(argnum)
    n = len(args)
    bad = [i for i in nums if not isinstance(i, int) or not -n <= i < n]
    if bad:
        raise IndexError(f"argnum {argnum!r} selects no argument of the {n} given")
    nums = tuple(i % n for i in nums)
    xs = tuple(args[i] for i in nums)
    if nums == tuple(range(n)) and not kwargs and not packed and isinstance(f, types.FunctionType):
        return f, xs
    where = {i: f"xs[{k}]" if packed else f"x{k}" for k, i in enumerate(nums)}
    params = "xs" if packed else ", ".join(f"x{k}" for k in range(len(nums)))
    call = ", ".join([where.get(i, f"fixed[{i}]") for i in range(n)] + (["**kwargs"] if kwargs else []))
    src = f"def at_argnum({params}):\n    return f({call})\n"
    name = f"<s2s.compat.autograd argnum {next(_COUNT)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    env = {"f": f, "fixed": tuple(args), "kwargs": dict(kwargs)}
    exec(compile(src, name, "exec"), env)  # noqa: S102 - source built above from indices only
    return env["at_argnum"], xs


def derivative_function(kind: str, f: Callable, n: int) -> Callable:
    """autograd's next-order function in check_grads: for kind "vjp", `(*xs, v) -> vjp of f at xs
    applied to v` (one value for n == 1, a tuple otherwise); for "jvp", `(*xs, *vs) -> J vs`.
    Both take the direction as an argument, so the next check differentiates with respect to it
    as well (a VJP rule that is wrong only in its cotangent shows there)."""
    xs = ", ".join(f"x{k}" for k in range(n))
    if kind == "vjp":
        body = f"    out, pullback = s2s.vjp(f, {xs})\n    return pullback(v){'[0]' if n == 1 else ''}\n"
        params = f"{xs}, v"
    else:
        vs = ", ".join(f"v{k}" for k in range(n))
        body = f"    return s2s.jvp(f, ({xs},), ({vs},))[1]\n"
        params = f"{xs}, {vs}"
    src = f"def {kind}_of_f({params}):\n{body}"
    name = f"<s2s.compat.autograd {kind} {next(_COUNT)}>"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    env = {"f": f, "s2s": s2s}
    exec(compile(src, name, "exec"), env)  # noqa: S102 - source built above from indices only
    return env[f"{kind}_of_f"]
