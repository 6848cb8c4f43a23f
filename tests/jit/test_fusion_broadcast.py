"""Fused kernels over broadcast operands (s2s.compiler.emit.broadcast: a row `(n,)`/`(1, n)` or a
column `(m, 1)` against `(m, n)`, blocks of whole rows) and over products' results (bound to a
temporary first: `fusion.products_bound`, the kernel writing into it): values bitwise the unfused
NumPy expression's (a fused sum: to rounding), with the NumPy block kernel and with numba's; the
gradients of W5, W7 and W9 against their hand-written ones. Run also with S2S_NO_NUMBA=1 and
S2S_NO_FUSE=1 (the kernels then are not there: the values are the same)."""
import sys

import numpy as np
import pytest
from paths import BENCH, ROOT

import s2s
from s2s.compiler.emit import broadcast, kernels, numba_kernels
from s2s.compiler.passes import fusion

sys.path.insert(0, str(BENCH))
import bench_programs as P  # noqa: E402  (W5, W7, W9 and their hand-written gradients)

M, N = 700, 300  # 210,000 elements: above kernels.THRESHOLD, several blocks of rows and a ragged last one
ENGINES = ["numpy"] + (["numba"] if numba_kernels.available() else [])


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setattr(numba_kernels, "available", lambda: False)
    return request.param


def _rng():
    return np.random.default_rng(31)


def biased(x, b, c):
    return (x + b) * 2.0 - c * x


def centred(x, c):
    return (x - c) * 0.5 + x * x


def relu_bias(x, b, y):
    return np.where(x + b > 0.0, x + b, 0.0) * y - np.maximum(b, y)


def bias_energy(x, b):
    return np.sum((x + b) * (x + b) * 0.5 - x)


def tanh_bias(x, b, y):
    return np.tanh(x + b) * y - b * 0.25


def masked_bias(m, x, b):
    return np.where(m, x + b, 0.0) * x - b


def _fused(j):
    """The fused kernel of the version of `j` that ran last."""
    return next(iter(j._versions.values())).__globals__["fused_0"]


def _cases():
    r = _rng()
    x, y = r.normal(size=(M, N)), r.normal(size=(M, N))
    b, c = r.normal(size=N), r.normal(size=(M, 1))
    x3, b3 = r.normal(size=(6, 120, N)), r.normal(size=(120, N))
    return [(biased, (x, b, c), "r"), (biased, (x, b.reshape(1, -1), x), "r"), (centred, (x, c), "c"),
            (biased, (x3, b3, b), None), (biased, (x3, b3, r.normal(size=(6, 1, 1))), "c"), (relu_bias, (x, b, y), "r"),
            (tanh_bias, (x, b, y), "r"), (biased, (x, np.array(0.5), b), "r"), (biased, (x, np.array([[0.5]]), y), None),
            (masked_bias, (x > 0.3, x, b), "r"), (biased, (r.normal(size=(3, 70001)), r.normal(size=70001), 2.0), "r")]


@pytest.mark.parametrize("case", range(len(_cases())))
def test_broadcast_operands_bitwise(engine, case):
    f, args, kind = _cases()[case]
    j = s2s.jit(f)
    for _ in range(2):
        got = j(*args)
    want = f(*args)
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    if not kernels.available():
        return  # (S2S_NO_FUSE: no kernels)
    masks = [m for _, m in _fused(j).kernels]
    if kind is not None:  # the kernel ran in rows, not the NumPy expression
        assert any(kind in m for m in masks), masks
        assert "in whole rows" in s2s.source(j, *args)  # (the listing shows the kernel for these shapes)
    elif case == 3:  # (two row operands cut at different axes: the NumPy expression)
        assert not masks


def test_broadcast_fused_sum(engine):
    r = _rng()
    x, b = r.normal(size=(M, N)), r.normal(size=N)
    j = s2s.jit(bias_energy)
    got = j(x, b)
    np.testing.assert_allclose(got, bias_energy(x, b), rtol=1e-12)
    wide, row = r.normal(size=(2, 90001)), r.normal(size=90001)  # (rows longer than a block: one a block)
    np.testing.assert_allclose(j(wide, row), bias_energy(wide, row), rtol=1e-12)
    assert not kernels.available() or any("r" in m for _, m in _fused(j).kernels)


def test_what_does_not_broadcast_along_rows_runs_numpy(engine):
    r = _rng()
    x = r.normal(size=(M, N))
    j = s2s.jit(biased)
    for args in [(x[:, :1].copy(), x[:1].copy(), 0.5), (x, x[:, 1:].copy(), 0.5)]:  # (m, 1) by (1, n); no broadcast
        try:
            want = biased(*args)
        except ValueError:
            with pytest.raises(ValueError):
                j(*args)
            continue
        np.testing.assert_array_equal(j(*args), want)


def test_layout():
    x, b, c = np.zeros((4, 5, 6)), np.zeros(6), np.zeros((4, 1, 1))
    mask, values, full, split = broadcast.layout([x, b, 2.0], ["x", "b", "s"], set())
    assert mask == (True, "r", False) and full == (4, 5, 6) and split == 2
    assert broadcast.layout([x, c], ["x", "c"], set())[0::3] == ((True, "c"), 1)
    assert broadcast.layout([x, np.zeros((5, 6)), c], ["x", "b", "c"], set())[0::3] == ((True, "r", "c"), 1)
    assert broadcast.layout([x, np.zeros((5, 6)), np.zeros((4, 5, 1))], ["x", "b", "c"], set()) is None  # splits 1, 2
    assert broadcast.layout([x, np.zeros((5, 1))], ["x", "d"], set()) is None  # neither a row nor a column
    assert broadcast.layout([x, np.zeros(6, np.float32)], ["x", "b"], set()) is None


def scalar_b(x, b):
    return (x + b) * 2.0 - x * x


def scalar_nb(x, nb):
    return (x + nb) * 2.0 - x * x


def scalar_last(x, last):
    return (x + last) * 2.0 - x * x


@pytest.mark.parametrize("f", [scalar_b, scalar_nb, scalar_last])
def test_scalar_named_like_a_driver_local(engine, f):
    """A number argument named as a local of numba's block driver once was (`b`, `nb`, `last`)
    was overwritten by the block's index there: values wrong."""
    x = _rng().normal(size=M * N)
    np.testing.assert_array_equal(s2s.jit(f)(x, 0.5), f(x, 0.5))


def sum_exp_chunk(x, CHUNK):
    return np.sum(np.exp(x * CHUNK + 1.0) * 2.0 - x)


def sum_exp_min(x, min):
    return np.sum(np.exp(x * min + 1.0) * 2.0 - x)


def scalar_types(x, types):
    return (x + types) * 2.0 - x * x


@pytest.mark.parametrize("f", [sum_exp_chunk, sum_exp_min, scalar_types])
def test_scalar_named_like_a_kernel_global(engine, f):
    """A number argument named as a global or builtin the numba kernel's source reads (`CHUNK`,
    `min`, `types`) is renamed in the kernel: `CHUNK` shadowed the chunk size and numba raised its
    typing error from the user's call."""
    x = _rng().normal(size=M * N) * 0.1
    got, want = s2s.jit(f)(x, 0.5), f(x, 0.5)
    np.testing.assert_allclose(got, want, rtol=1e-12)  # (a fused sum adds block by block)


def linear(x, w, b, y):
    return 0.25 * (x @ w + b - y)


def test_product_bound_then_fused(engine):
    r = _rng()
    x, w, b, y = r.normal(size=(512, 64)), r.normal(size=(64, 256)), r.normal(size=256), r.normal(size=(512, 256))
    j = s2s.jit(linear)
    got = j(x, w, b, y)
    np.testing.assert_array_equal(got, linear(x, w, b, y))
    src = s2s.source(j, x, w, b, y)
    if engine == "numba" and kernels.available():  # (NumPy's chain runs in the product's array: only numba's pays)
        assert "fused_0_p0 = " in src and "fused_0(b, fused_0_p0, y)" in src
        assert "fused_0_p0 = _w_fused_0_p0[_a:_a + _width]" in src
        fused = _fused(j)
        assert fused.names[fused.into] == "fused_0_p0"
    small = [a[:100] if a.ndim == 2 and a.shape[0] == 512 else a for a in (x, w, b, y)]
    np.testing.assert_array_equal(j(*small), linear(*small))  # another version: NumPy
    single = [a.astype(np.float32) for a in (x, w, b, y)]
    np.testing.assert_array_equal(j(*single), linear(*single))
    assert "fused_0_p0" not in s2s.source(j, *single)  # (float32: NumPy's chain, in the product's array)


def test_products_bound_only_when_large():
    import gast
    e = gast.parse("0.25 * (x @ w + b - y)").body[0].value
    class Shapes(dict):
        f64 = {"x", "w", "b", "y"}
    shapes = Shapes(x=(512, 64), w=(64, 256), b=(256,), y=(512, 256))
    got, bound = fusion.products_bound(e, "fused_0", shapes)
    assert [n for n, _ in bound] == ["fused_0_p0"]
    assert fusion.products_bound(e, "fused_0", Shapes(shapes, x=(8, 64))) is None
    assert fusion.products_bound(e, "fused_0", dict(shapes)) is None  # (not known to be float64)
    assert fusion.PRODUCT_MIN == kernels.THRESHOLD


def _w5():
    sys.path.insert(0, str(ROOT / "examples"))
    from linear_mse import make_data
    return P.linear_loss, P.linear_hand, make_data(1024, 512, 512, dtype=np.float64)


@pytest.mark.parametrize("which", ["W5", "W7", "W9"])
def test_gradients_match_hand_written(engine, which):
    fn, hand, args = _w5() if which == "W5" else (P.mlp_loss, P.mlp_hand, P.mlp_data()) if which == "W7" \
        else (P.xent_loss, P.xent_hand, P.mlp_data(128, (784, 256, 10)))
    f = s2s.jit(s2s.grad(fn))
    for _ in range(3):
        got = f(*args)
    for g, h in zip(got, hand(*args)):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-15)
