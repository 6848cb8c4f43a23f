"""Derivatives beyond order 2 (issue 27, family 7), against hand-derived values and central
differences: the examples the issue found wrong or crashing, each in its smallest form."""
import numpy as np
import pytest
from order3 import check_path

import s2s
from s2s.test_util import check_grads

X = np.array([0.3, -0.5, 0.7])


def dot_cubed(x):
    return np.dot(x, x) ** 3


def sum_cubed(x):
    return np.sum(x * x) ** 3


def third_of_cubed_norm(x):
    """d^3/dx^3 of (x.x)^3: 24 s (d_ij x_k + d_ik x_j + d_jk x_i) + 48 x_i x_j x_k, s = x.x."""
    s, eye = x @ x, np.eye(len(x))
    sym = np.einsum("ij,k->ijk", eye, x) + np.einsum("ik,j->ijk", eye, x) + np.einsum("jk,i->ijk", eye, x)
    return 24 * s * sym + 48 * np.einsum("i,j,k->ijk", x, x, x)


@pytest.mark.parametrize("f", [dot_cubed, sum_cubed])
@pytest.mark.parametrize("how", ["rrr", "fff", "frr", "rfr"])
def test_third_derivative_tensor(f, how):
    """jacrev/jacfwd three times, in every order, give the hand-derived tensor (np.dot's cotangent
    helpers were declared linear in one factor: reverse mode lost a term at order 3)."""
    t = {"r": s2s.jacrev, "f": s2s.jacfwd}
    d = f
    for k in how:
        d = t[k](d)
    np.testing.assert_allclose(d(X), third_of_cubed_norm(X), rtol=1e-10, atol=1e-9)


@pytest.mark.parametrize("f", [dot_cubed, sum_cubed])
def test_grad_of_grad_of_grad_by_sums(f):
    g1 = s2s.grad(f)
    g2 = s2s.grad(lambda x: np.sum(g1(x)))
    g3 = s2s.grad(lambda x: np.sum(g2(x)))
    np.testing.assert_allclose(g3(X), third_of_cubed_norm(X).sum(axis=(0, 1)), rtol=1e-10)


def loop_square(a):
    s = 0.0
    for _ in range(2):
        s = s + a * a
    return s


def comprehension_squares(a):
    ys = (a, a * a)
    out = [y * y for y in ys]
    return out[0] + out[1]


@pytest.mark.parametrize("f", [loop_square, comprehension_squares])
def test_loops_at_order_three(f):
    """A loop's tape at order 3: the backward sweep of a backward sweep popped the tape cotangents
    its caller kept in its record (IndexError: pop from empty list)."""
    check_grads(f, (np.array([0.7, -1.3]),), order=3, modes=("rev", "fwd"), eps=1e-4, atol=1e-5, rtol=1e-5)


def _tanh_derivatives(z, n):
    """The first n derivatives of tanh at z, from d/dz P(t) = P'(t) (1 - t^2), t = tanh(z)."""
    p, out = np.polynomial.Polynomial([0.0, 1.0]), []
    one_minus = np.polynomial.Polynomial([1.0, 0.0, -1.0])
    for _ in range(n):
        p = p.deriv() * one_minus
        out.append(p(np.tanh(z)))
    return out


def test_nested_elementwise_gradients_to_order_six():
    """autograd's tanh example: the gradient of a sum nested six times (crashed at level 4/5)."""
    z = np.linspace(-2.0, 2.0, 7)
    f, want = np.tanh, _tanh_derivatives(z, 6)
    for level in range(6):
        f = s2s.grad(lambda x, f=f: np.sum(f(x)))
        np.testing.assert_allclose(f(z), want[level], rtol=1e-9, atol=1e-9, err_msg=f"level {level + 1}")


def _grad_of_sum(f):
    return s2s.grad(lambda x: np.sum(f(x)))


def _jvp_along_ones(f):
    return lambda x: s2s.jvp(f, (x,), (np.ones_like(x),))[1]


def _cube_plus_log(x):
    return x ** 3 + np.log(x)


@pytest.mark.parametrize("op, order", [(np.sin, 6), (_cube_plus_log, 4)])
def test_elementwise_nested_in_forward_and_mixed(op, order):
    """The derivative of this order along alternating modes equals the one from reverse mode only,
    and central differences of the one below."""
    z = np.linspace(0.5, 1.5, 4)
    rev, mixed = op, op
    for level in range(order):
        rev = _grad_of_sum(rev)
        mixed = _grad_of_sum(mixed) if level % 2 else _jvp_along_ones(mixed)
        if level == order - 2:
            below = rev
    np.testing.assert_allclose(mixed(z), rev(z), rtol=1e-9)
    np.testing.assert_allclose(rev(z), (below(z + 1e-4) - below(z - 1e-4)) / 2e-4, rtol=1e-5)


def test_vjp_fn_leaves_a_list_cotangent_alone():
    """A backward sweep pops the cotangent of a list built by append: from its own copy, never from
    the caller's list (vjp_fn emptied it; a second call then failed)."""
    def f(x):
        out = []
        for i in range(3):
            out.append(x * i)
        return out
    _, back = s2s.vjp(f, np.array([1.0, 2.0]))
    ct = [np.ones(2), 2 * np.ones(2), 3 * np.ones(2)]
    first = back(ct)
    assert len(ct) == 3
    np.testing.assert_allclose(first[0], [8.0, 8.0])
    np.testing.assert_allclose(back(ct)[0], first[0])


def test_jacrev_inside_under_grad_of_grad():
    """A function that calls s2s.jacrev inside, differentiated twice."""
    def h(x):
        jac = s2s.jacrev(lambda y: np.sin(y) * np.sum(y * y))(x)
        return np.sum(jac * jac)
    check_grads(h, (X,), order=2, modes=("rev", "fwd"), eps=1e-4, atol=1e-5, rtol=1e-5)
    gg = s2s.grad(lambda x: np.sum(s2s.grad(h)(x)))
    check_grads(gg, (X,), order=1, modes=("rev", "fwd"), eps=1e-4, atol=1e-5, rtol=1e-5)


def test_prod_to_order_four_and_six():
    """np.prod's derivatives of every order to 6 (the third was refused): exact helpers whose own
    derivatives are the next ones, checked at order 4 against central differences, the sixth along
    ones against 6! * sum(x) (prod(x + t) of 7 entries), and under vmap against a loop."""
    x = np.array([[0.7, -1.2, 0.9, 1.3], [1.1, 0.5, -0.8, 0.6]])
    check_grads(lambda x: np.prod(x, axis=1), (x,), order=4, modes=("rev", "fwd"), eps=1e-3, atol=1e-4, rtol=1e-4)
    z = np.array([0.3, -0.5, 0.7, 1.1, 0.9, -1.3, 0.4])
    f = np.prod
    for _ in range(6):
        f = _jvp_along_ones(f)
    np.testing.assert_allclose(f(z), 720 * np.sum(z), rtol=1e-12)
    third = s2s.jacfwd(s2s.jacrev(s2s.jacrev(np.prod)))
    np.testing.assert_allclose(s2s.vmap(third)(x), np.stack([third(r) for r in x]), rtol=1e-12)
    want = np.einsum("i,j,k->ijk", *[np.ones(4)] * 3) * 0.0
    r = x[0]
    for i in range(4):
        for j in range(4):
            for k in range(4):
                if len({i, j, k}) == 3:
                    want[i, j, k] = np.prod(np.delete(r, [i, j, k]))
    np.testing.assert_allclose(third(r), want, rtol=1e-12)


def triangular_sines(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i):
            s = s + np.sin(x[i] * x[j]) / (1.0 + i + j)
    return s


def while_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        k = 0
        while k < i:
            s = s + np.tanh(x[i] + s * x[k])
            k = k + 1
    return s


# each function at order 3 and along one of the order-4 paths by default (each path taken by one of
# them), the other order-4 path with --full; a function whose "rrrr" runs by default has no "rrr"
# case of its own: check_path checks every level of "rrrr", "rrr"'s three first (the same seed)
_FOURTH_ELSEWHERE = {(triangular_sines, "frrr"), (while_in_loop, "rrrr")}


@pytest.mark.parametrize("f, path", [
    pytest.param(f, path, id=f"{path}-{f.__name__}", marks=[pytest.mark.full] if (f, path) in _FOURTH_ELSEWHERE else [])
    for path in ("rrr", "rrrr", "frrr") for f in (triangular_sines, while_in_loop)
    if path != "rrr" or (f, "rrrr") in _FOURTH_ELSEWHERE])  # (its "rrrr" checks "rrr" where it runs by default)
def test_inner_loop_ranges_at_orders_three_and_four(f, path):
    """A loop whose range is a variable of the loop around it: at order 3, that range's name is
    also a variable whose old value the tape saves, and dropping that save (never read) dropped
    the push of the loop's range with it (TypeError in reversed_range). Each level against central
    differences of the level below."""
    check_path(f, (np.array([0.3, -0.5, 0.7, 0.2]),), path, eps=1e-4, tol=1e-5)
