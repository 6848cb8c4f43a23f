"""jit never holds arrays longer than the unoptimized function: its peak memory (NumPy's
allocations, traced by tracemalloc) is at most the plain transform's, and it writes single-use
temporaries into the expressions that read them only where that keeps no operand alive across
an allocation (s2s/compiler/passes/reform.py)."""
import tracemalloc

import gast
import numpy as np
import pytest

import s2s
from s2s.compiler.emit.codegen import to_source
from s2s.compiler.passes import reform

N = 200_000  # 1.6 MB per float64 array: far above anything else a call allocates


def _peak(fn, *args) -> int:
    fn(*args)  # compile outside the trace
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        fn(*args)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def chain(x):
    a = x * 2.0
    b = np.cumsum(a)
    c = b + 1.0
    d = np.cumsum(c)
    return d


def chain_loss(x):
    return np.sum(np.cumsum(np.cumsum(x * 2.0) + 1.0) ** 2)


@pytest.mark.parametrize("f,make", [(chain, lambda f: f), (chain_loss, lambda f: f), (chain_loss, s2s.grad),
                                    (chain, lambda f: s2s.vjp(f, np.ones(N))[1])], ids=["f", "loss", "grad", "vjp_fn"])
def test_jit_peak_memory_at_most_the_plain_functions(f, make):
    x = np.random.default_rng(0).normal(size=N)
    plain, jitted = make(f), s2s.jit(make(f))
    np.testing.assert_allclose(jitted(x), plain(x), rtol=1e-12)
    assert _peak(jitted, x) <= _peak(plain, x) + 4096


def value(theta, state):
    return np.dot(theta, state)


def td_loss(theta, s_tm1, r_t, s_t):
    target = r_t + value(theta, s_t)
    return (s2s.stop_gradient(target) - value(theta, s_tm1)) ** 2


def test_jit_of_per_example_gradients_holds_no_more_than_plain():
    """The benchmark's W1 at B=65536: jit wrote `-(a * b)` into the call of the inlined backward
    helper, holding three arrays of the batch through it (5.3 MB at the peak against 3.7 MB)."""
    rng = np.random.default_rng(0)
    b = 65536
    args = rng.normal(size=3), rng.normal(size=(b, 3)), rng.normal(size=b), rng.normal(size=(b, 3))
    plain = s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0))
    jitted = s2s.jit(plain)
    theta, s1, r, s2 = args
    want = -2.0 * (r + s2 @ theta - s1 @ theta)[:, None] * s1  # by hand
    np.testing.assert_allclose(jitted(*args), want, rtol=1e-10)
    np.testing.assert_allclose(plain(*args), want, rtol=1e-10)
    assert _peak(jitted, *args) <= _peak(plain, *args) + 4096


def _reformed(src: str, fuse: bool = False) -> list[str]:
    fn = gast.parse(src).body[0]
    fn.body, _ = reform.PASS(fn.body, {a.id for a in fn.args.args}, {"fuse": fuse})
    return [line.strip() for line in to_source(fn).splitlines()[1:]]


def test_reform_keeps_a_dying_operand_out_of_a_call():
    # b (released at c) would live on while rt.g allocates its result; d is only passed on
    src = "def f(x):\n    b, e = rt.h(x)\n    c = b + 1.0\n    d = rt.g(c)\n    return d, e\n"
    want = ["b, e = rt.h(x)", "c = b + 1.0", "return rt.g(c), e"]
    assert _reformed(src) == _reformed(src, fuse=True) == want
    # an unnamed temporary is released as soon as it is used: rt.g(x) + 1.0 holds nothing
    src = "def f(x):\n    b = rt.g(x)\n    c = b + 1.0\n    d = rt.g(c)\n    return d\n"
    assert _reformed(src) == ["return rt.g(rt.g(x) + 1.0)"]


def test_reform_keeps_a_dying_operand_out_of_arithmetic():
    # NumPy would subtract in the memory of `b * 2.0`, but b (an array released at c) would live
    # on until it had; only the pass-on into the return moves
    src = "def f(x):\n    b, e = rt.h(x)\n    c = b * 2.0\n    d = c - 1.0\n    return d, e\n"
    assert _reformed(src) == _reformed(src, fuse=True) == ["b, e = rt.h(x)", "c = b * 2.0", "return c - 1.0, e"]


def test_reform_writes_a_dying_operand_into_a_kernel():
    src = "def f(x, y):\n    b, e = rt.h(x)\n    c = b * y\n    d = xp.exp(c) - e\n    return d\n"
    assert _reformed(src) == ["b, e = rt.h(x)", "c = b * y", "return xp.exp(c) - e"]
    # with fusion it is one kernel (NumPy would allocate b * y and exp's result): b is held by
    # nothing but the kernel's argument list
    assert _reformed(src, fuse=True) == ["b, e = rt.h(x)", "return xp.exp(b * y) - e"]


def test_reform_undoes_a_move_that_makes_no_kernel():
    # in a tuple `xp.exp(b * y) - 2.0` is no kernel (fusion takes whole right-hand sides): c is named again
    src = "def f(x, y):\n    b, e = rt.h(x)\n    c = b * y\n    d = xp.exp(c) - 2.0\n    return d, e\n"
    assert _reformed(src, fuse=True) == ["b, e = rt.h(x)", "c = b * y", "return xp.exp(c) - 2.0, e"]
    src = "def f(x, y):\n    b, e = rt.h(x)\n    c = b * y\n    d = -c\n    g = d + e\n    return g\n"
    assert _reformed(src, fuse=True) == ["b, e = rt.h(x)", "c = b * y", "d = -c", "return d + e"]
