"""Rules of `rt.after_stores` (s2s/runtime/views.py): a right side's read in a tuple assignment,
before the stores (`early`) or after the earlier ones (`late`), whichever NumPy's view semantics
make its value; its derivative goes to that one. Under vmap the choice is made once for the batch
(rt.batched_after_stores): a copy of a shared array per example, as a loop over the examples made,
is never a view, so jacfwd of a row swap differentiated a swap."""
from __future__ import annotations

from .registry import by, defjvp, defvjp, linear, prim

prim("rt.after_stores", "early, late, whole", zero_args=("whole",), batch=by("rt.batched_after_stores"))
defvjp("rt.after_stores", early="rt.after_stores_t(g, early, whole, 0)", late="rt.after_stores_t(g, early, whole, 1)")
defjvp("rt.after_stores", early="rt.after_stores_t(dearly, early, whole, 0)",
       late="rt.after_stores_t(dlate, early, whole, 1)")
linear("rt.after_stores_t", "g_, early, whole, which", "g_", "rt.after_stores_t(g, early, whole, which)",
       batch=by("rt.batched_after_stores_t"))

