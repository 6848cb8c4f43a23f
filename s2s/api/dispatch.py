"""Generated fast paths for calls of transformed functions.

A transformed function is an object (it carries its record for further transforms), and its
general call binds the arguments, checks the cache key, picks a version and the backend: a few
microseconds that a 2 µs function feels. Once calls have shown one signature, `entry` generates a
function for it that tests the signature inline -- each argument's type, a NumPy array's dtype
(and rank, where the version is specialized on ranks), the key's watch (cachekey.Watch), NumPy as
the backend -- and calls the version; any other call goes to the general path. The object's
`__call__` is that function (calls.Transformed), so a call costs no Python frame of s2s's own
besides it. For `f(x, w)` seen with a float vector and a Python float::

    def dispatch_f(a0=MISSING, a1=MISSING, /, *more, **kw):
        try:
            ok = not more and not kw and type(a0) is t0 and type(a1) is t1 \\
                and a0.dtype is d0 and a0.ndim == 1 and w_d0['np'] is w_v0 and backend['backend'] == 'numpy'
        except (KeyError, ValueError):  # a watched global deleted, a closure cell emptied
            ok = False
        try:
            if ok:
                return version(a0, a1)
            return general(given(a0, a1) + more, kw)
        except Exception as e:  # an entry point: the user's frames only (tracebacks.py)
            hide_internal(e)
            raise
"""
from __future__ import annotations

import linecache
import re
import zlib

import numpy as np

from ..backends import arrays
from ..base.tracebacks import hide_internal
from ..errors import S2SError
from . import merged_entry

MISSING = object()  # an argument the call did not pass (the general path then sees the call as it was)
ARGUMENTS = frozenset(arrays.HOST) - {type(None)}  # types whose exact type tells their backend: NumPy


def given(*args) -> tuple:
    """The positional arguments a call passed (the fast path's parameters default to MISSING)."""
    return tuple([a for a in args if a is not MISSING])


def _sequence(a) -> bool:
    """A tuple or list of a few NumPy arrays and numbers (the fast path tests each item)."""
    return type(a) in (tuple, list) and len(a) <= 8 and all(type(e) in ARGUMENTS for e in a)


def mapping(a) -> bool:
    """A dict of a few NumPy arrays and numbers under str keys (the fast path tests each value)."""
    return type(a) is dict and len(a) <= 8 and all(type(k) is str and type(e) in ARGUMENTS for k, e in a.items())


def _leaf(expr: str, key: str, a, ranks: bool, env: dict, shape: bool = False) -> str:
    """The test that `expr` is like `a`: its type, and an array's dtype (and rank, or `shape`);
    `env` gets the objects it compares with."""
    env[f"t{key}"] = type(a)
    test = f"type({expr}) is t{key}"
    if type(a) is np.ndarray:
        env[f"d{key}"] = a.dtype
        test += f" and {expr}.dtype is d{key}" + (f" and {expr}.shape == {a.shape!r}" if shape else
                                                  f" and {expr}.ndim == {a.ndim}" if ranks else "")
    return test


def entry(name: str, args: tuple, watch, general, calls: list[str], ns: dict, ranks: bool = False,
          fallback: tuple = (), shapes: bool = False, inline=None):
    """A fast path for calls like `args` (positional, NumPy arrays and numbers or tuples, lists
    and str-keyed dicts of them, NumPy the backend), or None when there is none (another argument type, no watch of
    the key). `calls`: the lines that run the call, over parameters `a0`, `a1`, ... and the names
    in `ns`; `general(args, kwargs)` takes every other call; `ranks`: the version is specialized
    on the arrays' ranks too (`shapes`: on their shapes, those in tuples and lists too); `fallback`:
    (exception types after which the call goes to the general path, which decides; exception
    types raised as they are, tested first); `inline`: the generated version `calls` runs, whose
    statements the fast path then runs itself where it can (merged_entry.py: one frame, not two)."""
    if watch is None or not all(type(a) in ARGUMENTS or _sequence(a) or mapping(a) for a in args):
        return None
    name = re.sub(r"\W", "_", name)
    params = [f"a{i}" for i in range(len(args))]
    names, values, watched = watch.terms
    guard = ["not more", "not kw"]
    env = dict(zip(names, values))
    for i, a in enumerate(args):
        guard.append(_leaf(f"a{i}", f"{i}", a, ranks, env, shapes))
        if _sequence(a):  # a tuple or list of arrays and numbers (parameters): its items' too
            guard.append(f"len(a{i}) == {len(a)}")
            guard += [_leaf(f"a{i}[{k}]", f"{i}_{k}", e, ranks, env, shapes) for k, e in enumerate(a)]
        elif mapping(a):  # a dict of them: its keys (the same number, each found) and values
            guard.append(f"len(a{i}) == {len(a)}")
            guard += [_leaf(f"a{i}[{k!r}]", f"{i}_{j}", e, ranks, env) for j, (k, e) in enumerate(a.items())]
    guard += [f"({watched})", "backend['backend'] == 'numpy'"]
    body = [f"            {line}" for line in calls]
    if fallback:
        body = ["            try:"] + ["    " + line for line in body] + \
               ["            except reraised:", "                raise",
                "            except fallback:", "                pass"]
    signature = [p + "=MISSING" for p in params] + (["/"] if params else []) + ["*more", "**kw"]
    src = "\n".join([f"def {name}({', '.join(signature)}):",
                     "    try:",
                     f"        ok = {' and '.join(guard)}",
                     "    except Exception:",  # (a watched global deleted, an attribute read raising)
                     "        ok = False",
                     "    try:",
                     "        if ok:"] + body +
                    [f"        return general(given({', '.join(params)}) + more, kw)",
                     "    except Exception as e:",
                     "        hide_internal(e)",
                     "        raise", ""])
    env.update(ns, MISSING=MISSING, given=given, general=general, backend=arrays.SETTINGS,
               S2SError=S2SError, hide_internal=hide_internal,
               fallback=fallback[0] if fallback else (), reraised=fallback[1] if fallback else ())
    if inline is not None and not fallback:
        fn = merged_entry.merged(" and ".join(guard), env, inline, len(args))
        if fn is not None:
            return fn
    code = _CODE.get(src)
    if code is None:  # one compiled code (and one linecache entry) per distinct source, however
        filename = f"<s2s:{name}:{zlib.crc32(src.encode()):08x}>"  # many objects build it
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        code = _CODE[src] = compile(src, filename, "exec")
    exec(code, env)  # noqa: S102 - our own generated source
    return env[name]


_CODE: dict = {}  # the source of a fast path -> its compiled code
