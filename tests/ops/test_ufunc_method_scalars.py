"""`np.<ufunc>.accumulate` and `np.add.reduceat` of a 0-d array raise NumPy's TypeError under every
transform (s2s lowers them to np.cumsum, np.cumprod and the running maximum, which accept one), and
still give the plain values and central differences' derivatives on arrays."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

UFUNCS = [np.maximum, np.minimum, np.add, np.multiply]
RUNS = {
    "grad": lambda f, x: s2s.grad(f)(x),
    "jit": lambda f, x: s2s.jit(f)(x),
    "jvp": lambda f, x: s2s.jvp(f, (x,), (np.ones_like(x),)),
    "vmap": lambda f, x: s2s.vmap(f)(np.stack([x, x + 1.0])),
}


def _accumulated(u):
    return lambda x: np.sum(u.accumulate(x * 2.0) ** 2)


@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("u", UFUNCS, ids=lambda u: u.__name__)
def test_accumulate_of_a_scalar_raises_numpys_type_error(u, run):
    f = _accumulated(u)
    with pytest.raises(TypeError, match="cannot accumulate on a scalar") as plain:
        f(np.array(0.5))
    with pytest.raises(TypeError) as info:
        RUNS[run](f, np.array(0.5))
    assert type(info.value) is type(plain.value) and str(info.value) == str(plain.value)


def test_reduceat_of_a_scalar_raises_numpys_type_error():
    f = lambda x: np.sum(np.add.reduceat(x * 2.0, [0]))  # noqa: E731
    for run in RUNS.values():
        with pytest.raises(TypeError, match="cannot reduceat on a scalar"):
            run(f, np.array(0.5))


@pytest.mark.parametrize("u", UFUNCS, ids=lambda u: u.__name__)
def test_accumulate_of_arrays_keeps_its_values_and_derivatives(u):
    f = _accumulated(u)
    x = np.array([0.4, -0.3, 0.9, 0.2])
    np.testing.assert_allclose(s2s.grad(f)(x), fd_grad(f, x), rtol=1e-6, atol=1e-8)
    assert s2s.jit(f)(x) == pytest.approx(f(x))
    xs = np.stack([x, x[::-1]])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(xs[0]), f(xs[1])])
