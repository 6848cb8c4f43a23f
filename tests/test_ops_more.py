"""Every remaining function of the rule table against central differences, order 2, both modes."""
import numpy as np
import ops_more_funcs as F
import pytest

from s2s.test_util import check_grads

MATRIX_INPUT = {"op_amax", "op_amin", "op_prod", "op_var", "op_std", "op_norm", "op_ravel", "op_squeeze",
                "op_swapaxes", "op_moveaxis", "op_flip", "op_roll", "op_tile", "op_repeat", "op_triu",
                "op_tril", "op_broadcast_to"}
POSITIVE_INPUT = {"op_log2", "op_log10", "op_power", "op_cbrt", "op_reciprocal"}
NAMES = sorted(n for n in dir(F) if n.startswith("op_"))


def make_args(name, rng):
    f = getattr(F, name)
    shape = (3, 3) if name == "op_trace" else (3, 4) if name in MATRIX_INPUT else (4,)
    if name in POSITIVE_INPUT:
        return tuple(rng.uniform(0.4, 1.5, shape) for _ in range(f.__code__.co_argcount))
    return tuple(rng.uniform(0.3, 0.9, shape) * rng.choice([-1.0, 1.0], shape)
                 for _ in range(f.__code__.co_argcount))


@pytest.mark.parametrize("name", NAMES)
def test_more_ops_match_finite_differences(name):
    check_grads(getattr(F, name), make_args(name, np.random.default_rng(len(name))), order=2,
                modes=("fwd", "rev"))
