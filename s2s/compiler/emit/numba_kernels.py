"""Fused kernels compiled by numba (the optional `s2s[fast]` extra): an elementwise expression, or
the full sum that ends it, as one loop over the elements of a block, compiled without the GIL.

The fused kernel (`kernels.Fused`) runs such a block function over its blocks with the same
scheduler as the NumPy block kernel (blocks handed out one at a time to the caller and helper
threads), not numba's `prange`, whose fixed shares lose half the work when a core is busy. One
pass over memory, no block-sized temporaries and loops LLVM vectorizes make this the faster
kernel for arithmetic, comparisons, `where`, `maximum`/`minimum`, `abs`, `sqrt` and `exp`, which
is the kernel's own branch-free `_exp` (numba would call the C library's scalar `exp`); `log`,
`tanh`... have no such form here, and NumPy's SIMD loops beat the C library's scalar calls, so
an expression with one of those keeps the NumPy block kernel (`wanted`; measured in docs/jit.md,
Fusion).

Values: arithmetic and comparisons are IEEE operations in the same order as NumPy's, `x ** 2`
is `x * x` as in NumPy; `where`, `maximum` and `minimum` propagate NaN as NumPy does; division
by zero gives inf/NaN (numba's "numpy" error model). `exp` is within an ulp of NumPy's (0.7 ulp
of the exact value at most: 0.654 measured on 3*10^6 arguments, NumPy's own 0.695; ~95% bitwise
NumPy's), with NumPy's inf, NaN, overflow, underflow and subnormal results; its polynomial is
evaluated by fused multiply-adds (`_fma`: 1.05 ns an element against 1.74 with separate multiplies
and adds, on AVX2); a fused sum adds the elements in order per block.

The kernel source is written to a file in the cache directory (`$S2S_CACHE_DIR`, else
`$XDG_CACHE_HOME/s2s` or `~/.cache/s2s`) named by its hash, and compiled with `cache=True`, so a
new process loads the machine code instead of compiling it. `S2S_NO_NUMBA=1` switches numba off.
Core s2s never imports numba: only `load` does, when `available()`.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import threading
import warnings

import gast

from ..primitives import registry

BLOCK = 1 << 16  # elements per block: no temporaries, so larger than the NumPy kernel's
_BIN = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
        gast.Gt: ">", gast.GtE: ">=", gast.Lt: "<", gast.LtE: "<="}
_LOCK = threading.Lock()
_AVAILABLE = None


def available() -> bool:
    """numba is installed and not switched off (`S2S_NO_NUMBA=1`); imports nothing."""
    global _AVAILABLE
    if os.environ.get("S2S_NO_NUMBA"):
        return False
    if _AVAILABLE is None:
        _AVAILABLE = importlib.util.find_spec("numba") is not None
    return _AVAILABLE


def wanted(expr, reduce=None) -> bool:
    """Whether numba's loop beats NumPy's blocked ufuncs on `expr` (measured: docs/jit.md,
    Fusion): anything without a transcendental function other than `exp` (the kernel's own,
    SIMD) or a power other than `** 2`, where NumPy's SIMD `log`/`tanh`/... loops beat numba's
    scalar calls to the C library."""
    for n in gast.walk(expr):
        if isinstance(n, gast.Call) and registry.PRIMS["xp." + n.func.attr].numba_slow:  # (Prim.numba_slow)
            return False
        if isinstance(n, gast.BinOp) and isinstance(n.op, gast.Pow) and not _is_two(n.right):
            return False
    return True


def _is_two(e) -> bool:
    return isinstance(e, gast.Constant) and type(e.value) in (int, float) and e.value == 2


def element_expr(e, arrays) -> str:
    """The expression for one element `i` (arrays indexed, everything else as it is)."""
    if isinstance(e, gast.Name):
        return f"{e.id}[i]" if e.id in arrays else e.id
    if isinstance(e, gast.Constant):
        return repr(float(e.value)) if type(e.value) is int else repr(e.value)
    if isinstance(e, gast.UnaryOp):
        return f"(-{element_expr(e.operand, arrays)})"
    if isinstance(e, gast.Compare):
        return f"({element_expr(e.left, arrays)} {_BIN[type(e.ops[0])]} {element_expr(e.comparators[0], arrays)})"
    if isinstance(e, gast.BinOp):
        a, b = element_expr(e.left, arrays), element_expr(e.right, arrays)
        if isinstance(e.op, gast.Pow) and _is_two(e.right):
            return f"_square({a})"
        return f"({a} {_BIN[type(e.op)]} {b})"
    args = [element_expr(a, arrays) for a in e.args]
    fn = e.func.attr
    if fn == "where":
        return f"({args[1]} if {args[0]} else {args[2]})"
    return f"{registry.PRIMS['xp.' + fn].numba or 'np.' + fn}({', '.join(args)})"  # (Prim.numba: the prelude's)


# the body of the prelude's `_exp` (numba_arrayloops inlines it into its own prelude)
EXP_SOURCE = '''def _exp(a):
    # exp without branches or library calls, so that the element loop stays SIMD: exp(a) = 2**k *
    # exp(r), k = round(a / ln 2), r = hi - lo (ln 2 split in two: hi is exact) in [-ln2/2, ln2/2];
    # exp(r) = 1 + r + r*r*q(r), q a Chebyshev fit of (exp(r) - 1 - r) / r**2 (relative error of
    # the fit 3.4e-19, fitted for s2s with mpmath) by fused multiply-adds, summed with 1 + hi's
    # rounding error carried (within an ulp of the exact value, as NumPy's); 2**k goes into the
    # exponent bits as two factors, so that overflow gives inf and underflow a subnormal or 0 as
    # NumPy does. The clamps keep k in range; NaN fails both and stays NaN.
    v = a * 1.0
    v = 710.0 if v > 710.0 else v
    v = -746.0 if v < -746.0 else v
    t = _fma(v, 1.4426950408889634, _SHIFT)
    k = t - _SHIFT
    hi = _fma(k, -6.93147180369123816490e-01, v)
    lo = k * 1.90821492927058770002e-10
    r = hi - lo
    q = _fma(2.0914686968086876e-09, r, 2.5105217004720745e-08)
    q = _fma(q, r, 2.75572736431103e-07)
    q = _fma(q, r, 2.7557255400206422e-06)
    q = _fma(q, r, 2.4801587325547743e-05)
    q = _fma(q, r, 0.00019841269874820627)
    q = _fma(q, r, 0.0013888888888883748)
    q = _fma(q, r, 0.008333333333326136)
    q = _fma(q, r, 0.04166666666666667)
    q = _fma(q, r, 0.1666666666666667)
    q = _fma(q, r, 0.5)
    one = 1.0 + hi
    p = one + _fma(r * r, q, ((1.0 - one) + hi) - lo)
    n = _bits(t) - _bits(_SHIFT)  # k as an integer: t's last mantissa bits
    h = n >> 1
    return p * _from_bits((h + 1023) << 52) * _from_bits((n - h + 1023) << 52)
'''
# the prelude's imports, bit casts and constants, before `_exp`
PRELUDE_HEAD = '''import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

_jit = numba.njit(nogil=True, cache=True, error_model="numpy")


@intrinsic
def _bits(typingctx, x):
    """The bits of a float64 as an int64: one bit cast, which LLVM vectorizes."""
    if x == types.float64:
        return types.int64(types.float64), lambda context, builder, sig, args: builder.bitcast(args[0], ir.IntType(64))


@intrinsic
def _from_bits(typingctx, b):
    """The float64 whose bits are the int64 `b`."""
    if b == types.int64:
        return types.float64(types.int64), lambda context, builder, sig, args: builder.bitcast(args[0], ir.DoubleType())


@intrinsic
def _fma(typingctx, a, b, c):
    """a * b + c rounded once (LLVM's fma, one instruction on x86-64 with FMA3, vectorized)."""
    if a == types.float64 and b == types.float64 and c == types.float64:
        return types.float64(types.float64, types.float64, types.float64), \\
            lambda context, builder, sig, args: builder.fma(*args)


@intrinsic
def _wide(typingctx):
    """Lets the loops of the function that calls it use 512-bit vectors (LLVM's function attribute
    `prefer-vector-width`, which clang's -mprefer-vector-width sets; by default LLVM keeps to 256
    bits on CPUs with AVX-512): SELU's gradient kernel 0.80 ns an element against 1.14, the same
    values. Nothing on CPUs without AVX-512. (llvmlite checks function attributes against a list
    that has no string attributes: the set's own `add`; if that fails, nothing changes.)"""
    def codegen(context, builder, sig, args):
        try:
            set.add(builder.function.attributes, '"prefer-vector-width"="512"')
        except Exception:  # noqa: BLE001
            pass
        return context.get_dummy_value()
    return types.none(), codegen


CHUNK = 512  # elements of a fused sum computed before they are added
_SHIFT = 6755399441055744.0  # 1.5 * 2**52: (v + _SHIFT) - _SHIFT rounds v to an integer


'''
_PRELUDE = PRELUDE_HEAD + '''@_jit
''' + EXP_SOURCE + '''

@intrinsic
def _claim(typingctx, ctr, k):
    """`ctr[k] += 1` as one atomic instruction (acquire-release: what a thread wrote before it is
    seen by the thread that reads the count after it); the count before."""
    if isinstance(ctr, types.Array) and ctr.dtype == types.int64 and isinstance(k, types.Integer):
        def codegen(context, builder, sig, args):
            data = context.make_array(sig.args[0])(context, builder, args[0]).data
            ptr = builder.gep(data, [context.cast(builder, args[1], sig.args[1], types.intp)])
            return builder.atomic_rmw("add", ptr, ir.Constant(ir.IntType(64), 1), "acq_rel")
        return types.int64(ctr, k), codegen


@_jit
def _maximum(a, b):
    r = a if a >= b else b
    return a if a != a else r  # two selects, no short-circuit `or`: the loop stays vectorized


@_jit
def _minimum(a, b):
    r = a if a <= b else b
    return a if a != a else r


@_jit
def _square(a):
    return a * a


@_jit
def _negative(a):
    return -a


@_jit
def _abs(a):
    return abs(a)

'''


def kernel_source(name: str, names: list, mask: tuple, expr, reduce, module: bool = True) -> str:
    """The module of a fused expression's block function `name(lo, hi, out, *names)`, for
    arguments flagged array (True) or scalar; with `reduce` it returns the block's sum. Its
    driver `name_blocks(ctr, parts, n, size, out, *names)` runs blocks, claimed one at a time by
    an atomic add to `ctr[0]`, until none is left, without the GIL between them (a thread sharing
    blocks through Python took the GIL per block, and one preempted holding it stalled the
    others), writing each block's result into `parts`; True if it finished the last block
    (counted in `ctr[1]`).
    The loop indexes the block's slices from 0 (`x = _w_x[lo:hi]`): with `x[i]` for `i` in
    `range(lo, hi)` numba wraps negative indices, and LLVM vectorizes nothing (5-8x slower,
    docs/jit.md). User names never start with `_` (`kernels._kernel_names`).
    `module=False`: the function alone (what listings show; the helpers `_maximum`... and the
    decorator `_jit` are this module's `_PRELUDE`)."""
    arrays = {n for n, m in zip(names, mask) if m and m != "c"}
    value = element_expr(expr, arrays)
    params = [f"_w_{n}" if m else n for n, m in zip(names, mask)]
    rows = "r" in mask or "c" in mask
    if rows:
        params.insert(0, "_width")
    lines = ["", "@_jit", f"def {name}(lo, hi, _w_out, {', '.join(params)}):", "    _wide()"]
    if rows:
        lines += _row_loops(names, mask, value, reduce)
    elif reduce == "sum" and "_exp(" in value:  # the values a chunk at a time into `_buf` (a loop LLVM vectorizes), then
        # added in order (a float sum in order is a chain no compiler may vectorize)
        lines += ["    _buf = np.empty(CHUNK)", "    s = 0.0", "    for _c in range(lo, hi, CHUNK):",
                  "        _m = min(hi, _c + CHUNK)"]
        lines += [f"        {n} = _w_{n}[_c:_m]" for n in names if n in arrays]
        lines += ["        for i in range(_m - _c):", f"            _buf[i] = {value}",
                  "        for _j in range(_m - _c):", "            s += _buf[_j]", "    return s"]
    else:
        lines += [f"    {n} = _w_{n}[lo:hi]" for n in names if n in arrays]
        if reduce == "sum":
            lines += ["    s = 0.0", "    for i in range(hi - lo):", f"        s += {value}", "    return s"]
        else:
            lines += ["    out = _w_out[lo:hi]", "    for i in range(hi - lo):", f"        out[i] = {value}",
                      "    return 0.0"]
    if module:
        lines += ["", "", "@_jit", f"def {name}_blocks(_ctr, _parts, _n, _size, _w_out, {', '.join(params)}):",
                  "    _wide()", "    _nb = (_n + _size - 1) // _size", "    _last = False", "    while True:",
                  "        _b = _claim(_ctr, 0)", "        if _b >= _nb:", "            return _last",
                  "        lo = _b * _size",
                  f"        _parts[_b] = {name}(lo, min(_n, lo + _size), _w_out, {', '.join(params)})",
                  "        if _claim(_ctr, 1) == _nb - 1:", "            _last = True"]
    return (_PRELUDE if module else "") + "\n".join(lines if module else lines[1:]) + "\n"


def _row_loops(names, mask, value, reduce) -> list:
    """The body of a block function whose blocks are rows of `_width` elements (a row or column
    operand: s2s.compiler.emit.broadcast): for each row, full arrays sliced to it, a row operand
    whole, a column operand's number of that row; the inner loop from 0, which LLVM vectorizes.
    (A fused sum adds the elements in order, row after row.)"""
    lines = ["    s = 0.0"] if reduce == "sum" else []
    lines += [f"    {n} = _w_{n}" for n, m in zip(names, mask) if m == "r"]
    lines += ["    for _r in range(lo, hi):", "        _a = _r * _width"]
    lines += [f"        {n} = _w_{n}[_a:_a + _width]" for n, m in zip(names, mask) if m is True or m == "b"]
    lines += [f"        {n} = _w_{n}[_r]" for n, m in zip(names, mask) if m == "c"]
    if reduce == "sum":
        return lines + ["        for i in range(_width):", f"            s += {value}", "    return s"]
    return lines + ["        out = _w_out[_a:_a + _width]", "        for i in range(_width):",
                    f"            out[i] = {value}", "    return 0.0"]


def cache_dir() -> str:
    base = os.environ.get("S2S_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "s2s")
    return os.path.join(base, "numba")


def load_or_warn(name: str, source: str, what: str, fallback: str, stacklevel: int):
    """`load`, or False with a RuntimeWarning naming `what` and what s2s does instead (`fallback`) when numba
    is installed but unusable (an incompatible NumPy, no cache directory)."""
    try:
        return load(name, source)
    except Exception as e:  # noqa: BLE001
        warnings.warn(f"s2s: numba {what} unavailable ({type(e).__name__}: {e}); {fallback}", RuntimeWarning,
                      stacklevel=stacklevel + 1)
        return False


def blocks_of(fn):
    """The driver `name_blocks` beside the block function `fn` that `load` returned."""
    return getattr(sys.modules[fn.py_func.__module__], fn.py_func.__name__ + "_blocks")


def load(name: str, source: str):
    """The compiled block function of `source` (a file in the cache directory named by the
    source's hash, imported once per process; numba caches its machine code beside it)."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:16]
    modname = f"s2s_numba_{name}_{digest}"
    with _LOCK:
        mod = sys.modules.get(modname)
        if mod is None:
            folder = cache_dir()
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, modname + ".py")
            if not os.path.exists(path):
                tmp = f"{path}.{os.getpid()}.tmp"
                with open(tmp, "w") as f:
                    f.write(source)
                os.replace(tmp, path)  # atomic: another process never reads half a file
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            sys.modules[modname] = mod
    return getattr(mod, name)

