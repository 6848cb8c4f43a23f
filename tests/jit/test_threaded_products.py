"""Large matrix products under jit (s2s/compiler/emit/products.py): a version whose shapes are known writes
a product of matrices of `shapefold.SPLIT_MIN` multiply-adds and more as `matmul_<i>(a, b)`, whose
blocks of rows the calling thread and the scheduler's helpers share. The values are those of
`a @ b` whichever way it runs (checked with a helper thread that runs at once, one that never
starts, and one thread), smaller products stay `@`/`dot`, and anything that is not a pair of
NumPy matrices of BLAS's dtypes is multiplied as it is. No assertion depends on timing."""
import os
import sys
import threading

import numpy as np
import pytest
from helpers_blas import assert_product_close, product_bound
from paths import BENCH

import s2s
from s2s.compiler.emit import cores, dump, products, scheduler
from s2s.compiler.passes import shapefold

sys.path.insert(0, str(BENCH))
from bench_programs import linear_hand, linear_loss  # noqa: E402  (W5's program and its hand-written gradient)


class _Pool:
    """Helpers that run at once in a thread (`now`), or never (a helper the system has not run)."""

    def __init__(self, now):
        self.now, self.threads = now, []

    def submit(self, fn):
        if self.now:
            t = threading.Thread(target=fn)
            t.start()
            self.threads.append(t)


@pytest.fixture(params=["helper", "no_helper", "one_thread"])
def threads(request, monkeypatch):
    monkeypatch.setattr(scheduler, "_POOL", _Pool(request.param == "helper"))
    monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 1 if request.param == "one_thread" else 2)
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)  # (a threaded BLAS's products are never split)
    monkeypatch.setattr(products, "WORK_MIN", 1)  # (these small products split as the large ones do)
    monkeypatch.setattr(cores, "raisable_blas", lambda: None)  # (rows split by s2s's threads, not OpenBLAS's)
    return request.param


def _data(n, d, k, seed=0):
    r = np.random.default_rng(seed)
    return (r.normal(size=(d, k)), r.normal(size=k)), r.normal(size=(n, d)), r.normal(size=(n, k))


@pytest.mark.parametrize("make", [
    lambda r: (r.normal(size=(130, 40)), r.normal(size=(40, 20))),
    lambda r: (np.asfortranarray(r.normal(size=(130, 40))), r.normal(size=(40, 20))),
    lambda r: (r.normal(size=(40, 130)).T, r.normal(size=(20, 40)).T),
    lambda r: (r.normal(size=(130, 40)).astype(np.float32), r.normal(size=(40, 20)).astype(np.float32)),
    lambda r: (r.normal(size=(130, 40)).astype(np.float32), r.normal(size=(40, 20))),
    lambda r: (r.normal(size=(130, 40)) + 1j * r.normal(size=(130, 40)), r.normal(size=(40, 20))),
    lambda r: (r.normal(size=(260, 40))[::2], r.normal(size=(40, 20))),
], ids=["c_order", "f_order", "transposed", "float32", "mixed", "complex", "strided_rows"])
def test_product_equals_matmul(make, threads):
    """Blocks of rows against one whole-matrix call: BLAS may sum each block in another order (its
    kernel and blocking depend on the CPU and the block's shape), so the elements agree within
    the rounding bound of a k-term sum, |got - want| <= 2*gamma_k * (|a| @ |b|), gamma_k ~ k*eps/2
    (helpers_blas.product_bound; k = 40 here, 2k per part when complex)."""
    a, b = make(np.random.default_rng(1))
    p = products.Product("matmul_0")
    for _ in range(3):  # (the scheduler's first call and those after it)
        got = p(a, b)
        assert got.dtype == (a @ b).dtype and got.shape == (130, 20)
        assert_product_close(got, a, b)
    if threads == "helper":
        for t in scheduler._POOL.threads:
            t.join()


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_the_rounding_bound_rejects_a_wrong_element(dtype):
    """The bound is a few ulps of k-term sums: one element off by three times it is caught."""
    r = np.random.default_rng(2)
    a, b = r.normal(size=(130, 40)).astype(dtype), r.normal(size=(40, 20)).astype(dtype)
    assert_product_close(a @ b, a, b)
    bad = (a @ b).copy()
    bad[7, 3] += 3 * product_bound(a, b)[7, 3]
    with pytest.raises(AssertionError, match="1 of 2600 elements beyond"):
        assert_product_close(bad, a, b)


@pytest.mark.parametrize("a, b", [
    (np.ones(40), np.ones((40, 3))),
    (np.ones((130, 40), dtype=np.int64), np.ones((40, 3), dtype=np.int64)),
    (np.ones((2, 130, 40)), np.ones((40, 3))),
    (np.ones((10, 40)), np.ones((40, 3))),
], ids=["vector", "integers", "stack", "few_rows"])
def test_other_operands_multiply_as_they_are(a, b, threads):
    got = products.Product("matmul_0")(a, b)
    assert got.dtype == (a @ b).dtype
    np.testing.assert_array_equal(got, a @ b)


def test_mismatched_shapes_raise_numpys_error(threads):
    with pytest.raises(ValueError, match="matmul"):
        products.Product("matmul_0")(np.ones((130, 4)), np.ones((5, 3)))


def test_large_products_of_a_shaped_version_share_rows(threads):
    n, d, k = 256, 256, 256
    assert n * d * k >= shapefold.SPLIT_MIN
    args = _data(n, d, k)
    g = s2s.jit(s2s.grad(linear_loss))
    for want, got in zip(linear_hand(*args), g(*args)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    src = s2s.source(next(iter(g._versions.values())))
    assert "matmul_0(x, w)" in src and "matmul_1(x.T, " in src, src
    assert "# product matmul_0 (s2s.compiler.emit.products" in src
    small = _data(16, 32, 64)  # (another signature: a version of its own, with `@`)
    for want, got in zip(linear_hand(*small), g(*small)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert sum("matmul_" in s2s.source(v) for v in g._versions.values()) == 1


def test_products_of_other_shapes_take_the_any_shape_version():
    g = s2s.jit(s2s.grad(linear_loss))
    big = _data(256, 256, 256)
    g(*big)
    other = _data(300, 256, 256, seed=1)  # same ranks, other shapes
    for want, got in zip(linear_hand(*other), g(*other)):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_dump_of_a_version_with_products_runs():
    args = _data(256, 256, 256)
    g = s2s.jit(s2s.grad(linear_loss))
    want = g(*args)
    version = next(iter(g._versions.values()))
    text = dump.module_source([version], "a version with products")
    assert "def matmul_0(a, b):\n    return a @ b" in text
    ns: dict = {}
    exec(compile(text, "<dump>", "exec"), ns)
    for w, got in zip(want, ns[version.__name__](*args)):
        np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("threaded", [False, None], ids=["decided_alone", "no_helpers"])
def test_a_product_on_the_caller_alone_is_one_call(threaded, monkeypatch):
    """On the caller alone (the decision says threads do not pay, or no core is idle) a product is
    one BLAS call over all its rows, bitwise `a @ b`: a loop over blocks of rows cost 1.2x one call
    on the 13-core machine (issue 46, W9)."""
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    if threaded is None:
        monkeypatch.setattr(cores, "idle_cores", lambda: 1)
    else:
        monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: threaded)
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 4)
    monkeypatch.setattr(products, "WORK_MIN", 1)
    monkeypatch.setattr(cores, "raisable_blas", lambda: None)
    r = np.random.default_rng(3)
    a, b = r.normal(size=(200, 64)), r.normal(size=(64, 30))
    p = products.Product("matmul_0")
    calls = []
    rows = p.rows
    p.rows = lambda lo, hi, out, *ab: (calls.append((lo, hi)), rows(lo, hi, out, *ab))[1]
    np.testing.assert_array_equal(p(a, b), a @ b)
    assert calls == [(0, 200)]


@pytest.mark.parametrize("shape, parts", [((128, 784, 256), 4), ((1024, 512, 512), 13), ((256, 64, 128), 1)])
def test_blocks_carry_enough_work(shape, parts, monkeypatch):
    """A block has at least `WORK_MIN` multiply-adds (a helper's hand-off costs tens of µs), at
    least `ROWS_MIN` rows, and there are at most as many blocks as threads."""
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 13)
    monkeypatch.setattr(cores, "raisable_blas", lambda: None)
    seen = []
    monkeypatch.setattr(scheduler, "run", lambda block, n, size, out, flat, **kw: seen.append(-(-n // size)))
    m, k, n = shape
    products.Product("matmul_0")(np.ones((m, k)), np.ones((k, n)))
    assert seen == ([parts] if parts > 1 else [])


class _Blas:
    """A stand-in for threadpoolctl's controller of OpenBLAS: the thread counts it was set to."""

    def __init__(self):
        self.set = []

    def set_num_threads(self, n):
        self.set.append(n)


@pytest.mark.parametrize("threaded", [True, False])
def test_openblas_threads_are_raised_for_one_product(threaded, monkeypatch):
    """Where NumPy's BLAS is OpenBLAS on one thread, a product raises its thread count for its own
    call and sets it back to one after it; on the caller alone it is one plain call."""
    blas = _Blas()
    monkeypatch.setattr(cores, "raisable_blas", lambda: blas)
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 6)
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: threaded)
    r = np.random.default_rng(4)
    a, b = r.normal(size=(200, 64)), r.normal(size=(64, 30))
    np.testing.assert_array_equal(products.Product("matmul_0")(a, b), a @ b)  # (the stand-in runs one thread)
    assert blas.set == ([6, 1] if threaded else [])


def test_raised_threads_are_set_back_when_the_product_raises():
    blas = _Blas()
    with pytest.raises(ValueError, match="matmul"):
        products._raised(blas, 4, np.ones((3, 2)), np.ones((5, 4)))
    assert blas.set == [4, 1]


@pytest.mark.parametrize("blas_threads, s2s_threads", [(2, 8), (1, 1)], ids=["blas_threaded", "one_s2s_thread"])
def test_no_raise_where_blas_is_threaded_or_s2s_has_one_thread(blas_threads, s2s_threads, monkeypatch):
    blas = _Blas()
    monkeypatch.setattr(cores, "raisable_blas", lambda: blas)
    monkeypatch.setattr(cores, "blas_threads", lambda: blas_threads)
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: s2s_threads)
    a, b = np.ones((256, 128)), np.ones((128, 128))
    np.testing.assert_array_equal(products.Product("matmul_0")(a, b), a @ b)
    assert blas.set == []


def test_a_decisions_first_threaded_call_is_not_recorded(monkeypatch):
    """The first raised call may start OpenBLAS's threads: its time would make threads look slow."""
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    key = object()
    scheduler.decided(key, 10, lambda: 1, lambda: 2)
    assert scheduler.decision(key).times == {True: [], False: []}
    assert scheduler.decided(key, 10, lambda: 1, lambda: 2) == 1
    assert len(scheduler.decision(key).times[True]) == 1


def test_a_product_on_openblas_threads_agrees_with_one_thread(monkeypatch):
    """The real OpenBLAS raised to 2 and 4 threads: each element within the rounding bound of the
    one-thread product, and OpenBLAS back on one thread after each call."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    cores.forget()
    blas = cores.raisable_blas()
    if blas is None:
        pytest.skip("NumPy's BLAS is not OpenBLAS with its own pthreads pool")
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: True)
    r = np.random.default_rng(5)
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        for n in (2, 4):
            monkeypatch.setattr(scheduler, "threads", lambda kernel=False, n=n: n)
            for a, b in [(r.normal(size=(256, 128)), r.normal(size=(128, 128))),
                         (r.normal(size=(784, 128)).T, r.normal(size=(784, 256))),
                         (r.normal(size=(300, 64)).astype(np.float32), r.normal(size=(64, 100)).astype(np.float32))]:
                got = products.Product("matmul_0")(a, b)
                assert got.dtype == (a @ b).dtype
                assert_product_close(got, a, b)
                assert cores.blas_threads() == 1
