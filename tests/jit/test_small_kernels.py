"""Small-array kernels (passes/smallfuse.py, emit/numba_small.py): in a jit version for small
arrays of known shapes, a run of arithmetic statements on float64 vectors of one length is one
call of a compiled loop, numba's from the version's `HOT`-th call. Its values must be bitwise
NumPy's (the same IEEE operations in the same order) before and after it compiles, for
contiguous and strided vectors; what it cannot compute as NumPy does (broadcasting, float32,
matrices, functions such as `tanh`, too few operations) stays NumPy's."""
import numpy as np
import pytest

import s2s
from s2s.base import record
from s2s.compiler.emit import numba_kernels, numba_small

pytestmark = pytest.mark.skipif(not numba_kernels.available(), reason="needs numba (the `fast` extra)")


def chain(x):
    t = np.tanh(x)
    u = t * t
    d = 1 - u
    v = d * t
    w = v * d - u * v
    return np.sum(6.0 * w * x), w   # w read after the run: a result; v, d, u stay in the loop


def with_a_float(x, c):
    s = np.sin(x)
    a = s * c + 1.5
    b = a * a - s / c
    e = -b * 0.5 + a ** 2
    return np.cos(e) * b


def two_results(x, y):
    s = np.exp(x)
    a = s * y - x
    b = a * a + y * s
    c = b / (a + 2.0) - s   # a, b and c read after the run: three results
    return np.tanh(a) + np.sin(b) * c


def few_operations(x):
    t = np.tanh(x)
    u = t * t + 1.0
    return np.sin(u)


def broadcasting(m, v):
    s = np.sin(m)
    a = s * v + 1.0   # a row against a matrix: NumPy's broadcasting, not the kernel's one shape
    b = a * a - v
    c = b * a + s
    return np.cos(c)


X = np.array([0.3, -1.2, 0.8, 2.0, -0.0, 7.5])
M = np.linspace(-2.0, 2.0, 12).reshape(3, 4)


def kernels_of(fn, *args):
    v = s2s.jit(fn).version_for(args)
    return dict(record.of(v).small)


def bitwise(a, b):
    """The same bits (a NaN only where NaN: its sign and payload are the compiler's choice)."""
    for g, w in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        np.testing.assert_array_equal(g[~np.isnan(g)].view(np.int64), w[~np.isnan(w)].view(np.int64))


@pytest.fixture
def hot(monkeypatch):
    monkeypatch.setattr(numba_small, "HOT", 3)


@pytest.mark.parametrize("fn, args", [
    (chain, (X,)), (chain, (X[::2],)), (chain, (X[::-1],)),
    (with_a_float, (X, 0.7)), (two_results, (X, X[::-1].copy())), (two_results, (X[1:], X[::-1][1:])),
], ids=["vector", "strided", "reversed", "float", "two_results", "two_views"])
def test_kernels_give_numpys_bits_before_and_after_compiling(hot, fn, args):
    kernels = kernels_of(fn, *args)
    assert len(kernels) == 1
    jf = s2s.jit(fn)
    with np.errstate(all="ignore"):
        want = fn(*args)
        for _ in range(numba_small.HOT + 3):  # NumPy's statements, then the compiled loop
            bitwise(jf(*args), want)
    v = jf.version_for(args)
    name = next(iter(kernels))
    assert v.__globals__[name] is not kernels[name]  # numba's dispatcher took its place
    assert type(v.__globals__[name]).__module__.startswith("numba")


def test_the_dump_shows_the_call_and_the_loop():
    src = s2s.source(s2s.jit(chain), X)
    assert "w = small_0(u)" in src or "small_0(" in src
    assert "# small-array kernel small_0" in src and "for i in range(" in src


@pytest.mark.parametrize("fn, args", [
    (few_operations, (X,)),
    (broadcasting, (M, X[:4])),
    (chain, (X.astype(np.float32),)),
    (chain, (M,)),   # matrices: NumPy's result keeps its operands' layout, which a later sum reads
], ids=["few_operations", "broadcasting", "float32", "matrix"])
def test_what_numpy_must_compute_stays_numpys(hot, fn, args):
    assert kernels_of(fn, *args) == {}
    jf = s2s.jit(fn)
    for _ in range(numba_small.HOT + 2):
        np.testing.assert_array_equal(jf(*args)[1] if fn is chain else jf(*args),
                                      fn(*args)[1] if fn is chain else fn(*args))


def test_large_arrays_get_the_fused_kernels_instead():
    x = np.linspace(-1.0, 1.0, 1 << 17)
    assert kernels_of(chain, x) == {}


def test_without_numba_no_kernel(monkeypatch):
    monkeypatch.setenv("S2S_NO_NUMBA", "1")
    monkeypatch.setattr(numba_kernels, "_AVAILABLE", None)

    def polynomial(x):  # (its own function: the versions of `chain` may be cached with numba's kernel)
        s = np.sin(x)
        a = s * s - 3.0 * s + 1.0
        b = a * x / 7.0 + 2.5 * s   # eight operations: a kernel, with numba
        return np.cos(a) * b + b

    assert kernels_of(polynomial, X) == {}
    np.testing.assert_array_equal(s2s.jit(polynomial)(X), polynomial(X))


def test_gradients_through_kernels_match_the_plain_gradient(hot):
    def loss(w, x):
        h = np.tanh(x * w)
        a = (1.0 - h * h) * w
        b = a * a - h * x + 0.25 * a
        return np.sum(b * b)
    w, x = np.linspace(-1.0, 1.0, 7), np.linspace(0.5, 2.0, 7)
    g, jg = s2s.grad(loss), s2s.jit(s2s.grad(loss))
    for _ in range(numba_small.HOT + 2):
        bitwise(jg(w, x), g(w, x))


def _random_program(rng, k: int) -> str:
    """A function of two vectors and a float: a run of random arithmetic statements (+ - * /,
    negation, ** 2, literals among them -0.0 and 0.0) between two NumPy calls."""
    names, lines = ["s", "x", "y"], ["    s = np.sin(x)"]
    for j in range(int(rng.integers(3, 9))):
        a, b = rng.choice(names + ["c"], 2)
        lit = rng.choice(["0.0", "-0.0", "1", "2.5", "-3.0", "1e300"])
        form = rng.choice(["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "-{a} * {lit}", "{a} ** 2 + {lit}",
                           "({a} - {lit}) / ({b} + {lit})", "{lit} * {a} - {b}"])
        lines.append(f"    t{j} = " + form.format(a=a, b=b, lit=lit))
        names.append(f"t{j}")
    used = " + ".join(names[-3:])
    return f"def program_{k}(x, y, c):\n" + "\n".join(lines) + f"\n    return np.cos({used}) * {names[-1]}\n"


def test_random_runs_are_bitwise_numpys_once_compiled(hot, tmp_path, monkeypatch):
    rng = np.random.default_rng(2912)
    src = "import numpy as np\n\n\n" + "\n\n".join(_random_program(rng, k) for k in range(24))
    (tmp_path / "small_programs.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    import small_programs
    x = np.array([0.5, -1.5, 0.0, 3.0, -0.0, 1e-300, 2.0])
    y = np.array([1.0, 0.0, -2.0, np.inf, 0.25, -1e300, np.nan])
    formed = 0
    for k in range(24):
        f = getattr(small_programs, f"program_{k}")
        formed += bool(kernels_of(f, x, y, 0.75))
        jf = s2s.jit(f)
        with np.errstate(all="ignore"):
            want = f(x, y, 0.75)
            for _ in range(numba_small.HOT + 2):
                got = jf(x, y, 0.75)
                np.testing.assert_array_equal(got, want)  # (NaN where NaN)
                real = ~np.isnan(want)  # (a NaN's sign and payload are the compiler's: LLVM may
                np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(want[real]))  # swap + and *)
    assert formed >= 12  # (most runs have five operations or more)
