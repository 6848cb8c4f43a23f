"""grad's seed is the literal 1.0 only for an output that is certainly a scalar: a name assigned
once, a full reduction or arithmetic of such and numbers. It was taken from the output name's
first assignment, so a reduction later rebound to an array (`y = np.sum(x); y = 2.0 * x`, or in
a branch or a loop) returned a wrong gradient with no error, where JAX raises."""
import numpy as np
import pytest

import s2s


def rebound(x):
    y = np.sum(x)
    y = x * 2.0
    return y


def rebound_in_branch(x, c):
    y = np.sum(x)
    if c > 0:
        y = x * 2.0
    return y


def rebound_in_loop(x):
    y = np.mean(x)
    for _ in range(2):
        y = y * x
    return y


def negated_mean(x):
    return -np.mean(x * x)


def scaled_twice(x):
    y = np.sum(x * x)
    y = y * 3.0
    return y


G = s2s.grad
PATHS = {
    "grad": lambda f: G(f),
    "jit_grad": lambda f: s2s.jit(G(f)),
    "value_and_grad": lambda f: s2s.value_and_grad(f),
    "grad_grad": lambda f: G(lambda *a: np.sum(G(f)(*a))),
}
X = np.array([0.5, 1.5, -2.0])


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("f, args", [(rebound, (X,)), (rebound_in_branch, (X, 1.0)), (rebound_in_loop, (X,))],
                         ids=["straight", "branch", "loop"])
def test_reduction_rebound_to_an_array_is_not_a_scalar_output(f, args, path):
    with pytest.raises(s2s.S2SError, match="scalar output"):
        PATHS[path](f)(*args)


def test_branch_not_taken_keeps_the_reduction():
    np.testing.assert_allclose(G(rebound_in_branch)(X, -1.0), np.ones(3))


@pytest.mark.parametrize("f, hand", [(negated_mean, lambda x: -2 * x / x.size), (scaled_twice, lambda x: 6 * x)])
@pytest.mark.parametrize("jit", [False, True])
def test_scalar_outputs_against_hand_derivatives(f, hand, jit):
    g = s2s.jit(G(f)) if jit else G(f)
    np.testing.assert_allclose(g(X), hand(X))
    np.testing.assert_allclose(g(X.reshape(3, 1)), hand(X.reshape(3, 1)))
