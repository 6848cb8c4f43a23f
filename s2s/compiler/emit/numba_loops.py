"""Loop kernels (`s2s.compiler.passes.loopkernel`): a loop of scalar arithmetic on array elements compiled
by numba (the `s2s[fast]` extra) as it is written, or run as it is written in Python.

`LoopKernel(xp, *args)` runs the compiled loop when numba is available, the backend is NumPy,
the loop runs at least `MIN_TRIPS` times (below that, numba's call costs more than the loop),
every array it indexes is a NumPy array of the rank its indices name (each element read is a
number) and of float64 or int64 (whose arithmetic numba types as NumPy does;
float32 stays float32 in NumPy and becomes float64 in numba, NumPy's bool + bool is True), and
everything else such a number; otherwise, or when numba cannot compile the loop for these
argument types, the Python loop. It returns the loop's results (the names the rest of the
function reads) as a tuple.

Values: the same operations in the same order on the same float64 elements, so bitwise the Python
loop's results for arithmetic; NumPy's scalar `exp`, `log`... and the C library's may differ by
an ulp; division by zero gives inf/NaN as NumPy scalars do (numba's "numpy" error model); an
index out of bounds raises IndexError (numba's bounds checks are on); results come back as
Python numbers where the loop would leave NumPy scalars. The kernel module is cached on disk as
the fused kernels are (`numba_kernels.load`).
"""
from __future__ import annotations

import copy

import gast
import numpy as np

from ..ir import build
from . import numba_kernels
from .codegen import compile_source, to_source

MIN_TRIPS = 256
# the types whose arithmetic numba types as NumPy does: with float32, int32... NumPy keeps the
# array's type against a Python number (NEP 50) where numba computes in float64/int64, and
# NumPy's bool + bool is `or` where numba's is 2
_NUMBERS = frozenset({int, float, bool, np.float64, np.int64})
_DTYPES = frozenset({np.dtype(np.float64), np.dtype(np.int64)})
_PRELUDE = '''import numba
import numpy as np

'''
_DECORATOR = '@numba.njit(nogil=True, cache=True, error_model="numpy", boundscheck=True)'


class _Numpy(gast.NodeTransformer):
    """`xp.f` as `np.f`: the kernel's namespace; `rt.inplace(r, a, ...)` (`a op= v`) as `r`: the
    kernel's names are numbers, which `op=` rebinds."""

    def visit_Name(self, node):
        if node.id == "xp":
            node.id = "np"
        return node

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, gast.Attribute) and f.attr in ("inplace", "inplace_checked") and isinstance(f.value, gast.Name) \
                and f.value.id == "rt" and node.args:
            return self.visit(node.args[0])
        return self.generic_visit(node)


class LoopKernel:
    """One loop: its Python form, and its numba form compiled on first use per argument types."""

    def __init__(self, name, params, results, arrays, loop):
        self.name = name
        ret = [build.ret(build.tuple_([build.name(r) for r in results]))] if results else []
        plain = build.function(name, ["xp", *params], [copy.deepcopy(loop)] + ret)
        self.plain_source = to_source(plain)  # (what a dump runs)
        self._plain = compile_source(name, self.plain_source, {}, np)
        trips = build.function(f"{name}_trips", ["xp", *params], [build.ret(build.call("len", [copy.deepcopy(loop.iter)]))])
        self._trips = compile_source(f"{name}_trips", to_source(trips), {}, np)
        body = _Numpy().visit(build.function(name, list(params), [copy.deepcopy(loop)] + copy.deepcopy(ret)))
        self._source = _DECORATOR + "\n" + to_source(body)
        # per parameter: the ranks an indexed array must have for every element read to be a
        # number (empty: any rank, for `len` only), or None for a number
        self._ranks = tuple(set(arrays[p]) if p in arrays else None for p in params)
        self._refused: set = set()  # argument signatures numba could not compile
        self._compiled = None

    def banner(self) -> str:
        return f"s2s.compiler.emit.numba_loops: numba; the Python loop below {MIN_TRIPS} trips"

    def source(self) -> str:
        return self._source

    def __call__(self, xp, *args):
        if xp is not np or not numba_kernels.available():
            return self._plain(xp, *args)
        try:
            trips = self._trips(xp, *args)
        except Exception:  # noqa: BLE001 - the Python loop raises the user's own error
            return self._plain(xp, *args)
        if trips < MIN_TRIPS:
            return self._plain(xp, *args)
        sig = []
        for a, ranks in zip(args, self._ranks):
            if ranks is None and type(a) in _NUMBERS:
                sig.append(type(a))
            elif ranks is not None and type(a) is np.ndarray and a.dtype in _DTYPES and (not ranks or ranks == {a.ndim}):
                sig.append((a.dtype.str, a.ndim, a.flags.c_contiguous, a.flags.writeable))
            else:  # a value the loop would compute on as a whole array, or no array at all
                return self._plain(xp, *args)
        sig = tuple(sig)
        if sig in self._refused:
            return self._plain(xp, *args)
        if self._compiled is None:
            self._compiled = numba_kernels.load_or_warn(self.name, _PRELUDE + self._source, "loop kernel",
                                                        "running the loop in Python", stacklevel=2)
        if self._compiled is False:
            return self._plain(xp, *args)
        from numba.core.errors import NumbaError
        try:
            return self._compiled(*args)
        except NumbaError:  # types numba does not compile (object arrays, a read-only target...)
            self._refused.add(sig)
            return self._plain(xp, *args)
        except IndexError as e:
            raise IndexError(f"{e} (in the loop compiled as s2s loop kernel {self.name}; "
                             "S2S_NO_NUMBA=1 runs it in Python)") from None
