"""Keyword arguments of NumPy calls that s2s models by rewriting the call into modelled ones, and the
refusal of any other parameter that no rule reads.

`np.ravel(a, order="F")` is `np.ravel(a.T)`, `np.reshape(a, s, order="F")` the transpose of a
C-order reshape of `a.T` to the reversed shape, `np.take(v, i, mode="clip")` a take of clipped
indices, `np.array(x, ndmin=k)` a reshape with leading ones, `np.linalg.cholesky(s, upper=True)` the
transpose of the lower factor of `s.T` (NumPy reads the upper triangle), `np.linalg.qr(a, mode="r")`
the reduced R, `np.linspace(..., retstep=True)` the samples and their step, `np.var(a, correction=c)`
(std, nanvar, nanstd) `np.var(a, ddof=c)`, `math.log(x, b)` a
quotient of logarithms. Each path (value, jit, derivatives, vmap) then sees only calls whose every
argument its rules read. A parameter of NumPy's function that a primitive's declaration does not
model, given at a value other than its default, is an S2SError at the user's line
(primitives/keywords.py).
"""
from __future__ import annotations

import math

import gast

from ...errors import S2STypeError
from ..ir import build
from ..primitives import keywords, registry

_MISSING = object()


def _argument(args, kws, pos: int, name: str):
    """The atom of parameter `name` (at position `pos`), or _MISSING."""
    if name in kws:
        return kws[name]
    return args[pos] if pos is not None and len(args) > pos else _MISSING


def _literal(atom, default=_MISSING):
    """The value of a literal atom (`default` when the argument was not given), or _MISSING."""
    if atom is _MISSING:
        return default
    if isinstance(atom, gast.Constant):
        return atom.value
    return _MISSING


def _without(args, kws, pos, name):
    """The call's arguments with parameter `name` (at position `pos`) left out."""
    return [a for i, a in enumerate(args) if i != pos], {k: v for k, v in kws.items() if k != name}


def lower(norm, node, key: str, args: list, kws: dict, obj=None):
    """The call of primitive `key` with atoms `args`, `kws` written as calls s2s models, or None to
    keep it; refuses a parameter of NumPy's function that s2s does not model (at a non-default value)."""
    if obj is math.log and len(args) == 2 and not kws:  # math.log(x, base)
        num = norm.tmp(build.call("xp.log", [args[0]]))
        den = norm.tmp(build.call("xp.log", [args[1]]))
        return build.binop(num, gast.Div(), den)
    inert = [k for k in kws if k in keywords.inert(key)]
    if inert:  # (they change no value: left out, so no path has to pass them on)
        kws = {k: v for k, v in kws.items() if k not in inert}
    p = registry.lookup(key)
    lowered = _LOWER.get(p.rewrites) if p is not None else None
    out = lowered(norm, node, args, kws) if lowered is not None else None
    keyed = _LOWER_KEYED.get(p.rewrites) if p is not None else None
    out = keyed(norm, node, key, args, kws) if keyed is not None else out
    if out is None:
        refuse_unmodelled(norm, node, key, args, kws)
    if out is None and inert:
        return build.call(key, args, kws)
    return out


def refuse_unmodelled(norm, node, key, args, kws) -> None:
    bad = keywords.unmodelled_argument(key, args, kws)
    if bad is None:
        return
    name, atom = bad
    shown = repr(atom.value) if isinstance(atom, gast.Constant) else "a value known only when it runs"
    norm.fail(node, f"s2s does not model the argument `{name}=` of `{key.replace('xp.', 'np.', 1)}` at {shown}: its "
                    "rules would ignore it and give a wrong number.",
              f"Leave `{name}=` at NumPy's default, or compute the result another way "
              "(docs/operations.md, 'Keyword arguments').", kind=S2STypeError)


def _order(norm, node, args, kws, pos):
    order = _literal(_argument(args, kws, pos, "order"), "C")
    order = "C" if order is None else order  # (NumPy reads None as C)
    if order not in ("C", "F"):
        return None, None, None  # "A", "K" (memory layout) or a variable: refused
    args, kws = _without(args, kws, pos, "order")
    return order, args, kws


def _ravel(norm, node, args, kws):
    if len(args) > 2:
        return None  # (more than NumPy takes: NumPy's error, or the refusal)
    order, args, kws = _order(norm, node, args, kws, 1)
    if order is None:
        return None
    if order == "F":  # F order reads the transpose in C order
        return build.call("xp.ravel", [norm.tmp(build.call("xp.transpose", [args[0]]))], kws)
    return build.call("xp.ravel", args, kws)


def _reshape(norm, node, args, kws):
    if len(args) > 3:
        return None
    order, args, kws = _order(norm, node, args, kws, 2)
    if order is None:
        return None
    if order == "C":
        return build.call("xp.reshape", args, kws)
    shape = _argument(args, kws, 1, "shape")
    if shape is _MISSING:
        shape = _argument([], kws, None, "newshape")
    if shape is _MISSING:
        return None
    rest = {k: v for k, v in kws.items() if k not in ("shape", "newshape")}
    if isinstance(shape, gast.Tuple):
        flipped = build.tuple_(list(reversed(shape.elts)))
    elif isinstance(shape, gast.Constant):
        flipped = shape
    else:
        flipped = norm.tmp(build.call("rt.reversed_shape", [shape]))
    a_t = norm.tmp(build.call("xp.transpose", [args[0]]))
    r = norm.tmp(build.call("xp.reshape", [a_t, flipped], rest))
    return build.call("xp.transpose", [r])


def _take(norm, node, args, kws):
    mode_atom = _argument(args, kws, 4, "mode")
    mode = _literal(mode_atom, "raise")
    if mode not in ("raise", "clip", "wrap") or len(args) > 3:
        return None
    kws = {k: v for k, v in kws.items() if k != "mode"}
    if mode == "raise":
        return build.call("xp.take", args, kws)
    a, indices = args[0], _argument(args, kws, 1, "indices")
    axis = _argument(args, kws, 2, "axis")
    kws = {k: v for k, v in kws.items() if k not in ("indices", "axis")}
    if axis is _MISSING or isinstance(axis, gast.Constant) and axis.value is None:
        n = norm.tmp(build.call("xp.size", [a]))
        axis = build.const(None)
    else:
        n = norm.tmp(build.subscript(norm.tmp(build.call("xp.shape", [a])), axis))
    if mode == "clip":  # NumPy clips a negative index to 0 (it is not read from the end)
        top = norm.tmp(build.binop(n, gast.Sub(), build.const(1)))
        idx = norm.tmp(build.call("xp.clip", [indices, build.const(0), top]))
    else:
        idx = norm.tmp(build.call("xp.mod", [indices, n]))
    return build.call("xp.take", [a, idx, axis], kws)


def _cholesky(norm, node, args, kws):
    upper = _literal(_argument(args, kws, None, "upper"), False)
    if upper not in (True, False) or len(args) > 1:
        return None
    if not upper:
        return build.call("xp.linalg.cholesky", args[:1])
    # NumPy's upper factor reads the upper triangle, the lower one of the transpose
    flipped = norm.tmp(build.call("xp.swapaxes", [args[0], build.const(-1), build.const(-2)]))
    low = build.call("xp.linalg.cholesky", [flipped])
    return build.call("xp.swapaxes", [norm.tmp(low), build.const(-1), build.const(-2)])


def _qr(norm, node, args, kws):
    mode = _literal(_argument(args, kws, 1, "mode"), "reduced")
    if mode == "reduced":
        return build.call("xp.linalg.qr", args[:1])
    if mode != "r":
        return None  # ("complete": Q's extra columns have no derivative; "raw": LAPACK's form)
    pair = norm.tmp(build.call("xp.linalg.qr", args[:1]))
    return build.subscript(pair, build.const(1))


def _ndmin(norm, node, args, kws):
    ndmin = _literal(kws.get("ndmin", _MISSING), 0)
    if type(ndmin) is not int or ndmin <= 0 or len(args) != 1 or set(kws) != {"ndmin"}:
        return None  # (with dtype= or copy= too, the casts' and views' own rules must see the call: refused)
    fn = registry.lookup("rt.array_ndmin").source  # (transformed from its source, as a keyword form is)
    return build.call(build.name(norm.bind(fn.__name__, fn)), [norm.tmp(build.call("xp.array", args)),
                                                               build.const(ndmin)])


def _diff(norm, node, args, kws):
    given = dict(zip(("a", "n", "axis", "prepend", "append"), args)) | kws
    edges = {k: given.pop(k) for k in ("prepend", "append") if k in given}
    if len(args) > 5 or "a" not in given:
        return None  # (NumPy's error)
    if not edges:
        return build.call("xp.diff", args, kws)
    axis = given.get("axis", build.const(-1))
    a = given.pop("a")
    for key in ("prepend", "append"):  # (NumPy joins prepend first, then append)
        if key in edges:
            fn = registry.lookup(f"rt.diff_{key}").source  # (transformed from its source)
            a = norm.tmp(build.call(build.name(norm.bind(fn.__name__, fn)), [a, edges[key], axis]))
    return build.call("xp.diff", [a], given)


_LINSPACE = ("start", "stop", "num", "endpoint", "retstep", "dtype", "axis")


def _linspace(norm, node, args, kws):
    given = dict(zip(_LINSPACE, args)) | kws
    if _literal(given.get("retstep", _MISSING), False) is not True:
        return None
    num, endpoint = _literal(given.get("num", _MISSING), 50), _literal(given.get("endpoint", _MISSING), True)
    if not (type(num) is int and isinstance(endpoint, bool)) or num - endpoint <= 0 or "start" not in given:
        return None  # (a step NumPy gives as nan, or known only when it runs: refused)
    call = {k: v for k, v in given.items() if k != "retstep"}
    pos = [call.pop(k) for k in ("start", "stop") if k in call]
    samples = norm.tmp(build.call("xp.linspace", pos, call))
    span = norm.tmp(build.binop(given["stop"], gast.Sub(), given["start"]))
    step = norm.tmp(build.binop(span, gast.Div(), build.const(float(num - endpoint))))
    return build.tuple_([samples, step])


# each primitive's `rewrites` fact names its rewriting
def _ddof_alias(norm, node, key, args, kws):
    """`np.var(a, correction=c)` (std, nanvar, nanstd): NumPy 2's name of `ddof`; both given is
    NumPy's ValueError, raised here at the user's line."""
    if "correction" not in kws:
        return None
    if _argument(args, kws, 4, "ddof") is not _MISSING:
        norm.fail(node, "`ddof` and `correction` are the same argument: NumPy raises ValueError where both are "
                        "given.", "Give one of them.", kind=S2STypeError)
    kws = {("ddof" if k == "correction" else k): v for k, v in kws.items()}
    refuse_unmodelled(norm, node, key, args, kws)
    return build.call(key, args, kws)


_LOWER = {"flat_order": _ravel, "shape_order": _reshape, "index_mode": _take, "upper_factor": _cholesky,
          "r_only": _qr, "with_step": _linspace, "min_rank": _ndmin,
          "joined_edges": _diff}
_LOWER_KEYED = {"ddof_alias": _ddof_alias}  # (told which primitive it lowers)
