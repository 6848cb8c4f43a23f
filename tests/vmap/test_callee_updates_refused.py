"""A callee that updates in place a value it was passed (a view, a list's item, a dict's item):
NumPy's caller sees the update. grad and jvp refuse it at the call (transforms/base.py); vmap's
version of the callee rebinds the name instead, so the caller kept its values and vmap returned a
number with no error. vmap refuses it at the call too now (batch_calls.py), where a name the
caller holds goes through the copy-in/copy-out version as before."""
import numpy as np
import pytest

import s2s

X = np.array([0.31, -0.55, 0.72, 1.15, 0.43, -0.27])
XS = np.stack([X, -0.6 * X + 0.1])



def scale(a, s):
    a *= s


def view_updated_by_a_callee(x):
    b = x * 1.0
    scale(b[1:], 3.0)  # (NumPy: b's last items change)
    return np.sum(b ** 2)


def row_of_a_matrix_updated(x):
    m = np.outer(x[:2], x[:3])
    scale(m[0], 2.0)
    return np.sum(m ** 3)


def list_item_updated(x):
    lst = [x * 1.0, x * 2.0]
    scale(lst[1], 0.5)
    return np.sum(lst[0] * lst[1])


def local_array_updated(x):
    b = x * 1.0
    scale(b, 3.0)  # (a name: the copy-in/copy-out version stores the final value back)
    return np.sum(b ** 2)


@pytest.mark.parametrize("f", [view_updated_by_a_callee, row_of_a_matrix_updated, list_item_updated])
def test_vmap_refuses_what_grad_refuses(f):
    assert s2s.jit(f)(X) == f(X)
    for call in (lambda: s2s.vmap(f)(XS), lambda: s2s.grad(f)(X), lambda: s2s.jvp(f, (X,), (X,))):
        with pytest.raises(s2s.S2SError, match=r"updates its parameter `a` in place"):
            call()


def test_a_local_array_passed_by_name_is_updated_under_vmap():
    np.testing.assert_allclose(s2s.vmap(local_array_updated)(XS), [local_array_updated(x) for x in XS], rtol=1e-14)
