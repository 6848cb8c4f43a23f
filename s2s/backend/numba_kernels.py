"""Fused kernels compiled by numba (the optional `s2s[fast]` extra): an elementwise expression, or
the full sum that ends it, as one loop over the elements of a block, compiled without the GIL.

The fused kernel (`kernels.Fused`) runs such a block function over its blocks with the same
scheduler as the NumPy block kernel (blocks handed out one at a time to the caller and helper
threads), not numba's `prange`, whose fixed shares lose half the work when a core is busy. One
pass over memory and no block-sized temporaries make this the faster kernel for arithmetic,
comparisons, `where`, `maximum`/`minimum`, `abs`, `sqrt`; numba calls the C library's scalar
`exp`, `log`, `tanh`..., which lose to NumPy's SIMD loops, so an expression with one of those
keeps the NumPy block kernel (`wanted`; measured in the README's jit section).

Values: arithmetic and comparisons are IEEE operations in the same order as NumPy's, `x ** 2`
is `x * x` as in NumPy; `where`, `maximum` and `minimum` propagate NaN as NumPy does; division
by zero gives inf/NaN (numba's "numpy" error model). Transcendental functions come from the C
library (within an ulp of NumPy's), and a fused sum adds the elements in order per block.

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

import gast

BLOCK = 1 << 16  # elements per block: no temporaries, so larger than the NumPy kernel's
_SLOW = {"exp", "log", "sin", "cos", "tanh", "tan", "arctan", "sinh", "cosh", "log1p", "expm1"}
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
    """Whether numba's loop beats NumPy's blocked ufuncs on `expr` (measured: README's jit
    section): a reduction or a choice (`where`, a comparison) without a transcendental function
    or a power other than `** 2`. NumPy's SIMD `exp`/`log`/... loops beat numba's scalar C-library
    calls, and on plain arithmetic the blocked ufuncs were as fast or faster."""
    choice = reduce is not None
    for n in gast.walk(expr):
        if isinstance(n, gast.Call) and n.func.attr in _SLOW:
            return False
        if isinstance(n, gast.BinOp) and isinstance(n.op, gast.Pow) and not _is_two(n.right):
            return False
        choice |= isinstance(n, gast.Compare) or isinstance(n, gast.Call) and n.func.attr == "where"
    return choice


def _is_two(e) -> bool:
    return isinstance(e, gast.Constant) and type(e.value) in (int, float) and e.value == 2


def _scalar(e, arrays) -> str:
    """The expression for one element `i` (arrays indexed, everything else as it is)."""
    if isinstance(e, gast.Name):
        return f"{e.id}[i]" if e.id in arrays else e.id
    if isinstance(e, gast.Constant):
        return repr(float(e.value)) if type(e.value) is int else repr(e.value)
    if isinstance(e, gast.UnaryOp):
        return f"(-{_scalar(e.operand, arrays)})"
    if isinstance(e, gast.Compare):
        return f"({_scalar(e.left, arrays)} {_BIN[type(e.ops[0])]} {_scalar(e.comparators[0], arrays)})"
    if isinstance(e, gast.BinOp):
        a, b = _scalar(e.left, arrays), _scalar(e.right, arrays)
        if isinstance(e.op, gast.Pow) and _is_two(e.right):
            return f"_square({a})"
        return f"({a} {_BIN[type(e.op)]} {b})"
    args = [_scalar(a, arrays) for a in e.args]
    fn = e.func.attr
    if fn == "where":
        return f"({args[1]} if {args[0]} else {args[2]})"
    if fn in ("maximum", "minimum", "square", "negative", "abs"):
        return f"_{fn}({', '.join(args)})"
    return f"np.{fn}({', '.join(args)})"


_PRELUDE = '''import numba
import numpy as np

_jit = numba.njit(nogil=True, cache=True, error_model="numpy")


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
    arguments flagged array (True) or scalar; with `reduce` it returns the block's sum.
    `module=False`: the function alone (what listings show; the helpers `_maximum`... and the
    decorator `_jit` are this module's `_PRELUDE`)."""
    arrays = {n for n, m in zip(names, mask) if m}
    value = _scalar(expr, arrays)
    lines = ["", "@_jit", f"def {name}(lo, hi, out, {', '.join(names)}):"]
    if reduce == "sum":
        lines += ["    s = 0.0", "    for i in range(lo, hi):", f"        s += {value}", "    return s"]
    else:
        lines += ["    for i in range(lo, hi):", f"        out[i] = {value}", "    return 0.0"]
    return (_PRELUDE if module else "") + "\n".join(lines if module else lines[1:]) + "\n"


def cache_dir() -> str:
    base = os.environ.get("S2S_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "s2s")
    return os.path.join(base, "numba")


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

