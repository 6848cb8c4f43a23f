"""np.einsum's sublist form called as `s2s.numpy.einsum` (autograd.numpy's einsum under
`alias_autograd`): the frontend knew the sublist form only as `np.einsum` itself, so through
s2s.numpy it read the first operand as the subscripts and differentiated nothing, a zero
derivative with no error (autograd's test_systematic.py::test_einsum2_transpose). Derivatives
against central differences; sublists s2s cannot read are refused in every transform."""
import numpy as np
import pytest

import s2s
import s2s.numpy as snp
from s2s.errors import S2SError
from s2s.test_util import check_grads

RNG = np.random.default_rng(11)
SUB, OUT = (0, 1), (1, 0)  # sublists held in variables: not readable when transforming


def transpose_literal(a):
    return snp.einsum(a, [0, 1], [1, 0]) ** 2


def matmul_literal(a, b):
    return snp.einsum(a, [0, 1], b, [1, 2], [0, 2])


def trace_literal(a):
    return snp.einsum(a, (0, 0))


def transpose_variables(a):
    return snp.einsum(a, SUB, OUT)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
@pytest.mark.parametrize("fn, shapes", [(transpose_literal, [(3, 4)]), (matmul_literal, [(2, 3), (3, 4)]),
                                        (trace_literal, [(3, 3)])], ids=lambda v: getattr(v, "__name__", ""))
def test_sublists_through_s2s_numpy_match_central_differences(fn, shapes, mode):
    check_grads(fn, tuple(RNG.standard_normal(s) for s in shapes), order=2, modes=(mode,))


@pytest.mark.parametrize("transform", [
    lambda f, a: s2s.jvp(f, (a,), (a,)),
    lambda f, a: s2s.vjp(f, a)[1](a),
    lambda f, a: s2s.grad(lambda x: snp.sum(f(x)))(a),
    lambda f, a: s2s.vmap(f)(a[None]),
], ids=["jvp", "vjp", "grad", "vmap"])
def test_sublists_in_variables_are_refused(transform):
    with pytest.raises(S2SError, match="sublist form"):
        transform(transpose_variables, RNG.standard_normal((3, 3)))
