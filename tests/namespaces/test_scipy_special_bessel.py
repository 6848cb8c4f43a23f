"""s2s.scipy.special's gamma-family, inverse-erfc and Bessel functions (beta, gamma, rgamma,
gammasgn, psi, erfcinv, i0, i1, iv, ive, j0, j1, jn, y0, y1, yn, stdtr): values against SciPy's
own, reverse and forward derivatives against central differences of SciPy's function, second and
third order against central differences, vmap (of the function and of its gradient) against a
Python loop over the examples; a derivative in a Bessel order or t's degrees of freedom is refused."""
import numpy as np
import pytest
import scipy.special as ss
from scipy_checks import check_vjp_and_jvp, fd_vjp, sum_sin

import s2s
from s2s.scipy import special as sp
from s2s.test_util import check_grads

X = np.array([[0.35, 1.7, 2.6], [0.9, 3.1, 1.2]])        # positive, away from zeros of Bessel functions' arguments
SIGNED = np.array([[-1.3, -0.4, 0.7], [1.9, -2.2, 0.25]])
GAMMA_ARGS = np.array([[-1.3, -0.4, 0.7], [1.9, -2.7, 3.25]])  # both signs of Gamma, away from its poles
TWO = np.array([[0.12, 0.37, 1.55], [1.81, 0.63, 1.29]])  # inside (0, 2): erfcinv's domain
ORDERS = np.array([[0.0, 1.5, 2.0], [3.25, 1.0, 0.5]])     # iv's and ive's real orders

# name -> (s2s function of the arguments, SciPy's function, arguments)
CASES = {
    "gamma": (sp.gamma, ss.gamma, (GAMMA_ARGS,)),
    "rgamma": (sp.rgamma, ss.rgamma, (GAMMA_ARGS,)),
    "psi": (sp.psi, ss.psi, (X,)),
    "beta": (sp.beta, ss.beta, (GAMMA_ARGS, X)),
    "erfcinv": (sp.erfcinv, ss.erfcinv, (TWO,)),
    "i0": (sp.i0, ss.i0, (SIGNED,)),
    "i1": (sp.i1, ss.i1, (SIGNED,)),
    "iv": (lambda x: sp.iv(ORDERS, x), lambda x: ss.iv(ORDERS, x), (X,)),
    "iv_int_order": (lambda x: sp.iv(2, x), lambda x: ss.iv(2, x), (SIGNED,)),
    "ive": (lambda x: sp.ive(ORDERS, x), lambda x: ss.ive(ORDERS, x), (X,)),
    "ive_signed": (lambda x: sp.ive(1, x), lambda x: ss.ive(1, x), (SIGNED,)),
    "j0": (sp.j0, ss.j0, (SIGNED,)),
    "j1": (sp.j1, ss.j1, (SIGNED,)),
    "jn": (lambda x: sp.jn(2, x), lambda x: ss.jn(2, x), (SIGNED,)),
    "jn0": (lambda x: sp.jn(0, x), lambda x: ss.jn(0, x), (SIGNED,)),
    "y0": (sp.y0, ss.y0, (X,)),
    "y1": (sp.y1, ss.y1, (X,)),
    "yn": (lambda x: sp.yn(2, x), lambda x: ss.yn(2, x), (X,)),
    "stdtr": (lambda t: sp.stdtr(X + 1.0, t), lambda t: ss.stdtr(X + 1.0, t), (SIGNED,)),
}
THIRD = ("gamma", "rgamma", "erfcinv", "i0", "i1", "iv", "ive", "j0", "j1", "jn", "y0", "y1", "yn", "stdtr")


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_scipy(name):
    fn, ref, args = CASES[name]
    np.testing.assert_allclose(fn(*args), ref(*args), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_and_jvp_match_differences_of_scipy(name):
    fn, ref, args = CASES[name]
    check_vjp_and_jvp(fn, ref, args, 2)


@pytest.mark.parametrize("name", sorted(CASES))
def test_higher_orders_match_differences(name):
    fn, _, args = CASES[name]
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)
    if name in THIRD:
        check_grads(fn, args, order=3, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_of_function_and_gradient_match_a_loop(name):
    fn, _, args = CASES[name]
    if name in ("iv", "ive", "stdtr"):  # (the order array is per element: vmap over the rows of x alone)
        return _vmap_of_rows(fn, args[0])
    batched = s2s.vmap(fn)(*args)
    np.testing.assert_allclose(batched, np.stack([fn(*row) for row in zip(*args)]), rtol=1e-13, atol=1e-15)
    loss = sum_sin(fn, len(args))
    per_row = s2s.vmap(s2s.grad(loss))(*args)
    np.testing.assert_allclose(per_row, np.stack([s2s.grad(loss)(*row) for row in zip(*args)]), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(fn)(*args), fn(*args), rtol=1e-13, atol=1e-15)


def _vmap_of_rows(fn, x):
    """vmap over a stack of whole arguments (each example all of x, shifted)."""
    stack = np.stack([x, x + 0.5, x + 1.25])
    loss = sum_sin(fn, 1)
    np.testing.assert_allclose(s2s.vmap(fn)(stack), np.stack([fn(e) for e in stack]), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(loss))(stack), np.stack([s2s.grad(loss)(e) for e in stack]),
                               rtol=1e-12)


def test_bessel_orders_batched_with_x():
    """vmap over the order and x together: each example its own order, against a loop."""
    v = np.array([0.5, 1.0, 2.5])

    def loss(order, x):
        return np.sum(np.sin(sp.iv(order, x) + sp.ive(order, x)))

    xs = X[0] + np.arange(3.0)[:, None]
    got = s2s.vmap(s2s.grad(loss, argnums=1))(v, xs)
    np.testing.assert_allclose(got, np.stack([s2s.grad(loss, argnums=1)(o, e) for o, e in zip(v, xs)]), rtol=1e-12)


def test_gammasgn_is_piecewise_constant():
    np.testing.assert_array_equal(sp.gammasgn(GAMMA_ARGS), ss.gammasgn(GAMMA_ARGS))

    def loss(x):
        return np.sum(sp.gammasgn(x) * x)

    np.testing.assert_array_equal(s2s.grad(loss)(GAMMA_ARGS), ss.gammasgn(GAMMA_ARGS))
    np.testing.assert_array_equal(s2s.vmap(sp.gammasgn)(GAMMA_ARGS), ss.gammasgn(GAMMA_ARGS))


def test_derivatives_at_zero_are_the_limits():
    """j1'(0) = i1'(0) = 1/2 (the rule's j0 - j1 / x is 0/0 there)."""
    for f in (sp.j1, sp.i1):
        np.testing.assert_allclose(s2s.grad(f)(0.0), 0.5)
    np.testing.assert_allclose(s2s.grad(s2s.grad(sp.j0))(0.0), -0.5)


def test_a_derivative_in_an_order_or_degrees_of_freedom_is_refused():
    def by_order(v):
        return np.sum(sp.iv(v, X))

    def by_df(df):
        return np.sum(sp.stdtr(df, SIGNED))

    with pytest.raises(s2s.S2SError, match="scipy.special.iv in its order"):
        s2s.grad(by_order)(ORDERS)
    with pytest.raises(s2s.S2SError, match="degrees of freedom"):
        s2s.jvp(by_df, (X + 1.0,), (X,))
    np.testing.assert_allclose(s2s.grad(lambda x: np.sum(sp.jn(ORDERS, x)))(X),
                               fd_vjp(lambda x: ss.jn(ORDERS, x), (X,), 1.0, 0), rtol=1e-6)


def test_on_dask_lazy_and_equal_to_numpy():
    da = pytest.importorskip("dask.array", reason="the Dask backend needs dask: pip install 's2s[dask]'")

    def loss(x):
        return np.sum(sp.j0(x) * sp.i1(x) + sp.yn(2, x) + sp.gamma(x) * sp.erfcinv(x / 4.0) + sp.iv(1.5, x))

    xd = da.from_array(X, chunks=(1, 3))
    g = s2s.grad(loss)(xd)
    assert isinstance(g, da.Array)
    np.testing.assert_allclose(g.compute(), s2s.grad(loss)(X), rtol=1e-13)


def test_a_function_cupyx_lacks_is_a_clear_error_on_a_gpu_backend():
    """The CuPy-strict stand-in offers only cupyx.scipy.special's functions: iv is not among them."""
    from fake_backend import BACKEND, put

    from s2s.backends import arrays
    arrays.register(BACKEND)
    try:
        with pytest.raises(s2s.S2SError, match="scipy.special.iv has no fake version"):
            s2s.grad(lambda x: np.sum(sp.iv(1.5, x)))(put(X))
    finally:
        arrays.unregister("fake")


def test_on_a_gpu_backend_the_functions_cupyx_has_match_numpy():
    """cupyx.scipy.special has gamma, rgamma, gammasgn, erfcinv, i0, i1, j0, j1, y0, y1 and yn: on the
    CuPy-strict stand-in, grad and vmap(grad) of them equal NumPy's."""
    from fake_backend import BACKEND, FakeArray, host, put

    from s2s.backends import arrays

    def loss(x):
        return np.sum(sp.gamma(x) * sp.gammasgn(x) + sp.rgamma(x) + sp.erfcinv(x / 4.0) + sp.i0(x) * sp.i1(x)
                      + sp.j0(x) - sp.j1(x) + sp.y0(x) * sp.y1(x) + sp.yn(2, x) + sp.beta(x, x + 1.0))

    arrays.register(BACKEND)
    try:
        g = s2s.grad(loss)(put(X))
        assert isinstance(g, FakeArray)
        np.testing.assert_allclose(host(g), s2s.grad(loss)(X), rtol=1e-12)
        np.testing.assert_allclose(host(s2s.vmap(s2s.grad(loss))(put(X))), s2s.vmap(s2s.grad(loss))(X), rtol=1e-12)
    finally:
        arrays.unregister("fake")
