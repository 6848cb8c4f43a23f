"""Rules of the helpers that vectorized loops use (passes/loopvec.py, runtime/loops.py): the
window gather of a slice with per-example bounds, and the batching rules that let a vectorized
loop (batched over its index) be batched again by vmap (the example axis first)."""
from __future__ import annotations

from . import rules_batch  # noqa: F401  (the batched helpers are declared first)
from .registry import BatchRule, defbatch, linear, prim
from .rules_batch import UNBATCHED_RESULT, helper

linear("rt.lv_window", "x, index, ib, where=None", "x", "rt.lv_window_t(g, x, index, ib, where)")
linear("rt.lv_window_t", "v, x, index, ib, where=None", "v", "rt.lv_window(g, index, ib, where)")
helper("rt.lv_window", "rt.lv_window_outer")
defbatch("rt.lv_window_t", BatchRule("loop"))
for _op in ("dot", "matmul", "inner"):
    helper("rt.vbh_" + _op, "rt.lv_dot_" + _op)
helper("rt.vb_getitem", "rt.vb_getitem_outer")

prim("rt.lv_count", "start, stop, step=1", nondiff=True)
prim("rt.lv_index", "i, a, axis=0", nondiff=True)
linear("rt.lv_array", "v, n", "v", "rt.lv_array_t(g, v, n)")
defbatch("rt.lv_count", BatchRule("create"))
helper("rt.lv_array", "rt.lv_array_outer")
linear("rt.lv_array_t", "g_, v, n", "g_", "rt.lv_array(g, n)")
defbatch("rt.lv_array_t", BatchRule("loop"))
helper("rt.lv_index", "rt.lv_index_outer")
prim("rt.lv_fits", "n, x0=None, i0=None, b0=None, x1=None, i1=None, b1=None, x2=None, i2=None, b2=None, ints=()", nondiff=True)
helper("rt.lv_fits", "rt.lv_fits_outer")
UNBATCHED_RESULT |= {"rt.lv_index", "rt.lv_fits"}
