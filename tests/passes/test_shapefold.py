"""A jit version is specialized on the shapes of its first call's arrays (passes/shapefold.py): the
broadcasting helpers of a gradient become the sums they compute, and a shape test sends any other
call to the version for every shape. Properties: jit(f) == f and jit(grad(f)) == grad(f) (and
central differences) over calls whose shapes, containers and item types change back and forth."""
import collections

import numpy as np
import pytest
from helpers_compare import assert_trees_close
from paths import ROOT

import s2s
from s2s.test_util import check_grads


def linear_loss(params, x, y):
    w, b = params
    return np.mean((x @ w + b - y) ** 2)


def broadcast_mix(a, b, c, m, s):
    t = np.tanh(a * b + c) * m
    return np.sum(t * s) + np.mean(np.exp(-t) / a.size)


def with_stop(z):
    shifted = z - s2s.stop_gradient(np.max(z, axis=1, keepdims=True))
    return np.sum(np.log(np.sum(np.exp(shifted), axis=1)))


def rebinds(x, w):
    x = x.reshape(-1)
    return np.sum(np.tanh(x) * w.size) + np.sum(w * w)


def test_gradient_source_has_no_broadcasting_helpers():
    rng = np.random.default_rng(0)
    args = ((rng.normal(size=(32, 64)), rng.normal(size=64)), rng.normal(size=(16, 32)), rng.normal(size=(16, 64)))
    g = s2s.jit(s2s.grad(linear_loss))
    src = s2s.source(g, *args)
    assert "rt.shapes_match((params, x, y), (('tuple', ((32, 64), (64,)), ('d', 'd')), (16, 32), (16, 64)))" \
        in " ".join(src.split())
    body = src.split("return any_shape(params, x, y)")[1]
    for helper in ("rt.unbroadcast", "rt.dot_vjp_b", "rt.like", "xp.size"):
        assert helper not in body, helper
    w, b = args[0]
    r = args[1] @ w + b - args[2]
    want = (args[1].T @ (2 * r / r.size), (2 * r / r.size).sum(axis=0))
    assert_trees_close(g(*args), want, same_type=True)


SHAPES = [((3, 4), (4,), (1, 4), (3, 1)), ((2, 3, 4), (3, 4), (4,), (2, 1, 1)), ((5,), (5,), (1,), ()),
          ((3, 4), (3, 4), (3, 4), (3, 4)), ((4, 1), (1, 6), (4, 6), (6,))]


@pytest.mark.parametrize("shapes", SHAPES, ids=[str(s[0]) + "." + str(s[1]) for s in SHAPES])
def test_broadcast_gradients(shapes):
    rng = np.random.default_rng(len(shapes[0]))
    args = [rng.uniform(0.5, 1.5, size=s) for s in shapes] + [0.7]
    args[3] = np.asarray(args[3]) if shapes[3] == () else args[3]
    jg = s2s.jit(s2s.grad(broadcast_mix, argnums=(0, 1, 2, 3, 4)))
    got = jg(*args)
    assert_trees_close(got, s2s.grad(broadcast_mix, argnums=(0, 1, 2, 3, 4))(*args), rtol=1e-12)
    assert [np.shape(g) for g in got] == [np.shape(a) for a in args]
    check_grads(s2s.jit(broadcast_mix), tuple(args), order=1, modes=("rev",))


def test_other_shapes_run_the_any_shape_version():
    rng = np.random.default_rng(1)

    def data(b, d1, d2):
        return (rng.normal(size=(d1, d2)), rng.normal(size=d2)), rng.normal(size=(b, d1)), rng.normal(size=(b, d2))

    g, plain = s2s.jit(s2s.grad(linear_loss)), s2s.grad(linear_loss)
    calls = [data(16, 8, 4), data(16, 8, 4), data(3, 8, 4), data(16, 2, 4), data(16, 8, 4), data(1, 1, 1)]
    w, b = calls[0][0]
    calls += [([w, b], calls[0][1], calls[0][2]),  # a list: the gradient is a list too
              ((w, 0.5), calls[0][1], calls[0][2]),  # a number for the bias
              ((w.astype(np.float32), b), calls[0][1], calls[0][2])]
    Params = collections.namedtuple("Params", "w b")
    calls.append((Params(w, b), calls[0][1], calls[0][2]))
    for args in calls + calls[::-1]:
        assert_trees_close(g(*args), plain(*args), same_type=True, rtol=1e-6)
    assert isinstance(g(*calls[-1]), Params)


def test_stop_gradient_and_rebound_parameters():
    rng = np.random.default_rng(2)
    z = rng.normal(size=(5, 3))
    e = np.exp(z - z.max(axis=1, keepdims=True))
    assert_trees_close(s2s.jit(s2s.grad(with_stop))(z), e / e.sum(axis=1, keepdims=True))  # softmax: the max stopped
    x, w = rng.normal(size=(2, 3)), rng.normal(size=(6,))
    for args in [(x, w), (x.reshape(3, 2), w), (x, w[:2])]:
        assert_trees_close(s2s.jit(s2s.grad(rebinds, argnums=(0, 1)))(*args),
                           s2s.grad(rebinds, argnums=(0, 1))(*args))
        assert s2s.jit(rebinds)(*args) == pytest.approx(rebinds(*args), rel=1e-12)


def squares(x):
    return np.sum(x * x)


def td_loss(theta, s_tm1, r_t, s_t):
    target = r_t + np.dot(s_t, theta)
    return (s2s.stop_gradient(target) - np.dot(s_tm1, theta)) ** 2


def test_vmap_batch_size_folds_and_mismatched_sizes_still_raise():
    rng = np.random.default_rng(4)
    theta, s1, r, s2 = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=4), rng.normal(size=(4, 3))
    f = s2s.jit(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))
    assert "vmap_size_axis0" not in s2s.source(f, theta, s1, r, s2)
    want = -2.0 * (r + s2 @ theta - s1 @ theta)[:, None] * s1  # hand-derived per-example gradients
    assert_trees_close(f(theta, s1, r, s2), want)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        f(theta, s1, r[:3], s2)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        s2s.jit(s2s.vmap(s2s.grad(td_loss), in_axes=(None, 0, 0, 0)))(theta, s1, r[:3], s2)


def cubic(x):
    return x ** 3 + 2 * x ** 2 - 3 * x + 1


def test_versions_without_arrays_keep_their_fast_path():
    """A version for numbers (no shapes to test) is called as it is (a fast path passing
    shapes_tested=True failed here: W8's fourth derivative raised TypeError on its second call)."""
    d4 = s2s.jit(s2s.grad(s2s.grad(s2s.grad(s2s.grad(cubic)))))
    assert [d4(1.0) for _ in range(3)] == [0.0] * 3
    d1 = s2s.jit(s2s.grad(cubic))
    assert [d1(x) for x in (1.0, 2.0, 1.0)] == [3.0 * x * x + 4.0 * x - 3.0 for x in (1.0, 2.0, 1.0)]
    f = s2s.jit(broadcast_mix)
    args = (np.ones((2, 3)), 2.0, np.ones(3), np.ones((2, 1)), 0.5)
    assert [f(*args) for _ in range(3)] == pytest.approx([broadcast_mix(*args)] * 3, rel=1e-12)


def test_large_arrays_too_and_switch_off(monkeypatch):
    guard = "rt.shapes_match((x,), "
    assert guard + "((300, 300),))" in s2s.source(s2s.jit(s2s.grad(squares)), np.ones((300, 300)))
    assert guard + "((3, 3),))" in s2s.source(s2s.jit(s2s.grad(squares)), np.ones((3, 3)))
    monkeypatch.setenv("S2S_NO_SHAPES", "1")
    assert guard not in s2s.source(s2s.jit(s2s.grad(squares)), np.ones((3, 4)))


def test_random_broadcasting_programs():
    """jit(grad(f)) == grad(f) for products and sums of arrays of random broadcastable shapes."""
    rng = np.random.default_rng(3)

    def f(a, b, c):
        t = a * b - c / (1.0 + b * b)
        return np.sum(np.sin(t) * t) + np.max(t) * np.mean(a)

    checked = 0
    for _ in range(40):
        out = tuple(int(n) for n in rng.integers(1, 4, size=rng.integers(1, 4)))
        shapes = []
        for _k in range(3):  # drop leading axes and set some to 1: shapes that broadcast to `out`
            s = out[rng.integers(0, len(out) + 1):]
            shapes.append(tuple(1 if rng.random() < 0.3 else n for n in s))
        args = [rng.uniform(0.5, 1.5, size=s) for s in shapes]
        if any(a.ndim == 0 for a in args):
            args = [np.asarray(a) for a in args]
        want = s2s.grad(f, argnums=(0, 1, 2))(*args)
        got = s2s.jit(s2s.grad(f, argnums=(0, 1, 2)))(*args)
        assert_trees_close(got, want, rtol=1e-12)
        assert [np.shape(g) for g in got] == [np.shape(a) for a in args]
        checked += 1
    assert checked == 40


def test_docs_example_prints_what_the_docs_show(tmp_path):
    import re
    import subprocess
    import sys
    page = (ROOT / "docs" / "jit.md").read_text()
    m = re.search(r"```python\n(import numpy as np\nimport s2s\n\ndef loss\(params, x, y\):.*?)```\n\n```\n(.*?)```",
                  page, re.S)
    assert m, "the shape-specialization example of docs/jit.md"
    (tmp_path / "ex.py").write_text(m.group(1))
    out = subprocess.run([sys.executable, "ex.py"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert out.strip() == m.group(2).strip()


def powered(x, n, w=2.0):
    return np.sum(x ** n * w) + x.shape[0]


def test_static_and_default_arguments_with_changing_shapes():
    j = s2s.jit(powered, static_argnums=(1,))
    for x in [np.ones(3), np.ones(4), np.ones((2, 2)), np.ones(3)]:
        for n in (2, 3):
            assert j(x, n) == powered(x, n)
            assert j(x, n, w=3.0) == powered(x, n, w=3.0)
            assert j(x, n, 0.5) == powered(x, n, 0.5)


def products(w, x, v):
    h = np.tanh(x @ w)
    return np.sum(np.dot(h, v) ** 2) + np.sum(np.matmul(x.T, h)) + np.dot(v, v)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_products_of_float_vectors_and_matrices_are_dot(dtype):
    """shapefold.array_methods: `@`, `xp.matmul` and `xp.dot` of float vectors and matrices run
    as `xp.dot` (no generalized-ufunc dispatch), the same BLAS call: bitwise the plain function's,
    value and gradient; also for transposed and row-sliced operands."""
    rng = np.random.default_rng(3)
    w, x, v = (rng.normal(size=s).astype(dtype) for s in ((4, 3), (5, 4), (3,)))
    for f in (products, s2s.grad(products, argnums=(0, 1, 2))):
        j = s2s.jit(f)
        for args in ((w, x, v), (w.T.copy().T, x[::2], v), (w, np.asfortranarray(x), v)):
            assert_trees_close(j(*args), f(*args), rtol=0, atol=0)
            body = "\n".join(line for line in s2s.source(j, *args).split("return any_shape(")[1].split("\n")
                             if not line.lstrip().startswith("#"))
            assert "xp.dot(" in body and "@" not in body and "matmul" not in body


def test_large_products_stay_matmul():
    """Operands above shapefold.DOT_MAX elements: NumPy's `matmul` is the faster there, `@` stays
    (and `xp.dot` written by the user stays `xp.dot`); the values are the plain function's."""
    from s2s.compiler.passes.shapefold import DOT_MAX
    rng = np.random.default_rng(4)
    a, v, m = rng.normal(size=(DOT_MAX // 3 + 1, 3)), rng.normal(size=3), rng.normal(size=(3, 3))

    def big(a, v, m):
        return a @ v + np.dot(a, m)[:, 0]
    j = s2s.jit(big)
    assert_trees_close(j(a, v, m), big(a, v, m), rtol=0, atol=0)
    body = s2s.source(j, a, v, m).split("return any_shape(")[1]
    assert "a @ v" in body and "xp.dot(a, m)" in body
    small = a[:DOT_MAX // 3]
    assert "xp.dot(a, v)" in s2s.source(j, small, v, m).split("return any_shape(")[1]


def test_products_of_integers_stay_matmul():
    """Integer arrays: no BLAS behind either, the product stays as written."""
    a, b = np.arange(6).reshape(2, 3), np.arange(3)
    j = s2s.jit(lambda a, b: a @ b)
    assert np.array_equal(j(a, b), a @ b)
    assert "xp.dot(" not in s2s.source(j, a, b)


def xent(logits, y):
    z = logits - s2s.stop_gradient(np.max(logits, axis=1, keepdims=True))
    lse = np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(y * (z - lse), axis=1))


def summed_rows(a):
    return np.sum(np.sum(a * a, axis=0)) * 0.5


@pytest.mark.parametrize("f, shape", [(xent, (6, 4)), (summed_rows, (5, 3))], ids=["mean_of_rows", "sum_of_rows"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_cotangent_of_a_reduced_seed_is_one_fill(f, shape, dtype):
    """A full mean or sum's cotangent, spread back over the axes a reduction took, is one
    `xp.full_like` of the array reduced (W7's tail: rt.mean_vjp then rt.sum_vjp, and the reduction
    read for its shape, took ~45 us after the products ran); its dtype is that array's."""
    rng = np.random.default_rng(3)
    args = [rng.normal(size=shape).astype(dtype) for _ in range(f.__code__.co_argcount)]
    g = s2s.jit(s2s.grad(f))
    body = s2s.source(g, *args).split("return any_shape(")[1]
    folded = dtype == np.float64  # (`y * fill`: `y * c`, fill_operands.py)
    assert ("xp.full_like(" in body) != folded and "rt.mean_vjp" not in body and "rt.sum_vjp" not in body, body
    got, want = g(*args), s2s.grad(f)(*args)
    assert got.dtype == want.dtype == dtype
    np.testing.assert_array_equal(got, want)  # (the same values, computed without the helpers)
    if f is xent:
        z = args[0] - args[0].max(axis=1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        hand = (p * args[1].sum(axis=1, keepdims=True) - args[1]) / shape[0]
        np.testing.assert_allclose(got, hand, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-7)
    else:
        np.testing.assert_allclose(got, args[0], rtol=1e-6)


def test_a_fill_of_another_shape_is_left_to_the_helper():
    def f(a):
        return np.sum(np.sum(a, axis=1) * np.ones(3))  # (a (3, 4): the reduction's cotangent is a (3,) fill)
    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(s2s.jit(s2s.grad(f))(a), np.ones((3, 4)))


def test_a_seed_spread_over_an_array_of_an_earlier_shape_stays_a_helper():
    """`t * 0.0 + a` has `a`'s shape: the spread seed's helper reads `a` for its shape, so the
    forward value may go (a fill of it would keep it: W4b's forward, 11x slower, once did)."""
    def f(a):
        return np.sum(np.sum(np.tanh(a) * 0.0 + a, axis=1))
    a = np.random.default_rng(2).normal(size=(4, 3))
    g = s2s.jit(s2s.grad(f))
    body = s2s.source(g, a).split("return any_shape(")[1]
    assert "xp.full_like" not in body and ", a, 1, False)" in body, body
    np.testing.assert_array_equal(g(a), s2s.grad(f)(a))
