"""s2s.random against JAX's own streams (tests/data/jax-random-vectors.txt), Threefry's
published known answers, exact identities and statistics; plus argument errors as in JAX."""

import ast
import math
import re

import numpy as np
import pytest
from paths import DATA

import s2s
from s2s import S2SError, random
from s2s.errors import S2STypeError, S2SValueError

VECTORS = DATA / "jax-random-vectors.txt"


def _read_vectors():
    """(section, call, dtype, values) for every vector in the reference file."""
    lines = VECTORS.read_text(encoding="utf-8").splitlines()
    cases, section = [], None
    for i, line in enumerate(lines):
        if line.startswith("## "):
            section = line[3:]
            continue
        m = re.fullmatch(r"(.*?)\s+# dtype (\w+), shape \((.*)\)", line)
        if m and section:
            cases.append((section, m.group(1), m.group(2), ast.literal_eval(lines[i + 1])))
    return cases


CASES = _read_vectors()


@pytest.fixture
def layout():
    """Set the Threefry layout for one test and put the default back afterwards."""
    before = s2s.config.read("threefry_partitionable")
    yield lambda partitionable: s2s.config.update("threefry_partitionable", partitionable)
    s2s.config.update("threefry_partitionable", before)


def _call(call: str, dtype: str, x64: bool):
    """Run a reference line's JAX call with s2s, asking for the dtype JAX used."""
    expr = call.replace(" raw", "").replace("(odd count)", "").strip()
    name = expr.split("(", 1)[0]
    ns = {n: getattr(random, n) for n in random.__all__}
    if name in ("normal", "uniform", "randint"):
        expr = expr[:-1] + f", dtype=np.{dtype})"
    elif name == "bernoulli":  # JAX's Python-float p is float32, or float64 under x64
        expr = expr.replace("0.3", f"np.{'float64' if x64 else 'float32'}(0.3)")
    return eval(expr, {"np": np, **ns})


def test_reference_file_has_every_section():
    sections = {c[0] for c in CASES}
    assert sections == {"classic (x64 off)", "partitionable (x64 off)", "classic, jax_enable_x64=True"}
    assert len(CASES) == VECTORS.read_text(encoding="utf-8").count("# dtype") == 42


# What docs/random.md states: every draw bit-identical to JAX's, but float64 normals, which are
# within this many units in the last place of JAX's (XLA's float64 log1p, under erfinv, is not
# NumPy's; issue 44 measured 56 of 1,040 float64 normals off, by up to 24 ulps)
FLOAT64_NORMAL_ULPS = 24


def _float64_normal(call, dtype) -> bool:
    return dtype == "float64" and call.startswith("normal")


def _ulps(a, b):
    """The distance of float64 arrays `a` and `b` in units in the last place (ordered bit patterns)."""
    def ordered(x):
        i = np.asarray(x, dtype=np.float64).view(np.int64)
        return np.where(i < 0, np.int64(-2**63) - i, i)
    return np.abs(ordered(a) - ordered(b))


EXACT = [c for c in CASES if not _float64_normal(c[1], c[2])]
NEAR = [c for c in CASES if _float64_normal(c[1], c[2])]


def _got_and_expected(layout, section, call, dtype, values):
    layout(section.startswith("partitionable"))
    got = _call(call, dtype, "x64=True" in section)
    expected = np.array(values, dtype=dtype)
    if call.startswith("permutation"):  # s2s's permutation of range(n) is int32 (JAX without x64)
        expected = expected.astype(np.int32)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    return got, expected


@pytest.mark.parametrize("section,call,dtype,values", EXACT, ids=[f"{c[0][:13]}:{c[1]}" for c in EXACT])
def test_bit_identical_to_jax(layout, section, call, dtype, values):
    got, expected = _got_and_expected(layout, section, call, dtype, values)
    np.testing.assert_array_equal(got, expected)  # exact: every bit


@pytest.mark.parametrize("section,call,dtype,values", NEAR, ids=[f"{c[0][:13]}:{c[1]}" for c in NEAR])
def test_float64_normals_within_stated_ulps_of_jax(layout, section, call, dtype, values):
    got, expected = _got_and_expected(layout, section, call, dtype, values)
    assert _ulps(got, expected).max() <= FLOAT64_NORMAL_ULPS


def test_the_stated_agreement_covers_every_reference_vector():
    # the uniform bits (and so bernoulli, randint, permutation, keys) are checked exactly; only
    # float64 normals are checked within the stated ulps, and the file holds some of each
    assert len(EXACT) + len(NEAR) == len(CASES)
    assert NEAR and all(c[2] == "float64" and c[1].startswith("normal") for c in NEAR)
    assert any(c[2] == "float64" and c[1].startswith("uniform") for c in EXACT)
    assert any(c[2] == "float32" and c[1].startswith("normal") for c in EXACT)


def test_ulps_counts_units_in_the_last_place():
    one = np.float64(1.0)
    assert _ulps(one, np.nextafter(one, 2.0)) == 1
    assert _ulps(-one, np.nextafter(-one, -2.0)) == 1
    assert _ulps(np.float64(-0.0), np.float64(0.0)) == 0
    assert _ulps(np.nextafter(0.0, -1.0), np.nextafter(0.0, 1.0)) == 2
    x = np.float64(1.2345)
    assert _ulps(x, x + 24 * np.spacing(x)) == 24


def test_float64_partitionable_is_the_64_bit_words(layout):
    """Partitionable float64 draws use (hash word 0 << 32 | word 1); check with the hash directly."""
    layout(True)
    k = random.PRNGKey(5)
    w0, w1 = random._threefry2x32(k, np.zeros(4, np.uint32), np.arange(4, dtype=np.uint32))
    words = (w0.astype(np.uint64) << np.uint64(32)) | w1
    expected = (words >> np.uint64(12)).astype(np.float64) / 2.0**52
    np.testing.assert_array_equal(random.uniform(k, (4,), dtype=np.float64), expected)


# Known answers of Threefry-2x32 with 20 rounds (Salmon et al., Random123 test vectors).
KAT = [
    ((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF, 0xFFFFFFFF), (0xFFFFFFFF, 0xFFFFFFFF), (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


@pytest.mark.parametrize("key,count,expected", KAT)
def test_threefry_known_answers(key, count, expected):
    y0, y1 = random._threefry2x32(np.array(key, np.uint32), np.array([count[0]], np.uint32),
                                  np.array([count[1]], np.uint32))
    assert (int(y0[0]), int(y1[0])) == expected


def test_threefry_blocks_agree_with_one_block(monkeypatch):
    k = random.PRNGKey(9)
    x0, x1 = np.arange(1000, dtype=np.uint32), np.arange(1000, 2000, dtype=np.uint32)
    whole = random._threefry2x32(k, x0, x1)
    monkeypatch.setattr(random, "_BLOCK", 7)
    blocked = random._threefry2x32(k, x0, x1)
    np.testing.assert_array_equal(whole[0], blocked[0])
    np.testing.assert_array_equal(whole[1], blocked[1])
    # Counters made block by block are JAX's counters: iota(n), halves hashed against each other
    # (classic), or the 64-bit index as (high, low) words (partitionable).
    for n in (1, 2, 15, 16, 101):
        np.testing.assert_array_equal(random._threefry_iota(k, n),
                                      random._threefry_flat(k, np.arange(n, dtype=np.uint32)))
        hi, lo = random._threefry_iota_2x32(k, n)
        ref = random._threefry2x32(k, np.zeros(n, np.uint32), np.arange(n, dtype=np.uint32))
        np.testing.assert_array_equal(hi, ref[0])
        np.testing.assert_array_equal(lo, ref[1])


@pytest.mark.parametrize("partitionable", [False, True])
def test_layouts_relate_draws_as_jax_documents(layout, partitionable):
    """Partitionable draws of n values are a prefix of draws of more; classic ones are not."""
    layout(partitionable)
    k = random.PRNGKey(0)
    short, long = random.uniform(k, (7,)), random.uniform(k, (10,))
    assert np.array_equal(short, long[:7]) == partitionable
    np.testing.assert_array_equal(random.split(k, 5)[:2] if partitionable else random.split(k, 2),
                                  random.split(k, 2))


# --- keys -------------------------------------------------------------------------------------


def test_key_words():
    assert random.PRNGKey(42).tolist() == [0, 42]
    assert random.key(2**32 + 5).tolist() == [1, 5]
    assert random.PRNGKey(-1).tolist() == [2**32 - 1, 2**32 - 1]  # 64-bit two's complement
    assert random.PRNGKey(np.int64(7)).tolist() == [0, 7]
    for k in (random.PRNGKey(3), random.key(3)):
        assert k.dtype == np.uint32 and k.shape == (2,)
    np.testing.assert_array_equal(random.key_data(random.key(1234)), [0, 1234])
    assert random.key_data(random.split(random.key(0), 3)).shape == (3, 2)


@pytest.mark.parametrize("partitionable", [False, True])
def test_split_and_fold_in_shapes(layout, partitionable):
    layout(partitionable)
    k = random.key(1234)
    for num, shape in ((2, (2, 2)), (4, (4, 2)), (1, (1, 2)), (0, (0, 2))):
        keys = random.split(k, num)
        assert keys.shape == shape and keys.dtype == np.uint32
    assert random.split(k).shape == (2, 2)
    np.testing.assert_array_equal(random.split(k, (2, 3)), random.split(k, 6).reshape(2, 3, 2))
    assert len({tuple(r) for r in random.split(k, 100).tolist()}) == 100
    f = random.fold_in(k, 3)
    assert f.shape == (2,) and f.dtype == np.uint32
    assert len({tuple(random.fold_in(k, i).tolist()) for i in range(100)}) == 100
    np.testing.assert_array_equal(random.fold_in(k, 2**32 + 3), f)  # data is taken mod 2**32


def test_draws_are_pure():
    k = random.key(0)
    before = k.copy()
    a = random.normal(k, (5,))
    random.split(k)
    random.fold_in(k, 1)
    np.testing.assert_array_equal(k, before)
    np.testing.assert_array_equal(random.normal(k, (5,)), a)


@pytest.mark.parametrize("partitionable", [False, True])
def test_split_keys_give_uncorrelated_streams(layout, partitionable):
    layout(partitionable)
    k = random.key(7)
    k1, k2 = random.split(k)
    n = 20_000
    a, b, c = (random.normal(x, (n,)) for x in (k1, k2, k))
    for x, y in [(a, b), (a, c), (b, c)]:
        assert abs(np.corrcoef(x, y)[0, 1]) < 5 / math.sqrt(n)  # 5 standard errors


# --- shapes and dtypes ------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)])
def test_shapes(shape):
    k = random.key(0)
    assert random.uniform(k, shape).shape == shape
    assert random.normal(k, shape).shape == shape
    assert random.randint(k, shape, 0, 10).shape == shape
    assert random.bernoulli(k, 0.3, shape).shape == shape
    assert random.truncated_normal(k, -1.0, 1.0, shape).shape == shape
    assert random.choice(k, 5, shape).shape == shape


def test_default_dtypes_are_jaxs():
    k = random.key(0)
    assert random.uniform(k, (2,)).dtype == np.float32
    assert random.normal(k, (2,)).dtype == np.float32
    assert random.truncated_normal(k, -1, 1, (2,)).dtype == np.float32
    assert random.randint(k, (2,), 0, 5).dtype == np.int32
    assert random.bernoulli(k, 0.5, (2,)).dtype == np.bool_
    assert random.permutation(k, 4).dtype == np.int32


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_dtypes(dtype):
    k = random.key(0)
    u = random.uniform(k, (1000,), dtype=dtype)
    z = random.normal(k, (1000,), dtype=dtype)
    assert u.dtype == dtype and z.dtype == dtype
    assert u.min() >= 0 and u.max() < 1 and np.isfinite(z).all()


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint32, np.uint64])
def test_randint_dtypes(dtype):
    r = random.randint(random.key(0), (2000,), 0, 100, dtype=dtype)
    assert r.dtype == dtype
    assert r.min() == 0 and r.max() == 99


# --- distributions ----------------------------------------------------------------------------


def test_uniform_range_and_mean():
    k = random.key(5)
    u = random.uniform(k, (100_000,))
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 5 * math.sqrt(1 / 12 / u.size)
    v = random.uniform(k, (10_000,), minval=-3.0, maxval=2.0)
    assert -3.0 <= v.min() and v.max() < 2.0
    w = random.uniform(k, (2, 3), minval=np.array([0.0, 10.0, 20.0]), maxval=np.array([1.0, 11.0, 21.0]))
    assert np.all((w >= [0.0, 10.0, 20.0]) & (w < [1.0, 11.0, 21.0]))


def test_uniform_maps_bits_through_the_mantissa():
    """In float32 every draw is a multiple of 2**-23 (23 random mantissa bits)."""
    u = random.uniform(random.key(1), (10_000,)).astype(np.float64)
    np.testing.assert_array_equal(u * 2**23, np.round(u * 2**23))
    assert len(np.unique(u)) > 9_990


def _normal_cdf(x):
    return 0.5 * (1 + np.vectorize(math.erf)(np.asarray(x, np.float64) / math.sqrt(2)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_distribution(dtype):
    z = random.normal(random.key(2024), (100_000,), dtype=dtype).astype(np.float64)
    assert abs(z.mean()) < 5 / math.sqrt(z.size)
    assert abs(z.std() - 1.0) < 5 / math.sqrt(2 * z.size)
    # Kolmogorov-Smirnov distance against the normal CDF; 1.95/sqrt(n) is the 0.1% critical value.
    zs = np.sort(z)
    cdf = _normal_cdf(zs)
    i = np.arange(1, zs.size + 1)
    assert max(np.max(i / zs.size - cdf), np.max(cdf - (i - 1) / zs.size)) < 1.95 / math.sqrt(zs.size)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_erfinv_inverts_erf(dtype):
    x = np.linspace(-0.999999, 0.999999, 20001).astype(dtype)
    y = random._erfinv(x).astype(np.float64)
    back = np.vectorize(math.erf)(y)
    # d erf / dy is at most 2/sqrt(pi), so the error in erf(y) bounds the error of y's inversion.
    tol = 4 * np.finfo(dtype).eps * np.maximum(1.0, np.abs(y))
    assert np.all(np.abs(back - x.astype(np.float64)) <= tol * np.maximum(np.abs(x), 1e-30) + np.finfo(dtype).eps)
    assert random._erfinv(np.array([1.0, -1.0], dtype)).tolist() == [np.inf, -np.inf]


def test_truncated_normal():
    k = random.key(3)
    t = random.truncated_normal(k, -1.0, 2.0, (100_000,)).astype(np.float64)
    assert t.min() > -1.0 and t.max() < 2.0
    # Mean of N(0,1) truncated to (a, b): (phi(a) - phi(b)) / (Phi(b) - Phi(a)).
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    mass = float(_normal_cdf(2.0) - _normal_cdf(-1.0))
    mean = (phi(-1.0) - phi(2.0)) / mass
    assert abs(t.mean() - mean) < 5 * t.std() / math.sqrt(t.size)
    b = random.truncated_normal(k, np.array([-3.0, 0.0, 1.0]), np.array([-2.0, 0.5, 5.0]))
    assert b.shape == (3,) and -3 < b[0] < -2 and 0 < b[1] < 0.5 and 1 < b[2] < 5


def test_randint_range_uniformity_and_empty_span():
    r = random.randint(random.key(1), (50_000,), 3, 8)
    counts = np.bincount(r - 3, minlength=5)
    assert r.min() == 3 and r.max() == 7
    chi2 = float(((counts - r.size / 5) ** 2 / (r.size / 5)).sum())
    assert chi2 < 18.5  # 4 degrees of freedom, 0.1% critical value
    # maxval <= minval gives minval, as in JAX.
    assert random.randint(random.key(1), (4,), 5, 2).tolist() == [5] * 4
    assert random.randint(random.key(1), (3,), np.array([0, 10, 20]), np.array([1, 11, 21])).tolist() == [0, 10, 20]
    # A bound past the dtype's range is clipped, with the top value still reachable.
    u8 = random.randint(random.key(2), (5000,), 0, 256, dtype=np.uint8)
    assert u8.min() == 0 and u8.max() == 255


def test_uniform_with_maxval_below_minval_gives_minval():
    assert random.uniform(random.key(0), (3,), minval=3.0, maxval=1.0).tolist() == [3.0] * 3


def test_bernoulli():
    k = random.key(8)
    b = random.bernoulli(k, 0.25, (100_000,))
    assert b.dtype == np.bool_
    assert abs(b.mean() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / b.size)
    assert random.bernoulli(k, np.array([0.0, 1.0])).tolist() == [False, True]
    assert random.bernoulli(k).shape == ()
    # The stream follows p's dtype: bernoulli is uniform(key, shape, p.dtype) < p.
    for dt in (np.float32, np.float64):
        p = dt(0.4)
        np.testing.assert_array_equal(random.bernoulli(k, p, (50,)), random.uniform(k, (50,), dtype=dt) < p)


def test_permutation():
    k = random.key(4)
    p = random.permutation(k, 10)
    assert sorted(p.tolist()) == list(range(10))
    x = np.arange(12).reshape(4, 3)
    px = random.permutation(k, x)
    assert sorted(px[:, 0].tolist()) == [0, 3, 6, 9]
    np.testing.assert_array_equal(px[:, 1:] - px[:, :1], x[:, 1:] - x[:, :1])  # rows move whole
    assert x.tolist() == np.arange(12).reshape(4, 3).tolist()  # input untouched
    cols = random.permutation(k, x, axis=1)
    assert sorted(cols[0].tolist()) == [0, 1, 2]
    ind = random.permutation(k, x, independent=True)
    assert all(sorted(ind[:, j].tolist()) == sorted(x[:, j].tolist()) for j in range(3))
    # 1-D arrays shuffle like their indices.
    np.testing.assert_array_equal(random.permutation(k, np.arange(10) * 7), p * 7)


def test_permutation_positions_are_uniform():
    n, trials = 5, 4000
    keys = random.split(random.key(0), trials)
    firsts = np.array([random.permutation(kk, n)[0] for kk in keys])
    counts = np.bincount(firsts, minlength=n)
    chi2 = float(((counts - trials / n) ** 2 / (trials / n)).sum())
    assert chi2 < 18.5


def test_choice():
    k = random.key(6)
    c = random.choice(k, 5, (5000,))
    assert set(np.unique(c).tolist()) == set(range(5))
    d = random.choice(k, np.array([10, 20, 30]), (3,), replace=False)
    assert sorted(d.tolist()) == [10, 20, 30]
    assert random.choice(k, 3, (1000,), p=np.array([0.0, 0.0, 1.0])).tolist() == [2] * 1000
    w = random.choice(k, 3, (60_000,), p=np.array([0.2, 0.3, 0.5]))
    np.testing.assert_allclose(np.bincount(w, minlength=3) / w.size, [0.2, 0.3, 0.5], atol=0.01)
    u = random.choice(k, 10, (4,), replace=False, p=np.arange(1.0, 11.0))
    assert len(set(u.tolist())) == 4
    m = random.choice(k, np.arange(12).reshape(3, 4), (2,), axis=1)
    assert m.shape == (3, 2) and np.all(m[1] - m[0] == 4)
    assert random.choice(k, 5, (0,)).shape == (0,)
    # Without replacement and weights, choice takes the first draws of a permutation.
    np.testing.assert_array_equal(random.choice(k, 8, (3,), replace=False), random.permutation(k, 8)[:3])


# --- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call,kind,match",
    [
        (lambda k: random.normal(k, 3), S2STypeError, r"sequence of integers.*\(3,\)"),
        (lambda k: random.uniform(k, (2, -1)), S2SValueError, ">= 0"),
        (lambda k: random.uniform(k, (2.5,)), S2STypeError, "integers"),
        (lambda k: random.uniform(k, (2,), dtype=np.int32), S2SValueError, "float"),
        (lambda k: random.normal(k, (2,), dtype=np.complex64), S2SValueError, "float"),
        (lambda k: random.randint(k, (2,), 0, 3, dtype=np.float32), S2STypeError, "integer"),
        (lambda k: random.randint(k, (2,), np.zeros(3), 5), S2SValueError, "broadcast"),
        (lambda k: random.uniform(k, (2,), minval=np.zeros(3)), S2SValueError, "broadcast"),
        (lambda k: random.bernoulli(k, 1, (2,)), S2STypeError, "floating"),
        (lambda k: random.bernoulli(k, np.full(3, 0.5), (2,)), S2SValueError, "broadcast"),
        (lambda k: random.permutation(k, 2.5), S2STypeError, "integer"),
        (lambda k: random.permutation(k, np.arange(3), axis=2), S2SValueError, "axis"),
        (lambda k: random.choice(k, 3, (4,), replace=False), S2SValueError, "larger sample"),
        (lambda k: random.choice(k, 0, (2,)), S2SValueError, "greater than 0"),
        (lambda k: random.choice(k, 3, (2,), p=np.ones(4) / 4), S2SValueError, "p must"),
        (lambda k: random.split(k, -1), S2SValueError, ">= 0"),
        (lambda k: random.fold_in(k, 1.5), S2STypeError, "integer"),
    ],
)
def test_bad_arguments(call, kind, match):
    with pytest.raises(kind, match=match):
        call(random.key(0))


@pytest.mark.parametrize(
    "bad",
    [np.zeros(3, np.uint32), np.zeros(2), np.zeros(2, np.int32), 0, [0, 1], "key"],
)
def test_non_keys_are_rejected(bad):
    for fn in (lambda b: random.normal(b, (2,)), random.split, lambda b: random.fold_in(b, 1)):
        with pytest.raises(S2STypeError, match="PRNG key"):
            fn(bad)


def test_a_batch_of_keys_is_rejected_like_jax():
    keys = random.split(random.key(0), 4)
    with pytest.raises(S2STypeError, match="single key.*keys\\[0\\]"):
        random.uniform(keys, (2,))
    with pytest.raises(S2SError, match="single key"):
        random.split(keys)


def test_bad_seeds():
    with pytest.raises(S2STypeError, match="integer"):
        random.PRNGKey(1.5)
    with pytest.raises(S2SValueError, match="64 bits"):
        random.key(2**64)


def test_float64_fused_multiply_add_is_exact():
    """Each float64 Horner step rounds a * w + c once, like a hardware FMA (exact rationals here)."""
    from fractions import Fraction

    gen = np.random.default_rng(0)
    w = gen.normal(size=2000) * 10.0 ** gen.integers(-3, 3, size=2000)
    differs = 0
    for a, c in [(0.1, -0.3), (1.0 / 3.0, 2.0 / 7.0), (-1.2e-5, 1.6536545626831027)]:
        got = random._horner64((a, c), w)
        want = [float(Fraction(a) * Fraction(x) + Fraction(c)) for x in w]
        np.testing.assert_array_equal(got, want)
        differs += int(np.sum(got != a * w + c))
    assert differs > 0  # so the test tells a fused from an unfused multiply-add


def _noisy_loss(x, key):
    mask = random.bernoulli(key, 0.5, x.shape)
    noise = random.normal(key, x.shape)
    return np.sum(np.where(mask, x, 0.0) * 2.0 + noise * x)


def test_draws_inside_a_differentiated_function_are_constants():
    x, k = np.arange(4.0), random.key(0)
    want = np.where(random.bernoulli(k, 0.5, (4,)), 2.0, 0.0) + random.normal(k, (4,))
    np.testing.assert_allclose(s2s.grad(_noisy_loss)(x, k), want, rtol=1e-12)
