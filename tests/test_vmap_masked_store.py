"""vmap: a value that is the same for every example, stored into part of a per-example array
under a per-example condition (the mask is shaped by the batched old slot, not by the new
value: found through jacfwd of a fuzz program), and the batch size of a batched call whose
first batched argument holds no array."""
import numpy as np

import s2s
from s2s import runtime as rt


def store_const_under_branch(x):
    a = x * 1.0
    if np.sum(x) > 0.5:
        a[[0, 2]] = np.array([1.3, 2.0])
    return a


def store_row_under_branch(x):
    a = np.zeros((2, 3)) + x
    if x[0] > 0.0:
        a[1] = np.array([5.0, 6.0, 7.0])
    return a


def test_unbatched_value_stored_under_a_batched_branch_equals_a_loop():
    xs = np.array([[0.1, 0.2, 0.3], [0.5, 0.4, -0.2], [-0.3, 0.1, 0.2], [0.9, -0.1, 0.0]])
    for f in (store_const_under_branch, store_row_under_branch):
        np.testing.assert_array_equal(s2s.vmap(f)(xs), np.stack([f(x) for x in xs]))


def test_batch_size_from_the_first_batched_argument_with_an_array():
    assert rt.vb_n(((), np.zeros((4, 2)))) == 4
    assert rt.vb_n((None, [np.zeros((3,))])) == 3


def test_hessian_through_a_norm_of_one_element():
    def f(x):
        acc = x + (np.linalg.norm(x[0]) + 0.1)
        return np.sum(acc * acc)
    x = np.array([0.3, -0.2, 0.5])
    g = s2s.grad(f)
    eps = 1e-6
    fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(s2s.hessian(f)(x), fd, rtol=1e-6, atol=1e-8)
