"""jit's fused kernels in their CuPy form (s2s/compiler/emit/cupy_kernels.py), checked without a GPU.

The CUDA C of each fused expression is (1) evaluated by a small C evaluator over NumPy
(tests/c_eval.py, which also plays CuPy's ElementwiseKernel/ReductionKernel for a fake GPU
backend, so jit's dispatch to the kernels runs end to end), (2) compiled by the host C++ compiler
and run through ctypes when one is present, and (3) compiled by nvcc when one is present; every
result is compared with the plain NumPy function. The real CuPy run is in
tests/test_backend_cupy.py (skipped without a GPU).
"""
import ctypes
import os
import shutil
import subprocess

import c_eval
import numpy as np
import pytest
from fake_backend import FAKE, FakeArray, put
from helpers_kernels import energy, mixed, positive, selu

import s2s
from s2s.backends import arrays
from s2s.compiler.emit import cupy_kernels, kernels, numba_kernels


def count_big(x):
    return np.sum(x * x > 0.5)


def math_all(x):
    a = np.log1p(np.abs(x)) + np.expm1(x * 0.1) + np.arctan(x) + np.sinh(x * 0.5) - np.cosh(x * 0.25)
    return a + np.tan(x * 0.1) + np.sqrt(x * x + 1.0) + np.sin(x) * np.cos(x) + np.log(x * x + 2.0)


def min_max(x, y):
    return np.minimum(x, y * 2.0) + np.maximum(x - 1.0, y) * 0.5


def powers(x, p):
    return (x * x + 1.0) ** p + x ** 2 - np.square(x) * 0.5 + np.negative(x)


def where_float(x, y):
    return np.where(x - y, x, y) * 2.0 + 1.0


def negative_constants(x):
    return x * -1.5 - (-2.0) * x / (x * x + 3.0)


def integer_inputs(i, j):
    return i / j + i * 0.5 - j * j


def int_poly(i, j):
    return i * j + j * j - i * 3


def _data(n=64, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=n), rng.normal(size=n)


def _cases():
    x, y = _data()
    xn = x.copy()
    xn[::7] = np.nan  # NaN propagates through maximum/minimum as in NumPy
    i = np.arange(1, 65)
    return [("selu", selu, (x,)), ("mixed", mixed, (x, y, 0.7)), ("mixed_int", mixed, (x, y, 3)),
            ("positive", positive, (x, y)), ("energy", energy, (x,)), ("count_big", count_big, (x,)),
            ("math_all", math_all, (x,)), ("min_max", min_max, (xn, y)), ("powers", powers, (x, 1.5)),
            ("where_float", where_float, (x, np.where(np.arange(64) % 3, y, x))),
            ("negative_constants", negative_constants, (x,)), ("integer_inputs", integer_inputs, (i, i % 5 + 1)),
            ("int_poly", int_poly, ((i - 30) * 1_000_003, i + 7))]  # exact int64 (past float64's 2**53)


CASES = _cases()
INT_ONLY = {"integer_inputs", "int_poly"}  # no float arguments: one dtype variant


@pytest.fixture
def gpu_like():
    """The fake backend, with the C evaluator as its kernel compiler (as CuPy's is nvrtc)."""
    arrays.register(arrays.Backend("fake", lambda: FAKE, array_type=FakeArray, put=put,
                                   kernels=lambda: c_eval.KERNELS))
    c_eval.BUILT.clear()
    yield
    arrays.unregister("fake")


def _fused(jitted) -> list:
    """The fused kernels of the versions `jitted` has run (one per argument signature), else of
    its generic compiled function."""
    runs = list(jitted._versions.values()) or [jitted.compiled]
    found = {id(v): v for run in runs for v in run.__globals__.values() if isinstance(v, kernels.Fused)}
    return list(found.values())


def _check(got, want, dtype):
    assert got.dtype == np.asarray(want).dtype, (got.dtype, np.asarray(want).dtype)
    if got.dtype.kind in "biu":
        np.testing.assert_array_equal(got.view(np.ndarray), want)  # integers: exact
        return
    rtol = 1e-12 if dtype == np.float64 else 2e-6
    np.testing.assert_allclose(np.asarray(got.view(np.ndarray)), want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name,dtype", [(c[0], d) for c in CASES for d in (np.float64, np.float32)
                                         if c[0] not in INT_ONLY or d == np.float64])
def test_jit_on_a_kernel_backend_runs_the_c_kernel(gpu_like, name, dtype):
    _, fn, args = next(c for c in CASES if c[0] == name)
    args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args)
    j = s2s.jit(fn)
    got = j(*[put(a) if isinstance(a, np.ndarray) else a for a in args])
    assert isinstance(got, FakeArray)
    with np.errstate(all="ignore"):
        _check(got, fn(*args), dtype)
    fused = _fused(j)
    assert fused and all(f.gpu_kernels for f in fused), "a fused expression fell back to the unfused one"
    assert len(c_eval.BUILT) == len(fused)


def softsign(x):  # used by this test only: its kernels are built here first
    return x / (1.0 + np.abs(x)) * 2.0


def test_one_kernel_per_dtype_signature(gpu_like):
    x, _ = _data()
    j = s2s.jit(softsign)
    j(put(x))
    j(put(x * 2.0))
    assert len(c_eval.BUILT) == 1
    j(put(x.astype(np.float32)))
    assert len(c_eval.BUILT) == 2
    (fused,) = _fused(j)
    assert sorted(str(sig[0][1]) for sig in fused.gpu_kernels) == ["float32", "float64"]


def scaled_tanh(x):  # used by this test only: its kernels are built here first
    return np.tanh(x * 0.5) * 3.0 + x


class _OtherCompiler:
    """A second kernel module (as the C evaluator is after CuPy in one process): it refuses the
    arrays the first one's kernels were built for, so reusing those kernels would fail."""

    def __init__(self):
        self.built = []

    def ElementwiseKernel(self, *args, **kwargs):  # noqa: N802 - CuPy's name
        kernel = c_eval.ElementwiseKernel(*args, **kwargs)
        self.built.append(kernel)
        return kernel

    def ReductionKernel(self, *args, **kwargs):  # noqa: N802 - CuPy's name
        kernel = c_eval.ReductionKernel(*args, **kwargs)
        self.built.append(kernel)
        return kernel


def test_kernels_belong_to_the_module_that_built_them(gpu_like):
    x, _ = _data()
    j = s2s.jit(scaled_tanh)
    j(put(x))
    assert len(c_eval.BUILT) == 1
    other = _OtherCompiler()
    arrays.register(arrays.Backend("fake", lambda: FAKE, array_type=FakeArray, put=put, kernels=lambda: other))
    got = j(put(x))
    assert len(other.built) == 1, "the first module's kernel ran on the second backend"
    _check(got, scaled_tanh(x), np.float64)


def test_types_without_a_cuda_form_run_the_unfused_expression(gpu_like):
    x = np.linspace(-1.0, 1.0, 8) + 0.5j  # complex: no kernel, the plain expression on the backend
    got = s2s.jit(selu)(put(x))
    np.testing.assert_allclose(got.view(np.ndarray), selu(x))
    assert c_eval.BUILT == []


def test_source_is_deterministic_c_of_the_expression():
    (fused,) = _fused(s2s.jit(selu))
    src = cupy_kernels.source(fused, [np.float32])
    assert src == cupy_kernels.source(fused, [np.float32])
    assert src.startswith("__device__ float s2s_fused_0(const float v_x) {")
    assert "(float)1.67" in src and "exp(v_x)" in src and "np." not in src and "xp." not in src
    f = c_eval.device_function(src)
    x = np.linspace(-2, 2, 9).astype(np.float32)
    np.testing.assert_allclose(f(x).a, selu(x), rtol=1e-6)
    assert f(x).a.dtype == np.float32


def _sources(dtype):
    """(name, device function, C parameter types, args, reference) for each fused expression."""
    out = []
    for name, fn, args in CASES:
        args = tuple(a.astype(dtype) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args)
        for k, fused in enumerate(_fused(s2s.jit(fn))):
            sig = cupy_kernels._signature(tuple(_arg_for(fused, n, fn, args) for n in fused.names))
            label = f"{name}_{k}_{np.dtype(dtype).name}"
            parts = cupy_kernels.kernel_parts(label, fused.names, fused.expr, fused.reduce, sig)
            out.append((name, fused, parts, args, fn))
    return out


def _arg_for(fused, name, fn, args):
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    return args[params.index(name)] if name in params else np.ones(1)


def _return_type(parts) -> str:
    return parts["preamble"].split(f" {parts['name']}(")[0].removeprefix("__device__ ")


def _host_program(entries, dtype) -> str:
    ctype = c_eval.NAMED[np.dtype(dtype).name]
    lines = ["#include <cmath>", "using namespace std;", "#define __device__ static inline", ""]
    for i, (_, _, parts, _, _) in enumerate(entries):
        typed = [p.split() for p in parts["in_params"].split(", ")]
        lines.append(parts["preamble"])
        rtype = _return_type(parts)
        params = ", ".join(f"const {c_eval.NAMED[t]}* {n}" for t, n in typed)
        call = ", ".join(f"{n}[i]" for _, n in typed)
        lines.append(f'extern "C" void run{i}({params}, {rtype}* out, long n) '
                     f"{{ for (long i = 0; i < n; i++) out[i] = {parts['name']}({call}); }}")
    del ctype
    return "\n".join(lines) + "\n"


def _direct_cases(entries):
    """Entries whose fused expression reads only the function's own arguments (so the C result
    can be compared with the function itself)."""
    return [e for e in entries if set(e[1].names) <= set(e[4].__code__.co_varnames[:e[4].__code__.co_argcount])]


@pytest.mark.skipif(shutil.which("g++") is None, reason="no host C++ compiler (g++) to compile the kernels' C")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_kernel_c_compiled_on_the_host_matches_numpy(tmp_path, dtype):
    entries = _direct_cases(_sources(dtype))
    assert len(entries) >= 8
    src = tmp_path / "kernels.cpp"
    src.write_text(_host_program(entries, dtype))
    lib = tmp_path / "kernels.so"
    subprocess.run(["g++", "-O1", "-ffp-contract=off", "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    so = ctypes.CDLL(str(lib))
    for i, (name, fused, parts, args, fn) in enumerate(entries):
        typed = [p.split() for p in parts["in_params"].split(", ")]
        params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
        n = 64
        cols = [np.ascontiguousarray(np.broadcast_to(np.asarray(args[params.index(v[2:])]).astype(t), (n,)))
                for t, v in typed]  # C names are the Python ones prefixed v_
        rtype = _return_type(parts)
        out = np.empty(n, c_eval.C_DTYPES[rtype])
        getattr(so, f"run{i}")(*[c.ctypes.data_as(ctypes.c_void_p) for c in cols],
                               out.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(n))
        with np.errstate(all="ignore"):
            want = fn(*args)
        if fused.reduce == "sum":
            got = np.sum(out.astype(c_eval.C_DTYPES[parts["reduce_type"]]))
            np.testing.assert_allclose(got, want, rtol=1e-10 if dtype == np.float64 else 1e-5, err_msg=name)
        else:
            np.testing.assert_allclose(out, want, rtol=1e-12 if dtype == np.float64 else 2e-6,
                                       atol=1e-12 if dtype == np.float64 else 2e-6, err_msg=name)


def _cupy_like_kernel(parts) -> str:
    """The kernel CuPy would generate around `parts` (its shape, not its text): an extern "C"
    kernel named `kernel_name` binding each typed parameter to one element, then the operation
    (elementwise) or the map expression (a sum)."""
    typed = [p.split() for p in parts["in_params"].split(", ")]
    otype, _ = parts["out_params"].split()
    params = ", ".join(f"const {c_eval.NAMED[t]}* _raw_{n}" for t, n in typed)
    binds = " ".join(f"const {c_eval.NAMED[t]} &{n} = _raw_{n}[i];" for t, n in typed)
    if "operation" in parts:
        step = f"{c_eval.NAMED[otype]} &out = _raw_out[i]; {parts['operation']};"
    else:
        step = (f"{c_eval.NAMED[otype]} &out = _raw_out[i]; {parts['reduce_type']} a = {parts['map_expr']}; "
                f"{parts['post_map_expr']};")  # the map and post-map steps (the reduction is CuPy's)
    return (f'extern "C" __global__ void {parts["kernel_name"]}({params}, {c_eval.NAMED[otype]}* _raw_out, long n) '
            f"{{ long i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {{ {binds} {step} }} }}")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no CUDA compiler (nvcc) to compile the kernels")
def test_kernel_cuda_compiles_with_nvcc(tmp_path):
    entries = _sources(np.float64) + _sources(np.float32)
    body = []
    for _, _, parts, _, _ in entries:
        body += [parts["preamble"], _cupy_like_kernel(parts)]
    src = tmp_path / "kernels.cu"
    src.write_text("\n".join(body) + "\n")
    run = subprocess.run(["nvcc", "-c", "-o", os.devnull, str(src)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_c_evaluator_follows_c():
    """The reference itself, on hand-derived values: integer division truncates, float stays
    float, casts round, `?:` picks, fmax drops a NaN while the emitter's maximum keeps it."""
    src = """__device__ double f(const int a, const float b, const double c) {
    const int t0 = -7 / a;
    const float t1 = b * (float)0.1;
    const double t2 = c != c ? (double)1 : (double)t0;
    const double t3 = fmax(c, (double)2);
    const bool t4 = isnan(c) || c > (double)2;
    return t0 + t1 + t2 + t3 + t4;
}"""
    f = c_eval.device_function(src)
    a, b, c = np.array([2, 2]), np.array([3.0, 3.0], np.float32), np.array([np.nan, 5.0])
    got = f(a, b, c).a
    t1 = np.float32(3.0) * np.float32(0.1)  # a float product
    head = float(np.float32(-3) + t1)  # int + float is float in C: rounded to float, then widened
    np.testing.assert_array_equal(got, [head + 1 + 2 + 1, head - 3 + 5 + 1])
    with pytest.raises(SyntaxError, match="declared twice"):
        c_eval.device_function("__device__ double g(const double x) {\n const double x = 1.0;\n return x;\n}")(1.0)


def test_jit_on_a_kernel_backend_calls_straight_into_its_version(gpu_like, monkeypatch):
    x, _ = _data()
    j = s2s.jit(selu)
    j(put(x))
    monkeypatch.setattr(j, "_first_call", lambda *a: pytest.fail("the cached version was not found"))
    np.testing.assert_allclose(j(put(x[:5])).view(np.ndarray), selu(x[:5]), rtol=1e-12)


def square_chain(x):  # NumPy allocates one array for it (the rest runs in that array's memory)
    return (x - 1.0) ** 2 * 0.5 + x


def test_a_kernel_backend_fuses_chains_numpy_runs_in_one_array(gpu_like):
    """On NumPy a chain whose only allocation is its first temporary gets no kernel of NumPy
    blocks (it would only add calls; numba's one loop pays); on a backend that compiles kernels
    every operation would be a launch, so it is fused at every size."""
    x, _ = _data()
    j = s2s.jit(square_chain)
    got = j(put(x))
    np.testing.assert_allclose(np.asarray(got.view(np.ndarray)), square_chain(x), rtol=1e-12)
    assert len(_fused(j)) == 1 and len(c_eval.BUILT) == 1
    big = np.linspace(-2.0, 2.0, kernels.THRESHOLD + 5)
    jn = s2s.jit(square_chain)
    np.testing.assert_array_equal(jn(big), square_chain(big))
    assert ("fused_" in s2s.source(next(iter(jn._versions.values())))) == numba_kernels.available()
