"""The CuPy form of jit's fused kernels: a fused elementwise expression (s2s/passes/fusion.py)
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
prefixed `v_`: no clash with C keywords, CuPy's `i` and `out`, or the temporaries). Types follow
NumPy's promotion: the result type `T` of the arrays' dtypes and the call's numbers (Python
numbers are weak, as in NumPy 2: float32 arrays stay float32); every operand is cast to `T`
before arithmetic, so integer inputs divide as floats, as NumPy's `/` does. A kernel is built
once per dtype signature of the arguments and kept on its `Fused`; CuPy compiles it on first
use and caches the binary. Only float32 and float64 results are compiled (with bool and
integer inputs); other dtypes, and constants C cannot spell, run the unfused expression.
"""
from __future__ import annotations

import math

import gast
import numpy as np

_C_TYPES = {np.dtype(np.float64): "double", np.dtype(np.float32): "float", np.dtype(np.bool_): "bool",
            np.dtype(np.int64): "long long", np.dtype(np.int32): "int", np.dtype(np.int16): "short",
            np.dtype(np.int8): "signed char", np.dtype(np.uint8): "unsigned char",
            np.dtype(np.uint32): "unsigned int", np.dtype(np.uint64): "unsigned long long"}
_RESULTS = (np.dtype(np.float32), np.dtype(np.float64))
_BINARY = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/"}
_COMPARE = {gast.Gt: ">", gast.GtE: ">=", gast.Lt: "<", gast.LtE: "<="}
_MATH = {"exp": "exp", "log": "log", "sin": "sin", "cos": "cos", "tanh": "tanh", "sqrt": "sqrt", "abs": "fabs",
         "log1p": "log1p", "expm1": "expm1", "tan": "tan", "arctan": "atan", "sinh": "sinh", "cosh": "cosh"}


class NotCompiled(Exception):
    """The expression or the argument types have no CUDA form here: run the unfused expression."""


class _CEmitter:
    """Straight-line C: one `const` temporary per operation of the expression."""

    def __init__(self, types: dict, t: str):
        self.types, self.t, self.lines = types, t, []

    def temp(self, ctype: str, text: str) -> tuple[str, str]:
        name = f"t{len(self.lines)}"
        self.lines.append(f"const {ctype} {name} = {text};")
        return name, ctype

    def num(self, e) -> str:
        """Operand `e` as a value of the result type T."""
        text, ctype = self.emit(e)
        return text if ctype == self.t else f"({self.t}){text}"

    def emit(self, e) -> tuple[str, str]:
        """(C text of the value, its C type)."""
        if isinstance(e, gast.Name):
            return c_name(e.id), self.types[e.id]
        if isinstance(e, gast.Constant):
            v = e.value
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise NotCompiled(f"constant {v!r}")
            text = repr(float(v)) if isinstance(v, float) else str(v)
            return (f"({text})" if v < 0 else text), "double" if isinstance(v, float) else "int"
        if isinstance(e, gast.BinOp) and isinstance(e.op, gast.Pow):
            return self.power(e.left, e.right)
        if isinstance(e, gast.BinOp):
            return self.temp(self.t, f"{self.num(e.left)} {_BINARY[type(e.op)]} {self.num(e.right)}")
        if isinstance(e, gast.UnaryOp):
            return self.temp(self.t, f"-{self.num(e.operand)}")
        if isinstance(e, gast.Compare):
            op = _COMPARE[type(e.ops[0])]
            return self.temp("bool", f"{self.num(e.left)} {op} {self.num(e.comparators[0])}")
        return self.call(e.func.attr, e.args)

    def power(self, base, exponent) -> tuple[str, str]:
        if isinstance(exponent, gast.Constant) and exponent.value == 2 and not isinstance(exponent.value, bool):
            b = self.num(base)  # NumPy computes x ** 2 as square(x): one rounding, as here
            return self.temp(self.t, f"{b} * {b}")
        return self.temp(self.t, f"pow({self.num(base)}, {self.num(exponent)})")

    def call(self, fn: str, args) -> tuple[str, str]:
        if fn == "where":
            c, ctype = self.emit(args[0])
            cond = c if ctype == "bool" else f"({c} != 0)"
            return self.temp(self.t, f"{cond} ? {self.num(args[1])} : {self.num(args[2])}")
        if fn in ("maximum", "minimum"):  # NaN propagates, as in NumPy (C's fmax/fmin drop it)
            a, b = self.num(args[0]), self.num(args[1])
            a, _ = self.temp(self.t, a) if "(" in a else (a, None)
            b, _ = self.temp(self.t, b) if "(" in b else (b, None)
            op = ">" if fn == "maximum" else "<"
            return self.temp(self.t, f"(isnan({a}) || {a} {op} {b}) ? {a} : {b}")
        if fn == "negative":
            return self.temp(self.t, f"-{self.num(args[0])}")
        if fn == "square":
            a = self.num(args[0])
            return self.temp(self.t, f"{a} * {a}")
        return self.temp(self.t, f"{_MATH[fn]}({self.num(args[0])})")


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


def _result_type(sig) -> np.dtype:
    """NumPy's promotion of the signature: arrays and NumPy scalars strong, Python numbers weak."""
    strong = [d for kind, d in sig if kind == "a" or isinstance(d, np.dtype)]
    weak = [{bool: False, int: 0, float: 0.0}[d] for kind, d in sig if kind == "s" and not isinstance(d, np.dtype)]
    t = np.result_type(*strong, *weak) if strong else np.result_type(*weak)
    if t.kind in "biu":
        t = np.result_type(t, np.float64)
    return t


def _param_dtype(entry, t: np.dtype) -> np.dtype:
    kind, d = entry
    if kind == "a" or isinstance(d, np.dtype):
        return d
    return np.dtype(np.bool_) if d is bool else t if d is float else np.dtype(np.int64)


def kernel_parts(name: str, names: list, expr, reduce, sig) -> dict:
    """Everything a CuPy kernel of the fused expression needs, for argument signature `sig`:
    `in_params`, `out_params`, `preamble` (the device function), `operation` (elementwise) or
    `map_expr`/`reduce_expr`/`post_map_expr`/`identity`/`reduce_type` (a sum)."""
    t = _result_type(sig)
    if t not in _RESULTS:
        raise NotCompiled(f"result dtype {t}")
    dtypes = [_param_dtype(e, t) for e in sig]
    if any(d not in _C_TYPES for d in dtypes):
        raise NotCompiled("argument dtypes " + ", ".join(str(d) for d in dtypes))
    types = {n: _C_TYPES[d] for n, d in zip(names, dtypes)}
    em = _CEmitter(types, _C_TYPES[t])
    result, rtype = em.emit(expr)
    if not em.lines:
        raise NotCompiled("no operation")
    fn = f"s2s_{name}"
    params = ", ".join(f"const {types[n]} {c_name(n)}" for n in names)
    body = "".join(f"    {line}\n" for line in em.lines)
    preamble = f"__device__ {rtype} {fn}({params}) {{\n{body}    return {result};\n}}\n"
    call = f"{fn}({', '.join(c_name(n) for n in names)})"
    in_params = ", ".join(f"{d.name} {c_name(n)}" for n, d in zip(names, dtypes))
    # the kernel's own name differs from the device function's: CuPy declares it extern "C"
    parts = {"name": fn, "kernel_name": f"{fn}_kernel", "in_params": in_params, "preamble": preamble}
    out = "bool" if rtype == "bool" else t.name
    if reduce is None:
        parts.update(out_params=f"{out} out", operation=f"out = {call}")
        return parts
    acc = "int64" if rtype == "bool" else t.name  # NumPy sums booleans as integers
    parts.update(out_params=f"{acc} out", map_expr=call, reduce_expr="a + b", post_map_expr="out = a",
                 identity="0", reduce_type={"int64": "long long", "float32": "float", "float64": "double"}[acc])
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
