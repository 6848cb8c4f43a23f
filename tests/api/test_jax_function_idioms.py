"""Functions as values in JAX programs (issue 45, section 5): vmap of the function `vjp` returns,
`s2s.vjp(f, x)[1](ct)` called straight inside a transformed function, `jvp` with its primals held
in a variable, and lists of functions built by a loop or a comprehension (`def term(u, k=k)` then
`fs.append(term)`, called later). Each is checked against the plain function (or a loop of vjp
calls) and central differences."""
import functools

import numpy as np
import pytest

import s2s


def _fd_grad(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)]).reshape(x.shape)


def f2(x, y):
    return np.sin(x) * y[0] + x ** 2 * y[1]


X = np.array([0.3, 1.2, -0.7])
Y = np.array([2.0, 0.5])


# ---- vmap of the function vjp returns ----

def test_vmap_of_the_vjp_function_is_a_loop_of_it():
    out, pullback = s2s.vjp(f2, X, Y)
    cts = np.random.default_rng(0).normal(size=(4, 3))
    gx, gy = s2s.vmap(pullback)(cts)
    want = [pullback(c) for c in cts]
    np.testing.assert_allclose(gx, np.stack([w[0] for w in want]), rtol=1e-12)
    np.testing.assert_allclose(gy, np.stack([w[1] for w in want]), rtol=1e-12)
    jac = s2s.vmap(pullback)(np.eye(3))  # the Jacobian's rows, as JAX users build it
    np.testing.assert_allclose(jac[0], np.stack([_fd_grad(lambda x: f2(x, Y)[i], X) for i in range(3)]), rtol=1e-6)


def test_vmap_of_the_vjp_function_with_axes_and_under_jit():
    _, pullback = s2s.vjp(lambda x: np.tanh(x) * x[0], X)
    cts = np.random.default_rng(1).normal(size=(3, 5))  # examples along axis 1
    got = s2s.vmap(pullback, in_axes=1, out_axes=1)(cts)[0]
    np.testing.assert_allclose(got, np.stack([pullback(c)[0] for c in cts.T], axis=1), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(pullback))(cts.T)[0], got.T, rtol=1e-12)


def test_vmap_of_a_vjp_function_it_cannot_batch_is_refused():
    _, pullback = s2s.vjp(f2, X, Y, checkpoint="auto")
    with pytest.raises(s2s.S2SError, match="batches the function vjp returns"):
        s2s.vmap(pullback)(np.eye(3))


# ---- s2s.vjp(f, x)[1](ct) inside a transformed function ----

def straight(x, c):
    return np.sum(s2s.vjp(f2, x, Y)[1](c)[0] * x)


def bound_item(x, c):
    pullback = s2s.vjp(f2, x, Y)[1]
    y = s2s.vjp(f2, x, Y)[0]
    return np.sum(pullback(c)[0] * y)


def _pulled(x, c):
    return s2s.vjp(lambda x: f2(x, Y), x)[1](c)[0]  # (run as plain Python: the reference)


@pytest.mark.parametrize("fn, ref", [
    (straight, lambda x, c: np.sum(_pulled(x, c) * x)),
    (bound_item, lambda x, c: np.sum(_pulled(x, c) * f2(x, Y))),
])
def test_vjp_items_inside_a_transform(fn, ref):
    c = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.jit(fn)(X, c), ref(X, c), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(fn)(X, c), _fd_grad(lambda x: ref(x, c), X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.grad(fn, argnums=1)(X, c), _fd_grad(lambda c: ref(X, c), c), rtol=1e-6, atol=1e-8)
    t = np.array([1.0, 0.3, -0.2])
    np.testing.assert_allclose(s2s.jvp(fn, (X, c), (t, np.zeros(3)))[1],
                               (ref(X + 1e-6 * t, c) - ref(X - 1e-6 * t, c)) / 2e-6, rtol=1e-6)
    cs = np.random.default_rng(2).normal(size=(3, 3))
    np.testing.assert_allclose(s2s.vmap(fn, in_axes=(None, 0))(X, cs), [ref(X, c) for c in cs], rtol=1e-12)


# ---- jvp with its primals in a variable ----

def primals_held(x, y):
    p = (x, y)
    t = [np.ones_like(x), y]
    out, tan = s2s.jvp(f2, p, t)
    return np.sum(tan * out)


def primals_ref(x, y):
    return np.sum((np.cos(x) * y[0] + 2 * x * y[1] + np.sin(x) * y[0] + x ** 2 * y[1]) * f2(x, y))


def test_jvp_with_primals_in_a_variable():
    np.testing.assert_allclose(s2s.jit(primals_held)(X, Y), primals_ref(X, Y), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(primals_held)(X, Y), _fd_grad(lambda x: primals_ref(x, Y), X), rtol=1e-6)
    ys = np.stack([Y, 2 * Y])
    np.testing.assert_allclose(s2s.vmap(primals_held, in_axes=(None, 0))(X, ys), [primals_ref(X, y) for y in ys],
                               rtol=1e-12)


def test_jvp_with_primals_of_unknown_length_is_refused():
    def f(x, p):
        return s2s.jvp(np.sin, p, (x,))[1]

    with pytest.raises(s2s.S2SError, match="primals of jvp"):
        s2s.grad(lambda x: np.sum(f(x, [x] * int(x.size > 0))))(X)


# ---- lists of functions built by a loop or a comprehension ----

def loop_defs(x):
    fs = []
    for k in range(3):
        def term(u, k=k):
            return u ** (k + 1) / (k + 1)
        fs.append(term)
    return np.sum(sum(t(x) for t in fs))


def loop_lambdas(x):
    fs = []
    for k in (1.0, 2.0, 0.5):
        c = k * 2.0
        fs.append(lambda u, k=k, c=c: np.sin(k * u) * c)
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


def late_binding(x):
    fs = []
    for k in range(3):
        def term(u):
            return u ** (k + 1)  # (reads k when called: its last value, 2)
        fs.append(term)
    return np.sum(sum(t(x) for t in fs))


def comprehension_lambdas(x):
    fs = [lambda u, j=k: u ** (j + 1) * (k + 1) for k in range(3)]  # (k in the body: its last value)
    return np.sum(sum(f(x) for f in fs))


def comprehension_partials(x):
    def power(u, k):
        return np.exp(-k * u)

    fs = [functools.partial(power, k=k) for k in range(1, 4)]
    return np.sum(fs[0](x) + fs[2](x)) + np.sum(fs[1](x))


@pytest.mark.parametrize("fn", [loop_defs, loop_lambdas, late_binding, comprehension_lambdas, comprehension_partials])
def test_lists_of_functions(fn):
    x = np.array([0.4, 1.1])
    np.testing.assert_allclose(s2s.jit(fn)(x), fn(x), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(fn)(x), _fd_grad(fn, x), rtol=1e-6, atol=1e-8)
    t = np.array([0.7, -0.2])
    np.testing.assert_allclose(s2s.jvp(fn, (x,), (t,))[1], (fn(x + 1e-6 * t) - fn(x - 1e-6 * t)) / 2e-6, rtol=1e-6)
    xs = np.stack([x, 2 * x, -x])
    np.testing.assert_allclose(s2s.vmap(fn)(xs), [fn(z) for z in xs], rtol=1e-12)


def test_vmap_of_a_pullback_inside_a_differentiated_function():
    def frobenius_of_jacobian(x):
        _, pullback = s2s.vjp(lambda u: np.sin(u) * u[0], x)
        return np.sum(s2s.vmap(pullback)(np.eye(3))[0] ** 2)

    def ref(x):
        jac = np.diag(np.cos(x) * x[0])
        jac[:, 0] += np.sin(x)
        return np.sum(jac ** 2)

    x = np.array([0.3, 1.0, -0.5])
    np.testing.assert_allclose(s2s.jit(frobenius_of_jacobian)(x), ref(x), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(frobenius_of_jacobian)(x), _fd_grad(ref, x), rtol=1e-6, atol=1e-8)
