"""Array loop kernels (`s2s.compiler.passes.arrayloop`): a loop over array state compiled by numba (the
`s2s[fast]` extra) into one function, or run as it is written in Python.

`ArrayLoop(xp, *args)` runs the compiled loop when numba is available, the backend is NumPy,
the loop's iterable is a `range` of at least `MIN_TRIPS` iterations (below that, numba's call
and the list conversions cost more than the loop), every value it computes on is a float64
array or a float (the loop's whole-array operands at most `MAX_SIZE` elements: above that NumPy's
SIMD loops win over numba's), every index an int, every list it appends to a list and every list
it pops from a list holding at least that many float64 arrays of one shape; otherwise, or when
numba cannot compile the loop for these types, or the compiled loop raises (the Python loop then
runs and raises the user's own error), the Python loop. The compiled loop changes nothing it is
given: what it appends comes back as one array per list whose rows are then appended, what it
pops goes in as one array (the list's last items stacked), so the Python loop can always run
instead. It returns the loop's results (the names the rest of the function reads) as a tuple.

Values: arithmetic as NumPy's, in the same order (bitwise); products of matrices by BLAS
(`np.dot`, through SciPy's BLAS, whose blocking may round differently from NumPy's: a few ulp);
`tanh` is the kernel's own (`_tanh`, SIMD: within 1.25 ulp of the exact value, NumPy's within
1.1, and within 2 ulp of NumPy's and the C library's; `tests/jit/test_array_loops.py` measures
them), the other scalar functions the C library's (an ulp from NumPy's SIMD ones). A recurrence
carries these differences on from step to step, damped where it contracts as `tanh` does;
`x.max()` may differ from NumPy's in the sign of a zero maximum. Lists get the rows of an
array (views) where the Python loop appends the arrays themselves; a tape (several pushes an
iteration, `passes/arrayloop.py`'s `_Tape`) gets copies, one object per array the loop pushed,
which is what Python's list holds where the function writes into arrays (the pass checks it).
"""
from __future__ import annotations

import copy
import weakref

import gast
import numpy as np

from ...runtime.tape_copies import TapeRows, expand_rows, shape_stub
from ..ir import build
from ..passes.arrayloop import METHOD_REDUCTIONS, MIN_TRIPS
from ..primitives import registry
from . import numba_arraypops, numba_kernels
from .codegen import compile_source, to_source

MAX_SIZE = 1 << 16  # elements of an array the loop computes on whole (a row it indexes: any size)
_F64 = np.dtype(np.float64)
_INDEX = frozenset({int, np.int64, np.int32})
_INT_ARRAYS = frozenset({np.dtype(np.int64), np.dtype(np.int32)})  # (arrays the loop reads indices from)
_PRELUDE = numba_kernels.PRELUDE_HEAD + '''from numba.extending import overload

_inline = numba.njit(inline="always", error_model="numpy")


@_inline
''' + numba_kernels.EXP_SOURCE + '''

@_inline
def _tanh(x):
    # tanh without branches or library calls (the element loop stays SIMD): for |x| < 0.625,
    # x + x**3 * q(x**2) with q a Chebyshev fit of (tanh(x) - x) / x**3 (error below 4e-18, fitted
    # for s2s with mpmath); above, 1 - 2 / (exp(2|x|) + 1), which rounds to 1 from |x| = 19.1,
    # with the sign of x. Within 1.25 ulp of the exact value (measured); tanh(-0.0) is -0.0.
    a = abs(x)
    s = x * x
    q = 6.485163482793113e-06
    q = q * s - 3.12011014257974e-05
    q = q * s + 9.257116129556769e-05
    q = q * s - 0.0002375906496055562
    q = q * s + 0.0005896606577757043
    q = q * s - 0.0014557754120478055
    q = q * s + 0.0035921217511549622
    q = q * s - 0.008863235103240878
    q = q * s + 0.021869488519008305
    q = q * s - 0.05396825396789699
    q = q * s + 0.13333333333333042
    q = q * s - 0.3333333333333333
    small = x + x * (s * q)
    big = 1.0 - 2.0 / (_exp(2.0 * a) + 1.0)
    big = big if x >= 0.0 else -big
    r = small if a < 0.625 else big
    return x if x == 0.0 else r


@_inline
def _pairwise_leaf(a, lo, n):
    # NumPy's sum of a[lo:lo + n] to 128 elements: below 8 in order, else eight running sums
    # combined as a tree, then the rest in order
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    m = n - n % 8
    for i in range(lo + 8, lo + m, 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(lo + m, lo + n):
        res += a[i]
    return res


@_inline
def _sum1(a):
    # `x.sum()` of a vector as NumPy adds it (bitwise): above 128 elements, two halves (the first a
    # multiple of 8) added after each is summed, split again until they are leaves (a stack, not
    # recursion: numba's cache cannot reload a recursive function)
    n = a.shape[0]
    if n <= 128:
        return 0.0 + _pairwise_leaf(a, 0, n)
    los = np.empty(64, np.int64)
    lens = np.empty(64, np.int64)
    phase = np.zeros(64, np.int64)
    left = np.empty(64)
    sp = 0
    los[0] = 0
    lens[0] = n
    v = 0.0
    while sp >= 0:
        if lens[sp] <= 128:
            v = _pairwise_leaf(a, los[sp], lens[sp])
            sp -= 1
            while sp >= 0 and phase[sp] == 2:
                v = left[sp] + v
                sp -= 1
            if sp >= 0:
                left[sp] = v
                phase[sp] = 2
                half = lens[sp] // 2
                half -= half % 8
                sp += 1
                los[sp] = los[sp - 1] + half
                lens[sp] = lens[sp - 1] - half
                phase[sp] = 0
        else:
            half = lens[sp] // 2
            half -= half % 8
            phase[sp] = 1
            sp += 1
            los[sp] = los[sp - 1]
            lens[sp] = half
            phase[sp] = 0
    return 0.0 + v


@_inline
def _max1(a):
    return a.max()


@_inline
def _min1(a):
    return a.min()


def _tanh_a(x):
    """`xp.tanh` in the kernel: numba compiles the overload below."""
    return np.tanh(x)


@overload(_tanh_a, inline="always")
def _tanh_a_numba(x):
    if isinstance(x, types.Float):
        return lambda x: _tanh(x)
    if isinstance(x, types.Array) and x.dtype == types.float64:
        def elements(x):
            out = np.empty(x.shape)
            flat = out.reshape(out.size)
            src = np.ascontiguousarray(x).reshape(x.size)
            for i in range(flat.size):
                flat[i] = _tanh(src[i])
            return out
        return elements
    return None

''' + numba_arraypops.PRELUDE
_DECORATOR = '@numba.njit(nogil=True, cache=True, error_model="numpy", boundscheck=True)'


class _Kernel(gast.NodeTransformer):
    """The loop body as the kernel runs it: `xp.f` as `np.f` (or the prelude's), a pop as a row of
    the list's stacked array, an append as a row written into the list's array (made on the first
    iteration; a value of another shape later raises, and the Python loop runs instead)."""

    def __init__(self, roles):
        self.roles = roles

    def visit_Attribute(self, node):  # (a function the kernel computes itself: Prim.array_loop)
        p = registry.lookup(f"{node.value.id}.{node.attr}") if isinstance(node.value, gast.Name) else None
        if p is not None and p.array_loop:
            return build.name(p.array_loop)
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        if isinstance(node.func, gast.Attribute) and not node.args and not node.keywords \
                and node.func.attr in METHOD_REDUCTIONS and not (isinstance(node.func.value, gast.Name)
                                                                 and node.func.value.id == "xp"):
            return build.call(METHOD_REDUCTIONS[node.func.attr], [self.visit(node.func.value)])  # (`x.sum()`: `_sum1(x)`)
        if (kernel := numba_arraypops.kernel_form(node)) is not None:  # (`rt.f(...)`: the prelude's `_rt_f(...)`)
            node = kernel
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id == "xp":
            node.id = "np"
        return node

    def visit_Assign(self, node):
        v = node.value
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "pop" \
                and isinstance(v.func.value, gast.Name) and self.roles.get(v.func.value.id) == "pop":
            node.value = build.template("L[n__ - 1 - k__]", L=build.name(v.func.value.id))
            return node
        self.generic_visit(node)
        return node

    def visit_Expr(self, node):
        v = node.value
        if isinstance(v, gast.Call) and isinstance(v.func, gast.Attribute) and v.func.attr == "append" \
                and isinstance(v.func.value, gast.Name) and self.roles.get(v.func.value.id) in ("append", "concat"):
            lst = v.func.value.id
            item = f"{lst}_item__"
            text = (f"{item} = 0\n"
                    "if k__ == 0:\n"
                    f"    {lst} = np.empty((n__,) + {item}.shape)\n"
                    f"elif {item}.shape != {lst}.shape[1:]:\n"
                    "    raise ValueError('s2s array loop: the arrays appended change shape')\n"
                    f"{lst}[k__] = {item}\n")
            stmts = gast.parse(text).body
            stmts[0].value = self.visit(v.args[0])
            return stmts
        self.generic_visit(node)
        return node


class ArrayLoop:
    """One loop: its Python form, and its numba form compiled on first use per argument types."""

    def __init__(self, name, params, results, roles, python_floats, loop, sites=()):
        self.name = name
        # a tape's pushes: (position in the body, list, kind, node or name, stub, rank, maker); a
        # backward sweep's pops and deferred sums (`passes/arraypops.py`) go to `numba_arraypops`
        self.sites = tuple(s for s in sites if s[2] in ("value", "saved", "slot"))
        backward = [s for s in sites if s[2] not in ("value", "saved", "slot", "numpy")]
        numpy = next((s[3] for s in sites if s[2] == "numpy"), ())  # (results the Python loop leaves NumPy scalars)
        self._numpy = [k for k, r in enumerate(results) if r in numpy]
        self._plan = numba_arraypops.PopPlan(backward, params, roles)
        self._results = tuple(results)
        self.params = tuple(params)
        self.roles = tuple(roles[p] for p in params)
        self.python_floats = python_floats  # a division or power that raises on Python floats
        ret = [build.ret(build.tuple_([build.name(r) for r in results]))] if results else []
        plain = build.function(name, ["xp", *params], [copy.deepcopy(loop)] + ret)
        self.plain_source = to_source(plain)  # (what a dump runs)
        self._plain = compile_source(name, self.plain_source, {}, np)
        rng = build.function(f"{name}_range", ["xp", *params], [build.ret(copy.deepcopy(loop.iter))])
        self._range = compile_source(f"{name}_range", to_source(rng), {}, np)
        self._kparams = [p for p in params if roles[p] in ("value", "written", "index", "pop", "ints")]
        self._appends = [p for p in params if roles[p] in ("append", "concat")]
        self._concats = [k for k, p in enumerate(params) if roles[p] == "concat"]
        self._pops = [k for k, p in enumerate(params) if roles[p] == "pop"]
        self._poplists = [k for k, p in enumerate(params) if roles[p] in ("pop", "poptape")]
        body, tail = _tape_rows(numba_arraypops.pop_rows(copy.deepcopy(loop.body), backward), self.sites)
        body = _Kernel(roles).visit(build.function(name, [], body + tail)).body
        head = gast.parse(f"{loop.target.id} = s__ + k__ * d__").body
        kloop = build.for_range("k__", [build.name("n__")], head + body)
        out = [build.name(r) for r in results] + [build.name(a) for a in self._appends] \
            + [build.name(f"site{j}__") for j in range(len(self.sites))] \
            + [build.name(a) for a in numba_arraypops.outputs(backward)]
        self._ndefer = len(out) - len(results) - len(self._appends) - len(self.sites)
        stacks = [f"pop{j}__" for j in self._plan.pops]
        fn = build.function(name, ["s__", "d__", "n__", *self._kparams, *stacks], [kloop, build.ret(build.tuple_(out))])
        self._source = _DECORATOR + "\n" + to_source(fn)
        self._refused: set = set()  # argument signatures numba could not compile or that raised
        self._compiled = None
        self.blocks = False  # (its tape's items as one TapeRows: the driver's `tape_blocks.block_loops`)

    def banner(self) -> str:
        return f"s2s.compiler.emit.numba_arrayloops: numba; the Python loop below {MIN_TRIPS} trips"

    def source(self) -> str:
        return self._source

    def _arguments(self, args, n):
        """The kernel's arguments and their signature, or None where the Python loop must run."""
        kargs, sig = [], []
        raising = self._plan.raising
        for p, a, role in zip(self.params, args, self.roles):
            t = type(a)
            if role in ("value", "written"):
                if t is np.ndarray and a.dtype == _F64:
                    sig.append((a.ndim, a.flags.c_contiguous, a.flags.f_contiguous))
                elif t is float and not (self.python_floats if raising is None else p in raising) or t is np.float64:
                    sig.append(float)
                else:
                    return None
                kargs.append(a)
            elif role == "index":
                if t not in _INDEX:
                    return None
                sig.append(int)
                kargs.append(a)
            elif role in ("append", "concat"):
                if t is not list:
                    return None
            elif role in ("range", "carry", "pre", "poptape", "rows"):  # (the range's bounds go in apart; a result
                continue  # the loop assigns first; a saved variable's value before the loop, the tape's first item;
                # a backward sweep's tapes and deferred rows: numba_arraypops)
            elif role == "tape":
                if t is not list:
                    return None
            elif role == "ints":
                if t is not np.ndarray or a.dtype not in _INT_ARRAYS:
                    return None
                sig.append(("ints", a.ndim, a.dtype.itemsize))
                kargs.append(a)
            elif role == "pop":
                if t is not list or len(expand_rows(a)) < n:
                    return None
                items = a[len(a) - n:]
                stacked = _stacked(items)
                if stacked is None:
                    first = items[0]
                    if type(first) is not np.ndarray or first.dtype != _F64 or not all(
                            type(i) is np.ndarray and i.dtype == _F64 and i.shape == first.shape for i in items):
                        return None
                    stacked = np.stack(items)
                kargs.append(stacked)
                sig.append(("pop", stacked.ndim, stacked.flags.c_contiguous))
        return kargs, tuple(sig)

    def _whole_ok(self, args) -> bool:
        """No array the loop computes on whole is larger than MAX_SIZE (NumPy's SIMD loops win)."""
        return all(type(a) is not np.ndarray or a.size <= MAX_SIZE or a.ndim >= 2 and a[0].size <= MAX_SIZE
                   for a, role in zip(args, self.roles) if role == "value")

    def _python(self, xp, args):
        """The Python loop (the tapes it pops with their `TapeRows` as items); a list only
        concatenated after it gets the concatenation as its one item."""
        for k in self._poplists:
            if type(args[k]) is list:
                expand_rows(args[k])
        out = self._plain(xp, *args)
        for k in self._concats:
            if args[k]:
                args[k][:] = [xp.concatenate(args[k])]
        return out

    def __call__(self, xp, *args):
        if xp is not np or not numba_kernels.available():
            return self._python(xp, args)
        try:
            r = self._range(xp, *args)
        except Exception:  # noqa: BLE001 - the Python loop raises the user's own error
            return self._python(xp, args)
        if type(r) is not range or len(r) < MIN_TRIPS or not self._whole_ok(args):
            return self._python(xp, args)
        n = len(r)
        cargs = self._plan.copies(args)  # (the arrays it writes into, as copies)
        popped = self._plan.stacks(args, n) if cargs is not None else None
        found = self._arguments(cargs, n) if popped is not None else None
        if found is None or found[1] in self._refused:
            return self._python(xp, args)
        kargs, sig = found
        stacks, info = popped
        if stacks:
            kargs = kargs + stacks
            sig = sig + tuple(("stack", a.ndim) for a in stacks)
        if self._compiled is None:
            self._compiled = numba_kernels.load_or_warn(self.name, _PRELUDE + self._source, "array loop kernel",
                                                        "running the loop in Python", stacklevel=2)
        if self._compiled is False:
            return self._python(xp, args)
        try:
            out = self._compiled(r.start, r.step, n, *kargs)
        except Exception as e:  # noqa: BLE001 - types numba does not compile, or an error the Python loop raises as it is
            if type(e).__module__.startswith("numba"):  # (not an error of the data, as a label out of range is:
                self._refused.add(sig)  # the next call with these types runs the kernel again)
            return self._python(xp, args)
        if self._plan.sites:
            out = self._backward(args, cargs, n, r, info, stacks, out)
        if self.sites:
            self._tape_items(args, n, out[len(out) - len(self.sites):])
            out = _one_object(out[:len(out) - len(self.sites)], args)
        for k in self._pops:
            del args[k][len(args[k]) - n:]
        stacks = out[len(out) - len(self._appends):] if self._appends else ()
        for a, stacked in zip(self._appends, stacks):
            k = self.params.index(a)
            if k in self._concats:
                args[k].append(stacked.reshape((-1,) + stacked.shape[2:]))
            else:
                args[k].extend(_rows(stacked))
        out = out[:len(out) - len(self._appends)] if self._appends else out
        if self._numpy:  # (numba returns a Python float where the Python loop leaves a NumPy scalar)
            out = tuple(np.float64(v) if k in self._numpy and type(v) is float else v for k, v in enumerate(out))
        return out

    def _backward(self, args, cargs, n, r, info, stacks, out) -> tuple:
        """The kernel's results once its pops are off the tapes, what it wrote into copies is
        back, and its deferred sums added (`numba_arraypops.PopPlan.finish`)."""
        rows, it = [], iter(out[len(out) - self._ndefer:])
        for j in self._plan.defers:
            v = next(it)
            rows.append((v, next(it) if self._plan.sites[j][3][4] is None else None))
        totals = self._plan.finish(args, cargs, n, r, info, stacks, rows)
        out = list(_one_object(out[:len(out) - self._ndefer], cargs))
        for k, name in enumerate(self._results):
            if name in totals:
                out[k] = totals[name]
            else:
                out[k] = next((a for a, c in zip(args, cargs) if c is out[k] and a is not c), out[k])
        return tuple(out)

    def _tape_items(self, args, n, arrays):
        """Each tape's items in the Python loop's order (`TapeRows.items`), or one `TapeRows` per
        tape where `blocks` (the driver found the backward sweep's loop popping them a kernel:
        `tape_blocks.py`) and no object is pushed on two tapes."""
        sites: dict = {}  # list -> its sites' (rows, kind, stub, rank, maker), first items
        makers: dict = {}  # maker -> the lists its objects go on
        for (_, lst, kind, node, stub, rank, maker), rows in zip(self.sites, arrays):
            if stub and rank:  # (one stub for the rows, all of one shape: it holds no data)
                rows = shape_stub(rows[0])
            first = None
            if kind == "saved":
                before = args[self.params.index(node)]
                first = shape_stub(before) if stub else before
            sites.setdefault(lst, []).append(((rows, kind, stub, rank, maker), first))
            if maker is not None and rank and not stub:
                makers.setdefault(maker, set()).add(lst)
        blocks = self.blocks and all(len(lists) == 1 for lists in makers.values())
        made: dict = {}
        for lst, found in sites.items():
            block = TapeRows(n, tuple(s for s, _ in found), tuple(f for _, f in found))
            tape = args[self.params.index(lst)]
            if blocks:
                tape.append(block)
            else:
                tape.extend(block.items(made))


def _one_object(results, args) -> tuple:
    """The kernel's results with names that held one array (`ds = probs`, or an argument itself)
    holding one object again, as in the Python loop (numba returns each as an array of its own over
    the same memory, which the backward sweep's `rt.private` would copy apart)."""
    def key(v):
        return v.__array_interface__["data"][0], v.shape, v.strides, v.dtype
    seen = {key(a): a for a in args if type(a) is np.ndarray}
    out = list(results)
    for k, v in enumerate(out):
        if type(v) is np.ndarray:
            out[k] = seen.setdefault(key(v), v)
    return tuple(out)


def _tape_rows(body: list, sites) -> tuple[list, list]:
    """The loop body with a tape's pushes as rows of one array per site (`site{j}__`, made on the
    first iteration; a value of another shape raises, and the Python loop runs): a value's at its
    push, a saved variable's at the iteration's end, row k + 1 (row 0 is its value before the
    loop, which the caller puts first). Returns (body, what goes at the body's end)."""
    tail = []
    for j, (at, _, kind, node, _, rank, _) in enumerate(sites):
        arr, item = f"site{j}__", f"site{j}_item__"
        shape = f"(n__,) + {item}.shape" if rank else "n__"
        check = (f"elif {item}.shape != {arr}.shape[1:]:\n"
                 "    raise ValueError('s2s array loop: the arrays pushed change shape')\n") if rank else ""
        if kind == "saved":
            text = f"{item} = {node}\nif k__ == 0:\n    {arr} = np.empty({shape})\n{check}" \
                   f"if k__ + 1 < n__:\n    {arr}[k__ + 1] = {item}\n"
            tail += gast.parse(text).body
            body[at] = gast.Pass()
        else:
            stmts = gast.parse(f"{item} = 0\nif k__ == 0:\n    {arr} = np.empty({shape})\n{check}"
                               f"{arr}[k__] = {item}\n").body
            stmts[0].value = copy.deepcopy(node)
            body[at:at + 1] = [gast.If(test=build.const(True), body=stmts, orelse=[])]
    return body, tail


# the rows of arrays array loops appended to lists, by the id of the first row: (a weak
# reference to it, the rows' ids, the array), so that a loop popping them takes the array as it
# is instead of stacking its rows again (a forward sweep's tape, popped by the backward sweep)
_ROWS: dict = {}


def _rows(stacked) -> list:
    rows = list(stacked)
    key = id(rows[0])
    _ROWS[key] = (weakref.ref(rows[0], lambda _, key=key: _ROWS.pop(key, None)), tuple(map(id, rows)), stacked)
    return rows


def _stacked(items):
    """The array whose rows `items` are, in order, when an array loop appended them; else None."""
    rec = _ROWS.get(id(items[0]))
    if rec is None or rec[0]() is not items[0] or len(rec[1]) != len(items) or tuple(map(id, items)) != rec[1]:
        return None
    stacked = owner = rec[2]
    while type(owner.base) is np.ndarray:  # (NumPy makes a view's base the array owning the memory)
        owner = owner.base
    return stacked if all(i.base is owner for i in items) else None
