"""Vectorized loops decided when a jit version is compiled: with the arguments' shapes known, the
trip count of a loop that `loopvec` vectorized and the bounds of the windows it takes are numbers,
so `rt.loop_vectorizes` (or vmap's `rt.batched_loop_vectorizes`), which picks at run time between
the vectorized branch and the loop as written, is asked now, on stand-ins of the arguments
(arrays of their type, dtype and shape); the branch it picks stays and the other goes, with the
setup only the decision read. In the branch kept, a window gather with evenly spaced bounds known
now is `rt.windows_at` of those numbers (the same strided view, without the bound arrays or their
tests). A loop kept as written is listed in `known["loops_as_written"]`, which `loopvec` leaves as
it is.

A loop too short to pay for the vectorized branch (fewer than `MIN_TRIPS` iterations) runs as the
loop, which gives vmap's per-example dots their own bits; where the vectorized branch is only
window gathers, such dots (`rt.batched_batched_dot` of windows and per-example vectors) and the
stack of their results, it is kept instead, with each dot `rt.windows_vecdot`, one `np.vecdot`
call that gives every window the bits the loop's `rt.batched_dot` gives it.

Before (vmap of a 3-tap convolution, `x` 2 x 5)::

    t1 = rt.batched_len((True,), x) - 1
    batch_size = rt.loop_trip_count(1, t1, 1)
    i = xp.arange(1, t1, 1)
    t2 = i - 1
    t3 = i + 2
    loop_vectorized0 = rt.batched_loop_vectorizes(flags, batch_size, x, slice(t2, t3, None), True, ...)
    if loop_vectorized0:
        t4 = rt.batched_loop_windows((True, False, False, False, False), x, slice(t2, t3, None), True, where, False)
        t5 = rt.batched_batched_dot((False, True, True), (True, False), t4, w)
        t6 = rt.batched_loop_list_array((True, False), t5, batch_size)
    else:
        for i in range(1, t1): ...

After (dead code goes next)::

    t4 = rt.windows_at(x, 1, 0, 1, 3, 3, 1)
    t5 = rt.windows_vecdot(t4, w)
    t6 = t5

Only decisions and windows whose every input is known now are touched: a parameter array of a
known shape, ints and int vectors computed from literals and shapes (`xp.arange`, `+`, `-`, `*`,
`rt.loop_trip_count`, `len`, `rt.batched_len`), lists made empty; a decision that reads anything else,
or whose loop writes into an array (whether that array shares memory with one it reads is known
only at run time), stays.
"""
from __future__ import annotations

import gast
import numpy as np

from ...runtime import loops
from .. import analysis
from ..ir import build
from ..primitives import registry
from .base import Pass, mutated

_VECTORIZES = "rt.loop_vectorizes"
_WINDOWS = "rt.loop_windows"
_LIST_ARRAY = "rt.loop_list_array"
_LONGEST = 1 << 20  # (an index vector longer than this is not built at compile time)


def _forms(name: str) -> tuple:
    """A loop helper's name and its vmap batching helper's (`rt.batched_...`)."""
    return name, registry.BATCH[name].helper


def _decider(f):
    """(the run-time function, the positions of `n` and `writes` in its call) of a loop's decision."""
    if f == _VECTORIZES:
        return loops.loop_vectorizes, 0, 11
    if f == _forms(_VECTORIZES)[1]:
        return loops.batched_loop_vectorizes, 1, 12
    return None


def _arith(op, a, b):
    if isinstance(op, gast.Add):
        return a + b
    if isinstance(op, gast.Sub):
        return a - b
    if isinstance(op, gast.Mult):
        return a * b
    raise _Unknown


class _Unknown(Exception):
    """A value not known when the version is compiled."""


class _Values:
    """The values of names known at compile time, followed through the top-level statements in
    program order: parameters as stand-ins (an array of their dtype and shape, no memory of its
    own), ints, int vectors and empty lists computed from them and from literals."""

    def __init__(self, body, params, known):
        shapes, arrays = known.get("shapes") or {}, known.get("arrays") or {}
        self.vals = {p: np.broadcast_to(np.zeros((), np.dtype(arrays[p][0])), shapes[p]) for p in params
                     if p in shapes and p in arrays and len(shapes[p]) == arrays[p][1]}
        self.shaky = _shaky(body)  # (arrays they hold may change in place: not followed)
        self.standins = {id(v) for v in self.vals.values()}  # (their type, dtype and shape are known, not their values)

    def of(self, node):
        cls = node.__class__
        if cls is gast.Constant:
            return node.value
        if cls is gast.Name:
            if node.id not in self.vals or node.id in self.shaky and type(self.vals[node.id]) is np.ndarray:
                raise _Unknown
            return self.vals[node.id]
        if cls is gast.Tuple:
            return tuple(self.of(e) for e in node.elts)
        if cls is gast.List and not node.elts:
            return []
        if cls is gast.BinOp:
            a, b = self.of(node.left), self.of(node.right)
            if not all(type(v) is int or type(v) is np.ndarray and v.dtype.kind == "i" and id(v) not in self.standins
                       for v in (a, b)):  # (ints and index vectors, not a parameter's stand-in)
                raise _Unknown
            return _arith(node.op, a, b)
        if cls is gast.UnaryOp and isinstance(node.op, gast.USub) and type(v := self.of(node.operand)) is int:
            return -v
        if cls is gast.Call and not node.keywords:
            return self._call(analysis.dotted(node.func), [self.of(a) for a in node.args])
        raise _Unknown

    def _call(self, f, args):
        ints = all(type(a) is int for a in args)
        if f == "slice" and len(args) <= 3 and not any(id(a) in self.standins for a in args):
            return slice(*args)  # (bounds whose values are known: a parameter's are not)
        if f == "rt.loop_trip_count" and ints and len(args) in (2, 3) and args[-1] != 0:
            return len(range(*args))
        if f == "xp.arange" and ints and len(args) == 3 and args[2] != 0 and len(range(*args)) <= _LONGEST:
            return np.arange(*args)
        if f == "rt.batched_len" and len(args) == 2 and type(args[1]) is np.ndarray and args[1].ndim >= 2:
            return args[1].shape[1]  # (batch_core.example_len of an array)
        if f == "len" and len(args) == 1 and type(args[0]) is np.ndarray and args[0].ndim:
            return args[0].shape[0]
        if f == "rt.replicate_batch" and len(args) == 2 and args[0] == []:
            return []
        raise _Unknown

    def bind(self, s) -> None:
        """Follow top-level statement `s`: the value of the name it binds, if known now."""
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            try:
                self.vals[s.targets[0].id] = self.of(s.value)
                return
            except _Unknown:
                pass
        for n in _binds(s):
            self.vals.pop(n, None)


def _binds(s) -> set:
    out = set()
    for t in analysis.walk_stmts([s]):
        out.update(analysis.targets(t))
        if isinstance(t, (gast.Assign, gast.AugAssign)):
            out.update(build.names_in(t.targets[0] if isinstance(t, gast.Assign) else t.target))
    return out


def _shaky(body) -> set:
    """Names whose array may be updated in place or reached through another name: item stores'
    bases, augmented assignments, arrays a helper updates, names copied to names."""
    out = set()
    for s in analysis.walk_stmts(body):
        if isinstance(s, gast.AugAssign) or isinstance(s, gast.Assign) and not isinstance(s.targets[0], gast.Name):
            out.update(build.names_in(s.target if isinstance(s, gast.AugAssign) else s.targets[0]))
        value = getattr(s, "value", None)
        if isinstance(s, gast.Assign) and isinstance(value, gast.Name):
            out.update((value.id, s.targets[0].id) if isinstance(s.targets[0], gast.Name) else (value.id,))
        for c in (e for e in build.walk(value) if isinstance(e, gast.Call)) if value is not None else ():
            if isinstance(m := mutated(c), gast.Name):
                out.add(m.id)
    return out


def _decision(value, values):
    """(picks the vectorized branch now, would for MIN_TRIPS iterations or more, trip count) of a
    loop's decision call, or None when not every input is known now."""
    f = analysis.dotted(value.func) if isinstance(value, gast.Call) else None
    if _decider(f) is None or value.keywords:
        return None
    fn, at_n, at_writes = _decider(f)
    try:
        args = [values.of(a) for a in value.args]
    except _Unknown:
        return None
    n = args[at_n] if len(args) > at_n else None
    writes = args[at_writes] if len(args) > at_writes else ()
    if type(n) is not int or not isinstance(writes, tuple) or any(hasattr(w, "shape") for w in writes):
        return None  # (an array the loop writes: whether it shares memory with one it reads is known at run time)
    try:
        now = bool(fn(*args))
        longer = now if not 0 < n < loops.MIN_TRIPS else bool(fn(*args[:at_n], loops.MIN_TRIPS, *args[at_n + 1:]))
    except Exception:  # (what the call would raise at run time, it raises there)
        return None
    return now, longer, n


def _windows_at(value, values):
    """`rt.windows_at(...)` of the numbers of a window gather whose bounds are known now and
    evenly spaced (the strided view `rt.loop_windows` takes for them), or None."""
    f = analysis.dotted(value.func) if isinstance(value, gast.Call) else None
    if f not in _forms(_WINDOWS) or value.keywords:
        return None
    lead = int(f != _WINDOWS)
    try:
        args = [values.of(a) for a in value.args]
    except _Unknown:
        return None
    if lead:
        flags = args[0]
        if not (isinstance(flags, tuple) and len(flags) > 1 and flags[0] is True and flags[1] is False):
            return None
    x, index = args[lead], args[lead + 1]
    if len(args) > lead + 4 and args[lead + 4] is not False or type(x) is not np.ndarray:
        return None
    parts = ((slice(None),) * lead) + (index if type(index) is tuple else (index,))
    sl = parts[-1]
    if len(parts) > x.ndim or type(sl) is not slice or sl.step is not None \
            or any(type(p) is not slice or (p.start, p.stop, p.step) != (None, None, None) for p in parts[:-1]):
        return None
    lo, hi = sl.start, sl.stop
    if not (type(lo) is np.ndarray and type(hi) is np.ndarray and lo.ndim == 1 and lo.shape == hi.shape
            and lo.dtype.kind in "iu" and hi.dtype.kind in "iu" and lo.shape[0] >= 2):
        return None
    q, k = len(parts) - 1, lo.shape[0]
    l0, step, length = int(lo[0]), int(lo[1] - lo[0]), int(hi[0] - lo[0])
    if l0 < 0 or step <= 0 or length <= 0 or l0 + step * (k - 1) + length > x.shape[q] \
            or not ((lo == np.arange(l0, l0 + step * k, step)).all() and (hi - lo == length).all()):
        return None
    nums = [build.const(v) for v in (q, l0, step, k, length)] + ([build.const(1)] if lead else [])
    return build.call("rt.windows_at", [value.args[lead]] + nums)


def _flags(nodes, values):
    try:
        return tuple(values.of(a) for a in nodes)
    except _Unknown:
        return None


def _short_dots(branch, values):
    """The vectorized branch of a loop too short to vectorize, with each per-example dot of windows
    `rt.windows_vecdot` (bit for bit the loop's), when it holds only window gathers, such dots, the
    stack of their results and copies; else None."""
    wins, fresh, out = set(), set(), []
    for s in branch:
        if build.is_comment(s):
            out.append(s)
            continue
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
            return None
        t, v = s.targets[0].id, s.value
        f = analysis.dotted(v.func) if isinstance(v, gast.Call) else None
        if isinstance(v, gast.Name):
            pass
        elif f in _forms(_WINDOWS) and (at := _windows_at(v, values)) is not None:
            wins.add(t)
            v = at
        elif f == "rt.batched_batched_dot" and len(v.args) == 4 and not v.keywords \
                and _flags(v.args[:2], values) == ((False, True, True), (True, False)) \
                and isinstance(v.args[2], gast.Name) and v.args[2].id in wins and isinstance(v.args[3], gast.Name):
            fresh.add(t)
            v = build.call("rt.windows_vecdot", v.args[2:])
        elif f in _forms(_LIST_ARRAY) and v.args \
                and isinstance(v.args[-2], gast.Name) and v.args[-2].id in fresh:
            v = v.args[-2]  # (a new array of the rows, as the stack's copy is: no copy of it)
        else:
            return None
        out.append(gast.copy_location(build.assign(t, v), s))
    return out


def fold_loops(body: list, params, facts) -> tuple[list, set[str]]:
    known = facts["known"]
    if not known.get("shapes") or not any(isinstance(s, gast.Assign) and isinstance(s.value, gast.Call)
                                          and _decider(analysis.dotted(s.value.func)) is not None for s in body):
        return body, set()
    values = _Values(body, params, known)
    decisions = {}  # decision name -> (its statement's position in `out`, what it decides now)
    out, touched = [], set()
    for s in body:
        picked = None
        if isinstance(s, gast.If) and isinstance(s.test, gast.Name) and (d := decisions.get(s.test.id)) \
                and d[1] is not None:
            now, longer, n = d[1]
            picked = s.body if now else _short_dots(s.body, values) if longer and n else s.orelse
            picked = picked if picked is not None else s.orelse
            if picked is s.orelse:  # (the loop as written: loopvec must not vectorize it again)
                known.setdefault("loops_as_written", set()).update(gast.dump(t) for t in picked if isinstance(t, gast.For))
            old = out[d[0]]
            out[d[0]] = gast.copy_location(build.assign(s.test.id, build.const(picked is not s.orelse)), old)
            touched.update(build.names_in(old), analysis.loads([s]), _binds(s))
        for t in (picked if picked is not None else [s]):
            if picked is not None and isinstance(t, gast.Assign) and (at := _windows_at(t.value, values)) is not None:
                t = gast.copy_location(build.assign(t.targets[0].id, at), t)
            decided = isinstance(t, gast.Assign) and isinstance(t.targets[0], gast.Name) \
                and isinstance(t.value, gast.Call) and _decider(analysis.dotted(t.value.func)) is not None
            decision = _decision(t.value, values) if decided else None
            out.append(t)
            values.bind(t)
            for name in _binds(t) & decisions.keys():  # (a name bound again: an `if` on it reads the new value)
                del decisions[name]
            if decided:
                decisions[t.targets[0].id] = (len(out) - 1, decision)
            if isinstance(t, gast.Assign) and isinstance(t.targets[0], gast.Name) \
                    and isinstance(t.value, (gast.Call, gast.BinOp)) and type(values.vals.get(t.targets[0].id)) is int:
                out[-1] = gast.copy_location(build.assign(t.targets[0].id, build.const(values.vals[t.targets[0].id])), t)
                touched.update(build.names_in(t))  # (a trip count or a length known now: the number)
    return out, touched


PASS = Pass("fold_loops", fold_loops)
