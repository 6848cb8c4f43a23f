"""Fused kernels compiled by numba (the `s2s[fast]` extra): which expressions take numba, that
their values equal the unfused NumPy expression's (NaN and inf included), the disk cache a new
process loads, the `S2S_NO_NUMBA` switch, and that s2s imports numba only when it runs a kernel.

Without numba installed only the last two kinds run (CI runs this file with and without it)."""

import inspect
import os
import subprocess
import sys
import textwrap

import gast
import numpy as np
import paths
import pytest
from helpers_kernels import assert_within_ulps

import s2s
from s2s.compiler.emit import kernels, numba_kernels

N = kernels.THRESHOLD * 3 + 17
ROOT = str(paths.ROOT)
needs_numba = pytest.mark.skipif(not numba_kernels.available(), reason="numba not installed or S2S_NO_NUMBA set")


def relu_mix(x, y):
    return np.where(x > y, x - y, 0.0) * 0.5 + np.sqrt(np.abs(y))


def clipped_energy(x, y, a):
    return np.sum(np.maximum(x * a, y) - np.minimum(x, y / a) + x ** 2)


def above(x, y):
    return x * 2.0 + y * y > 1.0


def ratio(x, y):
    return np.sum(np.where(y >= 0, x / y, -x))


def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


@pytest.fixture
def data():
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=N), rng.normal(size=N)
    x[[1, 9, 400, N - 2]] = [np.nan, np.inf, -np.inf, 0.0]
    y[[3, 9, 77, 500, N - 1]] = [np.nan, 0.0, -0.0, np.inf, 0.0]
    return x, y


def _engine(j):
    return j.compiled.__globals__["fused_0"].engine


def test_choice_rule():
    def expr(src):
        return gast.parse(src).body[0].value
    assert numba_kernels.wanted(expr("xp.where(x > 0, x, 0.0) * 2.0"))
    assert numba_kernels.wanted(expr("x * y + 1.0"), "sum")
    assert numba_kernels.wanted(expr("x * y + 1.0"))
    assert numba_kernels.wanted(expr("xp.where(x > 0, x, xp.exp(x))"))  # the kernel's own SIMD exp
    assert numba_kernels.wanted(expr("xp.exp(x) * 2.0 + y"))
    assert not numba_kernels.wanted(expr("xp.log(x) * 2.0"))  # NumPy's SIMD log beats the C library's
    assert not numba_kernels.wanted(expr("x ** 3 > y"))
    assert numba_kernels.wanted(expr("x ** 2 > y"))


@needs_numba
def test_numba_kernels_equal_numpy(data):
    x, y = data
    with np.errstate(all="ignore"):
        for f, args in ((relu_mix, (x, y)), (above, (x, y))):
            j = s2s.jit(f)
            got = j(*args)
            assert _engine(j) == "numba"
            want = f(*args)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
        assert np.isnan(relu_mix(x, y)).sum() > 0  # the NaNs really travel through the kernel


@needs_numba
def test_numba_reductions(data):
    x, y = data
    xf, yf = np.nan_to_num(x, posinf=3.0, neginf=-3.0), np.nan_to_num(y, posinf=2.0) + 0.5
    with np.errstate(all="ignore"):
        for a in (0.7, 3):
            j = s2s.jit(clipped_energy)
            got = j(xf, yf, a)
            assert _engine(j) == "numba" and isinstance(got, np.float64)
            np.testing.assert_allclose(got, clipped_energy(xf, yf, a), rtol=1e-12)
        assert np.isnan(s2s.jit(clipped_energy)(x, y, 0.5))  # a NaN anywhere: the sum is NaN
        np.testing.assert_allclose(s2s.jit(ratio)(xf, yf), ratio(xf, yf), rtol=1e-12)
        pos, zeros = np.abs(xf) + 1.0, np.where(yf > 0, 0.0, yf)
        assert s2s.jit(ratio)(pos, zeros) == ratio(pos, zeros) == np.inf  # x / 0.0: inf, no exception


@needs_numba
def test_exp_takes_the_numba_kernel(data):
    j = s2s.jit(selu)
    x = data[0]
    with np.errstate(all="ignore"):
        got, want = j(x), selu(x)
        terms = np.where(x > 0, x, 1.05 * 1.67)  # 1.67 * exp(x) - 1.67: its terms, which cancel near 0
    assert _engine(j) == "numba"
    assert_within_ulps(got, want, terms, ulps=2)
    assert np.mean(got == want) > 0.95  # most values bitwise NumPy's


@needs_numba
def test_kernel_exp_within_an_ulp_of_numpy():
    """The kernels' exp against NumPy's on the whole float64 range: normal and subnormal results,
    overflow to inf, underflow to 0, NaN, infinities and signed zeros."""
    run = numba_kernels.load("exp_sweep", numba_kernels._PRELUDE + textwrap.dedent("""
        @_jit
        def exp_sweep(x, out):
            for i in range(x.size):
                out[i] = _exp(x[i])
        """))
    rng = np.random.default_rng(3)
    special = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, -5e-324, 1e-300, 709.782712893384,
               709.7827128933841, 710.0, 1e308, -708.3964185322641, -745.1332191019411, -745.1332191019412,
               -746.0, -1e308, np.log(2.0), -np.log(2.0), 0.5 * np.log(2.0), -0.5 * np.log(2.0)]
    x = np.concatenate([special, rng.normal(size=20000), rng.uniform(-746.0, 710.0, 20000),
                        rng.uniform(-745.2, -708.0, 20000), rng.uniform(-1e-9, 1e-9, 2000)])
    out = np.empty_like(x)
    run(x, out)
    with np.errstate(over="ignore", under="ignore"):
        want = np.exp(x)
    assert_within_ulps(out, want)


@needs_numba
@pytest.mark.skipif(np.finfo(np.longdouble).nmant < 63, reason="needs an extended-precision long double")
def test_kernel_exp_within_0_7_ulp_of_the_exact_value():
    """The kernels' exp against the exact value (the C library's long double exp: 11 more bits,
    an error below 0.001 ulp of a double) on normal results: at most 0.7 ulp (the bound
    numba_kernels states; 0.654 measured on 3*10^6 arguments), where the arguments that reduce to
    the ends of [-ln2/2, ln2/2] (the polynomial's worst) are swept densely."""
    run = numba_kernels.load("exp_sweep", numba_kernels._PRELUDE + textwrap.dedent("""
        @_jit
        def exp_sweep(x, out):
            for i in range(x.size):
                out[i] = _exp(x[i])
        """))
    rng = np.random.default_rng(5)
    ends = (rng.integers(-1020, 1020, 100_000) + rng.choice([-0.5, 0.5], 100_000)) * np.log(2.0)
    x = np.concatenate([rng.normal(size=100_000), rng.uniform(-708.0, 709.0, 100_000),
                        rng.uniform(-0.35, 0.35, 100_000), ends + rng.uniform(-1e-3, 1e-3, 100_000)])
    x = x[(x > -708.0) & (x < 709.0)]
    out = np.empty_like(x)
    run(x, out)
    exact = np.exp(x.astype(np.longdouble))
    ulp = np.spacing(exact.astype(np.float64)).astype(np.longdouble)
    assert np.max(np.abs(out.astype(np.longdouble) - exact) / ulp) <= 0.7


@needs_numba
def test_kernel_source_is_shown(data):
    j = s2s.jit(relu_mix)
    j(*data)
    src = s2s.source(j.compiled)
    assert "numba_kernels: numba" in src and "for i in range(hi - lo):" in src


@needs_numba
def test_kernel_loop_indexes_the_block_from_zero():
    """The block loop indexes slices of the block from 0 (`x = _w_x[lo:hi]`): indexing `x[i]` for
    `i` in `range(lo, hi)`, numba wraps negative indices and the loop ran 5-8x slower (the
    shape of the source, not its speed)."""
    expr = gast.parse("xp.where(x > y, x - y, 0.0) * 0.5 + xp.exp(y)").body[0].value
    for reduce in (None, "sum"):
        src = numba_kernels.kernel_source("vec_probe", ["x", "y"], (True, True), expr, reduce)
        block = numba_kernels.load("vec_probe", src)
        x, y = np.linspace(-1.0, 1.0, 1000), np.linspace(1.0, -1.0, 1000)
        out = np.empty(1000)
        got = block(0, 1000, out, x, y)
        want = np.where(x > y, x - y, 0.0) * 0.5 + np.exp(y)
        np.testing.assert_allclose(got if reduce else out, want.sum() if reduce else want, rtol=1e-14)
        assert "x = _w_x[" in src and "y = _w_y[" in src
        assert ("for i in range(_m - _c)" if reduce else "for i in range(hi - lo)") in src
        assert "range(lo, hi)" not in src


def _run(code, **env):
    full = dict(os.environ, PYTHONPATH=ROOT, **env)
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env=full, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return out.stdout


PROGRAM = """
import sys, numpy as np, s2s
sys.path[:0] = ["tests/jit", "tests/support"]
from test_fusion_numba import relu_mix
x = np.linspace(-2.0, 2.0, {n})
j = s2s.jit(relu_mix)
np.testing.assert_array_equal(j(x, x[::-1].copy()), relu_mix(x, x[::-1].copy()))
fz = next(iter(j._versions.values())).__globals__.get("fused_0")  # the version that ran
kernel = next(iter(fz.kernels.values()), (None,)) if fz and fz.kernels else None
compiled = [f for f in (kernel or ())[::2] if f is not None]  # (the block function and its driver)
hits = sum(sum(f.stats.cache_hits.values()) for f in compiled) if fz and fz.engine == "numba" and compiled else -1
print(fz.engine if fz else "unfused", "numba" in sys.modules, hits)
"""


@needs_numba
def test_disk_cache_serves_a_new_process(tmp_path):
    env = {"S2S_CACHE_DIR": str(tmp_path)}
    first = _run(PROGRAM.format(n=N), **env).split()
    assert first == ["numba", "True", "0"]  # compiled
    assert any(f.endswith(".nbi") for f in os.listdir(tmp_path / "numba" / "__pycache__"))
    second = _run(PROGRAM.format(n=N), **env).split()
    assert second[0] == "numba" and int(second[2]) >= 1  # loaded from the disk cache, not compiled


def test_numba_is_imported_only_to_run_a_kernel(tmp_path):
    env = {"S2S_CACHE_DIR": str(tmp_path)}
    assert _run(PROGRAM.format(n=100), **env).split()[1] == "False"  # small arrays: NumPy
    out = _run(PROGRAM.format(n=N), S2S_NO_NUMBA="1", **env).split()
    assert out[:2] == ["numpy", "False"]


def hinge(x, y):
    return np.where(x * y < 1.0, 1.0 - x * y, 0.0) + 0.5 * y


def test_unusable_numba_falls_back_to_numpy_blocks(monkeypatch):
    """numba installed but failing to load (say, built for another NumPy): a warning, and the
    NumPy block kernel gives the values."""
    def broken(name, source):
        raise ImportError("numba needs another NumPy")
    monkeypatch.setattr(numba_kernels, "load", broken)
    monkeypatch.setattr(numba_kernels, "available", lambda: True)
    x = np.linspace(-1.0, 1.0, N)
    j = s2s.jit(hinge)  # jitted nowhere else: its kernel is not loaded yet
    y = x[::-1].copy()
    with pytest.warns(RuntimeWarning, match="numba kernel unavailable"):
        got = j(x, y)
    np.testing.assert_array_equal(got, hinge(x, y))
    np.testing.assert_array_equal(j(x, y), hinge(x, y))  # once warned, the NumPy kernel


@needs_numba
def test_wide_vectors_give_the_same_values(data):
    """The kernel's loop in 512-bit vectors (`_wide()`, on CPUs with AVX-512) computes what the same
    loop without it computes, bitwise (the same IEEE operations, lane by lane), sums included."""
    x, y = data
    xf, yf = (np.nan_to_num(a, nan=0.5, posinf=2.0, neginf=-2.0) for a in data)  # (sums that are not NaN)
    for f, args in ((selu, (x,)), (relu_mix, (x, y)), (clipped_energy, (xf, yf, 0.5)), (ratio, (xf, yf + 3.0))):
        j = s2s.jit(f)
        with np.errstate(all="ignore"):
            got = j(*args)
        fused = next(iter(j._versions.values())).__globals__["fused_0"]  # (the version that ran)
        (mask,) = [m for (engine, m) in fused.kernels if engine == "numba"]
        src = numba_kernels.kernel_source(fused.name, fused._names, mask, fused._expr, fused.reduce)
        assert "\n    _wide()\n" in src
        narrow = numba_kernels.load(fused.name + "_narrow", src.replace("\n    _wide()\n", "\n").replace(
            f"def {fused.name}(", f"def {fused.name}_narrow("))
        given = dict(zip(inspect.signature(f).parameters, args))
        flat = [given[n].reshape(-1) if isinstance(given[n], np.ndarray) else given[n] for n in fused.names]
        out = np.empty(x.size)
        parts = [narrow(lo, min(x.size, lo + numba_kernels.BLOCK), out, *flat)
                 for lo in range(0, x.size, numba_kernels.BLOCK)]
        if fused.reduce:
            assert np.isfinite(got) and got == np.float64(sum(parts))  # (the blocks' sums added in order)
        else:
            np.testing.assert_array_equal(got, out)
