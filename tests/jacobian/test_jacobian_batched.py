"""Jacobians batched over the basis (jacfwd = the jvp batched over the input basis, jacrev = one
forward sweep and its backward sweep batched over the output basis, the diagonal from one jvp
when the tangent is elementwise) against central finite differences, and their fallbacks."""

import numpy as np
import pytest
from corpus import CORPUS  # noqa: E402

import s2s


def fd_jacobian(f, args, i=0, eps=1e-6):
    """Central differences of f wrt argument i (an array or a float): out.shape + in.shape."""
    x = np.asarray(args[i], dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = eps
        e = e.reshape(x.shape)
        plus = list(args)
        minus = list(args)
        plus[i], minus[i] = (x + e, x - e) if x.ndim else (float(x + e), float(x - e))
        cols.append((np.asarray(f(*plus)) - np.asarray(f(*minus))) / (2 * eps))
    out = np.asarray(f(*args))
    return np.stack(cols, axis=-1).reshape(out.shape + x.shape) if cols else np.zeros(out.shape + x.shape)


W = np.array([1.0, -2.0, 0.5])


def _vector_out(fn, nargs):
    """A vector-valued companion of scalar corpus function `fn` (its value times a fixed vector),
    so that jacrev batches more than one row."""
    if nargs == 1:
        def g(a):
            return fn(a) * W
    elif nargs == 2:
        def g(a, b):
            return fn(a, b) * W
    elif nargs == 3:
        def g(a, b, c):
            return fn(a, b, c) * W
    else:
        def g(a, b, c, d):
            return fn(a, b, c, d) * W
    return g


CASES = [pytest.param(fn, make, id=fn.__name__) for fn, make in CORPUS]


@pytest.mark.parametrize("fn, make", CASES)
def test_corpus_jacfwd_equals_jacrev_equals_finite_differences(fn, make):
    args = make(np.random.default_rng(0))
    want = fd_jacobian(fn, args)
    # the batched forms themselves (`compiled`: no fallback to the loop on a failed call)
    jf, jr = s2s.jacfwd(fn).compiled(*args), s2s.jacrev(fn).compiled(*args)
    np.testing.assert_allclose(jf, want, rtol=1e-5, atol=1e-6, err_msg="jacfwd")
    np.testing.assert_allclose(jr, want, rtol=1e-5, atol=1e-6, err_msg="jacrev")
    np.testing.assert_allclose(jf, jr, rtol=1e-10, atol=1e-12)


# a function that updates its parameter in place cannot be differentiated when called from another
_CALLABLE = [c for c in CASES[::3] if c.id not in ("aug_on_scalar_param",)]


@pytest.mark.parametrize("fn, make", _CALLABLE)
def test_corpus_vector_output_jacrev_batches_rows(fn, make):
    args = make(np.random.default_rng(1))
    g = _vector_out(fn, len(args))
    want = fd_jacobian(g, args)
    np.testing.assert_allclose(s2s.jacrev(g)(*args), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.jacfwd(g)(*args), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, make", CASES[::2])
def test_corpus_hessian_is_symmetric_and_the_jacobian_of_the_gradient(fn, make):
    args = make(np.random.default_rng(2))
    h = np.asarray(s2s.hessian(fn).compiled(*args))
    want = fd_jacobian(s2s.grad(fn), args)
    np.testing.assert_allclose(h, want, rtol=1e-4, atol=1e-5)
    if h.ndim == 2:
        np.testing.assert_allclose(h, h.T, rtol=1e-9, atol=1e-10)


def with_std(x):
    return np.std(x) * np.sum(x ** 2) + np.var(x[1:])


def with_norms(x):
    m = np.reshape(x, (2, 2))
    return np.linalg.norm(m, axis=1) @ np.array([1.0, 2.0]) + np.max(x) * np.mean(np.sin(x))


@pytest.mark.parametrize("f", [with_std, with_norms])
def test_hessians_through_reduction_helpers_are_symmetric_and_right(f):
    # np.std's derivative helpers once mis-batched into unsymmetric Hessians (commit 6e5aeb9)
    x = np.array([0.3, -1.2, 0.8, 2.0])
    h = s2s.hessian(f)(x)
    np.testing.assert_allclose(h, h.T, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(h, fd_jacobian(s2s.grad(f), (x,)), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.jacfwd(s2s.grad(f))(x), h, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [with_std, with_norms])
def test_hessians_through_reduction_helpers_batched_without_fallback(f):
    x = np.array([0.3, -1.2, 0.8, 2.0])
    np.testing.assert_allclose(s2s.hessian(f).compiled(x), s2s.hessian(f).looped(x), rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- the diagonal path

def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def test_hessian_of_a_separable_sum_is_one_jvp_along_ones():
    x = np.array([0.1, 0.5, -0.3, 2.0])
    t = np.tanh(x)
    np.testing.assert_allclose(s2s.hessian(tanh3)(x), np.diag((6 * t - 12 * t ** 3) * (1 - t * t)), rtol=1e-12)
    src = s2s.source(s2s.hessian(tanh3))
    assert "rt.diag_jacobian(" in src and "rt.basis_stack(" in src  # the basis only when not diagonal


def scaled_by_matrix(x, c):
    return np.sin(x) * c  # c (2, 3) broadcasts the elementwise tangent to a larger shape


def partial_store(x):
    y = np.sin(x) * 1.0
    y[0] = y[0] + y[1]  # a store into part of the value mixes positions
    return y


def two_d(x):
    return np.exp(x) * x


@pytest.mark.parametrize("f, args", [
    (scaled_by_matrix, (np.array([0.2, -0.4, 0.9]), np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))),
    (partial_store, (np.array([0.2, -0.4, 0.9]),)),
    (two_d, (np.array([[0.2, -0.4, 0.9], [0.1, 0.3, -1.2]]),)),
    (two_d, (0.7,)),
    (np.tanh, (np.array([0.3, -0.2]),)),
])
def test_elementwise_looking_jacobians_equal_finite_differences(f, args):
    want = fd_jacobian(f, args)
    np.testing.assert_allclose(s2s.jacfwd(f)(*args), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jacrev(f)(*args), want, rtol=1e-6, atol=1e-8)


def test_empty_input_gives_an_empty_jacobian():
    x = np.zeros(0)
    assert s2s.jacfwd(two_d)(x).shape == (0, 0)
    assert s2s.jacfwd(lambda v: np.sum(v) * np.ones(2))(x).shape == (2, 0)


# ---------------------------------------------------------------- pytrees, argnums, has_aux

def tree_fn(p, z):
    return {"a": p["w"] * z[0], "b": np.sum(p["v"] ** 2) * z}


def test_pytree_inputs_outputs_and_argnums():
    p = {"w": np.array([0.3, -0.7]), "v": np.array([[0.1, 0.2], [0.5, -0.4]])}
    z = np.array([1.5, -0.5])
    for jac in (s2s.jacfwd, s2s.jacrev):
        got = jac(tree_fn, argnums=(0, 1))(p, z)  # JAX's nesting: output first, then argument
        assert set(got) == {"a", "b"}
        for k in ("a", "b"):
            got_p, got_z = {k: got[k][0]}, {k: got[k][1]}
            for name in ("w", "v"):
                def part(leaf, k=k, name=name):
                    q = dict(p, **{name: leaf})
                    return tree_fn(q, z)[k]
                np.testing.assert_allclose(got_p[k][name], fd_jacobian(part, (p[name],)), rtol=1e-6, atol=1e-8)
            np.testing.assert_allclose(got_z[k], fd_jacobian(lambda zz, k=k: tree_fn(p, zz)[k], (z,)),
                                       rtol=1e-6, atol=1e-8)


def with_aux(x):
    y = np.sin(x) * np.sum(x)
    return y, {"norm": np.sum(y ** 2)}


@pytest.mark.parametrize("jac", [s2s.jacfwd, s2s.jacrev])
def test_has_aux_returns_the_value_beside_the_jacobian(jac):
    x = np.array([0.4, -1.1, 0.6])
    j, aux = jac(with_aux, has_aux=True)(x)
    np.testing.assert_allclose(j, fd_jacobian(lambda v: with_aux(v)[0], (x,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(aux["norm"], with_aux(x)[1]["norm"], rtol=1e-14)


def test_generated_jacobians_have_no_loop_over_the_basis():
    f = _vector_out(tanh3, 1)
    for jac in (s2s.jacfwd, s2s.jacrev):
        src = s2s.source(jac(f)).split("\n\n")[0]
        assert "for " not in src and "rt.basis_stack(" in src


# ---------------------------------------------------------------- fallbacks

def test_loop_form_when_asked(monkeypatch):
    monkeypatch.setenv("S2S_JAC_LOOP", "1")
    f = lambda x: np.sin(x) * np.sum(x ** 2)  # noqa: E731
    x = np.array([0.3, 0.8, -0.5])
    for jac in (s2s.jacfwd, s2s.jacrev):
        t = jac(f)
        assert "for " in s2s.source(t).split("\n\n")[0]
        np.testing.assert_allclose(t(x), fd_jacobian(f, (x,)), rtol=1e-6, atol=1e-8)


def test_a_batched_run_that_fails_falls_back_to_the_loop(monkeypatch):
    f = lambda x: np.cos(x) * np.sum(x)  # noqa: E731
    x = np.array([0.3, 0.8, -0.5])
    t = s2s.jacfwd(f)
    calls = []

    def broken(*a):
        calls.append(1)
        raise IndexError("a batching rule that cannot handle these arguments")
    t._fn = t._fast = broken  # the batched form, as if it failed at run time
    t._version = lambda ranks: broken  # (and its version specialized on the arguments' ranks)
    t._check_key = lambda: None
    np.testing.assert_allclose(t(x), fd_jacobian(f, (x,)), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(t(x), fd_jacobian(f, (x,)), rtol=1e-6, atol=1e-8)
    assert calls == [1]  # from then on the loop runs directly
