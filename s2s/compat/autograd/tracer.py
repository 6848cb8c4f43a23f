"""autograd.tracer's `primitive` (the same as autograd.extend's; the rest of the module is
autograd's tracer, which s2s has no counterpart of)."""
from .extend import primitive

__all__ = ["primitive"]
