"""A cotangent takes its primal's dtype (JAX's and autograd's rule, autograd's test_astype): the
gradient of a float32 argument is float32 even where NumPy promotes the computation to float64
(`x.astype("float64")`, a float64 constant or array in a product, `np.asarray(x, float64)`).
grad, vjp, jacrev, hessian, vmap(grad) and jit(grad) give float32; jvp and jacfwd give the
output's dtype (tangent dtype = primal output dtype). Values against central differences in
float64 (the float32 result within float32 rounding)."""
import numpy as np
import pytest

import s2s

C64 = np.linspace(0.5, 1.5, 3)
M64 = np.arange(9.0).reshape(3, 3) / 10.0


def astype64(x):
    return np.sum(np.sin(x.astype("float64")))


def times_f64_array(x):
    return np.sum(x * C64 + x ** 2)


def f64_scalar(x):
    return np.sum(x * np.float64(2.5)) + np.sum(np.cos(x))


def asarray64(x):
    return np.sum(np.asarray(x, dtype=np.float64) ** 3)


def matmul_f64(x):
    return np.sum(np.tanh(M64 @ x) + np.dot(x, M64))


def mixed_paths(x):
    y = np.concatenate([x, C64]) * 2.0
    return np.sum(np.where(y > 1.0, y ** 2, np.exp(-y))) + np.mean(x / C64)


def all_float32(x):
    return np.sum(np.sin(x) * x)


FNS = [astype64, times_f64_array, f64_scalar, asarray64, matmul_f64, mixed_paths, all_float32]
X32 = np.array([0.3, -0.7, 1.1], dtype=np.float32)


def _fd(f, x, eps=1e-6):
    x = x.astype(np.float64)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_reverse_mode_gives_the_arguments_dtype(f):
    want = _fd(f, X32)
    got = {"grad": s2s.grad(f)(X32), "vjp": s2s.vjp(f, X32)[1](np.float64(1.0))[0], "jacrev": s2s.jacrev(f)(X32),
           "jit(grad)": s2s.jit(s2s.grad(f))(X32), "value_and_grad": s2s.value_and_grad(f)(X32)[1]}
    for name, g in got.items():
        assert g.dtype == np.float32, (name, g.dtype)
        np.testing.assert_allclose(g, want, rtol=2e-5, atol=2e-5, err_msg=name)
    xs = np.stack([X32, X32[::-1]])
    batched = s2s.vmap(s2s.grad(f))(xs)
    assert batched.dtype == np.float32
    np.testing.assert_allclose(batched, np.stack([_fd(f, v) for v in xs]), rtol=2e-5, atol=2e-5)
    hess = s2s.hessian(f)(X32)
    assert hess.dtype == np.float32  # jacfwd of the gradient: the gradient's dtype
    g64 = s2s.grad(f)
    fd_h = np.stack([(g64(X32.astype(np.float64) + e) - g64(X32.astype(np.float64) - e)) / 2e-5
                     for e in np.eye(3) * 1e-5], axis=1)
    np.testing.assert_allclose(hess, fd_h, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("f", FNS, ids=lambda f: f.__name__)
def test_forward_mode_gives_the_outputs_dtype(f):
    t = np.array([1.0, -2.0, 0.5], dtype=np.float32)
    out, tangent = s2s.jvp(f, (X32,), (t,))
    assert np.asarray(tangent).dtype == np.asarray(out).dtype == np.asarray(f(X32)).dtype
    np.testing.assert_allclose(tangent, np.dot(_fd(f, X32), t), rtol=2e-5, atol=2e-5)
    jac = s2s.jacfwd(f)(X32)
    assert jac.dtype == np.asarray(f(X32)).dtype
    np.testing.assert_allclose(jac, _fd(f, X32), rtol=2e-5, atol=2e-5)


def _scale(v, c):
    return v * c


def _shift(v, c):
    return v + c


def _sine(v, c):
    return np.sin(v) * c


def _ratio(v, c):
    return v / (1.5 + c ** 2)


def _square64(v, c):
    return (v.astype(np.float64) - c) ** 2


def _floor(v, c):
    return np.maximum(v, c - 5.0) * 1.0


def _dot(v, c):
    return v + np.dot(np.outer(c, c), v) / 10.0


STEPS = [_scale, _shift, _sine, _ratio, _square64, _floor, _dot]


def _chain(rng):
    (s0, s1, s2, s3), (c0, c1, c2, c3) = [STEPS[int(k)] for k in rng.integers(len(STEPS), size=4)], \
        [rng.standard_normal(3) for _ in range(4)]

    def f(x):
        return np.sum(s3(s2(s1(s0(x, c0), c1), c2), c3))
    return f


@pytest.mark.parametrize("seed", range(8))
def test_random_mixes_of_float32_arguments_and_float64_constants(seed):
    """A property: chains of ops over a float32 argument and float64 constants; every reverse
    transform returns float32 and the right numbers."""
    rng = np.random.default_rng(seed)
    f = _chain(rng)
    x = rng.standard_normal(3).astype(np.float32)
    want = _fd(f, x)
    for name, g in (("grad", s2s.grad(f)(x)), ("vjp", s2s.vjp(f, x)[1](1.0)[0]), ("jacrev", s2s.jacrev(f)(x)),
                    ("vmap(grad)", s2s.vmap(s2s.grad(f))(x[None])[0]), ("jit(grad)", s2s.jit(s2s.grad(f))(x))):
        assert g.dtype == np.float32, name
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-4, err_msg=name)
