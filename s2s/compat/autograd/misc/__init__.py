"""autograd.misc: `flatten` (nested containers <-> one vector), the `optimizers` over it, and
`fixed_points.fixed_point`, and `const_graph`."""
from . import fixed_points, optimizers, tracers
from .flatten import flatten, flatten_func
from .tracers import const_graph

__all__ = ["const_graph", "fixed_points", "flatten", "flatten_func", "optimizers", "tracers"]
