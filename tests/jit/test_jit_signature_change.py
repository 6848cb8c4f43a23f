"""A jit version is specialized on its arguments' ranks and dtypes (rank-lowered `dot`, buffer
reuse by dtype), so a call whose arrays have another rank or dtype than the calls before must
run its own version. It used to run the first one (jit kept versions by argument type alone):
`jit(vmap(dot))` built for matrices returned `x @ w.T` for a batch of matrices -- a wrong number.
Property: jit(f) == f over a sequence of calls that changes signature back and forth."""
import numpy as np
import pytest
from helpers_blas import assert_product_close, product_bound

import s2s


def matvec(w, x):
    return np.dot(w, x)


def row_sums(x):
    return np.sum(x, axis=-1) * 2.0


def chain(x, y):
    t = np.exp(x) * y
    return t * t + t


def _cases():
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 3))
    yield "vmap(matvec)", s2s.vmap(matvec, in_axes=(None, 0)), [
        (w, rng.normal(size=(4, 3))), (w, rng.normal(size=(4, 3, 3))), (w[0], rng.normal(size=(4, 3))),
        (w, rng.normal(size=(4, 3))), (w.astype(np.float32), rng.normal(size=(4, 3, 3)).astype(np.float32))]
    yield "vmap(row_sums)", s2s.vmap(row_sums), [
        (rng.normal(size=(2, 3)),), (rng.normal(size=(2, 3, 4)),), (rng.normal(size=(2, 3)),)]
    yield "chain", chain, [
        (rng.normal(size=3), rng.normal(size=3)), (rng.normal(size=3).astype(np.float32),) * 2,
        (rng.normal(size=3), rng.normal(size=(2, 3))), (np.arange(3), np.arange(3)),
        (rng.normal(size=3), rng.normal(size=3))]
    yield "grad(chain-sum)", s2s.grad(lambda x: np.sum(chain(x, x))), [
        (rng.normal(size=3),), (rng.normal(size=(2, 3)),), (rng.normal(size=3).astype(np.float32),)]


@pytest.mark.parametrize("name, fun, calls", list(_cases()), ids=[c[0] for c in _cases()])
def test_jit_equals_the_function_when_ranks_and_dtypes_change(name, fun, calls):
    jitted = s2s.jit(fun)
    for _ in range(2):  # the second round runs through the fast path built on the first
        for args in calls:
            got, want = jitted(*args), fun(*args)
            assert np.shape(got) == np.shape(want) and np.result_type(got) == np.result_type(want)
            if name == "vmap(matvec)":  # a batch of dots: BLAS may sum it in another order than one dot
                w, xs = args
                bound = np.stack([product_bound(w, x) for x in xs])
                assert np.all(np.abs(np.float64(got) - np.float64(want)) <= bound), (got, want)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-6 if np.result_type(want) == np.float32 else 1e-13)


def test_a_batch_of_matrices_after_a_batch_of_vectors_is_not_transposed():
    rng = np.random.default_rng(1)
    w = rng.normal(size=(3, 3))
    jitted = s2s.jit(s2s.vmap(matvec, in_axes=(None, 0)))
    jitted(w, rng.normal(size=(4, 3)))
    xs = rng.normal(size=(4, 3, 3))
    for got, x in zip(jitted(w, xs), xs):  # against a loop of dots, within their rounding
        assert_product_close(got, w, x)
