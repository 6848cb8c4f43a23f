"""A backward sweep's loop as an array loop kernel (`s2s.compiler.passes.arraypops`): the kernel
forms of the runtime helpers it calls, its pops as rows of one array per pop site, its deferred
outer products as rows the caller adds as one matrix product, and the copies that keep a kernel
that raises from changing anything (the Python loop then runs instead).

The pops: the loop pops `P` items an iteration off a tape, in the body's order, so pop site `j`
of iteration `k` takes the tape's item `len - 1 - (k * P + j)`. `PopPlan.stacks` checks them
(float64 arrays of one shape or floats; a site whose value is dead after its pop may pop
anything last: the value a saved variable had before the loop) and stacks each site's into one
array. Items are distinct objects owning their memory, unless two sites pop the same object in
every iteration (`ds = probs`: then one array stands for both, so a store through one shows
through the other), and no item is an argument of the kernel or its memory. After the kernel
`PopPlan.finish` takes the items off the tape, writes the kernel's rows back into the items
something else still holds (where the loop may write into them), copies back the arguments it
wrote into, and adds each deferred product: `acc + A.T @ V`, with `A` the rows of the array
`a = P[i]` indexes (no copy), or the rows the kernel kept.
"""
from __future__ import annotations

import sys
from operator import attrgetter

import gast
import numpy as np

from ...runtime.tape_copies import expand_rows
from ..ir import build
from ..passes.arraypops import rt_form
from . import tape_blocks

_F64 = np.dtype(np.float64)
_FLOATS = frozenset({float, np.float64})
_NUMPY = frozenset({np.float64})  # (a number that reaches a division: Python's raises where NumPy's gives inf)
_dtype, _base = attrgetter("dtype"), attrgetter("base")

PRELUDE = '''

def _rt_unbroadcast(v, like):
    return v


@overload(_rt_unbroadcast, inline="always")
def _rt_unbroadcast_numba(v, like):
    if isinstance(v, types.Float) and isinstance(like, types.Float):
        return lambda v, like: v
    if isinstance(v, types.Array) and v.ndim == 1 and v.dtype == types.float64 and isinstance(like, types.Float):
        return lambda v, like: _sum1(v)  # (a vector's cotangent of a number: its sum, NumPy's pairwise one)
    if isinstance(v, types.Array) and isinstance(like, types.Array) and v.ndim == like.ndim \\
            and v.dtype == types.float64:
        def same(v, like):
            if v.shape != like.shape:
                raise ValueError("s2s array loop: a cotangent of another shape")
            return v
        return same
    return None


def _rt_sum_vjp(v, like):
    return v


@overload(_rt_sum_vjp, inline="always")
def _rt_sum_vjp_numba(v, like):
    if isinstance(v, types.Float) and isinstance(like, types.Array) and like.dtype == types.float64:
        def filled(v, like):
            out = np.empty(like.shape)
            out.fill(v)
            return out
        return filled
    return None


def _rt_fresh(x):
    return x


@overload(_rt_fresh, inline="always")
def _rt_fresh_numba(x):
    if isinstance(x, types.Array) and x.dtype == types.float64:
        return lambda x: x.copy()
    return None


def _rt_zero_at(a, j):
    return a


@overload(_rt_zero_at, inline="always")
def _rt_zero_at_numba(a, j):
    if isinstance(a, types.Array) and a.dtype == types.float64 and a.ndim == 1 and isinstance(j, types.Integer):
        def zero(a, j):
            a[j] = 0.0
            return a
        return zero
    return None


def _rt_add_at(a, j, v):
    return a


@overload(_rt_add_at, inline="always")
def _rt_add_at_numba(a, j, v):
    if isinstance(a, types.Array) and a.dtype == types.float64 and a.ndim == 1 and isinstance(j, types.Integer) \\
            and isinstance(v, types.Float):
        def add(a, j, v):
            a[j] += v
            return a
        return add
    return None


def _rt_pick(x, y):
    return x


@overload(_rt_pick, inline="always")
def _rt_pick_numba(x, y):
    if isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim == 1 \\
            and isinstance(y, (types.Float, types.Integer)):
        def picked(x, y):
            out = np.empty(x.shape[0])
            for i in range(x.shape[0]):
                out[i] = 1.0 if x[i] > y else (0.5 if x[i] == y else 0.0)
            return out
        return picked
    if isinstance(x, types.Float) and isinstance(y, (types.Float, types.Integer)):
        return lambda x, y: 1.0 if x > y else (0.5 if x == y else 0.0)
    return None


def _rt_inplace(r, a):
    return r


@overload(_rt_inplace, inline="always")
def _rt_inplace_numba(r, a):
    # `a op= v` given `r = a op v`: `r` where `a` is a number; where `a` is an array, `r` of its
    # shape (float64 both: no cast), else NumPy's error, which the Python loop raises
    if isinstance(a, types.Float) and isinstance(r, (types.Float, types.Array)):
        return lambda r, a: r
    if isinstance(a, types.Array) and a.dtype == types.float64 and isinstance(r, types.Array) \
            and r.dtype == types.float64 and r.ndim == a.ndim:
        def same(r, a):
            if r.shape != a.shape:
                raise ValueError("s2s array loop: an update in place of another shape")
            return r
        return same
    return None


def _rt_inplace_checked(r, a):
    return r


@overload(_rt_inplace_checked, inline="always")
def _rt_inplace_checked_numba(r, a):
    return _rt_inplace_numba(r, a)  # (`rt.inplace`, kept where no sweep reads it: the same check)


def _rt_zeros_like_tree(x):
    return x


@overload(_rt_zeros_like_tree, inline="always")
def _rt_zeros_like_tree_numba(x):
    # a float64 array's zeros, a number's 0.0 (rt.zeros_like_tree's of these)
    if isinstance(x, types.Array) and x.dtype == types.float64:
        return lambda x: np.zeros(x.shape)
    if isinstance(x, types.Float):
        return lambda x: 0.0
    return None


def _rt_inplace_ct(g, r, a):
    return g


@overload(_rt_inplace_ct, inline="always")
def _rt_inplace_ct_numba(g, r, a):
    # the cotangent of `r` from `g`: `g` itself, everything float64 here
    def f64(t):
        return isinstance(t, types.Float) or isinstance(t, types.Array) and t.dtype == types.float64
    if f64(g) and f64(r) and f64(a):
        return lambda g, r, a: g
    return None


def _rt_max_vjp(v, a, ans):
    return a


@overload(_rt_max_vjp, inline="always")
def _rt_max_vjp_numba(v, a, ans):
    if isinstance(v, types.Float) and isinstance(a, types.Array) and a.dtype == types.float64 and a.ndim == 1 \\
            and isinstance(ans, types.Float):
        def split(v, a, ans):
            # rt.max_vjp's values: v where a attains its maximum once (zeros of v's sign
            # elsewhere), else (v * hit) / count
            m = a.shape[0]
            count = 0
            for i in range(m):
                if a[i] == ans:
                    count += 1
            out = np.empty(m)
            if count == 1 and np.isfinite(v):
                z = -0.0 if np.copysign(1.0, v) < 0.0 else 0.0
                for i in range(m):
                    out[i] = v if a[i] == ans else z
            else:
                for i in range(m):
                    out[i] = (v * (1.0 if a[i] == ans else 0.0)) / float(count)
            return out
        return split
    return None

'''


def kernel_form(node):
    """`rt.f(...)` as the prelude's `_rt_f(...)` with its value and index arguments, or None."""
    form = rt_form(node)
    if form is None:
        return None
    fn, kinds, _ = form
    return build.call(fn, [a for a, k in zip(node.args, kinds) if k in "vi"])


def pop_rows(body: list, sites) -> list:
    """The loop body with its pops as rows of the sites' arrays (`pop{j}__[k__]`) and its deferred
    sums as rows kept (`dfr{j}_v__`, with `dfr{j}_a__` where `a` is no row of an argument)."""
    for j, (at, _, kind, target, flags, _, _) in enumerate(sites):
        row = build.template(f"pop{j}__[k__]")
        if kind == "pop" and flags[2]:
            body[at] = gast.Pass()  # (a value the loop never reads: popped off the tape after the kernel)
        elif kind == "pop":
            body[at] = build.assign(build.name(target), row)
        elif kind == "popstore":
            body[at] = build.assign(target, row)
        elif kind == "defer":
            acc, v, a, b, row_of = target
            text = (f"if k__ == 0:\n    dfr{j}_v__ = np.empty((n__, {b}.shape[1]))\n"
                    + (f"    dfr{j}_a__ = np.empty((n__, {b}.shape[0]))\n" if row_of is None else "")
                    + f"if {v}.ndim != 1 or {a}.ndim != 1 or {b}.ndim != 2 or {v}.shape[0] != {b}.shape[1] "
                    f"or {a}.shape[0] != {b}.shape[0]:\n"
                    "    raise ValueError('s2s array loop: a deferred product of other shapes')\n"
                    f"dfr{j}_v__[k__] = {v}\n"
                    + (f"dfr{j}_a__[k__] = {a}\n" if row_of is None else "")
                    + f"{acc} = {acc}\n")
            body[at:at + 1] = [gast.If(test=build.const(True), body=gast.parse(text).body, orelse=[])]
    return body


def outputs(sites) -> list[str]:
    """The arrays of rows the kernel returns for the deferred sums, in order."""
    out = []
    for j, (_, _, kind, target, *_) in enumerate(sites):
        if kind == "defer":
            out += [f"dfr{j}_v__"] + ([f"dfr{j}_a__"] if target[4] is None else [])
    return out


def _root(x):
    while type(x.base) is np.ndarray:
        x = x.base
    return x


class PopPlan:
    """The pop sites and deferred sums of one kernel (`sites`, in the body's order), for the
    kernel's parameters `params` (with their roles)."""

    def __init__(self, sites, params, roles):
        # (the names whose values may reach a division: a Python float there must stay Python's)
        self.raising = next((s[3] for s in sites if s[2] == "raising"), None)
        self.sites = tuple(s for s in sites if s[2] != "raising")
        self.params = tuple(params)
        self.popped = [j for j, s in enumerate(self.sites) if s[2] in ("pop", "popstore")]  # (in the tapes' order)
        self.pops = [j for j in self.popped if not (self.sites[j][4] and self.sites[j][4][2])]  # (the kernel's stacks)
        self.defers = [j for j, s in enumerate(self.sites) if s[2] == "defer"]
        self.tapes = {s[1] for s in self.sites if s[2] in ("pop", "popstore")}
        self.written = [k for k, p in enumerate(self.params) if roles[p] == "written"]

    def stacks(self, args, n: int):
        """(the stacks of the pop sites, in order; what `finish` needs), or None where the Python
        loop must run."""
        if not self.popped:
            return [], None
        lists = [args[self.params.index(t)] for t in sorted(self.tapes)]
        if any(type(a) is not list for a in lists) or len({id(a) for a in lists}) != len(lists):
            return None
        per: dict = {}
        for j in self.popped:
            per.setdefault(self.sites[j][1], []).append(j)
        if (taken := tape_blocks.stacks(self, args, per, n)) is not None:  # (a forward kernel's TapeRows)
            return taken
        for lst in per:
            expand_rows(args[self.params.index(lst)])
        columns: dict = {}
        for lst, js in per.items():
            tape = args[self.params.index(lst)]
            p = len(js)
            if len(tape) < n * p:
                return None
            items = tape[len(tape) - n * p:][::-1]
            for q, j in enumerate(js):
                columns[j] = items[q::p]
        given = {id(_root(a)) for a in args if type(a) is np.ndarray}
        seen: dict = {}
        stacks, shared = [], {}
        for j in self.pops:
            col = columns[j]
            _, _, kind, _, flags, rank, _ = self.sites[j]
            dead_last = bool(flags and flags[1])
            body = col[:n - 1] if dead_last else col
            first = body[0] if body else col[0]
            if type(first) is np.ndarray:
                if first.dtype != _F64 or rank is not None and first.ndim != rank or not first.ndim:
                    return None
                shape = first.shape
                if not all(type(i) is np.ndarray for i in body) or not all(d == _F64 for d in map(_dtype, body)) \
                        or any(i.shape != shape for i in body):
                    return None
                if flags and flags[4]:  # (read for its shape only: shape stubs do, their rows are never read)
                    stacks.append(np.zeros((n,) + shape))
                    continue
                if any(b is not None for b in map(_base, body)):
                    return None
                twin = None
                for k, i in enumerate(body):
                    key = id(i)
                    if key in given:
                        return None
                    other = seen.get(key)
                    if other is None:
                        seen[key] = (j, k)
                    elif other[1] != k or twin not in (None, other[0]):
                        return None
                    else:
                        twin = other[0]
                if twin is not None:
                    if not all(a is b for a, b in zip(body, columns[twin])):
                        return None
                    shared[j] = twin
                    stacks.append(stacks[self.pops.index(twin)])
                    continue
                stacked = np.empty((n,) + shape)
                if body:
                    np.stack(body, out=stacked[:len(body)])
                if dead_last:
                    last = col[n - 1]
                    stacked[n - 1] = last if type(last) is np.ndarray and last.shape == shape \
                        and last.dtype == _F64 else np.nan
            else:
                if rank:
                    return None
                if not all(type(i) in (_NUMPY if flags and flags[3] else _FLOATS) for i in body):
                    return None
                stacked = np.empty(n)
                stacked[:len(body)] = body
                if dead_last:
                    last = col[n - 1]
                    stacked[n - 1] = last if type(last) in _FLOATS else np.nan
            stacks.append(stacked)
        return stacks, (columns, shared)

    def copies(self, args) -> list | None:
        """The arguments with the arrays the kernel writes into as copies (one copy for one object,
        whichever parameters hold it), or None where such an array shares memory with another
        argument otherwise (a view)."""
        args = list(args)
        if not self.written:
            return args
        arrays = [a for a in args if type(a) is np.ndarray]
        made: dict = {}
        for k in self.written:
            a = args[k]
            if type(a) is np.ndarray and id(a) not in made:
                root = _root(a)
                if any(b is not a and _root(b) is root for b in arrays):
                    return None
                made[id(a)] = a.copy()
        return [made.get(id(a), a) for a in args]

    def finish(self, args, kargs, n: int, r, info, stacks, rows) -> dict:
        """After the kernel: the tapes' items off, written rows and arguments back, the deferred
        sums added; returns the deferred sums' totals by name."""
        if type(info) is tape_blocks.Taken:
            info.finish()
        elif info is not None:
            columns, shared = info
            for lst in self.tapes:
                tape = args[self.params.index(lst)]
                del tape[len(tape) - n * sum(self.sites[j][1] == lst for j in self.popped):]
            for j, stacked in zip(self.pops, stacks):
                if j in shared or not any(self.sites[q][4] and self.sites[q][4][0]
                                          for q in [j] + [q for q, t in shared.items() if t == j]):
                    continue
                col = columns[j]
                for k, item in enumerate(col):  # (refs: the column, the loop, getrefcount's argument)
                    if type(item) is np.ndarray and sys.getrefcount(item) > 3 + _holders(columns, j, shared):
                        item[...] = stacked[k]
        for k in self.written:
            if args[k] is not kargs[k] and type(args[k]) is np.ndarray:
                args[k][...] = kargs[k]
        totals = {}
        for j, (v_rows, a_rows) in zip(self.defers, rows):
            acc, _, _, _, row_of = self.sites[j][3]
            if a_rows is None:
                p = args[self.params.index(row_of)]
                a_rows = _rows_of(p, r)
                if a_rows is None:
                    a_rows = np.asarray(p)[np.asarray(r)]
                elif r.step < 0:  # (rows in ascending order: BLAS reads them without a copy)
                    v_rows = np.ascontiguousarray(v_rows[::-1])  # (NumPy multiplies negative strides without BLAS)
            total, acc_in = a_rows.T @ v_rows, args[self.params.index(acc)]
            if type(acc_in) is np.ndarray and acc_in.shape == total.shape and acc_in.dtype == _F64:
                total += acc_in  # (the sum `acc_in + total`, in the product's memory)
            else:
                total = acc_in + total
            totals[acc] = total
        return totals


def _holders(columns, j, shared) -> int:
    """The other columns holding an item of site `j`'s column (a site sharing its objects)."""
    return sum(1 for q, twin in shared.items() if twin == j)


def _rows_of(p, r):
    """The rows `p[i]` for `i` in range `r` as a view of `p`, in ascending order (reversed where
    `r` steps down), or None where an index is out of `p`'s bounds or negative (NumPy's indexing
    from the end)."""
    if type(p) is not np.ndarray or p.ndim != 2 or len(r) == 0 or min(r.start, r[-1]) < 0 \
            or max(r.start, r[-1]) >= p.shape[0]:
        return None
    lo = min(r.start, r[-1])
    return p[lo:lo + len(r) * abs(r.step):abs(r.step)]
