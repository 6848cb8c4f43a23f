"""A list or tuple written where a NumPy function takes an array is that array.

NumPy applies `np.asarray` to an array-like argument first: `np.log([a, b])` is
`np.log(np.asarray([a, b]))`. The derivative rules read their operands as arrays (`g / x`,
`g * 2 * x`), so a list display, or a local bound to a list the function built, given to a
differentiable operand of a primitive is made an array here by `xp.asarray` (whose derivative
unstacks the cotangent onto the elements). An argument that takes a sequence of arrays
(`np.stack`, `np.concatenate`), a shape, an axis or an index is left as written.
"""
from __future__ import annotations

import gast

from ..ir import build
from ..primitives import registry

_DISPLAYS = (gast.List, gast.Tuple)
_SETTINGS = frozenset({"axis", "axes", "dtype", "obj", "q"})  # read as written (a rule may read them now)


def _sequence(norm, node) -> bool:
    """Whether source argument `node` is a list or tuple display, or a local bound to a list here."""
    return isinstance(node, _DISPLAYS) or isinstance(node, gast.Name) and node.id in norm.containers


def _array_params(p) -> set[str]:
    """The parameters of primitive `p` that NumPy reads as arrays and a derivative flows through."""
    if p is None or p.nondiff or p.stacks:
        return set()
    skip = set(p.zero_args) | set(p.list_args)
    return {a for k, a in enumerate(p.params) if not a.startswith("*") and a not in skip and k not in p.shape_only
            and k not in p.tree_args and a not in _SETTINGS}


def as_arrays(norm, node, key: str, args: list, kws: dict) -> tuple[list, dict]:
    """`args` and `kws` of the call `node` of primitive `key`, each list or tuple display given to an
    array operand replaced by a temporary holding `xp.asarray` of it."""
    p = registry.lookup(key) if key.startswith("xp.") else None
    params = _array_params(p)
    if not params:
        return args, kws
    args, kws = list(args), dict(kws)
    for i, a in enumerate(node.args):
        if _sequence(norm, a) and i < len(p.params) and p.params[i] in params and i < len(args):
            args[i] = norm.tmp(build.call("xp.asarray", [args[i]]))
    for k in node.keywords:
        if _sequence(norm, k.value) and k.arg in params and k.arg in kws:
            kws[k.arg] = norm.tmp(build.call("xp.asarray", [kws[k.arg]]))
    return args, kws
