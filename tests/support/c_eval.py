"""A tiny evaluator of the C that s2s/compiler/emit/cupy_kernels.py writes, over NumPy arrays, and a
pretend CuPy kernel module built on it (`KERNELS`).

It reads a `__device__` function (typed parameters, `const TYPE name = EXPR;` lines, `return`)
and evaluates it with C's rules, written here independently of the emitter: the usual
arithmetic conversions (float op float stays float, bool and small integers promote to int),
casts, `?:`, `||`, `&&`, comparisons giving bool, truncating integer division, and C's math
functions by their C meaning (`fmax` drops a NaN, `fabs`, `atan`, ...). So a wrong mapping in
the emitter (a NumPy function to the wrong C one, a lost cast, a float32 value widened)
shows up as a wrong number. `KERNELS.ElementwiseKernel` / `ReductionKernel` take CuPy's
arguments, evaluate the device function on the inputs (cast to the declared types, as CuPy
does) and record every build in `BUILT`.
"""
from __future__ import annotations

import re
import types

import numpy as np

C_DTYPES = {"double": np.float64, "float": np.float32, "bool": np.bool_, "int": np.int32, "long long": np.int64,
            "short": np.int16, "signed char": np.int8, "unsigned char": np.uint8, "unsigned int": np.uint32,
            "unsigned long long": np.uint64}
NAMED = {"float64": "double", "float32": "float", "bool": "bool", "int64": "long long", "int32": "int",
         "int16": "short", "int8": "signed char", "uint8": "unsigned char", "uint32": "unsigned int",
         "uint64": "unsigned long long"}
_RANK = ["int", "unsigned int", "long long", "unsigned long long", "float", "double"]
_MATH = {"exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sqrt": np.sqrt,
         "fabs": np.abs, "log1p": np.log1p, "expm1": np.expm1, "tan": np.tan, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "fmax": np.fmax, "fmin": np.fmin, "pow": np.power}
_NUMBER = r"\d+\.\d*(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|\d+"
_TOKEN = re.compile(rf"\s*(?:({_NUMBER})|([A-Za-z_]\w*)|(\|\||&&|==|!=|>=|<=|[-+*/<>!?:(),]))")
BUILT: list = []


class Value:
    """An array with its C type."""

    def __init__(self, a, ctype):
        self.ctype = ctype
        self.a = np.asarray(a).astype(C_DTYPES[ctype]) if ctype != "bool" else np.asarray(a) != 0


def _promote(ctype):
    return "int" if ctype in ("bool", "short", "signed char", "unsigned char") else ctype


def _common(x: Value, y: Value) -> str:
    a, b = _promote(x.ctype), _promote(y.ctype)
    return a if _RANK.index(a) >= _RANK.index(b) else b


def _tokens(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise SyntaxError(f"C evaluator: cannot read {text[pos:]!r}")
        out.append(("num", m.group(1)) if m.group(1) else ("id", m.group(2)) if m.group(2) else ("op", m.group(3)))
        pos = m.end()
    return out


class _Parser:
    """Recursive descent over C's precedence levels, evaluating as it goes."""

    def __init__(self, text, env):
        self.toks, self.i, self.env = _tokens(text), 0, env

    def peek(self, k=0):
        return self.toks[self.i + k] if self.i + k < len(self.toks) else ("end", None)

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok[1] != want:
            raise SyntaxError(f"C evaluator: expected {want!r}, got {tok[1]!r}")
        self.i += 1
        return tok

    def parse(self) -> Value:
        v = self.ternary()
        if self.peek()[0] != "end":
            raise SyntaxError(f"C evaluator: trailing {self.peek()[1]!r}")
        return v

    def ternary(self):
        c = self.binary(0)
        if self.peek()[1] != "?":
            return c
        self.take("?")
        a = self.ternary()
        self.take(":")
        b = self.ternary()
        t = _common(a, b)
        return Value(np.where(c.a != 0, Value(a.a, t).a, Value(b.a, t).a), t)

    LEVELS = [("||",), ("&&",), ("==", "!="), ("<", ">", "<=", ">="), ("+", "-"), ("*", "/")]

    def binary(self, level):
        if level == len(self.LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[0] == "op" and self.peek()[1] in self.LEVELS[level]:
            op = self.take()[1]
            right = self.binary(level + 1)
            left = self.apply(op, left, right)
        return left

    def apply(self, op, x, y):
        if op in ("||", "&&"):
            f = np.logical_or if op == "||" else np.logical_and
            return Value(f(x.a != 0, y.a != 0), "bool")
        t = _common(x, y)
        a, b = Value(x.a, t).a, Value(y.a, t).a
        if op in ("==", "!=", "<", ">", "<=", ">="):
            f = {"==": np.equal, "!=": np.not_equal, "<": np.less, ">": np.greater, "<=": np.less_equal,
                 ">=": np.greater_equal}[op]
            return Value(f(a, b), "bool")
        if op == "/" and t not in ("float", "double"):
            return Value(np.trunc(a / b), t)  # C truncates integer division toward zero
        with np.errstate(all="ignore"):
            return Value({"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}[op](a, b), t)

    def cast_type(self):
        """The type name of a cast starting at the current `(`, or None."""
        words = []
        k = 1
        while self.peek(k)[0] == "id":
            words.append(self.peek(k)[1])
            k += 1
        name = " ".join(words)
        if words and name in C_DTYPES and self.peek(k)[1] == ")":
            return name, k + 1
        return None, 0

    def unary(self):
        tok = self.peek()
        if tok[1] == "-":
            self.take()
            v = self.unary()
            t = _promote(v.ctype)
            return Value(-Value(v.a, t).a, t)
        if tok[1] == "!":
            self.take()
            return Value(self.unary().a == 0, "bool")
        if tok[1] == "(":
            name, n = self.cast_type()
            if name is not None:
                self.i += n
                return Value(self.unary().a, name)
            self.take("(")
            v = self.ternary()
            self.take(")")
            return v
        return self.primary()

    def primary(self):
        kind, text = self.take()
        if kind == "num":
            is_float = "." in text or "e" in text or "E" in text
            return Value(float(text) if is_float else int(text), "double" if is_float else "int")
        if kind != "id":
            raise SyntaxError(f"C evaluator: unexpected {text!r}")
        if self.peek()[1] != "(":
            return self.env[text]
        self.take("(")
        args = [self.ternary()]
        while self.peek()[1] == ",":
            self.take(",")
            args.append(self.ternary())
        self.take(")")
        if text == "isnan":
            return Value(np.isnan(args[0].a), "bool")
        t = args[0].ctype if len(args) == 1 else _common(*args)
        t = t if t in ("float", "double") else "double"  # C++ math of an integer is double
        with np.errstate(all="ignore"):
            return Value(_MATH[text](*[Value(a.a, t).a for a in args]), t)


_HEADER = re.compile(r"__device__ (.+?) (\w+)\((.*)\) \{$")
_DECL = re.compile(r"const (.+?) (\w+) = (.*);$")


def _split_typed(params: str, names: dict) -> list:
    """[(C type, name)] from 'const double x, const float y' or CuPy's 'float64 x, bool m'."""
    out = []
    for p in params.split(","):
        words = p.split()
        words = words[1:] if words[0] == "const" else words
        ctype = " ".join(words[:-1])
        out.append((names.get(ctype, ctype), words[-1]))
    return out


def device_function(src: str):
    """The device function in `src` as a Python function of NumPy arrays (result: Value)."""
    lines = [ln.strip() for ln in src.strip().splitlines() if ln.strip() and not ln.strip().startswith("//")]
    m = _HEADER.match(lines[0])
    if not m or lines[-1] != "}":
        raise SyntaxError(f"C evaluator: not a device function: {lines[0]!r}")
    rtype, params = m.group(1), _split_typed(m.group(3), {})
    body = lines[1:-1]

    def run(*args):
        env = {name: Value(a, ctype) for (ctype, name), a in zip(params, args)}
        for line in body:
            d = _DECL.match(line)
            if d:
                if d.group(2) in env:  # C++: no redeclaration in the function's outermost block
                    raise SyntaxError(f"C evaluator: {d.group(2)} is declared twice")
                env[d.group(2)] = Value(_Parser(d.group(3), env).parse().a, d.group(1))
            elif line.startswith("return ") and line.endswith(";"):
                return Value(_Parser(line[7:-1], env).parse().a, rtype)
            else:
                raise SyntaxError(f"C evaluator: cannot read {line!r}")
        raise SyntaxError("C evaluator: no return")
    return run


def _inputs(in_params, args):
    typed = _split_typed(in_params, NAMED)
    return [np.asarray(a.get() if hasattr(a, "get") else a).astype(C_DTYPES[t]) for (t, _), a
            in zip(typed, args)]


class ElementwiseKernel:
    def __init__(self, in_params, out_params, operation, name, preamble):
        self.in_params, self.out_params, self.operation, self.preamble = in_params, out_params, operation, preamble
        self.fn = device_function(preamble)
        BUILT.append(self)

    def __call__(self, *args):
        (otype, _), = _split_typed(self.out_params, NAMED)
        out = self.fn(*np.broadcast_arrays(*_inputs(self.in_params, args))).a.astype(C_DTYPES[otype])
        return _wrap(out)


class ReductionKernel:
    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, reduce_type, name,
                 preamble):
        assert (reduce_expr, post_map_expr, identity) == ("a + b", "out = a", "0")
        self.in_params, self.out_params, self.preamble, self.reduce_type = in_params, out_params, preamble, reduce_type
        self.fn = device_function(preamble)
        BUILT.append(self)

    def __call__(self, *args):
        (otype, _), = _split_typed(self.out_params, NAMED)
        mapped = self.fn(*np.broadcast_arrays(*_inputs(self.in_params, args))).a
        total = np.sum(mapped.astype(C_DTYPES[self.reduce_type]))
        return _wrap(np.asarray(total).astype(C_DTYPES[otype]))


def _wrap(a):
    from fake_backend import FakeArray
    return FakeArray(np.asarray(a))


KERNELS = types.SimpleNamespace(ElementwiseKernel=ElementwiseKernel, ReductionKernel=ReductionKernel)
