"""Small-array kernels in loops (passes/smallfuse.py, emit/numba_small.py, issue 46 section 2): in
a loop's body, a run of at least five `+ - * /` and negations on arrays of one known shape of rank 2
or more (an RNN's backward step: the chain rule of a tanh written out with `np.exp`, in a form
reverse mode does not read as tanh, transforms/tanh_idioms.py) is one call of a
compiled loop over the elements, which runs only where every array is a C-ordered float64 NumPy
array of that shape (NumPy's result of such operands is C-ordered as the loop's is), and NumPy's
statements otherwise. Values: bitwise NumPy's before and after numba compiles the loop, and the
gradient against central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s
from s2s.base import record
from s2s.compiler.emit import numba_kernels, numba_small

pytestmark = pytest.mark.skipif(not numba_kernels.available(), reason="needs numba (the `fast` extra)")


def tanh(x):
    return 1 - 2 / (np.exp(2 * x) + 1)


def rnn(w, xs):
    """A recurrence through a tanh written with `np.exp` (its backward: a run of elementwise
    operations a step on arrays of the state's shape)."""
    h = np.zeros((xs.shape[1], w.shape[0]))
    for t in range(xs.shape[0]):
        h = tanh(xs[t] @ w.T + h)
    return np.sum(h ** 2)


def _args():
    r = np.random.default_rng(29)
    return r.normal(size=(4, 3)) * 0.6, r.normal(size=(5, 6, 3))


def _kernels(g, args):
    return dict(record.of(g.version_for(args)).small)


def bitwise(a, b):
    for g, w in zip(a, b):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.view(np.int64), w.view(np.int64))


@pytest.fixture
def hot(monkeypatch):
    monkeypatch.setattr(numba_small, "HOT", 3)


def test_backward_step_is_one_kernel_with_numpys_bits(hot):
    w, xs = _args()
    g = s2s.jit(s2s.grad(rnn, argnums=(0, 1)))
    first = g(w, xs)  # (NumPy's statements)
    kernels = _kernels(g, (w, xs))
    assert len(kernels) == 1 and next(iter(kernels.values())).shape == (6, 4)
    assert "small_0(" in s2s.source(g, w, xs)
    for _ in range(4):  # 5 steps a call: compiled by now
        bitwise(g(w, xs), first)
    name = next(iter(kernels))
    assert g.version_for((w, xs)).__globals__[name] is not kernels[name]  # (the guarded compiled loop)
    bitwise(first, s2s.grad(rnn, argnums=(0, 1))(w, xs))
    np.testing.assert_allclose(first[0], fd_grad(lambda v: rnn(v, xs), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(first[1], fd_grad(lambda v: rnn(w, v), xs), rtol=1e-6, atol=1e-8)


def test_the_guard_takes_numpy_for_other_layouts_and_dtypes(hot):
    w, xs = _args()
    g = s2s.jit(s2s.grad(rnn, argnums=(0, 1)))
    for _ in range(4):
        g(w, xs)
    kernel = next(iter(_kernels(g, (w, xs)).values()))
    compiled = g.version_for((w, xs)).__globals__[kernel.name]
    r = np.random.default_rng(3)
    c = [r.normal(size=(6, 4)) for _ in kernel.at]
    args = [None] * len(kernel.at)
    for k, a in zip(kernel.at, c):
        args[k] = a
    want = kernel.numpy(*args)
    bitwise([compiled(*args)], [want])  # C-ordered float64: the loop, NumPy's bits
    for other in (np.asfortranarray, lambda a: a.astype(np.float32), lambda a: np.repeat(a, 2, axis=1)[:, ::2]):
        moved = list(args)
        moved[kernel.at[0]] = other(c[0])
        got, want = compiled(*moved), kernel.numpy(*moved)
        assert got.dtype == want.dtype and got.flags.c_contiguous == want.flags.c_contiguous
        np.testing.assert_array_equal(got, want)


def test_a_name_bound_outside_the_run_stays_numpys():
    def f(w, xs):
        h = np.zeros((xs.shape[1], w.shape[0]))
        a = h
        for t in range(xs.shape[0]):
            u = xs[t] @ w.T
            a = a * u - u / (h + 2.0)  # `a` is bound before the loop too: its first value is read here
            h = -(a * a) + u * 0.5
        return np.sum(h * a)

    w, xs = _args()
    g = s2s.jit(s2s.grad(f, argnums=(0,)))
    got = g(w, xs)[0]
    np.testing.assert_allclose(got, fd_grad(lambda v: f(v, xs), w), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(s2s.jit(f)(w, xs), f(w, xs))
