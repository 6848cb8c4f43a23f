"""What the runtime reads from the layers above it, handed down by them when they are imported.

vmap's per-example fallbacks (batch.py's op_named, batch_derivs.py) call a primitive by its name and
differentiate it by its declared rule. They need `rt` (this package, whose namespace is built after
its modules), the `ext.` functions and the rule tables (s2s.compiler.primitives.registry, a layer
above). The registry hands all three down when it is imported, before any generated code runs, so
no runtime module imports its own package or a layer above it (tests/architecture/test_layering.py).
Private: no part of `rt`.
"""
from __future__ import annotations

import types

_REGISTERED: dict[str, object] = {}


def register(*, rt: types.ModuleType, prims: dict, ext: types.SimpleNamespace) -> None:
    """Hand the runtime `rt` (s2s.runtime), the declarations by name (`registry.PRIMS`) and the
    namespace of `ext.` functions (`registry.EXT`)."""
    _REGISTERED.update(rt=rt, prims=prims, ext=ext)


def _get(what: str):
    if what not in _REGISTERED:
        raise RuntimeError(f"s2s.runtime: `{what}` is read before s2s.compiler.primitives.registry registered it; "
                           "import s2s first")
    return _REGISTERED[what]


def runtime_namespace() -> types.ModuleType:
    """s2s.runtime, the namespace generated code calls as `rt`."""
    return _get("rt")


def declarations() -> dict:
    """The primitives' declarations by name (`registry.PRIMS`)."""
    return _get("prims")


def ext_namespace() -> types.SimpleNamespace:
    """The functions generated code reaches as `ext.<key>` (`registry.EXT`)."""
    return _get("ext")
