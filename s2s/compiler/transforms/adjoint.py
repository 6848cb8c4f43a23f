"""Bookkeeping for the backward sweep: adjoint names, which adjoints hold a value, accumulation.

An adjoint that is not in `defined` is zero: rules that would only add zeros are not emitted.
`defined` maps an adjoint name to True when the sweep owns the array (made it with zeros and may
update it in place) and False when it may alias another array.
"""
from __future__ import annotations

import gast

from ..ir import build
from .base import Companions, join


class Adjoints(Companions):
    """The adjoint `b_x` of each variable and how contributions to it are added up."""

    def __init__(self, namer, prefix: str = "b_", containers=(), leaves=()):
        super().__init__(namer, prefix)
        self.containers = set(containers)
        self.leaves = set(leaves)  # variables known to hold an array or a number: `+` adds them

    def accumulate(self, var: str, value, defined: dict, out: list) -> None:
        """Emit `b_var = value`, or `b_var = b_var + value` for a known array or number and
        `rt.tree_add` (leaf by leaf) for anything that may be a tuple, list or dict."""
        b = self.name(var)
        if b not in defined:
            out.append(build.assign(b, value))
            defined[b] = False
        elif var in self.containers or var not in self.leaves:
            out.append(build.assign(b, build.call("rt.tree_add", [build.name(b), value])))
            defined[b] = False
        else:
            out.append(build.assign(b, build.binop(build.name(b), gast.Add(), value)))
            defined[b] = True  # `a + b` is a fresh array

    def owned(self, var: str, defined: dict, out: list) -> gast.Name:
        """Make `b_var` an array the sweep may update in place, creating zeros if it is undefined."""
        b = self.name(var)
        if b not in defined:
            out.append(build.assign(b, build.call("rt.zeros_like_tree", [build.name(var)])))
        elif not defined[b]:
            out.append(build.assign(b, build.call("rt.fresh", [build.name(b)])))
        defined[b] = True
        return build.name(b)


def merge(branches: list[tuple[list, dict]], adj: Adjoints, exists=None, certain=None) -> dict:
    """Join the `defined` maps of alternative paths, zero-filling adjoints one path lacks.

    Only variables in `exists` (those live into the branch) keep an adjoint after the join; any
    other adjoint is dead there and is dropped. Zeros are shaped like the variable where it is in
    `certain` (assigned on every path to the branch), else the scalar 0.
    """
    def fill(var, path):
        # a variable that may not be assigned yet on this path: the scalar 0 stands for its zero
        if certain is None or var in certain:
            return adj.zero(var), True  # zero-filled arrays are owned
        return build.assign(adj.name(var), build.const(0.0)), False
    return join(branches, adj, exists, fill)
