"""Loop kernels (jit with numba, `s2s.compiler.passes.loopkernel`): loops of scalar arithmetic on array
elements run as one compiled loop and give the Python loop's values (bitwise for arithmetic);
loops that do not qualify, small trip counts, other argument types and `S2S_NO_NUMBA` run the
Python loop. Without numba only the Python-loop checks run (CI runs this file both ways)."""
import math

import numpy as np
import pytest
from helpers_compare import assert_same_computation

import s2s
from s2s.compiler.emit import numba_kernels, numba_loops

N = numba_loops.MIN_TRIPS * 4 + 3
needs_numba = pytest.mark.skipif(not numba_kernels.available(), reason="numba not installed or S2S_NO_NUMBA set")


def recurrence(x, a):
    y = np.zeros_like(x)
    y[0] = x[0]
    for i in range(1, len(x)):
        y[i] = a * y[i - 1] + x[i]
    return y


def running_max(x):
    s = 0.0
    best = -np.inf
    for i in range(len(x)):
        s = s + x[i]
        if s > best:
            best = s
    return best, s


def banded(m, w):
    n = m.shape[0]
    out = np.zeros_like(m)
    for i in range(n):
        for j in range(max(0, i - 2), min(n, i + 3)):
            out[i, j] += m[i, j] * w[abs(i - j)]
        out[i, i] = out[i, i] * 0.5 if m[i, i] > 0 else -out[i, i]
    return out


def decay(x, rate):
    y = np.empty_like(x)
    level = 1.0
    for i in range(len(x)):
        level = level * np.exp(-rate) + x[i]
        y[i] = np.sqrt(abs(level))
    return y


def counts(labels, k):
    c = np.zeros(k, dtype=np.int64)
    for i in range(len(labels)):
        c[labels[i] % k] += 1
    return c


def factorial_mod(n):
    p = 1
    for i in range(1, n + 1):
        p = p * i
    return p % 1000003


def last_index(x):
    for i in range(len(x)):
        x[i] = x[i] * 2.0
    return i


def whole_arrays(v, m):
    acc = np.zeros_like(v)
    for i in range(len(m)):
        acc = acc * 0.5 + np.tanh(v) * m[i]  # v and acc: arrays, m[i]: a row of m
    return acc


def _kernels(j, *args):
    return s2s.source(j, *args).count("# loop kernel loop_")


@pytest.fixture
def x():
    return np.random.default_rng(5).normal(size=N)


@needs_numba
def test_recurrences_run_as_kernels_with_the_loops_values(x):
    for f, args in ((recurrence, (x, 0.9)), (running_max, (x,))):
        j = s2s.jit(f)
        got, want = j(*args), f(*args)
        assert _kernels(j, *args) == 1
        np.testing.assert_array_equal(np.asarray(got), np.asarray(want))  # same operations, same order
    m = np.random.default_rng(6).normal(size=(N // 4, N // 4))
    j = s2s.jit(banded)
    np.testing.assert_array_equal(j(m, np.array([1.0, 0.5, 0.25])), banded(m, np.array([1.0, 0.5, 0.25])))
    assert _kernels(j, m, np.ones(3)) == 1


@needs_numba
def test_kernel_math_and_integer_arrays(x):
    j = s2s.jit(decay)
    # exp comes from the C library in the kernel and from NumPy's CPU-dispatched loop in Python
    assert_same_computation(j(x, 0.01), decay(x, 0.01), trips=len(x))
    assert _kernels(j, x, 0.01) == 1
    labels = np.random.default_rng(2).integers(0, 100, size=N)
    jc = s2s.jit(counts)
    got = jc(labels, 7)
    np.testing.assert_array_equal(got, counts(labels, 7))
    assert got.dtype == np.int64 and got.sum() == N


def test_loops_that_stay_in_python(x):
    """Multiplying Python ints (numba's int64 would overflow), the loop variable read after the
    loop: no kernel, Python's values."""
    j = s2s.jit(factorial_mod)
    assert j(400) == math.factorial(400) % 1000003 and _kernels(j, 400) == 0
    j = s2s.jit(last_index)
    y = x.copy()
    assert j(y) == N - 1 and _kernels(j, y) == 0
    np.testing.assert_array_equal(y, 2.0 * x)


@needs_numba
def test_loops_on_whole_arrays_are_no_scalar_loop_kernels(monkeypatch):
    """A loop whose values are arrays of the jit signature (a name bound to an array, a row of a
    matrix) is no scalar loop kernel: the array loop kernels take it (tests/jit/test_array_loops.py);
    with numba's loading refused, the Python loop runs, with NumPy's ufuncs and values."""
    compiled = []
    monkeypatch.setattr(numba_kernels, "load", lambda name, src: compiled.append(name))
    v, m = np.linspace(-1.0, 1.0, 7), np.ones((N, 7))
    j = s2s.jit(whole_arrays)
    np.testing.assert_array_equal(j(v, m), whole_arrays(v, m))
    np.testing.assert_array_equal(j(v, m[:, 0].copy()), whole_arrays(v, m[:, 0].copy()))
    assert _kernels(j, v, m) == 0 and s2s.source(j, v, m).count("# array loop kernel aloop_") == 1
    assert compiled and not any(name.startswith("loop_") for name in compiled)


def either(a, b):
    y = np.zeros(len(a))
    for i in range(1, len(a)):
        y[i] = y[i - 1] * 0.5 + (a[i] + b[i])  # NumPy's bool + bool is True, numba's 2
    return y


def test_float32_int32_and_bool_run_the_python_loop(x, monkeypatch):
    """NumPy computes float32 * 0.9 in float32 (NEP 50), numba in float64; NumPy's True + True
    is True, numba's 2: the Python loop."""
    compiled = []
    monkeypatch.setattr(numba_kernels, "load", lambda name, src: compiled.append(name))
    x32 = x.astype(np.float32)
    np.testing.assert_array_equal(s2s.jit(recurrence)(x32, 0.9), recurrence(x32, 0.9))
    labels = np.arange(N, dtype=np.int32)
    np.testing.assert_array_equal(s2s.jit(counts)(labels, 7), counts(labels, 7))
    flags = np.arange(N) % 3 == 0
    np.testing.assert_array_equal(s2s.jit(either)(flags, flags[::-1].copy()), either(flags, flags[::-1].copy()))
    assert compiled == []


def test_small_trip_counts_and_other_arguments_run_the_python_loop(x):
    j = s2s.jit(recurrence)
    short = x[:10]
    np.testing.assert_array_equal(j(short, 0.9), recurrence(short, 0.9))
    as_list = list(x)
    got = s2s.jit(running_max)(as_list)
    assert got == running_max(as_list)


@needs_numba
def test_zero_trips_keep_the_values_bound_before(monkeypatch):
    monkeypatch.setattr(numba_loops, "MIN_TRIPS", 0)
    j = s2s.jit(running_max)
    assert j(np.empty(0)) == (-np.inf, 0.0)
    assert j(np.array([2.0, -1.0])) == (2.0, 1.0)


@needs_numba
def test_index_errors_and_read_only_arrays(x):
    def shifted(x):
        y = np.zeros_like(x)
        for i in range(1, len(x)):
            y[i] = y[i - 1] + x[i + 1]  # a recurrence reading one past the end
        return y
    with pytest.raises(IndexError):
        shifted(x)
    with pytest.raises(IndexError, match="loop kernel"):
        s2s.jit(shifted)(x)
    frozen = np.zeros(N)
    frozen.flags.writeable = False

    def fill(y, x):
        for i in range(len(x)):
            y[i] = x[i]
        return y
    with pytest.raises(ValueError, match="read-only"):  # numba refuses the types: NumPy's own error
        s2s.jit(fill)(frozen, x)
    np.testing.assert_array_equal(s2s.jit(fill)(np.zeros(N), x), x)


def test_switched_off(monkeypatch, x):
    """`S2S_NO_NUMBA=1` when the version was compiled with a loop kernel: the Python loop."""
    def refuse(name, source):
        raise AssertionError("numba was used")
    s2s.jit(recurrence)(x, 0.5)
    monkeypatch.setenv("S2S_NO_NUMBA", "1")
    monkeypatch.setattr(numba_kernels, "load", refuse)
    ks = _loop_kernels(s2s.jit(recurrence), x, 0.5)
    assert ks or not numba_kernels.available()
    for k in ks:
        k._compiled = None  # forget a compiled loop: a call would have to load it again
    np.testing.assert_array_equal(s2s.jit(recurrence)(x, 0.5), recurrence(x, 0.5))


def _loop_kernels(j, *args):
    j(*args)
    return [v for fn in j._versions.values() for v in fn.__globals__.values()
            if isinstance(v, numba_loops.LoopKernel)]


LEAVES = ["x[i]", "x[i - 1]", "y[i - 1]", "s", "a", "0.5", "2.0", "i"]
OPS = ["{} + {}", "{} - {}", "{} * {}", "{} / ({} + 3.0)", "np.maximum({}, {})", "abs({}) - {}",
       "({} if {} > 0.0 else -1.0)", "np.sqrt(abs({})) * {}"]


def _expr(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return LEAVES[rng.integers(len(LEAVES))]
    return "(" + OPS[rng.integers(len(OPS))].format(_expr(rng, depth - 1), _expr(rng, depth - 1)) + ")"


def _program(rng, k):
    return "\n".join([
        f"def loop{k}(x, a):",
        "    y = np.zeros_like(x)",
        "    s = 0.0",
        "    for i in range(1, len(x)):",
        f"        t = 1.0 * {_expr(rng, 3)}",  # arithmetic: never a view of y (s2s would refuse it)
        f"        if {_expr(rng, 2)} > {_expr(rng, 1)}:",
        "            s = s * 0.5 + t",
        "        else:",
        f"            s = 0.25 * {_expr(rng, 2)}",
        f"        y[i] = {_expr(rng, 3)}",
        "    return y, s",
    ])


@needs_numba
def test_random_loop_programs_equal_the_python_loop(tmp_path, monkeypatch):
    """jit(f) == f, bitwise, on random recurrences with branches (the kernel runs: at least one
    is compiled), NaN and inf included where the arithmetic makes them."""
    rng = np.random.default_rng(11)
    src = "import numpy as np\n\n\n" + "\n\n\n".join(_program(rng, k) for k in range(12)) + "\n"
    (tmp_path / "loop_programs.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    import loop_programs
    x = np.random.default_rng(3).normal(size=N)
    ran = 0
    with np.errstate(all="ignore"):
        for k in range(12):
            f = getattr(loop_programs, f"loop{k}")
            j = s2s.jit(f)
            (gy, gs), (wy, ws) = j(x, 0.7), f(x, 0.7)
            np.testing.assert_array_equal(gy, wy, err_msg=f"loop{k}")
            assert gs == ws or (np.isnan(gs) and np.isnan(ws)), f"loop{k}"
            ran += _kernels(j, x, 0.7)
    assert ran >= 6


def ratios(x, d):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * 0.5 + (i + 1) / d  # Python numbers alone: d == 0 raises ZeroDivisionError
    return y


def test_division_of_python_numbers_stays_in_python(x):
    j = s2s.jit(ratios)
    with pytest.raises(ZeroDivisionError):
        j(x, 0)
    np.testing.assert_array_equal(j(x, 4), ratios(x, 4))
    assert _kernels(j, x, 4) == 0


def int_powers(x):
    y = np.zeros_like(x)
    for i in range(1, len(x)):
        y[i] = y[i - 1] * 0.5 + x[i] * 2 ** -(i % 3)  # Python: 2 ** -1 is 0.5 (numba's int64: 0)
    return y


def geometric(x, r):
    level = 1.0
    out = np.empty_like(x)
    for i in range(len(x)):
        level = level * r + x[i]  # level and r: floats, so the product is of floats
        out[i] = level
    return out


def test_int_products_stay_in_python_and_float_products_run(x):
    j = s2s.jit(int_powers)
    np.testing.assert_array_equal(j(x), int_powers(x))
    assert _kernels(j, x) == 0
    j = s2s.jit(geometric)
    np.testing.assert_array_equal(j(x, 0.9), geometric(x, 0.9))
    assert _kernels(j, x, 0.9) == (1 if numba_kernels.available() else 0)
