"""A jit version that calls no BLAS gives its fused kernels' helpers every usable core; one that
may call BLAS (a product, `np.dot`, an `rt` helper that multiplies matrices, anything unknown)
only the cores a threaded BLAS leaves (issue 46; emit/blas_calls.py, decided once per version
when it is compiled). BLAS is reported on every core by a stand-in (and by threadpoolctl itself
in the last test); helpers are counted, never timed, and the values are the plain function's."""
import os
import textwrap

import gast
import numpy as np
import pytest

import s2s
from s2s.base import record
from s2s.compiler import driver
from s2s.compiler.emit import blas_calls, cores, kernels, scheduler

N = 1 << 18  # four numba blocks, sixteen NumPy ones: a helper for each of 4 stand-in cores


class _Pool:
    """Helpers that never start (the caller runs every block)."""

    def submit(self, fn):
        pass


def _count_helpers(monkeypatch):
    """The helpers each threaded kernel call asks for; its blocks all run on the caller."""
    if not kernels.available():
        pytest.skip("S2S_NO_FUSE is set: no fused kernels")
    log = []
    monkeypatch.setattr(scheduler, "_share", lambda work, n, done, errors: (log.append(n), work()))
    monkeypatch.setattr(scheduler.Decision, "threaded", lambda self: True)
    monkeypatch.setattr(scheduler, "_POOL", _Pool())
    monkeypatch.setattr(scheduler, "_POOL_PID", os.getpid())
    monkeypatch.setattr(scheduler, "DECISIONS", {})
    monkeypatch.delenv("S2S_THREADS", raising=False)
    return log


@pytest.fixture
def blas_on_all_of_4(monkeypatch):
    """4 usable cores, BLAS running a thread on each (its default); the helpers asked for."""
    monkeypatch.setattr(cores, "usable_cores", lambda: 4)
    monkeypatch.setattr(cores, "blas_threads", lambda: 4)
    return _count_helpers(monkeypatch)


def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def sum_selu(x):
    return np.sum(selu(x))


def tanh_loss(w, x):
    return np.sum(np.tanh(x @ w) ** 2)


def tanh_dot_loss(w, x):
    return np.sum(np.tanh(np.dot(x, w)) ** 2)


def two_sums(x, y):
    return np.sum(np.tanh(x) * y) + np.max(np.sin(x))


def _x():
    return np.random.default_rng(0).normal(size=N)


def test_an_elementwise_version_gets_every_core(blas_on_all_of_4):
    x = _x()
    f = s2s.jit(selu)
    np.testing.assert_allclose(f(x), selu(x), rtol=1e-13, atol=1e-15)  # (exp(x) - 1 near 0: ulps apart)
    assert blas_on_all_of_4 == [3]  # (BLAS on all 4 cores would leave the caller alone)
    assert "every core: no BLAS call here" in s2s.source(f, x)


def test_an_elementwise_gradient_gets_every_core(blas_on_all_of_4):
    x = _x()
    g = s2s.jit(s2s.grad(sum_selu))
    np.testing.assert_allclose(g(x), 1.05 * np.where(x > 0, 1.0, 1.67 * np.exp(x)), rtol=1e-13, atol=0)
    assert blas_on_all_of_4 == [3]


def _tanh_operands():
    r = np.random.default_rng(3)
    x, w = r.normal(size=(1024, 128)), r.normal(size=(128, 256)) * 0.05  # (N elements: 4 numba blocks)
    t = np.tanh(x @ w)
    return w, x, x.T @ (2.0 * t * (1.0 - t * t))


@pytest.mark.parametrize("loss", [tanh_loss, tanh_dot_loss])
@pytest.mark.parametrize("blas, helpers", [(4, []), (2, [2])])
def test_a_version_with_a_product_gets_the_cores_blas_leaves(blas_on_all_of_4, monkeypatch, loss, blas, helpers):
    monkeypatch.setattr(cores, "blas_threads", lambda: blas)
    w, x, want = _tanh_operands()
    g = s2s.jit(s2s.grad(loss))
    np.testing.assert_allclose(g(w, x), want, rtol=1e-10, atol=1e-12)
    assert blas_on_all_of_4 == helpers  # (4 cores - blas + the caller's own) - 1 helpers
    assert "the cores BLAS leaves" in s2s.source(g, w, x)


@pytest.fixture
def fresh_versions():
    driver.clear_caches()
    yield
    driver.clear_caches()


@pytest.mark.parametrize("blas_helper, helpers", [(None, [3]), ("max_vjp", []), ("sum_vjp", [])])
def test_a_version_calling_an_rt_helper_that_does_blas_counts_as_blas(blas_on_all_of_4, monkeypatch, fresh_versions,
                                                                       blas_helper, helpers):
    """The gradient's code calls `rt.max_vjp` and `rt.sum_vjp` beside its fused kernel: taken to
    call BLAS, either one leaves the kernel only the cores BLAS leaves."""
    if blas_helper:
        monkeypatch.setattr(blas_calls, "RT_FREE", blas_calls.RT_FREE - {blas_helper})
    r = np.random.default_rng(5)
    x, y = r.normal(size=(1024, 256)), r.normal(size=(1024, 256))
    g = s2s.jit(s2s.grad(two_sums, argnums=(0, 1)))
    gx, gy = g(x, y)
    s = np.sin(x)
    top = (s == s.max()) * np.cos(x)
    np.testing.assert_allclose(gx, (1.0 - np.tanh(x) ** 2) * y + top, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(gy, np.tanh(x), rtol=1e-13, atol=0)
    assert "rt.max_vjp" in s2s.source(g, x, y) and "rt.sum_vjp" in s2s.source(g, x, y)
    assert blas_on_all_of_4 == helpers


def _generated(blas):
    def gen(x):
        return x
    record.attach(gen, core=(None,))
    record.of(gen).blas = blas
    return gen


def _user(x):
    return x


@pytest.mark.parametrize("body, ns, want", [
    ("return xp.tanh(x) * 2.0 + xp.where(x > 0, x, 0.0).sum()", {}, False),
    ("return x @ y", {}, True),
    ("x @= y\nreturn x", {}, True),
    ("return xp.dot(x, y)", {}, True),
    ("return xp.matmul(x, y)", {}, True),
    ("return xp.einsum('ij,jk', x, y)", {}, True),
    ("return xp.linalg.norm(x)", {}, True),
    ("return xp.some_new_function(x)", {}, True),             # unknown: may
    ("return x.dot(y)", {}, True),
    ("return x.reshape(-1).T.copy()", {}, False),
    ("return rt.unbroadcast(rt.sum_vjp(1.0, x, None, False), y)", {}, False),
    ("return rt.dot_vjp_a(x, y, x)", {}, True),                # an rt helper that multiplies
    ("return rt.solve_vjp_b(x, y, x, x)", {}, True),
    ("return rt.batched_unbroadcast(x, y)", {}, True),         # vmap's helpers: per-example calls
    ("return ext.s2s_keep(x)", {}, False),
    ("return len(x) + float(x[0])", {}, False),
    ("return user(x)", {"user": _user}, True),                 # a user function: opaque
    ("return helper(x)", {}, True),                            # a name not known at all
    ("return gen(x)", {"gen": _generated(False)}, False),      # a generated function that calls none
    ("return gen(x)", {"gen": _generated(True)}, True),
    ("return fused_0(x)", {}, False),
    ("return matmul_0(x, y)", {}, True),
    ("return loop_0(x)", {}, False),
    ("return loop_1(x)", {}, True),
])
def test_what_counts_as_a_blas_call(body, ns, want):
    fn = gast.parse("def f(x, y):\n" + textwrap.indent(body, "    ")).body[0]
    loops = {"loop_0": gast.parse("for i in range(3):\n    x = x * 2.0").body[0],
             "loop_1": gast.parse("for i in range(3):\n    x = xp.dot(x, y)").body[0]}
    assert blas_calls.may_call_blas(fn, ns, fused=["fused_0"], products=["matmul_0"], loops=loops) is want


# Helpers of the BLAS-free runtime modules that the source scan flags, read and found free of BLAS
REVIEWED = {
    "shape": "NumPy's own np.shape, re-exported",
    "inplace": "calls the ufunc on one-element arrays only to raise NumPy's own error",
    "inplace_checked": "inplace's check",
    "fft_apply": "np.fft's transforms, looked up by name",
    "fft_t": "np.fft's transforms, looked up by name",
    "MIN_TRIPS": "a number",
    **{n: "a scipy.special ufunc, looked up by name" for n in (
        "betainc digamma erf erfc erfcinv erfinv gamma gammainc gammaincc gammaln gammasgn i0 i0e i1 i1e iv ive "
        "j0 j1 jn log_ndtr ndtri polygamma rgamma stdtr y0 y1 yn").split()},
}


def test_the_blas_free_helpers_reach_no_product():
    """Every `rt` helper counted BLAS-free is one the runtime's source shows reaching no product,
    no BLAS routine and no function it is given (or one read and listed in REVIEWED)."""
    blas_scan = pytest.importorskip("blas_scan")
    found = blas_scan.blas_helpers()
    assert {"dot_vjp_a", "solve_vjp_a", "cov", "gradient_vjp", "map_examples", "norm_vjp_any"} <= found
    assert found & blas_calls.RT_FREE <= set(REVIEWED)
    assert set(REVIEWED) <= blas_calls.RT_FREE


def test_with_threadpoolctls_blas_on_every_core(monkeypatch):
    """End to end with the real BLAS limits: BLAS on every usable core, the elementwise gradient's
    kernel asks for a helper a core, the one with a product for none."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    cores.forget()
    try:
        if not cores.blas_libraries():
            pytest.skip("threadpoolctl finds no BLAS in this NumPy")
        n = cores.usable_cores()
        if n < 2:
            pytest.skip("one usable core: no helper either way")
        log = _count_helpers(monkeypatch)
        x = _x()
        w, xm, want = _tanh_operands()
        g = s2s.jit(s2s.grad(sum_selu))
        with threadpoolctl.threadpool_limits(n, user_api="blas"):
            np.testing.assert_allclose(g(x), 1.05 * np.where(x > 0, 1.0, 1.67 * np.exp(x)), rtol=1e-13, atol=0)
            blocks = 4 if "numba_kernels: numba" in s2s.source(g, x) else 16
            assert log == [min(cores.most_threads(), blocks) - 1]
            log.clear()
            np.testing.assert_allclose(s2s.jit(s2s.grad(tanh_loss))(w, xm), want, rtol=1e-10, atol=1e-12)
            assert log == []
    finally:
        cores.forget()
