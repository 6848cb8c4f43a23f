"""Tests for s2s.random: keys, determinism, shapes, dtypes, split independence, distributions."""

import numpy as np
import pytest

from s2s import random


def test_key_representation():
    k = random.PRNGKey(42)
    assert k.dtype == np.uint32
    assert k.shape == (2,)
    assert k.tolist() == [0, 42]
    np.testing.assert_array_equal(random.key(42), k)
    assert random.PRNGKey(2**32 + 5).tolist() == [1, 5]
    assert random.PRNGKey(-1).tolist() == [2**32 - 1, 2**32 - 1]
    assert random.PRNGKey(np.int64(7)).tolist() == [0, 7]


def test_same_key_same_numbers():
    k = random.key(0)
    np.testing.assert_array_equal(random.uniform(k, (5,)), random.uniform(k, (5,)))
    np.testing.assert_array_equal(random.normal(k, (3, 2)), random.normal(k, (3, 2)))
    np.testing.assert_array_equal(random.split(k, 3), random.split(k, 3))
    np.testing.assert_array_equal(random.fold_in(k, 9), random.fold_in(k, 9))
    # Draws are pure: the key is not mutated.
    before = k.copy()
    random.uniform(k, (10,))
    random.split(k)
    np.testing.assert_array_equal(k, before)


def test_different_seeds_differ():
    a = random.uniform(random.key(0), (8,))
    b = random.uniform(random.key(1), (8,))
    assert not np.any(a == b)


def test_split_shapes_and_indexing():
    rng = random.split(random.key(1234), 4)
    assert rng.shape == (4, 2)
    assert rng.dtype == np.uint32
    assert len({tuple(r) for r in rng.tolist()}) == 4
    x = random.normal(rng[0], (3,))
    assert x.shape == (3,)
    assert random.split(random.key(0)).shape == (2, 2)
    assert random.split(random.key(0), 0).shape == (0, 2)


def test_split_keys_give_independent_streams():
    k = random.key(7)
    k1, k2 = random.split(k)
    n = 20_000
    a = random.normal(k1, (n,))
    b = random.normal(k2, (n,))
    parent = random.normal(k, (n,))
    assert not np.any(a == b)
    # Correlations of independent normals are ~N(0, 1/n); 5 sigma is about 0.035.
    for x, y in [(a, b), (a, parent), (b, parent)]:
        assert abs(np.corrcoef(x, y)[0, 1]) < 5 / np.sqrt(n)


def test_split_prefix_is_stable():
    k = random.key(3)
    np.testing.assert_array_equal(random.split(k, 5)[:2], random.split(k, 2))


def test_fold_in():
    k = random.key(11)
    folded = [random.fold_in(k, i) for i in range(100)]
    assert all(f.shape == (2,) and f.dtype == np.uint32 for f in folded)
    assert len({tuple(f.tolist()) for f in folded}) == 100
    assert tuple(random.fold_in(k, 0).tolist()) not in {
        tuple(r) for r in random.split(k).tolist()
    }


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), 4])
def test_shapes(shape):
    k = random.key(0)
    expected = (shape,) if isinstance(shape, int) else shape
    assert random.uniform(k, shape).shape == expected
    assert random.normal(k, shape).shape == expected
    assert random.randint(k, shape, 0, 10).shape == expected
    assert random.bernoulli(k, 0.3, shape).shape == expected


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_float_dtypes(dtype):
    k = random.key(0)
    assert random.uniform(k, (4,), dtype=dtype).dtype == dtype
    assert random.normal(k, (4,), dtype=dtype).dtype == dtype


def test_default_dtypes():
    k = random.key(0)
    assert random.uniform(k, (2,)).dtype == np.float64
    assert random.normal(k, (2,)).dtype == np.float64
    assert random.randint(k, (2,), 0, 5).dtype == np.int64
    assert random.bernoulli(k, 0.5, (2,)).dtype == np.bool_
    assert random.randint(k, (2,), 0, 5, dtype=np.int32).dtype == np.int32


def test_bad_arguments():
    k = random.key(0)
    with pytest.raises(TypeError, match="floating"):
        random.uniform(k, (2,), dtype=np.int32)
    with pytest.raises(TypeError, match="integer"):
        random.randint(k, (2,), 0, 3, dtype=np.float64)
    with pytest.raises(TypeError, match="PRNG key"):
        random.normal(np.zeros(3, dtype=np.uint32))
    with pytest.raises(TypeError, match="PRNG key"):
        random.split(np.zeros(2))


def test_uniform_range():
    k = random.key(5)
    u = random.uniform(k, (100_000,))
    assert u.min() >= 0.0
    assert u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.01
    v = random.uniform(k, (10_000,), minval=-3.0, maxval=2.0)
    assert v.min() >= -3.0
    assert v.max() < 2.0
    w = random.uniform(
        k,
        (2, 3),
        minval=np.array([0.0, 10.0, 20.0]),
        maxval=np.array([1.0, 11.0, 21.0]),
    )
    assert np.all((w >= [0.0, 10.0, 20.0]) & (w < [1.0, 11.0, 21.0]))
    h = random.uniform(k, (10_000,), dtype=np.float16, minval=0.0, maxval=1.0)
    assert h.max() < 1.0


def test_normal_moments():
    z = random.normal(random.key(2024), (100_000,))
    # Standard errors: mean 1/sqrt(n) ~ 0.0032, std ~ 1/sqrt(2n) ~ 0.0022.
    assert abs(z.mean()) < 0.02
    assert abs(z.std() - 1.0) < 0.02


def test_randint_range_and_coverage():
    r = random.randint(random.key(1), (10_000,), 3, 8)
    assert r.min() == 3
    assert r.max() == 7
    assert set(np.unique(r).tolist()) == {3, 4, 5, 6, 7}


def test_bernoulli():
    k = random.key(8)
    b = random.bernoulli(k, 0.25, (100_000,))
    assert abs(b.mean() - 0.25) < 0.01
    assert random.bernoulli(k, np.array([0.0, 1.0])).tolist() == [False, True]
    assert random.bernoulli(k).shape == ()


def test_permutation():
    k = random.key(4)
    p = random.permutation(k, 10)
    assert sorted(p.tolist()) == list(range(10))
    np.testing.assert_array_equal(p, random.permutation(k, 10))
    x = np.arange(12).reshape(4, 3)
    px = random.permutation(k, x)
    assert px.shape == (4, 3)
    assert sorted(px[:, 0].tolist()) == [0, 3, 6, 9]
    np.testing.assert_array_equal(px[:, 1:] - px[:, :1], x[:, 1:] - x[:, :1])
    assert x.tolist() == np.arange(12).reshape(4, 3).tolist()  # input untouched


def test_choice():
    k = random.key(6)
    c = random.choice(k, 5, (1000,))
    assert set(np.unique(c).tolist()) <= set(range(5))
    d = random.choice(k, np.array([10, 20, 30]), (3,), replace=False)
    assert sorted(d.tolist()) == [10, 20, 30]
    w = random.choice(k, 3, (1000,), p=np.array([0.0, 0.0, 1.0]))
    assert np.all(w == 2)
