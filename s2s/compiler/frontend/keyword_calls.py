"""Keyword arguments of NumPy calls that s2s models by rewriting the call into modelled ones, and the
refusal of any other parameter that no rule reads.

`np.ravel(a, order="F")` is `np.ravel(a.T)`, `np.reshape(a, s, order="F")` the transpose of a
C-order reshape of `a.T` to the reversed shape, `np.take(v, i, mode="clip")` a take of clipped
indices, `np.array(x, ndmin=k)` a reshape with leading ones, `np.linalg.cholesky(s, upper=True)` the
transpose of the lower factor of `s.T` (NumPy reads the upper triangle), `np.linalg.qr(a, mode="r")`
the reduced R, `np.linspace(..., retstep=True)` the samples and their step, `np.var(a, correction=c)`
(std, nanvar, nanstd) `np.var(a, ddof=c)`, `math.log(x, b)` a quotient of logarithms,
`np.gradient(f, dx, dy)` a tuple of one call per axis. Each path (value, jit, derivatives, vmap)
then sees only calls whose every argument its rules read. A parameter of NumPy's function that a
primitive's declaration does not model, given at a value other than its default, is an S2SError
at the user's line (primitives/keywords.py).
"""
from __future__ import annotations

import ast
import math

import gast
import numpy as np

from ...errors import S2STypeError, S2SValueError
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
    given = (list(args), dict(kws))
    args, kws = keywords.by_name(key, args, kws)
    kws = keywords.at_default(key, kws)
    if "dtype" in kws and _gufunc(key):
        return _gufunc_dtype(norm, node, key, args, kws)
    if "casting" in kws and ("dtype" in kws or "signature" in kws):
        args, kws = _ufunc_casting(norm, node, key, args, kws)
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
    if out is None and (inert or (list(args), dict(kws)) != given):  # (what the caller passed no longer holds)
        return build.call(key, args, kws)
    return out


def result_dtype_call(key: str | None, node: gast.Call) -> bool:
    """Whether the call `node` of primitive `key` gives `dtype=` to an operation whose `dtype=` is its
    result cast to it (the fact `dtype_by_cast`: its rules and batching helpers do not read it)."""
    p = registry.lookup(key) if key is not None else None
    return p is not None and p.dtype_by_cast and any(k.arg == "dtype" for k in node.keywords)


def _gufunc(key: str) -> bool:
    fn = keywords.numpy_function(key)
    return isinstance(fn, np.ufunc) and fn.signature is not None


def _checked_cast(norm, a, dtype, casting):
    """`xp.asarray(a, dtype=dtype)` after NumPy's check of the casting rule (rt.cast_check)."""
    checked = norm.tmp(build.call("rt.cast_check", [a, dtype, casting]))
    return build.call("xp.asarray", [checked], {"dtype": dtype})


def _gufunc_dtype(norm, node, key: str, args: list, kws: dict):
    """`dtype=` of a generalized ufunc (`np.matmul(a, b, dtype=np.complex128)`): its operands cast to
    it (no derivative through an integer cast) after NumPy's check of `casting=` (same_kind unless
    given: `np.matmul(a, b, dtype=int)` of floats raises as NumPy's does)."""
    kws = dict(kws)
    dtype, casting = kws.pop("dtype"), kws.pop("casting", build.const("same_kind"))
    if not (isinstance(dtype, gast.Constant) and dtype.value is None):
        nin = keywords.numpy_function(key).nin
        args = [norm.tmp(_checked_cast(norm, a, dtype, casting)) for a in args[:nin]] + list(args[nin:])
    return lower(norm, node, key, args, kws) or build.call(key, args, kws)


def result_dtype(norm, node: gast.Call, key: str):
    """`dtype=` of an operation whose result is cast to it (`np.vstack(xs, dtype=np.float32)`, `np.cov(m,
    dtype=np.float32)`): the call without it, its result cast to the dtype after NumPy's check of
    the casting rule (`casting=` where the operation has one, else same_kind: np.cov of an integer
    dtype raises as NumPy's does)."""
    own = {n for n, _, _ in keywords.numpy_parameters(key) or ()}
    given = {k.arg: k.value for k in node.keywords}
    rest = [k for k in node.keywords if k.arg != "dtype" and not (k.arg == "casting" and "casting" in own)]
    dtype = norm.atom(given["dtype"])
    casting = norm.atom(given["casting"]) if "casting" in given and "casting" in own else build.const("same_kind")
    inner = norm.tmp(norm.expr(build.located(gast.Call(func=node.func, args=node.args, keywords=rest), node,
                                             only_missing=True)))
    if isinstance(dtype, gast.Constant) and dtype.value is None:
        return inner
    return _checked_cast(norm, inner, dtype, casting)


def _ufunc_casting(norm, node, key: str, args: list, kws: dict):
    """A ufunc's `casting=` beside `dtype=`, which decides whether NumPy casts the operands to the
    loop's dtype: 'same_kind' (the default) changes nothing; 'unsafe' is the operands cast first
    (`np.add(x, y, dtype=int, casting='unsafe')` adds x and y as integers, a cast with no derivative);
    a stricter rule, which NumPy checks against the operands' dtypes, is refused."""
    fn = keywords.numpy_function(key)
    if not isinstance(fn, np.ufunc):
        return args, kws
    casting = _literal(kws["casting"])
    if casting == "same_kind":
        return args, kws
    if casting == "unsafe" and "signature" not in kws:
        cast = [norm.tmp(build.call("xp.asarray", [a], {"dtype": kws["dtype"]})) for a in args[:fn.nin]]
        return cast + list(args[fn.nin:]), {k: v for k, v in kws.items() if k != "casting"}
    norm.fail(node, f"s2s models `casting=` of `{key.replace('xp.', 'np.', 1)}` beside `dtype=` as 'same_kind' or "
                    f"'unsafe' only: NumPy checks {casting!r} against the operands' dtypes.",
              "Cast the operands with `.astype(...)` first, or leave `casting=` out.")


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


def _axes_literal(node):
    """The axes of the call's `axis=` written as an int or a tuple of ints (None: not given or None),
    or _MISSING."""
    given = [k.value for k in node.keywords if k.arg == "axis"]
    if not given:
        return None
    try:
        axes = ast.literal_eval(gast.gast_to_ast(given[0]))
    except ValueError:
        return _MISSING
    if axes is None or type(axes) is int:
        return None if axes is None else [axes]
    if isinstance(axes, (tuple, list)) and all(type(a) is int for a in axes):
        return list(axes)
    return _MISSING


def _gradient(norm, node, args, kws):
    """`np.gradient(f, s0, s1, ..., axis=...)`, a spacing per axis: the tuple of single-axis calls
    `np.gradient(f, s_k, axis=a_k)` (NumPy's result), the axes read from `axis=` or, without it, every
    axis of `f`, whose rank is checked to be the number of spacings when it runs (rt.gradient_rank)."""
    if len(args) <= 2:
        return None
    f, spacings = args[0], args[1:]
    axes = _axes_literal(node)
    rest = {k: v for k, v in kws.items() if k != "axis"}
    if axes is _MISSING:
        norm.fail(node, "s2s follows np.gradient with a spacing per axis when `axis=` is written as an int or a "
                        "tuple of ints.", "Write the axes as a literal, or call np.gradient once per axis.")
    if axes is None:
        f = norm.tmp(build.call("rt.gradient_rank", [f, build.const(len(spacings))]))
        axes = list(range(len(spacings)))
    if len(set(axes)) != len(axes):
        norm.fail(node, "np.gradient: repeated axis: NumPy raises ValueError for this call.", kind=S2SValueError)
    if len(axes) != len(spacings):
        norm.fail(node, f"np.gradient: invalid number of arguments ({len(spacings)} spacings for {len(axes)} axes): "
                        "NumPy raises TypeError for this call.", "Give one spacing, or one per axis.",
                  kind=S2STypeError)
    parts = [norm.tmp(build.call("xp.gradient", [f, s], {"axis": build.const(a), **rest}))
             for s, a in zip(spacings, axes)]
    return build.tuple_(parts)


def _each_array(norm, node, key: str, args: list, kws: dict):
    """`np.atleast_1d(a, b)`: the tuple of the one-array calls (the declaration binds one array; a
    second one was read as `axis=`)."""
    if len(args) <= 1 or kws:
        return None
    return build.tuple_([norm.tmp(build.call(key, [a])) for a in args])


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
          "joined_edges": _diff, "spacings": _gradient}
_LOWER_KEYED = {"ddof_alias": _ddof_alias, "each_array": _each_array}  # (told which primitive it lowers)
