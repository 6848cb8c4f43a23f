"""A NumPy function given to a transform itself (`s2s.jvp(np.kron, (a, b), ...)`): s2s writes a
function of its arguments for it, and for one whose signature Python cannot read (np.kron,
np.outer, s2s.numpy's `(*args, **kwargs)` wrappers) it took one argument, so jvp and vjp of two
failed with a raw `TypeError: jvp_kron_() takes 2 positional arguments but 4 were given`
(autograd's test_systematic.py::test_kron/test_dot/test_outer). jvp and vjp now take the number
of arguments they are given (checked against central differences)."""
import numpy as np
import pytest

import s2s
import s2s.numpy as snp
from s2s.test_util import check_grads

RNG = np.random.default_rng(3)


@pytest.mark.parametrize("f", [np.kron, np.outer, snp.dot, snp.kron, np.dot, np.inner], ids=lambda f: f.__name__)
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2,), (3,))], ids=["scalars", "vectors", "mixed"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_library_function_of_two_arguments(f, shapes, mode):
    args = tuple(RNG.standard_normal(s) for s in shapes)
    try:
        f(*args)
    except ValueError:
        return  # shapes NumPy itself refuses (inner of (2,) and (3,))
    check_grads(f, args, order=2, modes=(mode,))


# grad, vmap and jacfwd of the function itself compiled the same one-argument function before the
# call's arguments were seen: `grad(np.kron)(a, b)` failed with a raw TypeError. s2s now reads
# NumPy's own signature (through its dispatcher's `__wrapped__`) for the number of arguments.
TWO = [np.kron, np.outer, np.dot, np.inner, snp.kron, snp.outer, snp.dot]
SCALAR = [f for f in TWO if f.__name__ != "outer"]  # (outer of two scalars has shape (1, 1))


def _fd_partial(f, args, i, eps=1e-6):
    """d f(*args) / d args[i] by central differences, one element at a time (f: scalar)."""
    x = np.asarray(args[i], dtype=float)
    g = np.zeros_like(x)
    for k in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[k] = eps
        plus, minus = list(args), list(args)
        plus[i], minus[i] = x + e, x - e
        g[k] = (f(*plus) - f(*minus)) / (2 * eps)
    return g


@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f"{type(f).__module__.split('.')[0]}.{f.__name__}")
def test_grad_of_the_function_itself_takes_both_arguments(f):
    a, b = np.array(0.7), np.array(-1.3)
    got = s2s.grad(f, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(got, [_fd_partial(f, (a, b), i) for i in (0, 1)], rtol=1e-7)


@pytest.mark.parametrize("f", TWO, ids=lambda f: f"{type(f).__module__.split('.')[0]}.{f.__name__}")
def test_vmap_and_jacfwd_of_the_function_itself(f):
    a, b = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 3))
    want = np.stack([np.asarray(f(x, y)) for x, y in zip(a, b)])
    np.testing.assert_allclose(s2s.vmap(f)(a, b), want, rtol=1e-12)
    jac = s2s.jacfwd(f, argnums=1)(a[0], b[0])
    out = np.asarray(f(a[0], b[0]))
    for k in np.ndindex(out.shape):
        np.testing.assert_allclose(jac[k], _fd_partial(lambda x, y: np.asarray(f(x, y))[k], (a[0], b[0]), 1), rtol=1e-6,
                                   atol=1e-9)


def test_grad_of_kron_of_matrices():
    a, b = RNG.standard_normal((2, 2)), RNG.standard_normal((1, 3))

    def loss(a, b):
        return np.sum(np.sin(np.kron(a, b)))
    got = s2s.grad(loss, argnums=(0, 1))(a, b)
    for i in (0, 1):
        np.testing.assert_allclose(got[i], _fd_partial(loss, (a, b), i), rtol=1e-7, atol=1e-10)
    ga, gb = s2s.grad(lambda a, b: np.sum(np.kron(a, b)), argnums=(0, 1))(a, b)
    np.testing.assert_allclose(ga, np.full_like(a, np.sum(b)), rtol=1e-12)  # by hand: d/da sum(kron) = sum(b)
    np.testing.assert_allclose(gb, np.full_like(b, np.sum(a)), rtol=1e-12)
