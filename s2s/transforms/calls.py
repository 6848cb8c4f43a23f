"""Calls to other functions inside a transformed function: get their split derivative versions."""
from __future__ import annotations


def callee_split(fn, mask, stmt, core):
    """(fwd, bwd) for calling `fn` with the arguments flagged in `mask` active."""
    from ..api import split_vjp
    return split_vjp(fn, mask)


def callee_jvp(fn, mask):
    from ..api import jvp_function
    return jvp_function(fn, mask)
