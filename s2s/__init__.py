"""s2s: JAX-style function transformations for plain NumPy code, by source-to-source compilation."""
from . import config, numpy, random  # noqa: E402,I001  (s2s.numpy and s2s.random, JAX-style)
from .api.entry_points import (
    grad, hessian, jacfwd, jacobian, jacrev, jit, jvp, stop_gradient, value_and_grad, vjp, vmap
)
from .api.sources import source
from .backends.devices import block_until_ready, device_put
from .api.custom import custom_jvp, custom_vjp, defjvp, defvjp
from .api.checkpoints import checkpoint, checkpoint_name, checkpoint_policies, remat
from .compiler.driver import clear_caches
from .errors import S2SError
from .base.tracebacks import boundary as _boundary

source = _boundary(source)  # an entry point: an S2SError leaving it shows the user's frames only
from . import lax, nn, tree, tree_util  # noqa: E402,I001  (JAX's namespaces, written in plain NumPy)

from importlib import import_module as _import_module  # noqa: E402,I001
from .compiler.frontend.resolve import register_counterparts as _register_counterparts  # noqa: E402


def _scipy_counterparts(loaded: tuple[str, ...]) -> dict:
    """SciPy's objects in its namespaces `loaded` -> s2s.scipy's, which the frontend reads in their
    place. s2s.scipy is imported the first time a transformed function may read one of SciPy's
    objects (the user has imported SciPy), so `import s2s` imports neither, and the frontend
    imports nothing above it."""
    return _import_module("s2s.scipy").counterparts(loaded)


_register_counterparts("scipy", ("special", "stats", "linalg", "signal"), _scipy_counterparts)

__all__ = ["S2SError", "block_until_ready", "checkpoint", "checkpoint_name", "checkpoint_policies", "clear_caches",
           "config", "custom_jvp", "custom_vjp", "defjvp", "defvjp",
           "device_put", "grad", "hessian", "jacfwd", "jacobian", "jacrev", "jit", "jvp", "lax", "nn", "numpy", "random",
           "remat",
           "source", "stop_gradient", "tree", "tree_util", "value_and_grad", "vjp", "vmap"]
__version__ = "0.1.0"
