"""grad of a complex output at real inputs raises JAX's TypeError, at every output kind and under
jit and vmap (issue 45, section 5), while the generated code of real gradients carries no complex
check: analysis/complexness.py decides where one is needed. Values against hand-derived
derivatives and central differences."""

import numpy as np
import pytest

import s2s
from s2s.api.sources import dump_source
from s2s.compiler import driver
from s2s.compiler.analysis.complexness import output_may_be_complex

X = np.array([0.3, -1.2, 2.0])
WC = np.array([1.0, 2.0j, -1.0])  # a global complex array


def c_sum(x):
    return np.sum(x * (1 + 1j))


def c_mean(x):
    return np.mean(x * (1 + 1j))


def c_product(x):
    return (x[0] * 1j) * x[1]


def c_scalar(x):
    return (1 + 2j) * x[0]


def c_global(x):
    return np.sum(x * WC)


def _twice_i(v):
    return v * 2j


def c_callee(x):
    return np.sum(_twice_i(x))


def c_fft(x):
    return np.sum(np.fft.fft(x))


def c_cast(x):
    return np.sum(x.astype(complex))


def c_loop(x):
    s = 0.0
    for i in range(3):
        s = s + x[i] * 1j
    return s


COMPLEX = [c_sum, c_mean, c_product, c_scalar, c_global, c_callee, c_fft, c_cast, c_loop]
TRANSFORMS = {
    "grad": lambda f: s2s.grad(f),
    "value_and_grad": lambda f: s2s.value_and_grad(f),
    "jacrev": lambda f: s2s.jacrev(f),
    "hessian": lambda f: s2s.hessian(f),
    "jit_grad": lambda f: s2s.jit(s2s.grad(f)),
    "jit_value_and_grad": lambda f: s2s.jit(s2s.value_and_grad(f)),
}


@pytest.mark.parametrize("f", COMPLEX, ids=lambda f: f.__name__)
@pytest.mark.parametrize("kind", sorted(TRANSFORMS))
def test_complex_output_raises_jax_type_error(f, kind):
    with pytest.raises(TypeError) as e:
        TRANSFORMS[kind](f)(X)
    assert "holomorphic=True" in str(e.value) and "vjp" in str(e.value)
    assert "complex" in str(e.value)


@pytest.mark.parametrize("f", [c_sum, c_mean, c_product, c_scalar, c_callee], ids=lambda f: f.__name__)
def test_vmap_grad_of_complex_output_raises(f):
    with pytest.raises(TypeError, match="holomorphic=True"):
        s2s.vmap(s2s.grad(f))(np.stack([X, X + 1.0]))


def test_complex_argument_not_differentiated_reaches_the_output():
    def f(x, c):
        return np.sum(x * c)
    c = np.array([1j, 2.0, -1j])
    for t in (s2s.grad(f), s2s.jit(s2s.grad(f)), s2s.value_and_grad(f)):
        with pytest.raises(TypeError, match="holomorphic=True"):
            t(X, c)
    with pytest.raises(TypeError, match="holomorphic=True"):
        s2s.vmap(s2s.grad(f))(np.stack([X, X]), np.stack([c, c]))


def _central(f, x, h=1e-6):
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e) - f(x - e)) / (2 * h)
    return out


def test_real_output_of_a_complex_argument_is_differentiated():
    c = np.array([1j, 2.0, -1 + 1j])

    def f(x, c):
        return np.sum(np.abs(x * c) ** 2)
    want = 2 * X * np.abs(c) ** 2  # hand-derived
    for t in (s2s.grad(f), s2s.jit(s2s.grad(f))):
        np.testing.assert_allclose(t(X, c), want, rtol=1e-12)
    np.testing.assert_allclose(want, _central(lambda x: f(x, c), X), rtol=1e-6)


def test_holomorphic_grad_and_vjp_of_complex_outputs_still_work():
    z = np.array([1 + 2j, -0.5j, 3.0 + 0j])
    np.testing.assert_allclose(s2s.grad(lambda z: np.sum(z * z), holomorphic=True)(z), 2 * z)
    y, pullback = s2s.vjp(c_sum, X)
    np.testing.assert_allclose(y, np.sum(X) * (1 + 1j))
    (ct,) = pullback(1.0 + 0j)
    np.testing.assert_allclose(ct, np.ones(3))  # Re((1 + 1j) * 1): a real primal's cotangent, JAX's convention


def loss(w, x, y):
    return np.mean((np.tanh(x @ w) - y) ** 2)


def selu_sum(x):
    return np.sum(1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67))


def _predict(w, x):
    return np.tanh(x @ w)


def loss_with_callee(w, x, y):
    return np.mean((_predict(w, x) - y) ** 2)


REAL = [loss, selu_sum, loss_with_callee]


@pytest.mark.parametrize("f", REAL, ids=lambda f: f.__name__)
def test_real_gradients_carry_no_complex_check(f):
    text = s2s.source(s2s.grad(f)) + dump_source(f, "grad")
    assert "real_result" not in text and "real_cotangent" not in text


def test_real_gradient_values():
    rng = np.random.default_rng(0)
    w, x, y = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)
    want = _central(lambda w_: loss(w_, x, y), w)
    for f in (loss, loss_with_callee):
        for t in (s2s.grad(f), s2s.jit(s2s.grad(f))):
            np.testing.assert_allclose(t(w, x, y), want, rtol=1e-6, atol=1e-9)
    ws = rng.normal(size=(4, 3))
    got = s2s.vmap(s2s.grad(loss), in_axes=(0, None, None))(ws, x, y)
    np.testing.assert_allclose(got, [s2s.grad(loss)(wi, x, y) for wi in ws], rtol=1e-12)


def test_jit_version_for_float_arrays_has_no_check_and_unknown_one_has():
    j = s2s.jit(s2s.grad(selu_sum))
    x = np.linspace(-1.0, 1.0, 7)
    j(x)
    assert "real_result" not in s2s.source(j, x) and "real_cotangent" not in s2s.source(j, x)
    # (vmap and other transforms cannot know the arguments' dtypes: they start from the checked version)
    assert "real_result" in s2s.source(s2s.vmap(s2s.grad(selu_sum)), np.stack([x, x]))


@pytest.mark.parametrize("f, complex_", [(c_sum, True), (c_callee, True), (c_global, True), (c_fft, True),
                                         (c_cast, True), (loss, False), (loss_with_callee, False),
                                         (selu_sum, False)], ids=lambda v: getattr(v, "__name__", str(v)))
def test_the_fact_at_real_arguments(f, complex_):
    core = driver.core_of(f)
    assert output_may_be_complex(core, (), driver.CALLEES.core) is complex_
    assert output_may_be_complex(core, None, driver.CALLEES.core)  # (any argument may be complex)


def c_named_dtype(x):
    return np.sum(np.zeros(3, "complex128") + x)


def einsum_dot(x):
    return np.einsum("i,i->", x, x)  # (a string argument that names no dtype)


def test_literal_dtypes():
    assert output_may_be_complex(driver.core_of(c_named_dtype), (), driver.CALLEES.core)
    assert not output_may_be_complex(driver.core_of(einsum_dot), (), driver.CALLEES.core)
    with pytest.raises(TypeError, match="holomorphic=True"):
        s2s.grad(c_named_dtype)(X)
    np.testing.assert_allclose(s2s.grad(einsum_dot)(X), 2 * X)


def test_a_complex_default_argument_reaches_the_output():
    def f(x, c=1j):
        return np.sum(x * c)

    def h(x, c=2.0):
        return np.sum(x * c)
    for t in (s2s.grad(f), s2s.jit(s2s.grad(f))):
        with pytest.raises(TypeError, match="holomorphic=True"):
            t(X)
    np.testing.assert_allclose(s2s.grad(h)(X), np.full(3, 2.0))
    np.testing.assert_allclose(s2s.grad(h)(X, 3.0), np.full(3, 3.0))


def test_fractional_power_of_a_python_number_may_be_complex():
    def f(x):
        return x ** 0.5

    def g(x):
        return np.sum(x) ** 0.5  # (NumPy's float64: nan, not complex, for a negative sum)
    assert output_may_be_complex(driver.core_of(f), ())
    assert not output_may_be_complex(driver.core_of(g), ())
    assert isinstance((-4.0) ** 0.5, complex)  # the Python semantics the fact follows


def test_jacrev_of_a_complex_argument_not_differentiated_raises():
    def f(x, c):
        return x * c
    c = np.array([1j, 2.0, -1j])
    for t in (s2s.jacrev(f), s2s.jacrev(lambda x, c: np.sum(f(x, c))), s2s.hessian(lambda x, c: np.sum(f(x, c)))):
        with pytest.raises(TypeError, match="holomorphic=True"):
            t(X, c)


def test_jacrev_of_an_output_real_at_any_arguments_has_no_check():
    def power_spectrum(x):
        return np.abs(np.fft.fft(x)) ** 2
    text = s2s.source(s2s.jacrev(power_spectrum), X)
    assert "real_result" not in text
    want = np.stack([(power_spectrum(X + e) - power_spectrum(X - e)) / 2e-6 for e in np.eye(3) * 1e-6], axis=1)
    np.testing.assert_allclose(s2s.jacrev(power_spectrum)(X), want, rtol=1e-6, atol=1e-6)
