"""A Jacobian specialized on float array arguments calls its diagonal function as a plain function
when nothing in it can refuse or raise (transforms/diagonal.raises_nothing), so jit inlines it; the
matrix is then built by `rt.diag_of_vector`, which still hands a non-finite diagonal to the
basis. Values are checked against central differences of the gradient, the looped Jacobian (one
jvp per basis vector) and the hand-derived Hessians."""
import numpy as np
import pytest
from helpers_compare import fd_hessian

import s2s


def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def logistic_sum(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def scaled_squares(x):
    return 3.0 * np.sum(x * x) - np.dot(x, x) / 4.0


X = np.array([0.3, -1.2, 0.8, 2.0])


def hand(f, x):
    if f is tanh3:
        t = np.tanh(x)
        return np.diag((6.0 * t - 12.0 * t ** 3) * (1.0 - t * t))
    if f is logistic_sum:
        s = 1.0 / (1.0 + np.exp(-x))
        return np.diag(s * (1 - s) * (1 - 2 * s))
    return np.diag(np.full(x.shape, 5.5))


@pytest.mark.parametrize("f", [tanh3, logistic_sum, scaled_squares])
def test_inlined_diagonal_hessians_match_differences_the_basis_and_hand(f):
    h, jh = s2s.hessian(f), s2s.jit(s2s.hessian(f))
    src = s2s.source(jh, X)
    assert "rt.diag_of_vector(" in src and "rt.diag_jacobian(" not in src and "diagonal_" not in src.split("(")[0]
    for _ in range(2):  # the first call and the fast path
        got = jh(X)
        np.testing.assert_allclose(got, hand(f, X), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got, h.looped(X), rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(got, fd_hessian(f, X), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got, s2s.jacrev(s2s.jacfwd(f))(X), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f", [tanh3, logistic_sum])
def test_a_non_finite_diagonal_takes_the_basis_as_before(f):
    x = np.array([0.3, np.nan, np.inf, -np.inf])
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(s2s.jit(s2s.hessian(f))(x), s2s.hessian(f).looped(x))


@pytest.mark.parametrize("body, safe", [
    ("t = xp.tanh(x)\nd = 1.0 - t * t\nreturn d", True),
    ("t = xp.sum(x)\nd = t / 4.0\nreturn d", True),                 # a nonzero divisor
    ("d = 1.0 / x\nreturn d", True),                                # an array operand: NumPy's inf
    ("t = xp.sum(x)\nd = 1.0 / t\nreturn d", False),               # a NumPy scalar, not an array
    ("t = 2.0\nd = 1.0 / (t - 2.0)\nreturn d", False),             # Python numbers: ZeroDivisionError
    ("t = 10.0 ** 400\nreturn t", False),                           # OverflowError
    ("rt.not_diagonal()\nreturn x", False),
    ("d = rt.dot_vjp_a_diag(1.0, x, 1.0, x)\nreturn d", False),     # its run-time test refuses
    ("d = helper(x)\nreturn d", False),                              # anything else called
], ids=["elementwise", "nonzero_divisor", "array_divisor", "scalar_divisor", "number_divisor", "overflow",
        "refusal", "diag_helper", "user_call"])
def test_raises_nothing_decides_whether_the_diagonal_is_a_plain_call(body, safe):
    import gast

    from s2s.compiler.transforms.diagonal import raises_nothing
    src = "def diagonal(x):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert raises_nothing(gast.parse(src).body[0], {"x": 1}) is safe


def test_float32_and_matrices_keep_their_dtype_and_shape():
    x32 = X.astype(np.float32)
    got = s2s.jit(s2s.hessian(tanh3))(x32)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, hand(tanh3, X), rtol=1e-5, atol=1e-6)
    m = X.reshape(2, 2)
    got = s2s.jit(s2s.hessian(tanh3))(m)
    assert got.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(got.reshape(4, 4), hand(tanh3, X), rtol=1e-12, atol=1e-14)
