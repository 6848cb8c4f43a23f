"""vmap's per-example fallback (rt.vb_loop) gives every example its own copy of the unbatched
arguments, so a helper that updates one in place (rt.add_at) cannot leak into the next example."""
import numpy as np

import s2s
from s2s import runtime as rt


def test_unbatched_argument_updated_in_place_is_private_per_example():
    acc = np.zeros(3)
    v = np.array([1.0, 2.0, 3.0])
    out = rt.vb_loop("rt.add_at", (False, False, True), 3, acc, 1, v)
    np.testing.assert_array_equal(out, [[0.0, 1.0, 0.0], [0.0, 2.0, 0.0], [0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(acc, np.zeros(3))


def one_row_update(x):
    A = x.copy()
    A[0] = x[1] * x[2]
    return np.sum(A * A)


def test_batched_jacfwd_of_grad_with_an_in_place_update_is_the_hessian():
    """jacfwd runs one vmap of the jvp with the primal unbatched: it must equal the column loop."""
    x = np.array([0.4, -0.7, 1.1])
    loop = np.stack([s2s.jvp(s2s.grad(one_row_update), (x,), (e,))[1] for e in np.eye(3)])
    # the hand-derived Hessian of (x1 x2)^2 + x1^2 + x2^2
    hand = np.array([[0.0, 0.0, 0.0], [0.0, 2 * x[2] ** 2 + 2, 4 * x[1] * x[2]],
                     [0.0, 4 * x[1] * x[2], 2 * x[1] ** 2 + 2]])
    np.testing.assert_allclose(loop, hand, rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(s2s.grad(one_row_update))(x), hand, rtol=1e-12)
    np.testing.assert_allclose(s2s.hessian(one_row_update)(x), hand, rtol=1e-12)
