"""std's derivative where the entries are equal up to roundoff (issue 44, campaign 5301:
`--seed 5301008 --keywords --program 12`): NumPy's std of three copies of 0.94185... is 1e-17, not
0, since their mean rounds, and the rule's (a - mean) / (n std) was roundoff over roundoff, an O(1)
number where every direction that keeps the entries equal has derivative 0. s2s takes the
derivative there as at std == 0 (docs/nondifferentiable.md): 0, under every transform."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X0 = 0.9418548517585486  # (np.std(np.full(3, X0)) is about 1e-17)
Y = np.array([0.15967116733141307, 0.036975416760552715, 0.0046084752806476725])


def f(x):
    return np.std(np.maximum(Y, x[0])) * 3.0 + np.sum(x * x)


def test_the_point_has_roundoff():
    assert 0.0 < np.std(np.full(3, X0)) < 1e-15


@pytest.mark.parametrize("transform", ["grad", "jacfwd", "jacrev", "jit_grad", "vmap_grad"])
def test_equal_entries_up_to_roundoff_have_derivative_zero(transform):
    x = np.array([X0, -0.56, 0.49])
    want = fd_grad(f, x)
    np.testing.assert_allclose(want, 2 * x, atol=1e-8)
    run = {"grad": lambda: s2s.grad(f)(x), "jacfwd": lambda: s2s.jacfwd(f)(x),
           "jacrev": lambda: s2s.jacrev(f)(x), "jit_grad": lambda: s2s.jit(s2s.grad(f))(x),
           "vmap_grad": lambda: s2s.vmap(s2s.grad(f))(np.stack([x, x]))[1]}[transform]
    np.testing.assert_allclose(run(), want, atol=1e-8)


def test_hessian_there_is_that_of_the_rest():
    x = np.array([X0, -0.56, 0.49])
    np.testing.assert_allclose(s2s.hessian(f)(x), 2 * np.eye(3), atol=1e-8)


def test_a_small_std_that_is_not_roundoff_keeps_its_derivative():
    """Entries 1e-9 apart (far above roundoff): the derivative is (a - mean) / (n std)."""
    a = np.array([1.0, 1.0 + 1e-9, 1.0 - 2e-9])
    g = s2s.grad(np.std)(a)
    c = a - np.mean(a)
    np.testing.assert_allclose(g, c / (3 * np.std(a)), rtol=1e-6)
    np.testing.assert_allclose(g, fd_grad(np.std, a, eps=1e-11), rtol=1e-3)
