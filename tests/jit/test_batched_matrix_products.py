"""vmap's product of a matrix by many batched vectors under jit (passes/batched_products.py):
`vmap(lambda v: np.dot(M, v))` over a known large batch is `rt.batched_matrix_dot(matmul_0, M, v)`,
whose `v @ M.T` threads may share by rows (issue 46, W3 on 13 cores). The values are a Python loop
over the examples' (within a k-term sum's rounding where rows are split), and anything that is not
a NumPy matrix multiplies as vmap does without jit."""
import os
import threading

import numpy as np
import pytest
from helpers_blas import assert_product_close

import s2s
from s2s.compiler.emit import cores, products, scheduler

M = np.random.default_rng(1).normal(size=(150, 100))


def apply_m(v):
    return np.dot(M, v)


class _Pool:
    def __init__(self):
        self.threads = []

    def submit(self, fn):
        t = threading.Thread(target=fn)
        t.start()
        self.threads.append(t)


@pytest.fixture
def two_threads(monkeypatch):
    monkeypatch.setattr(scheduler, "_POOL", _Pool())
    monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 2)
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: True)
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    monkeypatch.setattr(cores, "usable_cores", lambda: 2)
    monkeypatch.setattr(products, "WORK_MIN", 1)


def test_many_vectors_share_the_rows_of_one_product(two_threads):
    v = np.random.default_rng(2).normal(size=(1000, 100))
    f = s2s.jit(s2s.vmap(apply_m))
    loop = np.stack([M @ x for x in v])
    for _ in range(2):
        got = f(v)
        assert got.shape == (1000, 150)
        assert_product_close(got, v, M.T, want=loop)
    assert "rt.batched_matrix_dot(matmul_0, M" in s2s.source(f, v)


def test_few_vectors_stay_one_call():
    v = np.random.default_rng(3).normal(size=(10, 100))
    f = s2s.jit(s2s.vmap(apply_m))
    np.testing.assert_array_equal(f(v), s2s.vmap(apply_m)(v))
    assert "matmul_" not in s2s.source(f, v)


G = None


def apply_g(v):
    return np.dot(G, v)


@pytest.mark.parametrize("m", [np.arange(100.0), np.arange(100 * 150).reshape(150, 100), np.ones((3, 150, 100))],
                         ids=["vector", "int", "stack"])
def test_other_matrices_multiply_as_vmap_does(m, two_threads, monkeypatch):
    monkeypatch.setitem(globals(), "G", m)
    v = np.random.default_rng(4).normal(size=(1000, 100))
    f = s2s.jit(s2s.vmap(apply_g))
    got = f(v)
    assert "rt.batched_matrix_dot(matmul_0, G" in s2s.source(f, v)
    want = np.stack([np.dot(m, x) for x in v])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-9)
