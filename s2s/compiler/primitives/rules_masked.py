"""vmap's helpers for a selection by a boolean mask that differs per example
(runtime/batch_masks.py, transforms/batch_masks.py), and the reductions such a selection may meet
with the value its unselected places take first (MASKED_REDUCTIONS)."""
from __future__ import annotations

from .registry import linear, prim

# reduction -> what the unselected places hold before it ("mean": a sum divided by the count)
MASKED_REDUCTIONS = {"xp.sum": "zero", "xp.nansum": "zero", "xp.prod": "one", "xp.max": "low", "xp.amax": "low",
                     "xp.min": "high", "xp.amin": "high", "xp.any": "false", "xp.all": "true", "xp.mean": "mean"}

prim("rt.mask_lanes", "m, x, x_batched", nondiff=True)
prim("rt.masked_axes", "axis, m, like, keepdims=False", nondiff=True, unbatched_result=True)
prim("rt.masked_count", "m, like, axes, keepdims=False", nondiff=True)
prim("rt.masked_fill", "like, how, m=None", nondiff=True, unbatched_result=True)
prim("rt.same_mask", "m, other", nondiff=True, effect=True)
linear("rt.masked_operand", "v, m, like, batched", "v", "g")
# (raises when the examples differ: an effect, never removed or moved)
prim("rt.shared_condition", "c, where", nondiff=True, effect=True, unbatched_result=True)
