"""Names that hold a Python number (int, float, complex, bool) by the source, not a NumPy value.

Python's `float(v) / 0.0` raises ZeroDivisionError where NumPy's `np.float64(v) / 0.0` gives inf
and a warning. vmap holds such a number as an array of one value per example, so it asks which
divisions are Python's (transforms/batching.py) and checks their divisors. A value is a Python
number when it is a literal, `float(...)`, `int(...)`, `len(...)`, `abs(...)` of one, an
array's `.size` or `.ndim`, an item of its `.shape`, or arithmetic of those; a name is one when
every assignment to it is (a greatest fixed point, so `s = s + 1.0` in a loop counts).
"""
from __future__ import annotations

import gast

from ..primitives import registry
from .stmts import classify, walk_stmts

_NUMBER_TYPES = (int, float, complex)  # (bool is an int)
_INT_ATTRS = frozenset({"size", "ndim"})
_ARITH = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)
DIVISIONS = {gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%"}


def is_number(atom, names) -> bool:
    """Whether core-form atom `atom` is a Python number literal or a name of `names`."""
    if isinstance(atom, gast.Constant):
        return type(atom.value) in _NUMBER_TYPES or type(atom.value) is bool
    return isinstance(atom, gast.Name) and atom.id in names


def _number(value, names, shapes) -> bool:
    if isinstance(value, (gast.Constant, gast.Name)):
        return is_number(value, names)
    if isinstance(value, gast.BinOp):
        return isinstance(value.op, _ARITH) and is_number(value.left, names) and is_number(value.right, names)
    if isinstance(value, gast.UnaryOp):
        return isinstance(value.op, (gast.USub, gast.UAdd)) and is_number(value.operand, names)
    if isinstance(value, gast.Attribute):
        return value.attr in _INT_ATTRS
    if isinstance(value, gast.Subscript):  # an item of an array's shape
        return isinstance(value.value, gast.Name) and value.value.id in shapes \
            and isinstance(value.slice, gast.Constant) and type(value.slice.value) is int
    if isinstance(value, gast.Call) and not value.keywords:
        p = registry.lookup(classify(value))  # float(...), int(...), len(...); abs of a number
        if p is None or not p.number_result:
            return False
        return p.number_result != "keep" or len(value.args) == 1 and is_number(value.args[0], names)
    return False


def python_numbers(body, params=()) -> set[str]:
    """The names of core-form `body` that certainly hold a Python number wherever they are read
    (a parameter, `params`, never does: its caller decides)."""
    values: dict[str, list] = {}
    other: set[str] = set(params)  # names bound by anything but `name = value` (loop targets, unpacking)
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
            values.setdefault(s.targets[0].id, []).append(s.value)
        elif isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Tuple):
            other.update(e.id for e in s.targets[0].elts if isinstance(e, gast.Name))
        elif isinstance(s, gast.For):
            other.update(n.id for n in gast.walk(s.target) if isinstance(n, gast.Name))
    shapes = {v for v, vals in values.items() if v not in other
              and all(isinstance(e, gast.Attribute) and e.attr == "shape" for e in vals)}
    names = {v for v in values if v not in other and v not in shapes}
    while True:
        out = {v for v in names if not all(_number(e, names, shapes) for e in values[v])}
        if not out:
            return names
        names -= out
