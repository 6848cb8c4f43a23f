"""Fused kernels for the `fusion` pass: an elementwise expression evaluated block by block.

Each block (`BLOCK` elements, so its temporaries stay in the CPU cache) is computed by NumPy
ufuncs writing into per-thread buffers through `out=`, a dead buffer reused for the next
result, and the blocks are shared among threads (NumPy releases the GIL in its loops). Every
element goes through the same ufuncs with the same operands in the same order as the unfused
expression, so results are bitwise equal; a fused `xp.sum` adds per-block sums (a different
summation order than NumPy's pairwise sum: equal up to rounding). Measured against a numba
`prange` loop and numba with fastmath: see docs/jit.md. `S2S_NO_FUSE=1` turns
fusion off.
"""
from __future__ import annotations

import math
import os
import re
import struct
import threading

import gast
import numpy as np

from ...backends import arrays
from .. import analysis
from ..ir import build
from ..ir.build import clone
from ..primitives import registry
from . import broadcast, cupy_kernels, numba_kernels, scheduler
from .codegen import compile_source, to_source

THRESHOLD = 1 << 16  # elements: below this NumPy's own loops win (thread hand-off, dispatch)
BLOCK = 1 << 14
# operator node type -> the ufunc a block calls for it (the operators' `ufunc` facts)
_UFUNC = {op: registry.PRIMS[k].ufunc for op, k in {**analysis.BINOPS, **analysis.CMPOPS}.items()
          if registry.PRIMS[k].ufunc}
_DTYPES = {"f": np.float64, "b": np.bool_, "i": np.int64}
_LOCAL = threading.local()


def available() -> bool:
    return not os.environ.get("S2S_NO_FUSE")


def _number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


def _float_literal(text: str) -> bool:
    return _number(text) and not text.lstrip("-").isdigit()


class _Emitter:
    """Straight-line ufunc calls computing an expression into buffers `f<i>` (float), `b<i>` (bool)."""

    def __init__(self, arrays):
        self.bools: set[str] = set()
        self.arrays, self.lines, self.free, self.count = arrays, [], {"f": [], "b": [], "i": []}, {"f": 0, "b": 0, "i": 0}

    def buf(self, kind):
        if self.free[kind]:
            return self.free[kind].pop()
        self.count[kind] += 1
        return f"{kind}{self.count[kind] - 1}"

    def release(self, r):
        if r[1]:
            self.free[r[1][0]].append(r[1])

    def bits(self, r) -> str:
        """An operand's float64 bits as int64 (a view of an array; the integer of a constant)."""
        text, buf = r
        if buf or text.endswith("_") and text[:-1] in self.arrays:
            return f"{text}.view(np.int64)"
        try:
            return str(struct.unpack("<q", struct.pack("<d", float(text)))[0])
        except ValueError:  # a Python-number argument
            return f"np.float64({text}).view(np.int64)"

    def where(self, c, a, b):
        """`np.where(c, a, b)` as a branchless blend of bits, `b ^ ((a ^ b) & -c)`, into a dead
        buffer: bitwise the same values (NaNs included), but NumPy's `where` and a masked
        `copyto` branch per element and cost 5-7x more on a random mask."""
        floats = [r for r in (a, b) if r[1] and r[1][0] == "f"]
        cond = c[1] is not None and c[1][0] == "b" or c[0].endswith("_") and c[0][:-1] in self.bools
        real = floats or self.is_array(a) or self.is_array(b) or any(
            _float_literal(r[0]) for r in (a, b)) and all(_number(r[0]) for r in (a, b))
        if not cond or not real:
            out = self.buf("f")
            for r in (c, a, b):
                self.release(r)
            self.lines.append(f"np.copyto({out}, np.where({c[0]}, {a[0]}, {b[0]}))")
            return out, out
        m = self.buf("i")
        self.lines += [f"np.copyto({m}, {c[0]})"]
        if a[1] and a[1][0] == "f" or not (b[1] and b[1][0] == "f"):
            keep, other, sign = a, b, f"np.negative({m}, out={m})"      # mask -1 where c
        else:
            keep, other, sign = b, a, f"np.subtract({m}, 1, out={m})"   # mask -1 where not c
        out = keep[1] if keep[1] and keep[1][0] == "f" else self.buf("f")
        t = f"{out}.view(np.int64)"
        if self.is_array(keep) or self.is_array(other):
            self.lines += [sign, f"np.bitwise_xor({self.bits(keep)}, {self.bits(other)}, out={t})",
                           f"np.bitwise_and({t}, {m}, out={t})"]
        else:  # two numbers: their bits' difference is a number
            self.lines += [sign, f"np.bitwise_and({m}, {self.bits(keep)} ^ {self.bits(other)}, out={t})"]
        self.lines += [f"np.bitwise_xor({self.bits(other)}, {t}, out={t})"]
        for r in (c, other):
            self.release(r)
        self.release((m, m))
        return out, out

    def is_array(self, r) -> bool:
        return r[1] is not None or r[0].endswith("_") and r[0][:-1] in self.arrays

    def leaf(self, e):
        if isinstance(e, gast.Name):
            return (f"{e.id}_" if e.id in self.arrays else e.id), None
        return repr(e.value), None

    def emit(self, e):
        """(text of the value, buffer name or None)."""
        if isinstance(e, (gast.Name, gast.Constant)):
            return self.leaf(e)
        if isinstance(e, gast.Call) and e.func.attr == "where":
            return self.where(*(self.emit(x) for x in e.args))
        if isinstance(e, gast.Call):
            args, fn = [self.emit(x) for x in e.args], e.func.attr
        elif isinstance(e, gast.UnaryOp):
            args, fn = [self.emit(e.operand)], "negative"
        elif isinstance(e, gast.Compare):
            args, fn = [self.emit(e.left), self.emit(e.comparators[0])], _UFUNC[type(e.ops[0])]
        else:
            args, fn = [self.emit(e.left), self.emit(e.right)], _UFUNC[type(e.op)]
        kind = "b" if isinstance(e, gast.Compare) else "f"
        out = next((r[1] for r in args if r[1] and r[1][0] == kind), None) or self.buf(kind)
        for r in args:
            if r[1] != out:
                self.release(r)
        self.lines.append(f"np.{fn}({', '.join(r[0] for r in args)}, out={out})")
        return out, out


def kernel_source(name: str, names: list, mask: tuple, expr, reduce) -> str:
    """The block function of a fused expression, for arguments flagged float64 array (True),
    boolean array ("b") or scalar (False); with a row ("r") or column ("c") operand
    (s2s.compiler.emit.broadcast) its blocks are rows of `_width` elements, the block's arrays
    matrices that NumPy's ufuncs broadcast the row (or column) against."""
    arrays = {n for n, m in zip(names, mask) if m}
    em = _Emitter(arrays)
    em.bools = {n for n, m in zip(names, mask) if m == "b"}
    result, _ = em.emit(expr)
    bufs = [f"{k}{i}" for k in "fbi" for i in range(em.count[k])]
    rows = "r" in mask or "c" in mask
    lines = [f"def {name}(lo, hi, out, bufs, {'_width, ' if rows else ''}{', '.join(names)}):"]
    lines += [f"    {n}_ = {n}" + ("" if m == "r" else "[lo:hi]") for n, m in zip(names, mask) if m]
    lines += [f"    {b} = bufs[{i}][:(hi - lo) * _width].reshape(hi - lo, _width)" if rows else
              f"    {b} = bufs[{i}][:hi - lo]" for i, b in enumerate(bufs)]
    lines += [f"    {x}" for x in em.lines]
    lines.append(f"    return np.sum({result})" if reduce == "sum" else f"    out[lo:hi] = {result}")
    kinds = [b[0] for b in bufs]
    return "\n".join(lines) + "\n", kinds


# a kernel's own names, and the globals and builtins its source reads (numba_kernels' prelude:
# `CHUNK`, `min`, `ir`, `types`, `intrinsic`), which a parameter of the same name would shadow
_RESERVED = re.compile(r"(lo|hi|out|bufs|np|numba|i|s|[fbi]\d+|_.*|CHUNK|min|max|range|ir|types|intrinsic|math)$")


def _kernel_names(names: list, expr):
    """`names` and `expr` with every name a kernel's own names could shadow (`out`, `lo`, `f0`, ...)
    renamed `v_<name>`: a user's array called `out` would otherwise be a duplicate argument."""
    rename, taken = {}, set(names)
    for n in names:
        if _RESERVED.match(n):
            new = f"v_{n}"
            while new in taken:
                new += "_"
            rename[n] = new
            taken.add(new)
    if not rename:
        return names, expr
    expr = clone(expr)
    for node in gast.walk(expr):
        if isinstance(node, gast.Name) and node.id in rename:
            node.id = rename[node.id]
    return [rename.get(n, n) for n in names], expr


class Fused:
    """A fused expression: blocked and threaded for large float64 arrays, NumPy otherwise."""

    def __init__(self, name, names, expr, reduce, original, into=None, shapes=None, every_core: bool = False):
        self.name, self.names, self.expr, self.reduce = name, names, expr, reduce
        self.every_core = every_core  # its version calls no BLAS: helpers on every core (emit/blas_calls.py)
        self.boolean = isinstance(expr, gast.Compare)
        # the argument that is a product's fresh result, read only here (fusion.py): the result
        # goes into its memory, as NumPy's chain on that temporary would
        self.into = names.index(into) if into in names and not reduce and not self.boolean else None
        found = broadcast.kinds(shapes) if shapes else None  # the arguments' shapes where the pass knew them
        self.listed = tuple(found[0]) if found and found[2] is not None else None  # (the layout its listing shows)
        fb = build.function(name, ["xp"] + names, [build.ret(original)])
        self.plain_source = to_source(fb)  # the unfused expression (what a dump runs)
        self._plain = compile_source(name, self.plain_source, {}, np)
        self.kernels: dict = {}
        self.gpu_kernels: dict = {}  # dtype signature -> CuPy kernel (cupy_kernels), of module gpu_module
        self.gpu_module = None
        # names read only as the condition of a `where`: these may be boolean arrays
        reads = [n.id for n in gast.walk(expr) if isinstance(n, gast.Name)]
        tests = [c.args[0].id for c in gast.walk(expr) if isinstance(c, gast.Call) and c.func.attr == "where"
                 and isinstance(c.args[0], gast.Name)]
        self.conditions = {n for n in tests if reads.count(n) == tests.count(n)}
        self.engine = "numba" if numba_kernels.available() and numba_kernels.wanted(expr, reduce) else "numpy"
        self._names, self._expr = _kernel_names(names, expr)  # what the kernels' sources call them

    def banner(self) -> str:
        """What runs the kernel, for the listing under the generated code."""
        threads = "every core: no BLAS call here" if self.every_core else "the cores BLAS leaves"
        rows = " in whole rows (s2s.compiler.emit.broadcast)" if self.listed else ""
        if self.engine == "numba":
            return (f"s2s.compiler.emit.numba_kernels: numba, blocks of {numba_kernels.BLOCK} elements{rows}; "
                    f"NumPy below {THRESHOLD}; {threads}")
        return f"s2s.compiler.emit.kernels: blocks of {BLOCK} elements{rows}; NumPy below {THRESHOLD}; {threads}"

    def fallback(self, *args):
        """The unfused expression, with the namespace of the backend the arguments select; on a
        backend that compiles kernels (CuPy), one kernel of the fused expression instead."""
        backend, move = arrays.select(args)
        if backend is None or backend is arrays.NUMPY:
            return self._plain(np, *args)
        args = arrays.move(args, backend) if move else args
        module = backend.kernels
        if module is not None:
            try:
                return cupy_kernels.call(self, module, args)
            except cupy_kernels.NotCompiled:
                pass
        return self._plain(backend.xp, *args)

    def source(self, mask=None) -> str:
        mask = mask or self.listed or tuple(True for _ in self.names)
        if self.engine == "numba":
            return numba_kernels.kernel_source(self.name, self._names, mask, self._expr, self.reduce, module=False)
        return kernel_source(self.name, self._names, mask, self._expr, self.reduce)[0]

    def _kernel(self, mask):
        k = self.kernels.get((self.engine, mask))
        if k is None and self.engine == "numba":
            src = numba_kernels.kernel_source(self.name, self._names, mask, self._expr, self.reduce)
            fn = numba_kernels.load_or_warn(self.name, src, "kernel", "using the NumPy block kernel", stacklevel=3)
            if fn is False:
                self.engine = "numpy"
            else:
                k = self.kernels[self.engine, mask] = (fn, None, numba_kernels.blocks_of(fn))
        if k is None:
            src, kinds = kernel_source(self.name, self._names, mask, self._expr, self.reduce)
            k = self.kernels[self.engine, mask] = (compile_source(self.name, src, {"np": np}, np), kinds, None)
        return k

    def __call__(self, *args):
        shape = None
        mask = []
        for a, name in zip(args, self.names):
            if type(a) is np.ndarray:
                if not (a.dtype == np.float64 or a.dtype == np.bool_ and name in self.conditions) \
                        or not a.flags.c_contiguous:
                    return self.fallback(*args)
                if shape is not None and a.shape != shape:
                    return self._broadcast(args)
                shape = a.shape
                mask.append(True if a.dtype == np.float64 else "b")
            elif type(a) is float or type(a) is int:
                mask.append(False)
            else:
                return self.fallback(*args)
        if shape is None or math.prod(shape) < THRESHOLD:
            return self.fallback(*args)
        return self._blocks(tuple(mask), args, shape)

    def _broadcast(self, args):
        """A call whose arrays have more than one shape: in rows where they broadcast along
        leading axes (s2s.compiler.emit.broadcast), else NumPy's expression."""
        found = broadcast.layout(args, self.names, self.conditions)
        if found is None or math.prod(found[2]) < THRESHOLD:
            return self.fallback(*args)
        mask, values, full, split = found
        if split is None:
            return self._blocks(mask, values, full)
        return self._blocks(mask, values, full, math.prod(full[split:]))

    def _blocks(self, mask, args, shape, width=None):
        """The kernel of `mask` over `args` (of result shape `shape`), flat, or in rows of `width`."""
        block, kinds, blocks = self._kernel(mask)
        n = math.prod(shape)
        size = BLOCK if kinds is not None else numba_kernels.BLOCK
        into = self.into is not None and mask[self.into] is True
        if width is None:
            flat = [a.reshape(-1) if m else a for a, m in zip(args, mask)]
            out = flat[self.into] if into else None if self.reduce else \
                np.empty(n, np.bool_ if self.boolean else np.float64)
            parts = _run(block, kinds, n, out, flat, size, blocks, self.every_core)
        else:  # whole rows a block: the buffers hold `rows * width` elements
            rows, per = n // width, max(1, size // width)
            flat = [width, *broadcast.views(mask, args, rows, width, kinds is None)]
            out = flat[1 + self.into] if into else None if self.reduce else \
                np.empty(n if kinds is None else (rows, width), np.bool_ if self.boolean else np.float64)
            parts = scheduler.run(block, rows, per, out, flat, lambda: _buffers(kinds, per * width), blocks,
                                  self.every_core)
        if self.reduce == "sum":
            return np.float64(sum(parts))
        return out.reshape(shape)


def _buffers(kinds, size=BLOCK):
    """This thread's block buffers of `kinds` (`size` elements each), as a 1-tuple to splice into
    a block call (empty for a numba kernel)."""
    if kinds is None:
        return ()
    key = (tuple(kinds), size)
    cache = getattr(_LOCAL, "bufs", None)
    if cache is None:
        cache = _LOCAL.bufs = {}
    bufs = cache.get(key)
    if bufs is None:
        bufs = cache[key] = ([np.empty(size, _DTYPES[k]) for k in kinds],)
    return bufs


def _run(block, kinds, n, out, flat, size=BLOCK, blocks=None, every_core=False):
    """Run `block` over [0, n) in `size`-element pieces, shared with helper threads
    (`scheduler.run`); per-block results, in block order. `kinds`: the block buffers a NumPy
    block kernel takes (None: a numba kernel, which takes none). `every_core`: its version calls
    no BLAS (helpers on every core, not only those BLAS leaves)."""
    return scheduler.run(block, n, size, out, flat, lambda: _buffers(kinds), blocks, every_core)
