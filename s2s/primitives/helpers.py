"""Facts about the runtime helpers that derivative rules emit, used by the optimization passes."""
from __future__ import annotations

from .registry import helper

helper("rt.unbroadcast", shape_arg=1)
helper("rt.broadcast_to_like", shape_arg=1)
helper("rt.sum_vjp", shape_arg=1, fill=True)
helper("rt.mean_vjp", shape_arg=1, fill=True)
helper("rt.zeros_like_tree", shape_arg=0)
helper("rt.add_at", mutates=True)
helper("rt.vb_add_at", mutates=True)
helper("rt.take_at", mutates=True)
helper("rt.zero_at", mutates=True)
helper("rt.vbh_d_add_at", mutates=True, mutated=1)  # batched add_at: (flags, acc, index, v), acc updated
helper("ext.s2s_sample", effect=True)  # a random draw: two calls give two draws
helper("ext.s2s_same", effect=True)    # a check that raises
helper("rt.vb_size", effect=True)      # vmap's batch size, and the check that mapped axes agree
helper("rt.vb_size0", effect=True)
# grad's check that the output is a scalar (a pair with has_aux): kept when a further transform
# needs nothing of its value (grad of grad of a tuple-valued function raises as grad of it does)
helper("rt.seed", effect=True)
helper("rt.seed_aux", effect=True)
helper("rt.vbh_seed", effect=True)
