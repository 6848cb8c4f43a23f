"""np.diff with `prepend=` and `append=` (found by the fuzzer's --keywords campaign: the derivative
was refused when the generated code ran): the diff of the joined array, as NumPy computes it (a
number broadcast to the input's shape with the axis of length 1, an array joined as it is), under
jit, grad, jvp, vmap and vmap(grad), against NumPy and central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([[0.3, 1.2, -0.4], [2.0, -1.0, 0.5]])

CASES = {
    "prepend_number": lambda x: np.sum(np.sin(np.diff(x, prepend=0.5))),
    "append_row_axis0": lambda x: np.sum(np.sin(np.diff(x, axis=0, append=x[:1] * 2.0))),
    "both_n2": lambda x: np.sum(np.cos(np.diff(x, 2, prepend=x[:, :1] ** 2, append=1.5))),
    "positional": lambda x: np.sum(np.diff(x, 1, 0, 0.25) ** 3),
    "negative_axis_column": lambda x: np.sum(np.tanh(np.diff(x, axis=-1, append=np.array([[1.0], [-2.0]])))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_diff_with_edges_every_path(name):
    f = CASES[name]
    assert s2s.jit(f)(X) == pytest.approx(f(X), rel=1e-12)
    g = s2s.grad(f)(X)
    np.testing.assert_allclose(g, fd_grad(f, X), atol=1e-6)
    t = np.linspace(-1.0, 1.0, X.size).reshape(X.shape)
    assert s2s.jvp(f, (X,), (t,))[1] == pytest.approx(np.sum(g * t), rel=1e-9)
    xs = np.stack([X, X[::-1] * 0.5])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(xs[0]), f(xs[1])], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [fd_grad(f, xs[0]), fd_grad(f, xs[1])], atol=1e-6)


def test_diff_with_edges_keeps_numpys_dtype_and_shape():
    def f(x):
        return np.diff(x, prepend=0.5, append=np.float64(2.0))
    x32 = X.astype(np.float32)
    out = s2s.jit(f)(x32)
    assert out.dtype == f(x32).dtype == np.float64  # (the joined number is a float64 array, as in NumPy)
    np.testing.assert_array_equal(out, f(x32))
