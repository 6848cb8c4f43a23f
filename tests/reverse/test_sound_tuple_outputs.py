"""grad of a function that returns a tuple, list or dict is an S2SError on every path (issue 27,
family 8): grad(grad(f)), jit, value_and_grad, vjp/jvp/jacfwd/jacrev/vmap of grad(f) and grad
called inside another transformed function. A nested transform used to drop grad's scalar check
when nothing downstream needed its value, and return 0."""
import numpy as np
import pytest

import s2s


def pair_scalars(x):
    return x * 2.0, x * 3.0


def pair_sums(x):
    return np.sum(x), np.sum(x * x)


def sum_and_array(x):
    return np.sum(x), x


def list_out(x):
    return [np.sum(x), np.sum(x)]


def one_tuple(x):
    return (np.sum(x),)


def branchy(x):
    if np.sum(x) > 0:
        return np.sum(x), 1.0
    return np.sum(x), 2.0


def dict_out(x):
    return {"a": np.sum(x)}


def calls_grad(x):
    return np.sum(s2s.grad(pair_sums)(x))


def first_of_pair(x):
    return (np.sum(x * x), np.sum(x))[0]


G = s2s.grad
PATHS = {
    "grad": lambda f: G(f),
    "grad_grad": lambda f: G(G(f)),
    "grad_grad_grad": lambda f: G(G(G(f))),
    "value_and_grad_grad": lambda f: s2s.value_and_grad(G(f)),
    "grad_jit": lambda f: G(s2s.jit(f)),
    "jit_grad_grad": lambda f: s2s.jit(G(G(f))),
    "jacfwd_grad": lambda f: s2s.jacfwd(G(f)),
    "jacrev_grad": lambda f: s2s.jacrev(G(f)),
    "vjp_grad": lambda f: (lambda x: s2s.vjp(G(f), x)[1](np.ones_like(x) if np.ndim(x) else 1.0)),
    "jvp_grad": lambda f: (lambda x: s2s.jvp(G(f), (x,), (np.ones_like(x) if np.ndim(x) else 1.0,))),
    "vmap_grad_grad": lambda f: (lambda x: s2s.vmap(G(G(f)))(np.stack([x, x]))),
}
FUNCS = [pair_scalars, pair_sums, sum_and_array, list_out, one_tuple, branchy, dict_out]


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.7, np.array([0.5, 1.5])], ids=["scalar", "vector"])
def test_tuple_output_raises_on_every_path(f, path, x):
    with pytest.raises(s2s.S2SError) as err:
        PATHS[path](f)(x)
    # vmap may refuse the branch's record before any output is seen (where the tape keeps one):
    # an error of its own
    expect = ("vmap cannot append", "scalar output") if (f, path) == (branchy, "vmap_grad_grad") else ("scalar output",)
    assert any(e in str(err.value) for e in expect)


@pytest.mark.parametrize("path", ["grad", "grad_grad", "jit_grad_grad", "value_and_grad_grad"])
def test_grad_called_inside_raises(path):
    with pytest.raises(s2s.S2SError, match="scalar output"):
        PATHS[path](calls_grad)(np.array([0.5, 1.5]))


def test_indexing_a_tuple_is_a_scalar_output():
    # the check must not refuse a scalar picked out of a tuple: hand-derived values
    x = np.array([0.5, 1.5])
    np.testing.assert_allclose(G(first_of_pair)(x), 2 * x)
    np.testing.assert_allclose(s2s.hessian(first_of_pair)(x), 2 * np.eye(2))
    assert G(G(G(first_of_pair)))(0.7) == 0.0


def test_hessian_of_tuple_output_is_a_tuple_as_in_jax():
    x = np.array([0.5, 1.5])
    h0, h1 = s2s.hessian(pair_sums)(x)
    np.testing.assert_allclose(h0, np.zeros((2, 2)))
    np.testing.assert_allclose(h1, 2 * np.eye(2))
