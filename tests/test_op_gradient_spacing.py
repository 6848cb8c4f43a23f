"""np.gradient's spacing: derivatives with respect to `f` use it, derivatives with respect to the
spacing itself are refused with an S2SError naming the line (never a silent zero)."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError
from s2s.test_util import check_grads


def grad_on_grid(x, h):
    return (np.gradient(x, h, axis=0) ** 2).sum()


def test_derivative_wrt_f_uses_the_coordinates():
    h = np.array([0.0, 0.4, 1.1, 1.5, 2.6])
    x = np.random.default_rng(0).standard_normal(5)
    check_grads(lambda x: grad_on_grid(x, h), (x,), order=2, modes=("fwd", "rev"))


@pytest.mark.parametrize("transform", [s2s.grad, s2s.jacfwd])
def test_derivative_wrt_spacing_is_an_error(transform):
    h = np.array([0.0, 0.4, 1.1, 1.5, 2.6])
    x = np.random.default_rng(0).standard_normal(5)
    with pytest.raises(S2SError, match="spacing"):
        transform(grad_on_grid, argnums=1)(x, h)
