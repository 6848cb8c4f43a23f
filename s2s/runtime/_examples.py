"""The per-example plumbing vmap's helpers share (batch, batch_core, batch_nested, batch_derivs,
loops, conv, signal): a function mapped over a value under an in_axes spec, an index as a tuple,
one example of a batched argument, a leaf copied for one example, per-example results stacked,
and the function a primitive's name stands for. Generated code never calls these, so this module
has no export list and `rt` does not see them."""
from __future__ import annotations

import builtins

import numpy as np

from ..base.tree import axes_children, node_children
from ._registered import ext_namespace, runtime_namespace
from .core import asarray


def map_over_spec(fn, spec, tree):
    parts = node_children(tree)
    if parts is not None:  # a registered pytree node, a namedtuple: child by child, same type
        specs = axes_children(spec, tree) or [spec] * len(parts[0])
        return parts[1]([map_over_spec(fn, s, t) for s, t in zip(specs, parts[0])])
    if isinstance(spec, (tuple, list)) and isinstance(tree, (tuple, list)):
        out = [map_over_spec(fn, s, t) for s, t in zip(spec, tree)]
        return tuple(out) if isinstance(tree, tuple) else out
    if isinstance(spec, dict) and isinstance(tree, dict):
        return {k: map_over_spec(fn, spec[k], tree[k]) for k in tree}
    if isinstance(tree, (tuple, list)):
        out = [map_over_spec(fn, spec, t) for t in tree]
        return tuple(out) if isinstance(tree, tuple) else out
    if isinstance(tree, dict):
        return {k: map_over_spec(fn, spec, v) for k, v in tree.items()}
    return fn(tree, spec)


def index_tuple(index):
    return index if isinstance(index, tuple) else (index,)


def own_copy(leaf):
    array = hasattr(leaf, "copy") and hasattr(leaf, "shape") and not isinstance(leaf, type)  # not np.float64 itself
    return leaf.copy() if array else leaf


def stack_examples(outs):
    """Per-example results stacked leaf by leaf (lists and tuples keep their structure)."""
    first = outs[0] if outs else None
    if isinstance(first, (tuple, list)):
        cols = [stack_examples(list(col)) for col in zip(*outs)]
        return tuple(cols) if isinstance(first, tuple) else cols
    if isinstance(first, dict):
        return {k: stack_examples([o[k] for o in outs]) for k in first}
    if first is None:
        return None
    return np.stack([asarray(o) for o in outs])


def op_named(name):
    """The function a primitive name stands for (`xp.diag`, `rt.add_at`, `ext.random_normal`,
    `tuple`); an `rt.` name is looked up in the namespace generated code sees (s2s.runtime, built
    from the export lists)."""
    mod, _, rest = name.partition(".")
    if not rest:
        return getattr(builtins, name)
    if mod == "ext":  # a function declared a primitive from outside (s2s.random, s2s.defvjp): the
        # rule table's namespace, loaded before any generated code that names it runs
        obj = ext_namespace()
        return getattr(obj, rest)
    obj = np if mod == "xp" else runtime_namespace()
    for part in rest.split("."):
        obj = getattr(obj, part)
    return obj


def example_part(a, k):
    """Example k of an argument flagged batched: its array leaves indexed. A setting the batching
    transform flags (unpacked from a residual tuple that also holds a batched array) is either
    replicated per example, an array, or left as it is (a string, None)."""
    if isinstance(a, (tuple, list)):
        return type(a)(example_part(e, k) for e in a)
    return a[k] if getattr(a, "ndim", 0) and not isinstance(a, (str, np.generic)) else a
