"""Complex numbers under every transform (issue 45, section 5), with JAX's conventions:

- a `holomorphic=True` derivative is generated code like any other: jit, vmap, jvp, grad and the
  Jacobians transform it again, and `hessian(f, holomorphic=True)` is f'';
- a real value that a complex cotangent reaches takes its real part (`np.real(np.exp(1j * x))`
  has the derivative -sin(x), a real number, under grad, vjp, jit, vmap, jacrev and hessian);
- jacfwd of a real input and a complex output is the complex Jacobian; jacrev of it is JAX's error;
- grad of a real function of a complex input is df/dx - i df/dy (JAX's `grad(abs(z) ** 2)` at
  3 + 4j is 6 - 8j, twice the conjugate).
Every value is checked against central differences of the plain function, along real and
imaginary directions, or against a hand-derived derivative."""
import functools

import numpy as np
import pytest

import s2s

H = 1e-6
C = np.array([[1 + 2j, 0.5 - 1j, 2j], [0.3, -1j, 1 + 1j]])
CV = np.array([1 + 2j, 0.5 - 1j, 2j])
X = np.array([0.3, -0.7, 1.1])
XS = np.stack([X, 0.5 * X - 0.2])


def _fd(f, x, d):
    return (f(x + H * d) - f(x - H * d)) / (2 * H)


def _fd_grad(f, x):
    """Central differences along each real direction."""
    return np.array([_fd(f, x, e) for e in np.eye(x.size)]).reshape(np.shape(x))


def _fd_jacobian(f, x):
    """Columns d f / d x_k (complex for a complex output), out.shape + in.shape."""
    return np.stack([_fd(f, x, e) for e in np.eye(x.size)], axis=-1)


# ---------------------------------------------------------------- holomorphic derivatives, transformed

def cubic_sin(z):
    return z ** 3 + np.sin(z)


def d_cubic_sin(z):
    return 3 * z ** 2 + np.cos(z)


def dd_cubic_sin(z):
    return 6 * z - np.sin(z)


ZS = np.array([1.0 + 2.0j, -0.5 + 0.3j, 0.2 - 1.1j])


def test_holomorphic_grad_under_jit_vmap_jvp_and_grad():
    g = s2s.grad(cubic_sin, holomorphic=True)
    z = ZS[0]
    np.testing.assert_allclose(g(z), d_cubic_sin(z), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(g)(z), d_cubic_sin(z), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(g)(ZS), d_cubic_sin(ZS), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(g))(ZS), d_cubic_sin(ZS), rtol=1e-12)
    value, tangent = s2s.jvp(g, (z,), (1j,))
    np.testing.assert_allclose((value, tangent), (d_cubic_sin(z), 1j * dd_cubic_sin(z)), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(g, holomorphic=True)(z), dd_cubic_sin(z), rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(g, holomorphic=True)(z), dd_cubic_sin(z), rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(g, holomorphic=True))(ZS), dd_cubic_sin(ZS), rtol=1e-12)
    # f'' against central differences of f' (a holomorphic f' : the same along 1 and i)
    for d in (1.0, 1j):
        np.testing.assert_allclose(_fd(d_cubic_sin, z, d) / d, s2s.grad(g, holomorphic=True)(z), rtol=1e-7)


def test_holomorphic_hessian():
    f = lambda z: np.sum(z ** 3 * z[0])  # noqa: E731  (z0^4 + z0 z1^3 + z0 z2^3)
    z = np.array([0.5 + 1j, -1.0 + 0.2j, 2j])
    z0, z1, z2 = z
    want = np.array([[12 * z0 ** 2, 3 * z1 ** 2, 3 * z2 ** 2],
                     [3 * z1 ** 2, 6 * z0 * z1, 0],
                     [3 * z2 ** 2, 0, 6 * z0 * z2]])
    np.testing.assert_allclose(s2s.hessian(f, holomorphic=True)(z), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.hessian(f, holomorphic=True))(z), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.hessian(cubic_sin, holomorphic=True)(ZS[1]), dd_cubic_sin(ZS[1]), rtol=1e-12)
    with pytest.raises(s2s.S2SError, match="requires inputs with complex dtype"):
        s2s.hessian(f, holomorphic=True)(np.ones(3))


def test_holomorphic_jacobians_under_jit_and_vmap():
    def f(z):
        return np.exp(z) * z[::-1]

    for jac in (s2s.jacfwd, s2s.jacrev):
        j = jac(f, holomorphic=True)
        for z in (ZS, ZS * 0.5j):
            want = _fd_jacobian(f, z)
            np.testing.assert_allclose(j(z), want, rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(s2s.jit(j)(z), want, rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(_fd_jacobian(f, z) * 1j, np.stack([_fd(f, z, 1j * e) for e in np.eye(3)], -1),
                                       rtol=1e-6, atol=1e-8)  # (holomorphic: the i direction is i times the 1)
        np.testing.assert_allclose(s2s.vmap(j)(np.stack([ZS, 2 * ZS])), np.stack([j(ZS), j(2 * ZS)]), rtol=1e-12)


def test_holomorphic_value_and_grad_and_aux_under_jit():
    vg = s2s.value_and_grad(cubic_sin, holomorphic=True)
    z = ZS[2]
    for fn in (vg, s2s.jit(vg)):
        value, g = fn(z)
        np.testing.assert_allclose((value, g), (cubic_sin(z), d_cubic_sin(z)), rtol=1e-12)

    def with_aux(z, w):
        return z * w + np.sin(z), {"w2": w * w}

    g, aux = s2s.jit(s2s.grad(with_aux, has_aux=True, holomorphic=True))(z, 2j)
    np.testing.assert_allclose(g, 2j + np.cos(z), rtol=1e-12)
    np.testing.assert_allclose(aux["w2"], -4, rtol=1e-12)


def test_holomorphic_checks_run_inside_jit_and_vmap():
    g = s2s.grad(cubic_sin, holomorphic=True)
    for fn in (g, s2s.jit(g)):
        with pytest.raises(s2s.S2SError, match="grad with holomorphic=True requires inputs with complex dtype, "
                                               "but got float64"):
            fn(1.5)
    with pytest.raises(s2s.S2SError, match="requires inputs with complex dtype"):
        s2s.vmap(g)(np.array([1.0, 2.0]))
    real_out = s2s.grad(lambda z: np.abs(z), holomorphic=True)
    for fn in (real_out, s2s.jit(real_out)):
        with pytest.raises(s2s.S2SError, match="requires outputs with complex dtype, but got float64"):
            fn(1j)


def test_holomorphic_derivative_of_a_function_with_defaults_and_a_partial():
    def f(z, scale=2.0, shift=1j):
        return scale * z ** 2 + shift * z

    z = ZS[0]
    np.testing.assert_allclose(s2s.grad(f, holomorphic=True)(z), 4 * z + 1j, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(f, holomorphic=True)(z, 3.0), 6 * z + 1j, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(f, argnums=2, holomorphic=True)(z, 3.0, 0.5j), z, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(np.exp, holomorphic=True)(z), np.exp(z), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.grad(functools.partial(f, scale=5.0), holomorphic=True))(z),
                               10 * z + 1j, rtol=1e-12)
    with pytest.raises(s2s.S2SError, match=r"named positional parameters.*`\*args`"):
        s2s.grad(lambda *zs: zs[0] * zs[1] ** 2, argnums=1, holomorphic=True)


def test_a_holomorphic_derivative_recompiles_when_a_global_changes():
    global SCALE
    SCALE = 2.0
    g = s2s.grad(_scaled, holomorphic=True)
    np.testing.assert_allclose(g(1j), 2.0 * 2j, rtol=1e-12)
    SCALE = 3.0
    np.testing.assert_allclose(g(1j), 3.0 * 2j, rtol=1e-12)


SCALE = 2.0


def _scaled(z):
    return SCALE * z ** 2


# ---------------------------------------------------------------- real -> complex -> real

def exp_i(x):
    return np.real(np.exp(1j * x))  # cos(x)


REAL_THROUGH_COMPLEX = {
    "exp_i": lambda x: np.sum(exp_i(x)),
    "matvec": lambda x: np.sum(np.abs(C @ x) ** 2),
    "dot": lambda x: np.real(np.dot(CV, x) ** 2),
    "vdot": lambda x: np.real(np.vdot(CV, x) ** 2),
    "outer": lambda x: np.real(np.sum(np.outer(x, CV) ** 2)),
    "einsum": lambda x: np.real(np.einsum("ij,j->", C, x) ** 2),
    "concatenate": lambda x: np.real(np.sum(np.concatenate([CV, x * 1j]) ** 2)),
    "stack": lambda x: np.real(np.sum(np.stack([CV, x]) ** 3)),
    "astype": lambda x: np.sum(np.imag(np.exp(x.astype(complex) * (0.5 + 1j)))),
    "dtype_keyword": lambda x: np.sum(np.imag(np.asarray(x, dtype=np.complex128) ** 2 * CV)),
    "store": lambda x: _store(x),
    "where": lambda x: np.real(np.sum(np.where(x > 0, CV, x) ** 2)),
    "array": lambda x: np.real(np.sum(np.array([x[0], 1j * x[1], x[2]]) ** 3)),
    "sum_axis": lambda x: np.real(np.sum(np.sum(np.outer(x, CV), axis=0) ** 2)),
    "solve": lambda x: np.real(np.sum(np.linalg.solve(np.diag(CV) + np.eye(3), x) ** 2)),
    "fft": lambda x: np.sum(np.abs(np.fft.fft(x)) ** 2) + np.real(np.fft.ifft(x * 1j)[1]),
    "loop": lambda x: _loop(x),
    "callee": lambda x: np.real(np.sum(_times_cv(x) ** 2)),
    "pow": lambda x: np.real(np.sum(CV ** x)),
    "in_place": lambda x: _in_place(x),
}


def _store(x):
    z = np.zeros(3, dtype=complex)
    z[0] = x[0]
    z[1:] = x[1:] * (1 + 1j)
    return np.real(np.sum(z * z))


def _loop(x):
    acc = 0.0
    for k in range(3):
        acc = acc + np.real(np.exp(1j * k * x[k]))
    return acc


def _times_cv(y):
    return y * CV


def _in_place(x):
    z = x * (1 + 1j)
    z = z * x
    z += CV
    return np.real(np.sum(z ** 2))


def _real_close(got, want, rtol=1e-6, atol=1e-7):
    assert not np.iscomplexobj(got), f"a real argument's derivative is real (JAX), got {np.result_type(got)}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(REAL_THROUGH_COMPLEX))
def test_a_real_value_takes_the_real_part_of_a_complex_cotangent(name):
    f = REAL_THROUGH_COMPLEX[name]
    want = _fd_grad(f, X)
    _real_close(s2s.grad(f)(X), want)
    _real_close(s2s.jit(s2s.grad(f))(X), want)
    _real_close(s2s.vmap(s2s.grad(f))(XS), np.stack([_fd_grad(f, x) for x in XS]))
    _real_close(s2s.vjp(f, X)[1](1.0)[0], want)
    _real_close(s2s.jacrev(f)(X), want)
    _real_close(s2s.jacfwd(f)(X), want)
    t = np.array([0.5, -1.0, 2.0])
    _real_close(s2s.jvp(f, (X,), (t,))[1], want @ t)
    value, g = s2s.value_and_grad(f)(X)
    np.testing.assert_allclose(value, f(X), rtol=1e-12)
    _real_close(g, want)


@pytest.mark.parametrize("name", ["exp_i", "matvec", "astype", "solve"])
def test_hessian_through_complex_values_is_real(name):
    f = REAL_THROUGH_COMPLEX[name]
    want = np.stack([(_fd_grad(f, X + 1e-4 * e) - _fd_grad(f, X - 1e-4 * e)) / 2e-4 for e in np.eye(3)], axis=-1)
    _real_close(s2s.hessian(f)(X), want, rtol=1e-3, atol=1e-3)


def test_the_brief_example_matches_jax():
    f = lambda x: np.real(np.exp(1j * x))  # noqa: E731  (JAX: grad(f)(0.3) is -sin(0.3))
    assert s2s.grad(f)(0.3) == pytest.approx(-np.sin(0.3), rel=1e-12)
    got = s2s.vmap(s2s.grad(f))(np.array([0.3, 0.5]))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, -np.sin([0.3, 0.5]), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(0.3), -np.sin(0.3), rtol=1e-12)


def test_a_real_value_between_complex_ones_of_a_complex_input():
    """grad at a complex input of real(exp(i real(z))) = cos(x): -sin(x), no imaginary part (the
    cotangent of the real value real(z) is real), complex as the input is (JAX)."""
    f = lambda z: np.real(np.exp(1j * np.real(z)))  # noqa: E731
    z = 0.3 + 0.2j
    got = s2s.grad(f)(z)
    assert np.iscomplexobj(got)
    np.testing.assert_allclose(got, -np.sin(0.3), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(got, _fd(f, z, 1.0) - 1j * _fd(f, z, 1j), rtol=1e-7, atol=1e-9)


# ---------------------------------------------------------------- real input, complex output

def test_jacfwd_of_a_real_input_and_complex_output_is_complex():
    def f(x):
        return np.exp(1j * x) * x[0]

    want = _fd_jacobian(f, X)
    assert np.iscomplexobj(want)
    for fn in (s2s.jacfwd(f), s2s.jit(s2s.jacfwd(f))):
        np.testing.assert_allclose(fn(X), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.vmap(s2s.jacfwd(f))(XS), np.stack([_fd_jacobian(f, x) for x in XS]), rtol=1e-6,
                               atol=1e-8)
    y, t = s2s.jvp(f, (X,), (np.ones(3),))
    np.testing.assert_allclose(t, want @ np.ones(3), rtol=1e-6, atol=1e-8)
    ct = np.array([1.0 - 1j, 0.5j, 2.0])
    _real_close(s2s.vjp(f, X)[1](ct)[0], np.real(ct @ want))  # (JAX: Re <ct, J dx> = <vjp(ct), dx>)


def test_jacrev_of_a_complex_output_is_jaxs_error():
    def f(x):
        return np.exp(1j * x)

    for fn in (s2s.jacrev(f), s2s.jit(s2s.jacrev(f))):
        with pytest.raises(s2s.S2SError, match="jacrev requires real-valued outputs .* but got complex128. For "
                                               "holomorphic differentiation, pass holomorphic=True"):
            fn(X)
    h = lambda x: f(x)[0] * x[1]  # noqa: E731  (an output checked at run time: rt.seed, not the literal 1.0)
    for g in (s2s.grad(h), s2s.jit(s2s.grad(h))):
        with pytest.raises(s2s.S2SError, match="real-valued output"):
            g(X)
    with pytest.raises(s2s.S2SError, match="real-valued output"):
        s2s.vmap(s2s.grad(h))(XS)
    with pytest.raises(s2s.S2SError, match="complex"):
        s2s.value_and_grad(lambda x: np.sum(f(x)))(X)  # (its complex value is refused)


# ---------------------------------------------------------------- grad of a real function of complex input

def test_grad_of_a_real_function_of_complex_input_is_jaxs():
    """JAX's convention: df/dx - i df/dy; |z|^2 gives 2 conj(z) (JAX's 6 - 8j at 3 + 4j), under
    jit and vmap too."""
    f = lambda z: np.abs(z) ** 2  # noqa: E731
    np.testing.assert_allclose(s2s.grad(f)(3.0 + 4.0j), 6.0 - 8.0j, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(3.0 + 4.0j), 6.0 - 8.0j, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(ZS), 2 * np.conj(ZS), rtol=1e-12)

    def g(z):
        return np.sum(np.real(z) ** 2 * np.imag(z) + np.abs(np.exp(z)))

    want = np.array([_fd(g, ZS, e) - 1j * _fd(g, ZS, 1j * e) for e in np.eye(3)])
    np.testing.assert_allclose(s2s.grad(g)(ZS), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(s2s.grad(g))(ZS), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(g))(np.stack([ZS, ZS])), np.stack([want, want]), rtol=1e-6,
                               atol=1e-8)
    t = np.array([1.0 - 0.5j, 2j, 0.3])
    np.testing.assert_allclose(s2s.jvp(g, (ZS,), (t,))[1], _fd(g, ZS, t), rtol=1e-6, atol=1e-8)
