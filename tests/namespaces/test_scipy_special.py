"""s2s.scipy.special: each function's values against SciPy's own, its reverse and forward
derivatives against central differences of SciPy's function, second and third order against
central differences, and vmap (of the function and of its gradient) against a Python loop."""
import numpy as np
import pytest
import scipy.special as ss
from scipy_checks import check_vjp_and_jvp, fd_vjp, sum_sin

import s2s
from s2s.scipy import special as sp
from s2s.test_util import check_grads

X = np.array([[0.35, 1.7, 2.6], [0.9, 3.1, 1.2]])       # positive, away from every pole and kink
SIGNED = np.array([[-1.3, -0.4, 0.7], [1.9, -2.2, 0.25]])
UNIT = np.array([[0.12, 0.37, 0.55], [0.81, 0.63, 0.29]])  # inside (0, 1)
SYM = np.array([[-0.6, -0.2, 0.35], [0.15, 0.7, -0.45]])    # inside (-1, 1)

# name -> (s2s function of the arguments, SciPy's function, arguments)
CASES = {
    "gammaln": (sp.gammaln, ss.gammaln, (X,)),
    "digamma": (sp.digamma, ss.digamma, (X,)),
    "polygamma1": (lambda x: sp.polygamma(1, x), lambda x: ss.polygamma(1, x), (X,)),
    "polygamma2": (lambda x: sp.polygamma(2, x), lambda x: ss.polygamma(2, x), (X,)),
    "erf": (sp.erf, ss.erf, (SIGNED,)),
    "erfc": (sp.erfc, ss.erfc, (SIGNED,)),
    "erfinv": (sp.erfinv, ss.erfinv, (SYM,)),
    "ndtr": (sp.ndtr, ss.ndtr, (SIGNED,)),
    "ndtri": (sp.ndtri, ss.ndtri, (UNIT,)),
    "log_ndtr": (sp.log_ndtr, ss.log_ndtr, (SIGNED,)),
    "i0e": (sp.i0e, ss.i0e, (SIGNED,)),
    "i1e": (sp.i1e, ss.i1e, (SIGNED,)),
    "expit": (sp.expit, ss.expit, (SIGNED,)),
    "logit": (sp.logit, ss.logit, (UNIT,)),
    "entr": (sp.entr, ss.entr, (X,)),
    "xlogy": (sp.xlogy, ss.xlogy, (SIGNED, X)),
    "xlog1py": (sp.xlog1py, ss.xlog1py, (SIGNED, X)),
    "betaln": (sp.betaln, ss.betaln, (X, X[::-1] + 0.5)),
    "multigammaln": (lambda a: sp.multigammaln(a, 3), lambda a: ss.multigammaln(a, 3), (X + 1.5,)),
    "gammainc": (lambda x: sp.gammainc(2.5, x), lambda x: ss.gammainc(2.5, x), (X,)),
    "gammaincc": (lambda x: sp.gammaincc(X[::-1], x), lambda x: ss.gammaincc(X[::-1], x), (X,)),
    "betainc": (lambda x: sp.betainc(1.7, X[::-1] + 0.5, x), lambda x: ss.betainc(1.7, X[::-1] + 0.5, x), (UNIT,)),
    "logsumexp": (sp.logsumexp, ss.logsumexp, (SIGNED,)),
    "logsumexp_axis_b": (lambda a, b: sp.logsumexp(a, axis=-1, b=b), lambda a, b: ss.logsumexp(a, axis=-1, b=b),
                         (SIGNED, X)),
    "logsumexp_keepdims": (lambda a: sp.logsumexp(a, axis=0, keepdims=True),
                           lambda a: ss.logsumexp(a, axis=0, keepdims=True), (SIGNED,)),
    "softmax": (sp.softmax, ss.softmax, (SIGNED,)),
    "softmax_axis": (lambda x: sp.softmax(x, axis=-1), lambda x: ss.softmax(x, axis=-1), (SIGNED,)),
    "log_softmax": (sp.log_softmax, ss.log_softmax, (SIGNED,)),
    "log_softmax_axis": (lambda x: sp.log_softmax(x, axis=0), lambda x: ss.log_softmax(x, axis=0), (SIGNED,)),
}
# functions with a third-order check (the primitives: their rules are applied three times)
THIRD = ("gammaln", "digamma", "polygamma1", "erf", "erfc", "erfinv", "ndtri", "log_ndtr", "i0e", "i1e", "expit",
         "logit", "betaln", "logsumexp", "gammainc", "betainc")
# third-order reverse mode through an `if` (logsumexp's `if not keepdims:`) hits s2s's reverse-of-reverse-
# of-reverse tape bug, reported apart; those functions are checked at order 3 in forward mode
THIRD_FWD_ONLY = ("logsumexp",)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_match_scipy(name):
    fn, ref, args = CASES[name]
    np.testing.assert_allclose(fn(*args), ref(*args), rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vjp_and_jvp_match_differences_of_scipy(name):
    fn, ref, args = CASES[name]
    check_vjp_and_jvp(fn, ref, args, 1)


@pytest.mark.parametrize("name", sorted(CASES))
def test_higher_orders_match_differences(name):
    fn, _, args = CASES[name]
    check_grads(fn, args, order=2, modes=("fwd", "rev"), atol=1e-4, rtol=1e-4)
    if name in THIRD:
        modes = ("fwd",) if name in THIRD_FWD_ONLY else ("fwd", "rev")
        check_grads(fn, args, order=3, modes=modes, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("name", sorted(CASES))
def test_vmap_of_function_and_gradient_match_a_loop(name):
    fn, _, args = CASES[name]
    batched = s2s.vmap(fn)(*args)
    np.testing.assert_allclose(batched, np.stack([fn(*row) for row in zip(*args)]), rtol=1e-13, atol=1e-15)

    loss = sum_sin(fn, len(args))
    per_row = s2s.vmap(s2s.grad(loss))(*args)
    np.testing.assert_allclose(per_row, np.stack([s2s.grad(loss)(*row) for row in zip(*args)]), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(fn)(*args), fn(*args), rtol=1e-13, atol=1e-15)


def test_logsumexp_return_sign_with_negative_weights():
    a, b = SIGNED[0], np.array([1.0, -2.5, 0.5])
    out, sign = sp.logsumexp(a, b=b, return_sign=True)
    want, want_sign = ss.logsumexp(a, b=b, return_sign=True)
    np.testing.assert_allclose(out, want, rtol=1e-13)
    assert sign == want_sign
    g = s2s.grad(lambda v: sp.logsumexp(v, b=b, return_sign=True)[0])(a)
    np.testing.assert_allclose(g, fd_vjp(lambda v: ss.logsumexp(v, b=b, return_sign=True)[0], (a,), 1.0, 0),
                               rtol=1e-6)
    assert np.isfinite(sp.logsumexp(np.array([1000.0, 1000.0])))


def test_polygamma_under_vmap_with_an_order_argument_and_float32():
    x32 = X.astype(np.float32)
    assert sp.gammaln(x32).dtype == np.float32 and sp.erfinv(SYM.astype(np.float32)).dtype == np.float32
    out = s2s.vmap(lambda x: sp.polygamma(3, x))(X)
    np.testing.assert_allclose(out, ss.polygamma(3, X), rtol=1e-13)


def test_i1e_derivative_at_zero():
    np.testing.assert_allclose(s2s.grad(lambda x: sp.i1e(x))(0.0), 0.5)
    np.testing.assert_allclose(s2s.grad(s2s.grad(lambda x: sp.i0e(x)))(0.3),
                               fd_vjp(lambda v: ss.i1e(v) - np.sign(v) * ss.i0e(v), (np.array(0.3),), 1.0, 0),
                               rtol=1e-6)


def test_incomplete_gamma_and_beta_refuse_a_derivative_in_their_shape_parameters():
    with pytest.raises(s2s.S2SError, match="no derivative in its shape parameter a"):
        s2s.grad(lambda a: np.sum(sp.gammainc(a, X)))(X)
    with pytest.raises(s2s.S2SError, match="no derivative in its shape parameter b"):
        s2s.jvp(lambda b: sp.betainc(1.5, b, UNIT), (X,), (X,))
    np.testing.assert_allclose(s2s.grad(lambda a, x: np.sum(sp.gammaincc(a, x)), argnums=1)(X, X),
                               fd_vjp(ss.gammaincc, (X, X), 1.0, 1), rtol=1e-6)
