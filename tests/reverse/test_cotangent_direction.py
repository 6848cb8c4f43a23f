"""Derivatives with respect to the cotangent itself: `(x, v) -> vjp(f, x)(v)` differentiated in
both arguments, as autograd's check_grads does at order 2 and above. s2s's own check_grads holds
the cotangent fixed, so these rules were never transposed: the VJP of `list(t)`'s VJP returned
the list's cotangent as a tuple (autograd's test_list.py::test_make_list), `np.hstack` of an array
crashed (`zero-dimensional arrays cannot be concatenated`, test_systematic.py::test_hstack_1d),
and `np.column_stack`/`np.dstack` of an array returned a list for it (test_column_stack_1d).
Each is checked against central differences, structure included."""
import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads

RNG = np.random.default_rng(5)


def made_list(x):
    return list((x, x * 2.0))


def made_tuple(x):
    return tuple([x * 3.0, x])


def literal_list(x):
    return [np.sin(x), x]


def hstack(t):
    return np.hstack(t) ** 2


def vstack(t):
    return np.vstack(t) ** 2


def column_stack(t):
    return np.column_stack(t) ** 2


def dstack(t):
    return np.dstack(t) ** 2


def stack(t):
    return np.stack(t) ** 2


def _vjp_of(f):
    def vjp_f(x, v):
        out, pullback = s2s.vjp(f, x)
        return pullback(v)[0]
    return vjp_f


@pytest.mark.parametrize("f", [made_list, made_tuple, literal_list], ids=lambda f: f.__name__)
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_vjp_of_a_container_output_in_its_cotangent(f, mode):
    x = 0.7
    v = f(0.3)  # a cotangent of the output's structure: a list stays a list
    check_grads(_vjp_of(f), (x, v), order=2, modes=(mode,))
    ct = s2s.vjp(_vjp_of(f), x, v)[1](1.5)[1]
    assert type(ct) is type(v)


@pytest.mark.parametrize("f", [hstack, vstack, column_stack, dstack, stack], ids=lambda f: f.__name__)
@pytest.mark.parametrize("tup", [RNG.standard_normal(3), RNG.standard_normal((3, 2)),
                                 (RNG.standard_normal(2), RNG.standard_normal(2)),
                                 [RNG.standard_normal((2, 3)), RNG.standard_normal((2, 3))]],
                         ids=["array1d", "array2d", "tuple", "list"])
@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_stacking_vjp_in_its_cotangent(f, tup, mode):
    v = RNG.standard_normal(np.shape(f(tup)))
    check_grads(_vjp_of(f), (tup, v), order=2, modes=(mode,))
    ct = s2s.vjp(f, tup)[1](v)[0]
    assert type(ct) is type(tup)
