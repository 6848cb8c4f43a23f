"""`a, b, c = x` of a batched array inside a vmapped function unpacks each example's rows, never
the batch axis (a batch as long as the rows gave silently wrong numbers), also under grad."""
import numpy as np

import s2s

XS = np.array([[0.7, -0.4, 1.3], [0.1, 0.9, -0.8], [2.0, 1.0, 0.5]])  # as many examples as rows: no shape error


def unpack_vector(x):
    a, b, c = x
    return np.sin(a) * 3.0 + c ** 2


def unpack_matrix_rows(x):
    r0, r1, r2 = np.outer(x, x)
    return np.sum(r0 * r2) + np.sum(np.tanh(r1))


def unpack_tuple(x):
    a, b = (x[0] * x[1], np.sin(x))
    return a * np.sum(b)


H = 1e-6


def _fd_grad(f, x):
    return np.array([(f(x + H * e) - f(x - H * e)) / (2 * H) for e in np.eye(x.size)])


def test_vmap_of_unpacking_matches_a_loop():
    for f in (unpack_vector, unpack_matrix_rows, unpack_tuple):
        np.testing.assert_allclose(s2s.vmap(f)(XS), [f(x) for x in XS], rtol=1e-12)
        np.testing.assert_allclose(s2s.vmap(f)(XS[:2]), [f(x) for x in XS[:2]], rtol=1e-12)


def test_vmap_of_grad_of_unpacking_matches_finite_differences():
    for f in (unpack_vector, unpack_matrix_rows, unpack_tuple):
        np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XS), [_fd_grad(f, x) for x in XS], rtol=1e-6, atol=1e-8)
        got = s2s.grad(lambda xs, f=f: np.sum(s2s.vmap(f)(xs)))(XS)
        np.testing.assert_allclose(got, [_fd_grad(f, x) for x in XS], rtol=1e-6, atol=1e-8)
