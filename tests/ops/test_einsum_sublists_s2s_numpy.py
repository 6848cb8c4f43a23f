"""np.einsum's sublist form called as `s2s.numpy.einsum` (autograd.numpy's einsum under
`alias_autograd`): the frontend knew the sublist form only as `np.einsum` itself, so through
s2s.numpy it read the first operand as the subscripts and differentiated nothing, a zero
derivative with no error (autograd's test_systematic.py::test_einsum2_transpose). Derivatives
against central differences; an einsum whose form s2s cannot tell when transforming is refused in
every transform (sublists in globals and variables: test_einsum_sublists_known.py)."""
import numpy as np
import pytest

import s2s
import s2s.numpy as snp
from s2s.errors import S2SError
from s2s.test_util import check_grads

RNG = np.random.default_rng(11)


def transpose_literal(a):
    return snp.einsum(a, [0, 1], [1, 0]) ** 2


def matmul_literal(a, b):
    return snp.einsum(a, [0, 1], b, [1, 2], [0, 2])


def trace_literal(a):
    return snp.einsum(a, (0, 0))


def form_unknown(a):
    sub = list(range(2))  # a sublist computed here: nor is the call's form (a could be subscripts) known
    return snp.einsum(a, sub, [1, 0])


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
def test_sublists_of_a_form_unknown_when_transforming_are_refused(transform):
    with pytest.raises(S2SError, match="sublist form"):
        transform(form_unknown, RNG.standard_normal((3, 3)))
