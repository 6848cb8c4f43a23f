"""Fused kernels for the `fusion` pass: an elementwise expression evaluated block by block.

Each block (`BLOCK` elements, so its temporaries stay in the CPU cache) is computed by NumPy
ufuncs writing into per-thread buffers through `out=`, a dead buffer reused for the next
result, and the blocks are shared among threads (NumPy releases the GIL in its loops). Every
element goes through the same ufuncs with the same operands in the same order as the unfused
expression, so results are bitwise equal; a fused `xp.sum` adds per-block sums (a different
summation order than NumPy's pairwise sum: equal up to rounding). Measured against a numba
`prange` loop and numba with fastmath: see the README's jit section. `S2S_NO_FUSE=1` turns
fusion off.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import gast
import numpy as np

from .. import arrays
from ..ir import build as A
from . import cupy_kernels
from .codegen import compile_source, to_source

THRESHOLD = 1 << 16  # elements: below this NumPy's own loops win (thread hand-off, dispatch)
BLOCK = 1 << 14
_UFUNC = {gast.Add: "add", gast.Sub: "subtract", gast.Mult: "multiply", gast.Div: "true_divide",
          gast.Pow: "power", gast.Gt: "greater", gast.GtE: "greater_equal", gast.Lt: "less",
          gast.LtE: "less_equal"}
_CALLS = {"exp", "log", "sin", "cos", "tanh", "sqrt", "abs", "log1p", "expm1", "tan", "arctan", "sinh", "cosh",
          "negative", "square", "maximum", "minimum"}
_POOL = None
_POOL_PID = None  # a forked child makes its own pool (the parent's threads do not exist there)
_LOCAL = threading.local()


def available() -> bool:
    return not os.environ.get("S2S_NO_FUSE")


def _threads() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    return max(1, min(n, 8))


class _Emitter:
    """Straight-line ufunc calls computing an expression into buffers `f<i>` (float), `b<i>` (bool)."""

    def __init__(self, arrays):
        self.arrays, self.lines, self.free, self.count = arrays, [], {"f": [], "b": []}, {"f": 0, "b": 0}

    def buf(self, kind):
        if self.free[kind]:
            return self.free[kind].pop()
        self.count[kind] += 1
        return f"{kind}{self.count[kind] - 1}"

    def release(self, r):
        if r[1]:
            self.free[r[1][0]].append(r[1])

    def leaf(self, e):
        if isinstance(e, gast.Name):
            return (f"{e.id}_" if e.id in self.arrays else e.id), None
        return repr(e.value), None

    def emit(self, e):
        """(text of the value, buffer name or None)."""
        if isinstance(e, (gast.Name, gast.Constant)):
            return self.leaf(e)
        if isinstance(e, gast.Call) and e.func.attr == "where":
            c, a, b = (self.emit(x) for x in e.args)
            out = b[1] if b[1] and b[1][0] == "f" else self.buf("f")
            if out != b[1]:
                self.lines.append(f"np.copyto({out}, {b[0]})")
            self.lines.append(f"np.copyto({out}, {a[0]}, where={c[0]})")
            self.release(c)
            self.release(a)
            return out, out
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
    """The block function of a fused expression, for arguments flagged array (True) or scalar."""
    arrays = {n for n, m in zip(names, mask) if m}
    em = _Emitter(arrays)
    result, _ = em.emit(expr)
    bufs = [f"{k}{i}" for k in "fb" for i in range(em.count[k])]
    lines = [f"def {name}(lo, hi, out, bufs, {', '.join(names)}):"]
    lines += [f"    {n}_ = {n}[lo:hi]" for n in names if n in arrays]
    lines += [f"    {b} = bufs[{i}][:hi - lo]" for i, b in enumerate(bufs)]
    lines += [f"    {x}" for x in em.lines]
    lines.append(f"    return np.sum({result})" if reduce == "sum" else f"    out[lo:hi] = {result}")
    kinds = [b[0] for b in bufs]
    return "\n".join(lines) + "\n", kinds


class Fused:
    """A fused expression: blocked and threaded for large float64 arrays, NumPy otherwise."""

    def __init__(self, name, names, expr, reduce, original):
        self.name, self.names, self.expr, self.reduce = name, names, expr, reduce
        self.boolean = isinstance(expr, gast.Compare)
        fb = A.function(name, ["xp"] + names, [A.ret(original)])
        self.plain_source = to_source(fb)  # the unfused expression (what a dump runs)
        self._plain = compile_source(name, self.plain_source, {}, np)
        self.kernels: dict = {}
        self.gpu_kernels: dict = {}  # dtype signature -> CuPy kernel (cupy_kernels)

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
        mask = mask or tuple(True for _ in self.names)
        return kernel_source(self.name, self.names, mask, self.expr, self.reduce)[0]

    def _kernel(self, mask):
        k = self.kernels.get(mask)
        if k is None:
            src, kinds = kernel_source(self.name, self.names, mask, self.expr, self.reduce)
            k = self.kernels[mask] = (compile_source(self.name, src, {"np": np}, np), kinds)
        return k

    def __call__(self, *args):
        shape = None
        mask = []
        for a in args:
            if type(a) is np.ndarray:
                if a.dtype != np.float64 or not a.flags.c_contiguous or (shape is not None and a.shape != shape):
                    return self.fallback(*args)
                shape = a.shape
                mask.append(True)
            elif type(a) is float or type(a) is int:
                mask.append(False)
            else:
                return self.fallback(*args)
        if shape is None or args[mask.index(True)].size < THRESHOLD:
            return self.fallback(*args)
        block, kinds = self._kernel(tuple(mask))
        flat = [a.reshape(-1) if m else a for a, m in zip(args, mask)]
        n = flat[mask.index(True)].size
        out = None if self.reduce else np.empty(n, np.bool_ if self.boolean else np.float64)
        parts = _run(block, kinds, n, out, flat)
        if self.reduce == "sum":
            return np.float64(sum(parts))
        return out.reshape(shape)


def _buffers(kinds):
    key = tuple(kinds)
    cache = getattr(_LOCAL, "bufs", None)
    if cache is None:
        cache = _LOCAL.bufs = {}
    bufs = cache.get(key)
    if bufs is None:
        bufs = cache[key] = [np.empty(BLOCK, np.float64 if k == "f" else np.bool_) for k in kinds]
    return bufs


def _run(block, kinds, n, out, flat):
    """Run `block` over [0, n) in BLOCK-sized pieces, spread over the threads; per-block results."""
    global _POOL, _POOL_PID
    nt = _threads()
    if nt == 1:
        bufs = _buffers(kinds)
        return [block(lo, min(n, lo + BLOCK), out, bufs, *flat) for lo in range(0, n, BLOCK)]
    if _POOL is None or _POOL_PID != os.getpid():
        _POOL, _POOL_PID = ThreadPoolExecutor(nt, thread_name_prefix="s2s-fused"), os.getpid()
    step = -(-n // nt // BLOCK) * BLOCK

    def share(start):
        bufs = _buffers(kinds)
        return [block(lo, min(n, lo + BLOCK, start + step), out, bufs, *flat)
                for lo in range(start, min(n, start + step), BLOCK)]
    return [r for part in _POOL.map(share, range(0, n, step)) for r in part]
