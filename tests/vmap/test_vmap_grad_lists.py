"""vmap of derivatives of functions that build lists: joined with `+`, repeated, turned into an
array or a tuple, compared with a Python loop of the same derivative over the examples. (vmap of
jacrev once reshaped a list's cotangent as an array, and the batched `np.array`/`tuple` of a list
had no derivative rules.)"""
import numpy as np
import pytest

import s2s

RNG = np.random.default_rng(11)
XS, YS = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))


def joined_in_a_loop(x, y):
    lst = [np.sin(x)] + [x * y]
    for i in range(2):
        lst = lst + [lst[-1] * 0.5 + 0.1 * np.tanh(lst[0])]
    acc = x * 1.0
    for w in lst:
        acc = acc * 0.9 + 0.1 * np.tanh(w)
    return acc * acc


def rotated_to_tuple(x, y):
    lst = [np.sin(x), y * x]
    lst = (lst[0],) + tuple(lst)
    acc = x * 0.5
    for w in lst:
        acc = acc + np.cos(w) * y
    return acc


def repeated_by_a_variable(x, y):
    m = 2
    lst = [np.tanh(x), x * y] * m
    s = 0.0 * x
    for j in range(len(lst)):
        s = s + lst[j] * (0.3 / (j + 1.0))
    return s


def appended_then_array(x, y):
    out = []
    for i in range(1, len(x)):
        out.append(x[i] * y[i - 1])
    return np.sum(np.array(out) ** 2)


def loop(d, f):
    want = [d(f, argnums=(0, 1))(a, b) for a, b in zip(XS, YS)]
    return tuple(np.stack([w[k] for w in want]) for k in range(2))


@pytest.mark.parametrize("f", [joined_in_a_loop, rotated_to_tuple, repeated_by_a_variable], ids=lambda f: f.__name__)
@pytest.mark.parametrize("d", [s2s.jacrev, s2s.jacfwd], ids=["jacrev", "jacfwd"])
def test_vmap_of_jacobian_matches_loop(f, d):
    got = s2s.vmap(d(f, argnums=(0, 1)))(XS, YS)
    for g, w in zip(got, loop(d, f)):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


BATCHED = s2s.vmap(appended_then_array)


def summed(xs, ys):
    return np.sum(BATCHED(xs, ys))


def test_grad_and_jvp_of_a_batched_np_array_of_a_list(monkeypatch):
    # with loop vectorization off the loop runs as written, so the batched code calls
    # rt.batched_array (np.array of the list), and grad/jvp of it need its rules: what vmap(grad) off
    # NumPy runs (tests/test_backends.py) and what grad of a vmapped function runs anywhere
    monkeypatch.setenv("S2S_NO_LOOPVEC", "1")
    s2s.clear_caches()
    try:
        assert "rt.batched_array(" in s2s.api.sources.stacked_source(appended_then_array, ["vmap"])
        got = s2s.grad(summed, argnums=(0, 1))(XS, YS)
        want = loop(s2s.grad, appended_then_array)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-12)
        dx, dy = RNG.normal(size=XS.shape), RNG.normal(size=YS.shape)
        _, tangent = s2s.jvp(summed, (XS, YS), (dx, dy))
        assert tangent == pytest.approx(np.sum(want[0] * dx) + np.sum(want[1] * dy), rel=1e-12)
    finally:
        s2s.clear_caches()


def ragged_join(x, y):
    lst = [np.sin(np.sum(y))] + [x * -1.5]  # a number and a vector: vmap must not align them
    for i in range(2):
        lst = lst + [lst[-1] * 0.5 + 0.1 * np.tanh(lst[0])]
    lst = lst[1:] + lst[:1]
    acc = x * 1.0
    for w in lst:
        acc = acc * 0.9 + 0.1 * np.tanh(w)
    return np.sum(acc * acc)


def test_vmap_and_vmap_grad_of_a_ragged_list_join():
    got = s2s.vmap(ragged_join)(XS, YS)
    np.testing.assert_allclose(got, [ragged_join(a, b) for a, b in zip(XS, YS)], rtol=1e-12)
    got = s2s.vmap(s2s.grad(ragged_join, argnums=(0, 1)))(XS, YS)
    for g, w in zip(got, loop(s2s.grad, ragged_join)):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def repeated_per_example(x, n):
    L = [x, 2 * x, 3 * x] * n
    s = 0.0
    for t in L:
        s = s + np.sum(t * t)
    return s


def test_a_per_example_count_is_refused():
    # a batched count would give lists of different lengths: refused, never broadcast as numbers
    xs = RNG.normal(size=(3, 3))
    with pytest.raises(s2s.S2SError, match="per example"):
        s2s.vmap(repeated_per_example)(xs, np.array([1, 2, 3]))
    got = s2s.vmap(repeated_per_example, in_axes=(0, None))(xs, 2)
    np.testing.assert_allclose(got, [repeated_per_example(r, 2) for r in xs], rtol=1e-12)
