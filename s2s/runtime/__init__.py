"""Helpers that generated code calls as `rt.<name>`: the core ones (`core`), those of the NumPy
coverage rules (`ops`) and those of batched code (`batch`). Each takes its array module from its
arguments."""
from . import batch as _batch
from . import batch_ops as _batch_ops
from . import core as _core
from . import jacobian as _jacobian
from . import loops as _loops
from . import ops as _ops

for _m in (_core, _ops, _batch, _batch_ops, _jacobian, _loops):
    globals().update({k: v for k, v in vars(_m).items() if not k.startswith("__")})
del _m
