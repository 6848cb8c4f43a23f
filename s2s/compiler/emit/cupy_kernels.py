"""The CuPy form of jit's fused kernels: a fused elementwise expression (s2s/compiler/passes/fusion.py)
written as CUDA C and run as one `cupy.ElementwiseKernel` (or, when a full `xp.sum` ends it, one
`cupy.ReductionKernel`), so a chain like SELU reads each input once and writes one output,
with no array-sized temporaries on the GPU.

The expression becomes a `__device__` function, one typed temporary per operation::

    __device__ double s2s_fused_0(const double v_x) {
        const bool t0 = v_x > (double)0;
        const double t1 = exp(v_x);
        ...
        return t5;
    }

called by the kernel's operation (`out = s2s_fused_0(v_x)`) or map expression (arguments are
prefixed `v_`: no clash with C keywords, CuPy's `i` and `out`, or the temporaries). Each
temporary has the type NumPy gives that intermediate result: arrays' dtypes and NumPy scalars
are strong, Python numbers weak (NumPy 2's rules: float32 arrays stay float32 beside `1.67`),
`/` of integers is float64, math functions of integers are float64, comparisons are bool; every
operand is cast to its operation's type. A kernel is built once per dtype signature of the
arguments and kept on its `Fused`; CuPy compiles it on first use and caches the binary.
Dtypes C lacks here (float16, complex), integer powers other than squares, arithmetic on
booleans and non-finite constants run the unfused expression instead.
"""
from __future__ import annotations

import math

import gast
import numpy as np

from .. import analysis
from ..primitives import registry

_C_TYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float", np.dtype(np.bool_): "bool",
            np.dtype(np.int64): "long long", np.dtype(np.int32): "int", np.dtype(np.int16): "short",
            np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
            np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long"}
# C spells these operators as Python does: arithmetic (`arith`) and comparisons, read from their declarations
_BINARY = {op: registry.PRIMS[k].arith for op, k in analysis.BINOPS.items() if registry.PRIMS[k].arith}
_COMPARE = {op: registry.PRIMS[k].symbol for op, k in analysis.CMPOPS.items() if registry.PRIMS[k].symbol[0] in "<>=!"}


class NotCompiled(Exception):
    """The expression or the argument types have no CUDA form here: run the unfused expression."""


_WEAK = {bool: np.dtype(np.bool_), int: np.dtype(np.int64), float: np.dtype(np.float64)}
_EXAMPLE = {"b": False, "i": 0, "u": 0, "f": 0.0}


def _promote(*vals) -> tuple:
    """NumPy's result type of operands (dtype, weak): NumPy dtypes strong, Python numbers weak."""
    strong = [d for d, weak in vals if not weak]
    weak = [_EXAMPLE[d.kind] for d, w in vals if w]
    if strong:
        return np.result_type(*strong, *weak), False
    return max((d for d, _ in vals), key=lambda d: "biuf".index(d.kind)), True


def _c_type(dtype) -> str:
    try:
        return _C_TYPES[dtype]
    except KeyError:
        raise NotCompiled(f"dtype {dtype}") from None


class _CEmitter:
    """Straight-line C: one `const` temporary per operation of the expression, each typed as
    NumPy would type that intermediate result. A value is (C text, dtype, weak)."""

    def __init__(self, types: dict):
        self.types, self.lines = types, []

    def temp(self, dtype, weak, text: str) -> tuple:
        name = f"t{len(self.lines)}"
        self.lines.append(f"const {_c_type(dtype)} {name} = {text};")
        return name, dtype, weak

    @staticmethod
    def cast(v, dtype) -> str:
        """Operand `v` as a C value of `dtype`."""
        return v[0] if _c_type(v[1]) == _c_type(dtype) else f"({_c_type(dtype)}){v[0]}"

    def emit(self, e) -> tuple:
        if isinstance(e, gast.Name):
            dtype, weak = self.types[e.id]
            return c_name(e.id), dtype, weak
        if isinstance(e, gast.Constant):
            v = e.value
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or \
                    isinstance(v, int) and not -2**63 <= v < 2**63:
                raise NotCompiled(f"constant {v!r}")
            text = repr(float(v)) if isinstance(v, float) else str(v)
            return (f"({text})" if v < 0 else text), _WEAK[type(v)], True
        if isinstance(e, gast.BinOp):
            return self.binary(type(e.op), self.emit(e.left), self.emit(e.right), e.right)
        if isinstance(e, gast.UnaryOp):
            return self.call("negative", [e.operand])
        if isinstance(e, gast.Compare):
            a, b = self.emit(e.left), self.emit(e.comparators[0])
            t, _ = _promote(a[1:], b[1:])
            return self.temp(np.dtype(np.bool_), False,
                             f"{self.cast(a, t)} {_COMPARE[type(e.ops[0])]} {self.cast(b, t)}")
        return self.call(e.func.attr, e.args)

    def binary(self, op, a, b, right) -> tuple:
        t, weak = _promote(a[1:], b[1:])
        if op is gast.Pow:
            if isinstance(right, gast.Constant) and right.value == 2 and not isinstance(right.value, bool):
                x = self.cast(a, t)  # NumPy computes x ** 2 as square(x): one rounding, as here
                return self.temp(t, weak, f"{x} * {x}")
            if t.kind != "f":
                raise NotCompiled("integer power")  # NumPy's is exact
            return self.temp(t, weak, f"pow({self.cast(a, t)}, {self.cast(b, t)})")
        if op is gast.Div and t.kind != "f":
            t = np.dtype(np.float64)  # true division of integers gives float64
        if t.kind == "b" and op is not gast.Mult:
            raise NotCompiled("boolean arithmetic")
        return self.temp(t, weak, f"{self.cast(a, t)} {_BINARY[op]} {self.cast(b, t)}")

    def call(self, fn: str, args) -> tuple:
        vals = [self.emit(x) for x in args]
        if fn == "where":
            c = vals[0]
            t, weak = _promote(vals[1][1:], vals[2][1:])
            cond = c[0] if c[1].kind == "b" else f"({c[0]} != 0)"
            return self.temp(t, weak, f"{cond} ? {self.cast(vals[1], t)} : {self.cast(vals[2], t)}")
        form = registry.PRIMS["xp." + fn].cuda  # (Prim.cuda: its C function or operator)
        if form in (">", "<"):  # maximum/minimum: NaN propagates, as in NumPy (C's fmax/fmin drop it)
            t, weak = _promote(vals[0][1:], vals[1][1:])
            a, b = (self.cast(v, t) for v in vals[:2])  # each named once: it is read twice
            a = a if a.isidentifier() else self.temp(t, weak, a)[0]
            b = b if b.isidentifier() else self.temp(t, weak, b)[0]
            nan = f"isnan({a}) || " if t.kind == "f" else ""
            return self.temp(t, weak, f"({nan}{a} {form} {b}) ? {a} : {b}")
        (a,) = vals
        if a[1].kind == "b":
            raise NotCompiled(f"{fn} of a boolean")
        if form == "-":
            return self.temp(a[1], a[2], f"-{a[0]}")
        if form == "*":  # the square
            return self.temp(a[1], a[2], f"{a[0]} * {a[0]}")
        if form == "fabs" and a[1].kind != "f":
            return self.temp(a[1], a[2], f"{a[0]} < 0 ? -{a[0]} : {a[0]}")
        t = a[1] if a[1].kind == "f" else np.dtype(np.float64)  # math of an integer is float64
        return self.temp(t, a[2], f"{form}({self.cast(a, t)})")


def c_name(name: str) -> str:
    """The C name of argument `name`: prefixed, so it can be no C keyword, no CuPy kernel name
    (`i`, `out`, names starting with `_`) and no temporary `t<k>`."""
    if not name.isascii() or not name.isidentifier():
        raise NotCompiled(f"argument name {name!r}")
    return f"v_{name}"


def _signature(args) -> tuple:
    """The dtype signature a kernel is built for: ("a", dtype) per array, ("s", type) per number."""
    sig = []
    for a in args:
        if isinstance(a, (bool, int, float)) or isinstance(a, np.generic):
            sig.append(("s", np.dtype(type(a)) if isinstance(a, np.generic) else type(a)))
        elif hasattr(a, "dtype") and hasattr(a, "shape"):
            sig.append(("a", np.dtype(a.dtype)))
        else:
            raise NotCompiled(f"argument of type {type(a).__name__}")
    return tuple(sig)


def _param(entry) -> tuple:
    """(dtype, weak) of a signature entry; a Python number is passed as float64, int64 or bool."""
    kind, d = entry
    if kind == "a" or isinstance(d, np.dtype):
        return d, False
    return _WEAK[d], True


def kernel_parts(name: str, names: list, expr, reduce, sig) -> dict:
    """Everything a CuPy kernel of the fused expression needs, for argument signature `sig`:
    `in_params`, `out_params`, `preamble` (the device function), `operation` (elementwise) or
    `map_expr`/`reduce_expr`/`post_map_expr`/`identity`/`reduce_type` (a sum)."""
    params = [_param(e) for e in sig]
    types = dict(zip(names, params))
    em = _CEmitter(types)
    result, rdtype, _ = em.emit(expr)
    if not em.lines:
        raise NotCompiled("no operation")
    if rdtype.kind not in "biuf":
        raise NotCompiled(f"result dtype {rdtype}")
    fn = f"s2s_{name}"
    params = ", ".join(f"const {_c_type(types[n][0])} {c_name(n)}" for n in names)
    body = "".join(f"    {line}\n" for line in em.lines)
    preamble = f"__device__ {_c_type(rdtype)} {fn}({params}) {{\n{body}    return {result};\n}}\n"
    call = f"{fn}({', '.join(c_name(n) for n in names)})"
    in_params = ", ".join(f"{types[n][0].name} {c_name(n)}" for n in names)
    # the kernel's own name differs from the device function's: CuPy declares it extern "C"
    parts = {"name": fn, "kernel_name": f"{fn}_kernel", "in_params": in_params, "preamble": preamble}
    if reduce is None:
        parts.update(out_params=f"{rdtype.name} out", operation=f"out = {call}")
        return parts
    acc = rdtype.name if rdtype.kind == "f" else "uint64" if rdtype.kind == "u" else "int64"  # NumPy's sum
    parts.update(out_params=f"{acc} out", map_expr=call, reduce_expr="a + b", post_map_expr="out = a",
                 identity="0", reduce_type=_c_type(np.dtype(acc)))
    return parts


def build(module, parts: dict):
    """The CuPy kernel object for `parts` (`module` provides ElementwiseKernel, ReductionKernel)."""
    common = dict(name=parts["kernel_name"], preamble=parts["preamble"])
    if "operation" in parts:
        return module.ElementwiseKernel(parts["in_params"], parts["out_params"], parts["operation"], **common)
    return module.ReductionKernel(parts["in_params"], parts["out_params"], parts["map_expr"], parts["reduce_expr"],
                                  parts["post_map_expr"], parts["identity"], reduce_type=parts["reduce_type"], **common)


def call(fused, module, args):
    """Run `fused` on `args` with a kernel of `module` (built once per dtype signature and kept
    in `fused.gpu_kernels`); NotCompiled when this expression or these types have no CUDA form."""
    sig = _signature(args)
    if fused.gpu_module is not module:  # kernels built by another module (CuPy's, then a test's C evaluator)
        fused.gpu_kernels.clear()
        fused.gpu_module = module
    kernel = fused.gpu_kernels.get(sig)
    if kernel is None:
        parts = kernel_parts(fused.name, fused.names, fused.expr, fused.reduce, sig)
        kernel = fused.gpu_kernels[sig] = build(module, parts)
    return kernel(*args)


def source(fused, dtypes) -> str:
    """The CUDA source of `fused` for arguments of `dtypes` (NumPy dtypes, or Python types for
    numbers): the device function and the kernel's operation, for reading and tests."""
    sig = tuple(("s", d) if d in (bool, int, float) else ("a", np.dtype(d)) for d in dtypes)
    parts = kernel_parts(fused.name, fused.names, fused.expr, fused.reduce, sig)
    tail = parts.get("operation") or f"sum of {parts['map_expr']}"
    return f"{parts['preamble']}// kernel({parts['in_params']}) -> {parts['out_params']}: {tail}\n"
