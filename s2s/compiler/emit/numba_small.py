"""Small-array kernels (`passes/smallfuse.py`): a run of arithmetic statements on float64 vectors of
one length as one compiled loop over the elements, numba's (the `s2s[fast]` extra).

`SmallKernel` runs the statements with NumPy (a generated function, `<name>_numpy`) for its
version's first `HOT` calls, then compiles the loop (a file in numba's cache directory named by
its source's hash, as the fused kernels', so a new process loads the machine code) and puts it
in the version's namespace in its own place: later calls go straight to numba's dispatcher. A
function called a few times (most tests, a script's one call) never waits for numba; one called
in a loop pays the compilation once (0.3-1 s), on its `HOT`-th call. Either runs the same IEEE
operations in the same order: the values are bitwise the same, but for the sign and payload of a
NaN (LLVM may swap the operands of `+` and `*`, and x86 hands on the first NaN operand's).
"""
from __future__ import annotations

import warnings

import numpy as np

from ..ir import build
from . import numba_kernels
from .numba_kernels import element_expr

HOT = 1000

_PRELUDE = '''import numba
import numpy as np

_jit = numba.njit(nogil=True, cache=True, error_model="numpy")


@_jit
def _square(a):
    return a * a
'''


def kernel_source(name: str, inputs: list, arrays: list, results: list, stmts: list, module: bool = True) -> str:
    """The loop over the elements of the input vectors (`arrays`; the other inputs are floats):
    each statement per element, the results written into new vectors."""
    lines = ["@_jit", f"def {name}({', '.join(inputs)}):", f"    _n = {arrays[0]}.shape[0]"]
    lines += [f"    _o{k} = np.empty(_n)" for k in range(len(results))]
    lines += ["    for i in range(_n):"]
    lines += [f"        {s.targets[0].id} = {element_expr(s.value, set(arrays))}" for s in stmts]
    lines += [f"        _o{k}[i] = {r}" for k, r in enumerate(results)]
    lines += [f"    return {', '.join(f'_o{k}' for k in range(len(results)))}"]
    return (_PRELUDE + "\n\n" if module else "") + "\n".join(lines) + "\n"


class SmallKernel:
    """One run of statements: NumPy's for the first `HOT` calls of its version, then numba's.

    `shape` (a matrix's, or more axes): the arrays are of a rank above 1, in a loop's body
    (`passes/smallfuse.py`), whose dtype and layout the version does not know. The loop then runs
    over their elements in C order, taken only where every array is a C-ordered float64 NumPy
    array of that shape (NumPy's result of such operands is C-ordered too, so a later reduction
    reads it in the same order); any other call runs the statements with NumPy."""

    def __init__(self, name: str, inputs: list, arrays: list, results: list, stmts: list, compile_fn, filename: str,
                 shape: tuple | None = None):
        self.name = name
        self.shape = shape if shape is not None and len(shape) >= 2 else None
        self.at = [inputs.index(a) for a in arrays]
        body = list(stmts) + [build.ret(build.name(results[0]) if len(results) == 1 else
                                        build.tuple_([build.name(r) for r in results]))]
        self.numpy = compile_fn(f"{name}_numpy", build.function(f"{name}_numpy", inputs, body), {}, filename)
        self.text = kernel_source(name, inputs, arrays, results, stmts)
        self.listing = kernel_source(name, inputs, arrays, results, stmts, module=False)
        self.calls = 0
        self.namespace: dict | None = None  # the version's globals, once it is compiled

    def __call__(self, *args):
        self.calls += 1
        if self.calls < HOT or self.namespace is None:
            return self.numpy(*args)
        namespace, self.namespace = self.namespace, None  # (one compilation, whichever call gets here)
        try:
            fn = numba_kernels.load(self.name, self.text)
            fn = fn if self.shape is None else self._guarded(fn)
            out = fn(*args)
        except Exception as e:  # noqa: BLE001 - numba unusable here: NumPy from now on
            warnings.warn(f"s2s: numba small-array kernel unavailable ({type(e).__name__}: {e}); NumPy runs "
                          "its statements", RuntimeWarning, stacklevel=2)
            namespace[self.name] = self.numpy
            return self.numpy(*args)
        namespace[self.name] = fn
        return out

    def _guarded(self, fn):
        """`fn` on the flattened arrays where they are all C-ordered float64 NumPy arrays of `shape`,
        else the NumPy statements (`numpy`)."""
        shape, at, numpy, f8, nd = self.shape, self.at, self.numpy, np.dtype(np.float64), np.ndarray

        def call(*args):
            for k in at:
                a = args[k]
                if type(a) is not nd or a.dtype != f8 or a.shape != shape or not a.flags.c_contiguous:
                    return numpy(*args)
            flat = list(args)
            for k in at:
                flat[k] = args[k].reshape(-1)
            out = fn(*flat)
            return out.reshape(shape) if type(out) is nd else tuple(o.reshape(shape) for o in out)

        call.__name__ = self.name
        return call

    def source(self) -> str:
        return self.listing

    def banner(self) -> str:
        return f"s2s.compiler.emit.numba_small: numba from the {HOT}th call, NumPy before"
