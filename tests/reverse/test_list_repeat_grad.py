"""`[A] * n` and `n * (A, B)` repeat a list or tuple: each copy's cotangent flows back to the same
element (the `*` rule once gave the whole list's cotangent to a list operand, and the shape pass
took `L = t * 2` for an array of `t`'s shape, so the backward sweep allocated too few slots)."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def triple(A):
    L = [A] * 3
    return np.sum(np.sin(L[0] * L[1] + L[2]))


def loop_over_repeat(A, B):
    L = [A, B] * 2
    s = 0.0
    for a in L:
        s = s + np.sum(np.sin(a) * a)
    return s


def tuple_left(A, B):
    L = 2 * (A, B)
    return np.sum(L[0] * L[3] * L[2] + np.cos(L[1]))


RNG = np.random.default_rng(3)
A = RNG.normal(size=3)
B = RNG.normal(size=3) + 0.3
CASES = [(triple, (A,)), (loop_over_repeat, (A, B)), (tuple_left, (A, B))]


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_finite_differences_order_2(fn, args):
    check_grads(fn, args, order=2, modes=("fwd", "rev"))


def test_hand_derived():
    # d/dA of 2 * sum(sin(A) * A) is 2 * (sin(A) + A cos(A))
    want = 2 * (np.sin(A) + A * np.cos(A))
    np.testing.assert_allclose(s2s.grad(loop_over_repeat)(A, B), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(loop_over_repeat, argnums=1)(A, B),
                               2 * (np.sin(B) + B * np.cos(B)), rtol=1e-12)


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_jit_and_vmap_agree(fn, args):
    g = s2s.grad(fn)
    np.testing.assert_allclose(s2s.jit(g)(*args), g(*args), rtol=1e-12)
    batch = [np.stack([a * (1 + 0.1 * i) for i in range(4)]) for a in args]
    got = s2s.vmap(g)(*batch)
    want = np.stack([g(*[b[i] for b in batch]) for i in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)


# ---- repetition by a count held in a variable (a parameter, a local, `len(...)`, an expression) ----
# Reverse mode once took `L * n` with a Name `n` for an array product: a crash in rt.unbroadcast,
# or (`n = 3; [x] * n`) a gradient three times too large. Each case is checked in every transform
# against central differences of the function itself or a Python loop over examples.

def by_param(x, n):
    L = [x, 2 * x] * n
    s = 0.0
    for t in L:
        s = s + np.sum(np.sin(t) * t)
    return s


def by_local(x, n):
    k = 3
    L = [x] * k
    s = 0.0
    for t in L:
        s = s + np.sum(t ** 3)
    return s * n


def by_len(x, n):
    L = [x, np.sin(x)]
    M = L * len(L)
    return np.sum(M[0] * M[3]) + np.sum(M[1] * M[2] * M[1]) + n


def tuple_by_expression(x, n):
    T = (n + 1) * (x, np.cos(x))
    s = 0.0
    for i in range(len(T)):
        s = s + np.sum(T[i] * T[i] * (i + 1))
    return s


def repeated_then_joined(x, n):
    L = [x] * n
    M = L + [np.sin(x)] + L
    s = 0.0
    for t in M:
        s = s + np.sum(t * x)
    return s


def argument_as_list(xs, n):
    M = list(xs) * n
    s = 0.0
    for t in M:
        s = s + np.sum(np.sin(t) * t)
    return s


VARIABLE = [by_param, by_local, by_len, tuple_by_expression, repeated_then_joined]
X = np.array([0.3, -1.2, 0.7])


def fd_grad(f, x, *rest, h=1e-6):
    """Central differences of f in its first argument."""
    out = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        out[i] = (f(x + e, *rest) - f(x - e, *rest)) / (2 * h)
    return out


@pytest.mark.parametrize("f", VARIABLE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 3])
def test_variable_count_grad_and_vjp_match_differences(f, n):
    want = fd_grad(f, X, n)
    np.testing.assert_allclose(s2s.grad(f)(X, n), want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.vjp(f, X, n)[1](1.0)[0], want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X, n), want, rtol=1e-6, atol=1e-7)


def test_local_count_is_not_an_array_product():
    # d/dx of 3 * sum(x**3) is 9 x**2: the old rule gave three times that
    np.testing.assert_allclose(s2s.grad(by_local)(X, 1.0), 9 * X ** 2, rtol=1e-12)


@pytest.mark.parametrize("f", VARIABLE, ids=lambda f: f.__name__)
def test_variable_count_jvp_matches_differences(f):
    v = np.array([0.5, 1.0, -2.0])
    _, got = s2s.jvp(lambda a: f(a, 3), (X,), (v,))
    np.testing.assert_allclose(got, fd_grad(f, X, 3) @ v, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", VARIABLE, ids=lambda f: f.__name__)
def test_variable_count_hessian_matches_differences_of_grad(f):
    g = s2s.grad(f)
    want = np.stack([fd_grad(lambda a, n: g(a, n)[i], X, 3) for i in range(X.size)])
    for h in (s2s.hessian(f), s2s.jacfwd(g), s2s.jacrev(g)):
        np.testing.assert_allclose(h(X, 3), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", VARIABLE, ids=lambda f: f.__name__)
def test_variable_count_vmap_and_vmap_grad_match_loops(f):
    xs = np.stack([X, 0.5 * X, X + 1.0])
    got = s2s.vmap(f, in_axes=(0, None))(xs, 3)
    np.testing.assert_allclose(got, [f(r, 3) for r in xs], rtol=1e-12)
    got = s2s.vmap(s2s.grad(f), in_axes=(0, None))(xs, 3)
    np.testing.assert_allclose(got, np.stack([fd_grad(f, r, 3) for r in xs]), rtol=1e-6, atol=1e-7)


def test_a_list_argument_repeated_after_list():
    xs = [X, 2 * X]
    g = s2s.grad(argument_as_list)(xs, 3)
    for got, x in zip(g, xs):
        np.testing.assert_allclose(got, 3 * (np.sin(x) + x * np.cos(x)), rtol=1e-12)


def unseen_list_argument(xs, n):
    M = xs * n
    s = 0.0
    for t in M:
        s = s + np.sum(t ** 2)
    return s


@pytest.mark.parametrize("xs", [[X], [X, 2 * X]], ids=["one", "two"])
def test_a_list_argument_the_code_does_not_show_is_refused_not_wrong(xs):
    # nothing in `unseen_list_argument` says `xs` is a list: the array rule runs, and rt.unbroadcast
    # refuses the repeated list's cotangent instead of summing it into a wrong gradient
    with pytest.raises(s2s.S2SError, match="list"):
        s2s.grad(unseen_list_argument)(xs, 3)


def argument_times_literal(xs):
    M = xs * 3
    s = 0.0
    for t in M:
        s = s + np.sum(t ** 2)
    return s


def test_an_argument_times_an_int_literal_is_refused_when_a_list():
    # a parameter times an int literal keeps its rt.unbroadcast, which refuses a repeated list's
    # cotangent (the gradient of a list argument once came back three times too long)
    np.testing.assert_allclose(s2s.grad(argument_times_literal)(X), 18 * X, rtol=1e-12)
    for xs in ([X], [X, 2 * X], (X,)):
        with pytest.raises(s2s.S2SError, match="list"):
            s2s.grad(argument_times_literal)(xs)
