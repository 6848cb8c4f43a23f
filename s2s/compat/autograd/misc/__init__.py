"""autograd.misc: `flatten` (nested containers <-> one vector), the `optimizers` over it, and
`fixed_points.fixed_point`."""
from . import fixed_points, optimizers
from .flatten import flatten, flatten_func

__all__ = ["fixed_points", "flatten", "flatten_func", "optimizers"]
