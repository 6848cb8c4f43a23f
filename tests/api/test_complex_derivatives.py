"""Complex inputs and outputs under JAX's conventions (issue 45, section 5): `grad(f,
holomorphic=True)(z)` is f'(z); grad of a real-valued function of complex input is df/dx - i df/dy
(JAX's `grad(lambda z: abs(z) ** 2)(3 + 4j)` is 6 - 8j); jvp is the directional derivative; vjp is
its transpose without conjugates (Re <ct, J dz> = Re <vjp(ct), dz>, bilinear). Every value is
checked against central differences of the plain function; JAX's errors where it refuses."""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(7)
Z = np.array([0.8 + 0.6j, -0.4 + 1.1j, 1.3 - 0.2j])
H = 1e-6

HOLOMORPHIC = {
    "poly": lambda z: z ** 3 - 2 * z * z[0] + 1j,
    "sin_exp": lambda z: np.sin(z) * np.exp(z[1]),
    "rational": lambda z: np.exp(z) / (1 + z ** 2),
    "log_sqrt": lambda z: np.log(z) + np.sqrt(z) * z[2],
    "tanh_sum": lambda z: np.tanh(z) * np.sum(z),
    "matmul": lambda z: np.outer(z, z) @ z,
    "solve": lambda z: np.linalg.solve(np.outer(z, z) + 2 * np.eye(3), z),
    "power": lambda z: z ** 2.5,
    "cumsum_loop": lambda z: _loop(z),
}


def _loop(z):
    acc = z * 0
    for k in range(3):
        acc = acc + np.cumsum(z) ** (k + 1) / (k + 1)
    return acc


def _fd(f, z, t):
    return (f(z + H * t) - f(z - H * t)) / (2 * H)


@pytest.mark.parametrize("name", sorted(HOLOMORPHIC))
def test_holomorphic_jacobians_and_grad(name):
    f = HOLOMORPHIC[name]
    want = np.stack([_fd(f, Z, e) for e in np.eye(3)], axis=1)  # f'(z) columns along real directions
    np.testing.assert_allclose(_fd(f, Z, 1j * np.eye(3)[1]), 1j * want[:, 1], rtol=1e-6, atol=1e-8)  # (holomorphic)
    for jac in (s2s.jacfwd, s2s.jacrev, s2s.jacobian):
        np.testing.assert_allclose(jac(f, holomorphic=True)(Z), want, rtol=1e-6, atol=1e-8)
    g = s2s.grad(lambda z: np.sum(f(z) * np.array([1.0, 2.0 - 1j, 0.5j])), holomorphic=True)(Z)
    np.testing.assert_allclose(g, np.array([1.0, 2.0 - 1j, 0.5j]) @ want, rtol=1e-6, atol=1e-8)
    y, dy = s2s.jvp(f, (Z,), (1j * np.ones(3),))
    np.testing.assert_allclose(y, f(Z), rtol=1e-12)
    np.testing.assert_allclose(dy, want @ (1j * np.ones(3)), rtol=1e-6, atol=1e-8)
    ct = RNG.normal(size=3) + 1j * RNG.normal(size=3)
    np.testing.assert_allclose(s2s.vjp(f, Z)[1](ct)[0], ct @ want, rtol=1e-6, atol=1e-8)  # no conjugate


def test_holomorphic_grad_of_a_scalar_function():
    def f(z):
        return z ** 3 + np.sin(z)

    z = 1.0 + 2.0j
    want = 3 * z ** 2 + np.cos(z)
    np.testing.assert_allclose(s2s.grad(f, holomorphic=True)(z), want, rtol=1e-12)
    value, g = s2s.value_and_grad(f, holomorphic=True)(np.complex128(z))
    np.testing.assert_allclose((value, g), (f(z), want), rtol=1e-12)

    def with_aux(z, w):
        return z * w, {"w2": w * w}

    g, aux = s2s.grad(with_aux, argnums=(0, 1), has_aux=True, holomorphic=True)(np.complex128(z), np.complex128(2j))
    np.testing.assert_allclose(g, (2j, z), rtol=1e-12)
    assert aux == {"w2": -4}


REAL_VALUED = {
    "abs2": lambda z: np.sum(np.abs(z) ** 2),
    "real_imag": lambda z: np.sum(np.real(z) ** 2 * np.imag(z)),
    "abs_conj": lambda z: np.real(np.sum(np.conj(z) * z ** 2 / (1 + np.abs(z)))),
    "conj_method": lambda z: np.real(np.sum(z.conj() * np.exp(1j * z))),
    "angle_free": lambda z: np.sum(np.log(np.abs(z) + 1.0)),
}


@pytest.mark.parametrize("name", sorted(REAL_VALUED))
def test_grad_of_a_real_function_of_complex_input(name):
    f = REAL_VALUED[name]
    want = np.array([_fd(f, Z, e) - 1j * _fd(f, Z, 1j * e) for e in np.eye(3)])  # df/dx - i df/dy: JAX's
    np.testing.assert_allclose(s2s.grad(f)(Z), want, rtol=1e-6, atol=1e-8)
    value, g = s2s.value_and_grad(f)(Z)
    np.testing.assert_allclose(value, f(Z), rtol=1e-12)
    np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)
    t = RNG.normal(size=3) + 1j * RNG.normal(size=3)
    np.testing.assert_allclose(s2s.jvp(f, (Z,), (t,))[1], _fd(f, Z, t), rtol=1e-6, atol=1e-8)


def test_jaxs_value_for_abs_squared():
    np.testing.assert_allclose(s2s.grad(lambda z: np.abs(z) ** 2)(3.0 + 4.0j), 6.0 - 8.0j, rtol=1e-12)


def test_real_and_complex_arguments_together():
    def f(x, z):
        return np.sum(x * np.abs(z) ** 2)

    x = np.array([1.0, 2.0, 0.5])
    gx, gz = s2s.grad(f, argnums=(0, 1))(x, Z)
    np.testing.assert_allclose(gx, np.abs(Z) ** 2, rtol=1e-12)
    np.testing.assert_allclose(gz, 2 * x * np.conj(Z), rtol=1e-12)
    assert gx.dtype == np.float64


def test_vjp_is_the_bilinear_transpose_of_the_jvp():
    def f(z):  # (not holomorphic)
        return np.conj(z) ** 2 * z[0] + np.exp(np.conj(z))

    ct = RNG.normal(size=3) + 1j * RNG.normal(size=3)
    (g,) = s2s.vjp(f, Z)[1](ct)
    for d in (np.eye(3)[0], 1j * np.eye(3)[1], RNG.normal(size=3) + 1j * RNG.normal(size=3)):
        np.testing.assert_allclose(np.real(np.sum(g * d)), np.real(np.sum(ct * _fd(f, Z, d))), rtol=1e-6)


def test_conj_method_of_a_complex_value_is_its_conjugate():
    def f(x):
        return np.fft.fft(x).conj()

    x = np.array([1.0, 2.0, 0.5])
    np.testing.assert_allclose(s2s.jit(f)(x), np.conj(np.fft.fft(x)), rtol=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda: s2s.grad(lambda z: z ** 2)(1.0 + 2.0j), "real-valued output"),
    (lambda: s2s.grad(lambda z: np.sum(z ** 2))(Z), "real-valued outputs"),
    (lambda: s2s.value_and_grad(lambda z: np.sum(z * z))(Z), "pass holomorphic=True"),
    (lambda: s2s.grad(lambda z: z ** 2, holomorphic=True)(1.5), "requires inputs with complex dtype"),
    (lambda: s2s.grad(lambda z: np.abs(z), holomorphic=True)(1j), "requires outputs with complex dtype"),
    (lambda: s2s.jacfwd(lambda z: z * 2)(Z), "jacfwd requires real-valued inputs"),
    (lambda: s2s.jacrev(lambda z: np.abs(z))(Z), "holomorphic=True only"),
    (lambda: s2s.jacrev(lambda x: x * (1 + 0.2j))(np.ones(2)), "jacrev requires real-valued outputs"),
    (lambda: s2s.jacrev(lambda z: z * 2, holomorphic=True)(np.ones(2)), "requires inputs with complex dtype"),
    (lambda: s2s.jacfwd(lambda z: np.abs(z), holomorphic=True)(Z), "requires outputs with complex dtype"),
    (lambda: s2s.hessian(lambda z: np.sum(z ** 3), holomorphic=True)(np.ones(2)), "requires inputs with complex"),
])
def test_jaxs_refusals(call, message):
    with pytest.raises(s2s.S2SError, match=message):
        call()


def test_vmap_of_a_holomorphic_derivative():
    g = s2s.grad(lambda z: z ** 3 * np.exp(z), holomorphic=True)
    zs = np.array([0.3 + 1j, -1.2 + 0.1j, 2j])
    np.testing.assert_allclose(s2s.vmap(g)(zs), [g(z) for z in zs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(g)(zs), (3 * zs ** 2 + zs ** 3) * np.exp(zs), rtol=1e-12)
    jac = s2s.jacfwd(lambda z: z ** 2 * z[0], holomorphic=True)
    stack = np.stack([Z, 2 * Z])
    np.testing.assert_allclose(s2s.vmap(jac)(stack), np.stack([jac(z) for z in stack]), rtol=1e-12)


def test_a_holomorphic_derivative_is_transformed_further():
    """It is generated code (issue 45: it was called, not transformed): jit, grad with
    holomorphic=True (f''), jacfwd with holomorphic=True, and a call inside a transformed function."""
    g = s2s.grad(lambda z: z ** 3, holomorphic=True)
    np.testing.assert_allclose(s2s.jit(g)(1j), 3 * (1j) ** 2, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(g, holomorphic=True)(1 + 1j), 6 * (1 + 1j), rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(g, holomorphic=True)(np.complex128(2j)), 12j, rtol=1e-12)

    def inside(z):
        return np.abs(s2s.grad(lambda w: w ** 2, holomorphic=True)(z)) ** 2  # |2 z|^2 = 4 |z|^2

    z = 1.0 + 2.0j
    np.testing.assert_allclose(s2s.grad(inside)(z), 8 * np.conj(z), rtol=1e-12)  # JAX's: d/dx - i d/dy
