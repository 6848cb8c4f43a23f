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
helper("ext.s2s_sample", effect=True)  # a random draw: two calls give two draws
helper("ext.s2s_same", effect=True)    # a check that raises
