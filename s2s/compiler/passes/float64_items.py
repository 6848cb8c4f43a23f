"""float64 items of containers, for `float64.float64_names` (issue 46 section 2): the items of a
dict that only indexing reaches (`container_shapes.Containers`: a display of constant keys, or a
dict made empty whose item stores are plain) are float64 when every value the display holds or a
store puts there is. Each such dict `d` gets a pseudo-name `d[]` whose bindings are those values,
so the optimistic fixed point decides it with the names it depends on; `float64.is_float64` then
counts `d[k]` float64 where `d[]` is. The char RNN's `y_hat[t]` (softmax columns stored by time
step) is float64, so the backward step's `rt.zeros_like_tree(y_hat[t])` is `xp.zeros((27, 1))`
and the forward sweep no longer keeps the item's shape stub for it."""
from __future__ import annotations

__all__ = ("item_binds", "SUFFIX")

SUFFIX = "[]"  # (no identifier ends so: a pseudo-name never meets a variable's)


def item_binds(boxes) -> dict:
    """Pseudo-name `d[]` -> the values `d`'s items are bound to, for every dict `boxes` (a
    `container_shapes.Containers`) knows all the items of: a display's values, a dict made
    empty's stores (None-free: `container_shapes.of_body` drops the others)."""
    out: dict = {}
    for n, d in boxes.dicts.items():
        out[n + SUFFIX] = list(d.values())
    for n, key in boxes.items.items():
        if boxes.stores.get(key):
            out[n + SUFFIX] = list(boxes.stores[key])
    return out
