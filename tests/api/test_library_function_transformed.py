"""A NumPy function given to a transform itself (`s2s.jvp(np.kron, (a, b), ...)`): s2s writes a
function of its arguments for it, and for one whose signature Python cannot read (np.kron,
np.outer, s2s.numpy's `(*args, **kwargs)` wrappers) it took one argument, so jvp and vjp of two
failed with a raw `TypeError: jvp_kron_() takes 2 positional arguments but 4 were given`
(autograd's test_systematic.py::test_kron/test_dot/test_outer). jvp and vjp now take the number
of arguments they are given (checked against central differences)."""
import numpy as np
import pytest

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
