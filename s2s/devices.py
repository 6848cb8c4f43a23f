"""``device_put`` and ``block_until_ready`` as in JAX, on pytrees; NumPy's versions are trivial.

This module is where other array backends plug in: ``device_put`` is where CuPy will copy host
data to the GPU (and Dask wrap it in chunked arrays), ``block_until_ready`` where CuPy will
synchronize its stream (and Dask persist its graph). With NumPy, work is done when a call
returns, so ``device_put`` only turns leaves into arrays and ``block_until_ready`` returns its
argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import S2SValueError
from .tree import tree_map

__all__ = ["block_until_ready", "device_put"]

_DEVICES = (None, "cpu")


def device_put(x: Any, device: Any = None) -> Any:
    """``x`` (a pytree) with every leaf as an array on ``device`` (NumPy: the host, ``"cpu"``).

    Python numbers and NumPy scalars become 0-d arrays (NumPy's dtypes); NumPy arrays are
    returned as they are, without a copy.
    """
    if device not in _DEVICES:
        raise S2SValueError(
            f"s2s.device_put: unknown device {device!r}; with the NumPy backend the only device "
            f"is the host: pass device=None or 'cpu'"
        )
    return tree_map(np.asarray, x)


def _wait(leaf: Any) -> None:
    ready = getattr(leaf, "block_until_ready", None)
    if callable(ready):  # arrays of an asynchronous library (a JAX array, for instance)
        ready()


def block_until_ready(x: Any) -> Any:
    """Wait until every array in the pytree ``x`` is computed, then return ``x`` itself."""
    tree_map(_wait, x)
    return x
