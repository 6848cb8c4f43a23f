"""Run the op table and the corpus on another array backend and compare with NumPy.

`check_on_backend(fn, args, put, get)` computes `value_and_grad` (all arguments) and a `vjp` of
`fn` with the arguments moved by `put` to the backend, asserts every output is that backend's
array type (nothing fell back to NumPy), brings them back with `get`, and compares with the same
transforms on NumPy (which tests/test_op_sweep.py and test_corpus.py check against finite
differences). Used by the CuPy tests (GPU) and the fake-backend tests (CI).
"""
import numpy as np

import s2s
from s2s.tree import tree_leaves, tree_map


def _scalar_loss(fn):
    def loss(*args):
        out = fn(*args)
        if isinstance(out, (tuple, list)):
            total = 0.0
            for o in out:
                total = total + np.sum(o * o)
            return total
        return np.sum(out * out)
    return loss


def check_on_backend(fn, args, put, get, is_backend_array, rtol=1e-7, atol=1e-9):
    loss = _scalar_loss(fn)
    nums = tuple(range(len(args)))
    want_v, want_g = s2s.value_and_grad(loss, argnums=nums)(*args)
    dev = tuple(put(a) for a in args)
    got_v, got_g = s2s.value_and_grad(loss, argnums=nums)(*dev)
    for leaf in tree_leaves((got_v, got_g)):
        assert is_backend_array(leaf), f"{type(leaf).__name__} in the result: a step fell back to NumPy"
    np.testing.assert_allclose(get(got_v), want_v, rtol=rtol, atol=atol)
    for g, w in zip(tree_leaves(got_g), tree_leaves(want_g)):
        np.testing.assert_allclose(get(g), w, rtol=rtol, atol=atol)
    out, back = s2s.vjp(fn, *dev)
    ct = tree_map(lambda o: o * 0.5 + 1.0, out)
    want_out, want_back = s2s.vjp(fn, *args)
    want = want_back(tree_map(lambda o: o * 0.5 + 1.0, want_out))
    for g, w in zip(tree_leaves(back(ct)), tree_leaves(want)):
        if w is not None:
            np.testing.assert_allclose(get(g), w, rtol=rtol, atol=atol)
