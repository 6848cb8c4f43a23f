"""autograd.misc: `flatten` (nested containers <-> one vector) and the `optimizers` over it."""
from . import optimizers
from .flatten import flatten, flatten_func

__all__ = ["flatten", "flatten_func", "optimizers"]
