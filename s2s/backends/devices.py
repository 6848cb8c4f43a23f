"""``device_put`` and ``block_until_ready`` as in JAX, on pytrees, for every array backend.

``device_put`` moves data to the default backend (``s2s.config.update("backend", ...)``): NumPy
keeps it on the host, CuPy copies it to the current GPU (``cupy.asarray``), Dask wraps it in a
chunked array (chunks along the first axis only, so a batch splits by examples).
``block_until_ready`` waits for pending work: NumPy has none (the argument is returned), CuPy
synchronizes the current stream, Dask *persists* each array (computes its chunks, keeping them in
memory or on the cluster's workers) and returns the persisted pytree, which is the one to use next.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base.tree import tree_leaves, tree_map
from ..errors import S2SValueError
from . import arrays

__all__ = ["block_until_ready", "device_put"]

_DEVICES = (None, "cpu")


def device_put(x: Any, device: Any = None) -> Any:
    """``x`` (a pytree) with every leaf as an array of the default backend (NumPy: on the host).

    Python numbers and NumPy scalars become 0-d arrays (NumPy's dtypes); arrays already on the
    backend are returned as they are, without a copy. ``device`` is None (the backend's current
    device), "cpu" for the NumPy backend, or a GPU number / ``"gpu:N"`` for CuPy.
    """
    backend = arrays.default()
    if backend.name == "cupy" and device is not None:
        return _on_gpu(x, device, backend)
    if device not in _DEVICES or device == "cpu" and backend is not arrays.NUMPY:
        raise S2SValueError(
            f"s2s.device_put: unknown device {device!r} for the {backend.name} backend; with NumPy the only "
            f"device is the host: pass device=None or 'cpu' (with CuPy: a GPU number)"
        )
    if backend is arrays.NUMPY:
        return tree_map(_to_numpy, x)
    return tree_map(lambda leaf: backend.put(_host(leaf)), x)


def _to_numpy(leaf):
    if arrays.backend_of(leaf) is arrays.by_name("cupy"):
        return leaf.get()  # CuPy refuses an implicit copy to the host
    return np.asarray(leaf)


def _host(leaf):
    """Numbers as NumPy arrays (NumPy's dtypes, not another library's defaults); arrays as they are."""
    return np.asarray(leaf) if arrays.backend_of(leaf) is None else leaf


def _on_gpu(x, device, backend):
    text = str(device)
    number = int(text.rpartition(":")[2]) if text.rpartition(":")[2].isdigit() else None
    if number is None:
        raise S2SValueError(f"s2s.device_put: unknown device {device!r} for CuPy: pass a GPU number or 'gpu:N'")
    with backend.xp.cuda.Device(number):
        return tree_map(lambda leaf: backend.put(_host(leaf)), x)


def _wait(leaf: Any) -> Any:
    backend = arrays.backend_of(leaf)
    if backend is not None and backend is not arrays.NUMPY:
        return backend.wait(leaf)
    ready = getattr(leaf, "block_until_ready", None)
    if callable(ready):  # arrays of another asynchronous library (a JAX array, for instance)
        ready()
    return leaf


def block_until_ready(x: Any) -> Any:
    """Wait until every array in the pytree ``x`` is computed and return it: ``x`` itself for
    NumPy and CuPy, the pytree of persisted arrays for Dask (use that one from then on)."""
    leaves = tree_map(_wait, x)
    return x if _same_leaves(leaves, x) else leaves


def _same_leaves(a, b) -> bool:
    return all(p is q for p, q in zip(tree_leaves(a), tree_leaves(b)))
