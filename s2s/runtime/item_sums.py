"""Item sums into a dict's cotangent (jit's passes/tree_items.py and passes/owned_sums.py): the
cotangent of a dict read item by item, zeros with a few items added, added into an accumulator
as those items' sums alone (`tree_add_at`), and into the accumulator's own arrays where it alone
holds them (`tree_add_at_owned`, `tree_add_at_shaped`); and a slot's cotangent added and taken
back out in one call (`add_take_at`: passes/slot_takes.py)."""
from __future__ import annotations

import numpy as np

from .core import add_at, take_at, tree_add, zeros_like_tree

__all__ = ("tree_add_at", "tree_add_at_owned", "tree_add_at_shaped", "add_take_at")


def tree_add_at(acc, like, keys, values):
    """`tree_add(acc, x)` for `x` the zeros of `like` with `values[i]` added at `keys[i]` (jit's
    passes/tree_items.py), without making `x`: for a dict of float arrays of `like`'s keys, shapes
    and dtypes, a new dict whose items at `keys` are sums and whose others are `acc`'s own (x's
    zeros would change nothing but the sign of a zero); any other (or a key twice, whose values
    the long way adds first) the long way."""
    if type(acc) is dict and type(like) is dict and len(acc) == len(like) and len(set(keys)) == len(keys):
        for k, a in acc.items():
            b = like.get(k, None)
            if type(a) is not np.ndarray or type(b) is not np.ndarray or a.shape != b.shape or a.dtype != b.dtype \
                    or a.dtype.kind not in "fc":
                break
        else:
            out = dict(acc)
            for k, v in zip(keys, values):
                a = out[k]
                out[k] = a + v if type(v) is np.ndarray and v.shape == a.shape and v.dtype == a.dtype \
                    else tree_add(a, tree_add(zeros_like_tree(like[k]), v))
            return out
    x = zeros_like_tree(like)
    for k, v in zip(keys, values):
        x = add_at(x, k, v)
    return tree_add(acc, x)


def tree_add_at_owned(acc, like, keys, values):
    """`tree_add_at(acc, like, keys, values)` for an accumulator that alone holds its dict and the
    arrays in it (jit's passes/owned_sums.py: bound only to zeros and to these sums, read only by
    them and after the last): the sums go into its own arrays, `np.add(a, v, out=a)`, the ufunc
    `a + v` calls, with no new dict or array; any other case the long way, whose result's arrays
    are made its own (a value it holds as it was given is copied)."""
    if type(acc) is dict and type(like) is dict and len(acc) == len(like) and len(set(keys)) == len(keys):
        if len(keys) == len(acc) and _all_match(acc, like, keys, values):
            for k, v in zip(keys, values):  # (every item summed, each of its own array: one pass of checks)
                a = acc[k]
                np.add(a, v, out=a)
            return acc
        for k, a in acc.items():
            b = like.get(k, None)
            if type(a) is not np.ndarray or type(b) is not np.ndarray or a.shape != b.shape or a.dtype != b.dtype \
                    or a.dtype.kind not in "fc" or not a.flags.writeable:
                break
        else:
            for k, v in zip(keys, values):
                a = acc[k]
                if type(v) is np.ndarray and v.shape == a.shape and v.dtype == a.dtype:
                    np.add(a, v, out=a)
                else:
                    acc[k] = tree_add(a, tree_add(zeros_like_tree(like[k]), v))
            return acc
    out = tree_add_at(acc, like, keys, values)
    if type(out) is dict:
        for k, x in out.items():
            if type(x) is np.ndarray and any(x is v for v in values):
                out[k] = x.copy()
    return out


def _all_match(acc, like, keys, values) -> bool:
    """Whether `keys` name every item of `acc` (distinct keys, as many as it has) and each is a
    writeable float NumPy array of the shape and dtype of `like`'s item and of its value: the sums
    then go into `acc`'s arrays as they are, which the long checks of `tree_add_at_owned` decide
    for the same cases in two passes."""
    nd = np.ndarray
    for k, v in zip(keys, values):
        a, b = acc.get(k), like.get(k)
        if type(a) is not nd or type(b) is not nd or type(v) is not nd:
            return False
        s, d = a.shape, a.dtype
        if v.shape != s or b.shape != s or v.dtype != d or b.dtype != d or d.kind not in "fc" or not a.flags.writeable:
            return False
    return True


def tree_add_at_shaped(acc, like, keys, values):
    """`tree_add_at_owned(acc, like, keys, values)` where jit knows from the shapes (passes/
    owned_items.py) that `keys` name every item of `like`, a dict of float64 arrays, and that `acc`
    holds zeros of those arrays' shapes and these sums alone: each value that is a NumPy array of
    its item's shape and dtype is added into the item's array; from the first that is not, the
    rest take `tree_add_at_owned`'s checks."""
    nd = np.ndarray
    for i, (k, v) in enumerate(zip(keys, values)):
        a = acc[k]
        if type(v) is not nd or type(a) is not nd or v.dtype is not a.dtype or v.shape != a.shape:
            return tree_add_at_owned(acc, like, keys[i:], values[i:])  # (`acc`'s arrays: its own zeros, writeable)
        np.add(a, v, out=a)
    return acc


def add_take_at(acc, index, v, like):
    """`take_at(add_at(acc, index, v), index, like)` (jit's passes/slot_takes.py: a dict's item
    read then stored, `y = d[t]` ... `d[t] = y`, whose cotangents meet in one slot): for a dict or
    list whose slot sum is a NumPy array of `like`'s shape, the sum and a new container with that
    slot zeroed, without the two helpers' dispatch; otherwise the two helpers."""
    if type(acc) is dict or type(acc) is list:
        out = type(acc)(acc)
        total = tree_add(out[index], v)
        if type(total) is np.ndarray and type(like) is np.ndarray and total.shape == like.shape:
            out[index] = zeros_like_tree(total)
            return total, out
        out[index] = total
        return take_at(out, index, like)
    return take_at(add_at(acc, index, v), index, like)
