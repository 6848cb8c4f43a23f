"""Helpers that generated code calls as `rt.<name>`: the core ones (`core`) and those of the NumPy
coverage rules (`ops`). Each takes its array module from its arguments."""
from . import core as _core
from . import ops as _ops

for _m in (_core, _ops):
    globals().update({k: v for k, v in vars(_m).items() if not k.startswith("__")})
del _m
