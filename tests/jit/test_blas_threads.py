"""s2s's own threads never add to BLAS's (issue 46): a large product under jit is split among
threads only where BLAS runs one thread, a kernel's helpers get only the cores a threaded BLAS
leaves, and the thread query reads threadpoolctl's current limits (a `threadpool_limits` block
counts) or else the environment BLAS read. The thread counts are stood in for; nothing is timed."""
import os

import numpy as np
import pytest

from s2s.compiler.emit import cores, products, scheduler


class _Pool:
    """Helpers that never start: a split product is computed by the caller's blocks alone."""

    def submit(self, fn):
        pass


@pytest.fixture
def split_log(monkeypatch):
    """The calls of `scheduler.run` the products make (each a split of rows), on 4 stand-in cores."""
    log = []
    real = scheduler.run

    def run(block, n, size, out, flat, *rest, **kw):
        log.append((n, size))
        return real(block, n, size, out, flat, *rest, **kw)

    monkeypatch.setattr(scheduler, "run", run)
    monkeypatch.setattr(scheduler, "threads", lambda kernel=False: 4)
    monkeypatch.setattr(cores, "usable_cores", lambda: 4)
    monkeypatch.setattr(scheduler, "_POOL", _Pool())
    monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(products, "WORK_MIN", 1)  # (small stand-in products split as large ones do)
    monkeypatch.setattr(cores, "raisable_blas", lambda: None)  # (s2s's threads split it, not OpenBLAS's)
    return log


def _operands():
    r = np.random.default_rng(0)
    return r.normal(size=(256, 40)), r.normal(size=(40, 30))


@pytest.mark.parametrize("blas", [2, 4, 13])
def test_a_threaded_blas_product_is_not_split(split_log, monkeypatch, blas):
    monkeypatch.setattr(cores, "blas_threads", lambda: blas)
    a, b = _operands()
    got = products.Product("matmul_0")(a, b)
    assert split_log == []
    np.testing.assert_allclose(got, a @ b, rtol=1e-13, atol=1e-13)


def test_a_one_thread_blas_product_is_split(split_log, monkeypatch):
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    a, b = _operands()
    got = products.Product("matmul_0")(a, b)
    assert split_log == [(256, 64)]  # 4 blocks of 64 rows, one per stand-in core
    np.testing.assert_allclose(got, a @ b, rtol=1e-13, atol=1e-13)


def test_the_product_follows_the_blas_threads_call_by_call(split_log, monkeypatch):
    now = [1]
    monkeypatch.setattr(cores, "blas_threads", lambda: now[0])
    a, b = _operands()
    product = products.Product("matmul_0")
    for now[0] in (1, 3, 1):  # (a threadpool_limits block entered and left between calls)
        np.testing.assert_allclose(product(a, b), a @ b, rtol=1e-13, atol=1e-13)
    assert split_log == [(256, 64), (256, 64)]


@pytest.mark.parametrize("blas, helpers", [(1, 3), (2, 2), (3, 1), (4, 0), (13, 0)])
def test_kernel_helpers_get_the_cores_blas_leaves(split_log, monkeypatch, blas, helpers):
    monkeypatch.setattr(cores, "blas_threads", lambda: blas)
    submitted = []
    monkeypatch.setattr(scheduler, "_share", lambda work, n, done, errors: (submitted.append(n), work()))
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: True)
    x = np.arange(1000.0)
    out = np.empty_like(x)

    def block(lo, hi, out, x):
        out[lo:hi] = 2.0 * x[lo:hi]
        return float(np.sum(x[lo:hi]))

    parts = scheduler.run(block, len(x), 100, out, (x,))
    assert submitted == ([helpers] if helpers else [])
    assert parts == [float(np.sum(x[lo:lo + 100])) for lo in range(0, 1000, 100)]
    np.testing.assert_array_equal(out, 2.0 * x)


@pytest.mark.parametrize("env, whole, helpers", [(None, False, 7), (None, True, 12), ("13", False, 12)])
def test_a_kernel_takes_at_most_kernel_most_threads(monkeypatch, env, whole, helpers):
    """A fused kernel's blocks are bound by the memory's bandwidth: at most `KERNEL_MOST` threads
    (the caller and 7 helpers) unless S2S_THREADS says more; a product's blocks (`whole`) take
    every thread."""
    if env is None:
        monkeypatch.delenv("S2S_THREADS", raising=False)
    else:
        monkeypatch.setenv("S2S_THREADS", env)
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    monkeypatch.setattr(cores, "usable_cores", lambda: 13)  # (scheduler.threads: 13, a kernel's 8)
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(scheduler, "_POOL", _Pool())
    monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
    submitted = []
    monkeypatch.setattr(scheduler, "_share", lambda work, n, done, errors: (submitted.append(n), work()))
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: True)
    x, out = np.arange(2000.0), np.empty(2000)

    def block(lo, hi, out, x):
        out[lo:hi] = x[lo:hi] + 1.0

    scheduler.run(block, 2000, 100, out, (x,), whole=whole)
    assert submitted == [helpers]
    np.testing.assert_array_equal(out, x + 1.0)


@pytest.fixture
def fresh_query(monkeypatch):
    cores.forget()
    yield
    cores.forget()


def test_the_query_reads_threadpoolctls_current_limits(fresh_query, monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not cores.blas_libraries():
        pytest.skip("threadpoolctl finds no BLAS in this NumPy")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")  # (read only without threadpoolctl)
    libs = threadpoolctl.ThreadpoolController().select(user_api="blas")
    now = max(info["num_threads"] for info in libs.info())
    assert cores.blas_threads() == now
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        assert cores.blas_threads() == 1 and not cores.blas_is_threaded()
        with threadpoolctl.threadpool_limits(2, user_api="blas"):
            assert cores.blas_threads() == 2 and cores.blas_is_threaded()
        assert cores.blas_threads() == 1
    assert cores.blas_threads() == now


@pytest.mark.parametrize("env, want", [
    ({"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}, 1),
    ({"MKL_NUM_THREADS": "2", "OMP_NUM_THREADS": "4"}, 2),
    ({"OMP_NUM_THREADS": "3,1"}, 3),
    ({"OMP_NUM_THREADS": "64"}, 6),   # never more than the usable cores
    ({"OPENBLAS_NUM_THREADS": "x", "OMP_NUM_THREADS": "0"}, 6),  # not a positive count: ignored
    ({}, 6),                          # nothing set: BLAS runs a thread per core
])
def test_without_threadpoolctl_the_environment_says(fresh_query, monkeypatch, env, want):
    monkeypatch.setattr(cores, "blas_libraries", lambda: None)
    monkeypatch.setattr(cores, "usable_cores", lambda: 6)
    for name in cores.ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert cores.blas_threads() == want
    assert cores.idle_cores() == 6 - want + 1


def test_without_threadpoolctl_installed_the_environment_says(fresh_query, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "threadpoolctl", None)  # (import raises ImportError)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    assert cores.blas_libraries() is None
    assert cores.blas_threads() == 1


def test_the_benchmarks_blas_threads_option_sets_blas(fresh_query):
    """`tools/bench/bench.py --blas-threads 1|default` sets BLAS's threads for its run (threadpoolctl)."""
    pytest.importorskip("threadpoolctl")
    if not cores.blas_libraries():
        pytest.skip("threadpoolctl finds no BLAS in this NumPy")
    import sys

    from paths import BENCH
    sys.path.insert(0, str(BENCH))
    import bench
    before = cores.blas_threads()
    try:
        for setting, want in (("1", 1), ("default", cores.usable_cores())):
            status, line = bench.blas_threads(setting, [])
            assert status is None and cores.blas_threads() == want
            assert line.startswith(f"BLAS threads: {want} of {cores.usable_cores()} usable cores")
    finally:
        while bench.BLAS_LIMITS:
            bench.BLAS_LIMITS.pop().restore_original_limits()
    assert cores.blas_threads() == before


def test_a_jit_gradient_follows_threadpool_limits(fresh_query, monkeypatch):
    """End to end, with threadpoolctl's real limits (no stand-in BLAS count): inside
    `threadpool_limits(1)` a jit gradient's large product runs on OpenBLAS's own threads raised for
    its call (NumPy's OpenBLAS) or is split among s2s's threads (another BLAS); with BLAS on every
    usable core it is one BLAS call and no kernel gets a helper. Same gradient either way."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    if not cores.blas_libraries():
        pytest.skip("threadpoolctl finds no BLAS in this NumPy")
    if cores.usable_cores() < 2:
        pytest.skip("one usable core: BLAS on every core is BLAS on one thread")
    import s2s
    splits, helpers = [], []
    real_run, real_share = scheduler.run, scheduler._share

    def run(block, n, size, out, flat, *rest, **kw):
        splits.append(getattr(block, "__self__", None) is not None)  # (a Product's bound `rows`)
        return real_run(block, n, size, out, flat, *rest, **kw)

    monkeypatch.setattr(scheduler, "run", run)
    monkeypatch.setattr(scheduler, "_share", lambda work, n, *a: (helpers.append(n), real_share(work, n, *a)))
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    raised, real_raised = [], products._raised
    monkeypatch.setattr(products, "_raised", lambda blas, n, a, b: (raised.append(n), real_raised(blas, n, a, b))[1])

    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)

    r = np.random.default_rng(3)
    x, w = r.normal(size=(512, 256)), r.normal(size=(256, 160)) * 0.05
    t = np.tanh(x @ w)
    want = x.T @ (2.0 * t * (1.0 - t * t))
    step = s2s.jit(s2s.grad(loss))
    with threadpoolctl.threadpool_limits(cores.usable_cores(), user_api="blas"):
        np.testing.assert_allclose(step(w, x), want, rtol=1e-10, atol=1e-12)
        assert True not in splits and helpers == [] and raised == []
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        for _ in range(3):  # (a decision's first threaded call, then its first call alone)
            np.testing.assert_allclose(step(w, x), want, rtol=1e-10, atol=1e-12)
        assert cores.blas_threads() == 1
    if cores.raisable_blas() is not None:
        assert raised and set(raised) == {scheduler.threads()} and True not in splits
    else:
        assert True in splits


@pytest.mark.parametrize("env, usable, want", [
    (None, 2, 2), (None, 13, 13), (None, 64, cores.MOST),  # every usable core, up to MOST
    ("3", 13, 3), ("40", 13, 40),                           # S2S_THREADS decides
    ("0", 13, 13), ("many", 13, 13),                        # not a positive count: ignored
])
def test_most_threads_is_every_usable_core_or_s2s_threads(monkeypatch, env, usable, want):
    monkeypatch.setattr(cores, "usable_cores", lambda: usable)
    if env is None:
        monkeypatch.delenv("S2S_THREADS", raising=False)
    else:
        monkeypatch.setenv("S2S_THREADS", env)
    assert cores.most_threads() == want and scheduler.threads() == want


@pytest.mark.parametrize("env, parts", [(None, 13), ("4", 4), ("1", 0)])
def test_a_product_on_13_cores_is_shared_by_all_of_them(monkeypatch, env, parts):
    """With BLAS on one thread, a product's rows are split among every usable core (compute-bound
    work, unlike a kernel's memory-bound blocks), or among S2S_THREADS; one thread: not split."""
    log = []
    monkeypatch.setattr(cores, "usable_cores", lambda: 13)
    monkeypatch.setattr(cores, "blas_threads", lambda: 1)
    if env is None:
        monkeypatch.delenv("S2S_THREADS", raising=False)
    else:
        monkeypatch.setenv("S2S_THREADS", env)
    monkeypatch.setattr(scheduler, "_POOL", _Pool())
    monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.setattr(products, "WORK_MIN", 1)
    monkeypatch.setattr(cores, "raisable_blas", lambda: None)
    real = scheduler.run

    def run(block, n, size, out, flat, *rest, **kw):
        log.append(-(-n // size))
        return real(block, n, size, out, flat, *rest, **kw)

    monkeypatch.setattr(scheduler, "run", run)
    r = np.random.default_rng(1)
    a, b = r.normal(size=(1024, 24)), r.normal(size=(24, 16))
    np.testing.assert_allclose(products.Product("matmul_0")(a, b), a @ b, rtol=1e-13, atol=1e-13)
    assert log == ([parts] if parts else [])
