"""Run the op table and the corpus on another array backend and compare with NumPy.

`check_on_backend(fn, args, put, get)` computes `value_and_grad` (all arguments) and a `vjp` of
`fn` with the arguments moved by `put` to the backend, asserts every output is that backend's
array type (nothing fell back to NumPy), brings them back with `get`, and compares with the same
transforms on NumPy (which tests/test_op_sweep.py and test_corpus.py check against finite
differences). Used by the CuPy tests (GPU) and the fake-backend tests (CI).
"""
import numpy as np

import s2s
from s2s.base.tree import tree_leaves, tree_map


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
    # a scalar function is its own loss (as in test_corpus.py), else a sum of squares
    plain = fn(*tree_map(lambda a: a.copy() if isinstance(a, np.ndarray) else a, args))
    loss = fn if not isinstance(plain, (tuple, list)) and np.ndim(plain) == 0 else _scalar_loss(fn)
    nums = tuple(range(len(args)))
    want_v, want_g = s2s.value_and_grad(loss, argnums=nums)(*args)
    dev = tuple(put(a) for a in args)
    got_v, got_g = s2s.value_and_grad(loss, argnums=nums)(*dev)
    for leaf in tree_leaves((got_v, got_g)):
        _assert_not_host(leaf, is_backend_array, "value_and_grad")
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


def _assert_not_host(leaf, is_backend_array, what):
    """A NumPy array in a result means a step fell back to NumPy (CuPy would have refused to mix
    it); numbers (Python or NumPy scalars, e.g. a gradient through scalar-only steps) are neutral."""
    if isinstance(leaf, np.ndarray):
        assert is_backend_array(leaf), f"{what}: {type(leaf).__name__} in the result: a step fell back to NumPy"


def _numpy_result(run):
    """`run()` on NumPy, or None when NumPy itself refuses (that gap is another test's business)."""
    try:
        return run()
    except Exception:  # noqa: BLE001 - any refusal: the backend has nothing to agree with
        return None


def _agree(got, want, get, is_backend_array, what, rtol, atol):
    assert tree_structure_len(got) == tree_structure_len(want), f"{what}: result structure differs"
    for g, w in zip(tree_leaves(got), tree_leaves(want)):
        _assert_not_host(g, is_backend_array, what)
        np.testing.assert_allclose(get(g), w, rtol=rtol, atol=atol, err_msg=what)


def tree_structure_len(t):
    return len(tree_leaves(t))


def check_transforms_on_backend(fn, args, put, get, is_backend_array, rtol=1e-7, atol=1e-9) -> set:
    """`jvp`, `jit`, `vmap` and `vmap(grad)` (over a batch of two examples of the first float array
    argument) of `fn` on the backend agree with the same transforms on NumPy, wherever NumPy runs them;
    returns the set of those NumPy refused (the caller asserts it is the known set)."""
    refused = set()
    dev = tuple(put(a) for a in args)
    tangents = tuple(0.5 if isinstance(a, float) else np.full_like(a, 0.5) if isinstance(a, np.ndarray) and
                     a.dtype.kind == "f" else np.zeros_like(a) for a in args)
    active = tuple(i for i, a in enumerate(args) if isinstance(a, np.ndarray) and a.dtype.kind == "f")
    want = _numpy_result(lambda: s2s.jvp(fn, args, tangents))
    if want is None:
        refused.add("jvp")
    else:
        dev_t = tuple(put(t) for t in tangents)
        _agree(s2s.jvp(fn, dev, dev_t), want, get, is_backend_array, "jvp", rtol, atol)
    want = _numpy_result(lambda: s2s.jit(fn)(*args))
    if want is None:
        refused.add("jit")
    else:
        _agree(s2s.jit(fn)(*dev), want, get, is_backend_array, "jit", rtol, atol)
    if active:
        k = active[0]
        batch = np.stack([args[k], args[k] * 0.75 + 0.125])
        axes = tuple(0 if i == k else None for i in range(len(args)))
        want = _numpy_result(lambda: s2s.vmap(fn, in_axes=axes)(*args[:k], batch, *args[k + 1:]))
        if want is None:
            refused.add("vmap")
        else:
            got = s2s.vmap(fn, in_axes=axes)(*dev[:k], put(batch), *dev[k + 1:])
            _agree(got, want, get, is_backend_array, "vmap", rtol, atol)
        loss = _fixed_arity_loss(fn, len(args))  # per-example gradients: vmap of grad
        if loss is None or isinstance(fn(*args), (tuple, list)):
            return refused  # not applicable: sum(fn(...) ** 2) needs one array result
        vg = s2s.vmap(s2s.grad(loss, argnums=k), in_axes=axes)
        want = _numpy_result(lambda: vg(*args[:k], batch, *args[k + 1:]))
        if want is None:
            refused.add("vmap_grad")
        else:
            _agree(vg(*dev[:k], put(batch), *dev[k + 1:]), want, get, is_backend_array, "vmap_grad", rtol, atol)
    return refused


def _fixed_arity_loss(fn, n):
    """sum(fn(...) ** 2) with n plain parameters (vmap of grad takes no *args), None for n > 3."""
    def loss1(a):
        return np.sum(fn(a) ** 2)

    def loss2(a, b):
        return np.sum(fn(a, b) ** 2)

    def loss3(a, b, c):
        return np.sum(fn(a, b, c) ** 2)
    return {1: loss1, 2: loss2, 3: loss3}.get(n)
