"""autograd.tracer's `primitive` (the same as autograd.extend's) and `isbox`: s2s transforms
source, so a value is never boxed. The rest of the module is autograd's tracer, which s2s has no
counterpart of."""
from typing import Any

from .extend import primitive

__all__ = ["isbox", "primitive"]


def isbox(x: Any) -> bool:
    """False: s2s never wraps values in a tracing box."""
    return False
