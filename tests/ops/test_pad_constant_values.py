"""np.pad's `constant_values=` computed from the differentiated input (issue 27: its rules took it
as a constant). s2s computes the constant form as NumPy's definition written with primitives
(runtime/composite.py `pad_constant`), so the cotangent of an entry of the constant is the sum of
the cotangent over the border it fills. Every derivative is checked against central differences
of NumPy's own np.pad; batched values against a loop over the examples."""
import numpy as np
import pytest

import s2s

X = np.array([0.3, -0.5, 0.8, 1.1, 0.2])
XS = np.stack([X, 0.5 * X + 0.1, -X])


def fd_grad(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def scalar_constant(x):
    c = np.sum(x) * 0.5
    return np.sum(np.linspace(-1.0, 2.0, 7) * np.pad(x, 1, constant_values=c))


def pair_per_side(x):
    c = (x[0] * 2.0, np.sin(x[1]))
    return np.sum(np.linspace(1.0, 2.0, 7) * np.pad(x, (2, 0), constant_values=c) ** 2)


def pairs_per_axis(x):
    m = np.reshape(x[:4], (2, 2))
    c = ((x[4], x[0] * x[1]), (np.cos(x[2]), 3.0))  # the corners are the last axis's (NumPy's order)
    p = np.pad(m, ((1, 2), (2, 1)), constant_values=c)
    return np.sum(p * np.sqrt(np.arange(p.size).reshape(p.shape)) * p)


def column_on_3d(x):
    a = np.reshape(np.arange(24.0), (2, 3, 4)) * x[0]
    c = np.array([[x[1]], [x[2] ** 2], [3.0]])  # (3, 1): one value per axis, both sides
    return np.sum(np.sin(np.pad(a, ((1, 0), (0, 2), (1, 1)), mode="constant", constant_values=c)))


def one_element_sequence(x):
    return np.sum(np.pad(x, 2, constant_values=(x[1],)) ** 2)


def row_list(x):
    return np.sum(np.pad(x, 2, "constant", constant_values=[[x[1], x[2] * x[3]]]) ** 3)


CASES = [scalar_constant, pair_per_side, pairs_per_axis, column_on_3d, one_element_sequence, row_list]


@pytest.mark.parametrize("f", CASES)
def test_grad_and_jacfwd_through_constant_values_match_central_differences(f):
    want = fd_grad(f, X)
    np.testing.assert_allclose(s2s.grad(f)(X), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jacfwd(f)(X), want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [scalar_constant, pairs_per_axis, row_list])
def test_hessian_through_constant_values_matches_differences_of_the_gradient(f):
    g = s2s.grad(f)
    want = np.stack([fd_grad(lambda z: g(z)[i], X) for i in range(X.size)])
    np.testing.assert_allclose(s2s.hessian(f)(X), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [scalar_constant, pair_per_side, pairs_per_axis])
def test_vmap_of_grad_through_constant_values_matches_differences_per_example(f):
    got = s2s.vmap(s2s.grad(f))(XS)
    np.testing.assert_allclose(got, np.stack([fd_grad(f, x) for x in XS]), rtol=1e-6, atol=1e-7)


def test_vjp_cotangent_of_the_constant_is_the_border_sum():
    w = np.arange(7.0)
    _, back = s2s.vjp(lambda v: np.pad(v, 1, constant_values=v[0] * 2.0), X)
    # hand-derived: entry 0 gets its own weight 1 plus 2 * (the two border weights 0 + 6)
    np.testing.assert_allclose(back(w)[0], [1.0 + 2.0 * (0.0 + 6.0), 2.0, 3.0, 4.0, 5.0], rtol=1e-12)


def per_example_constant(x):
    return np.pad(x, (1, 2), mode="constant", constant_values=np.max(x))


def test_vmap_with_a_per_example_constant_matches_loop():
    np.testing.assert_array_equal(s2s.vmap(per_example_constant)(XS), np.stack([per_example_constant(x) for x in XS]))


def test_dtype_is_numpys():
    """NumPy stores the constant in the array's dtype: an int array stays int (2.7 truncated),
    float32 stays float32."""
    def pad_int(a):
        return np.pad(a, 1, constant_values=2.7)
    a = np.arange(6).reshape(2, 3)
    got = s2s.vmap(pad_int)(np.stack([a, a + 1]))
    assert got.dtype == np.pad(a, 1, constant_values=2.7).dtype
    np.testing.assert_array_equal(got, np.stack([pad_int(a), pad_int(a + 1)]))
    x32 = X.astype(np.float32)
    got = s2s.jit(lambda v: np.pad(v, 1, constant_values=np.sum(v)))(x32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.pad(x32, 1, constant_values=np.sum(x32)), rtol=1e-6)


def test_constant_values_with_another_mode_is_numpys_error():
    def edge(x):
        return np.sum(np.pad(x, 1, mode="edge", constant_values=x[0]))
    with pytest.raises(ValueError, match="unsupported keyword"):
        np.pad(X, 1, mode="edge", constant_values=0.0)  # NumPy's own
    with pytest.raises(ValueError, match="unsupported keyword"):
        s2s.grad(edge)(X)
