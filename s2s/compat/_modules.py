"""Putting modules under another library's names in `sys.modules`, and taking them back: the one
mechanism behind `alias_jax` and `alias_autograd`."""
from __future__ import annotations

import sys
from typing import Any

try:
    from .. import scipy as s2s_scipy
except ImportError:  # SciPy, an optional extra, is absent
    s2s_scipy = None


def install(names: dict[str, Any]) -> dict[str, Any]:
    """Register each module under its name; returns what they replaced (None where a name was
    absent), for `restore`."""
    old = {name: sys.modules.get(name) for name in names}
    sys.modules.update(names)
    return old


def restore(old: dict[str, Any]) -> None:
    """Undo `install` (or an alias function): put back what it replaced in `sys.modules`."""
    for name, mod in old.items():
        if mod is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = mod


def scipy_names(prefix: str) -> dict[str, Any]:
    """`<prefix>.scipy` and its submodules -> `s2s.scipy`'s, for those s2s has (none when the
    optional SciPy extra is absent)."""
    if s2s_scipy is None:
        return {}
    out = {f"{prefix}.scipy": s2s_scipy}
    for name, mod in list(sys.modules.items()):
        if name.startswith(s2s_scipy.__name__ + "."):
            out[f"{prefix}.scipy." + name.removeprefix(s2s_scipy.__name__ + ".")] = mod
    return out
