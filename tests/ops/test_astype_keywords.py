"""`ndarray.astype`'s other parameters (issue 44, family 2): `order`, `casting` and `subok` were
passed to `np.asarray`, which has no `casting` or `subok`, so `x.astype(np.float32,
casting="same_kind")` raised an internal TypeError; by position (`x.astype(int, "K", "same_kind")`)
they were ignored, and a cast NumPy refuses gave a number. `order` and `subok` change no value;
`casting` other than 'unsafe' is NumPy's check before the cast (rt.cast_check)."""
import numpy as np
import pytest

import s2s

X = np.array([[0.5, 1.5, -2.2], [0.3, -0.9, 1.1]])


def same_kind_float32(x):
    return np.sum(x.astype(np.float32, casting="same_kind") * x)


def layout_and_subclass(x):
    return np.sum(x.astype(np.float64, order="F", subok=False) ** 2)


def unsafe_by_position(x):
    return np.sum(x.astype(int, "C", "unsafe") * x)


@pytest.mark.parametrize("f, grad", [
    (same_kind_float32, lambda x: 2 * x),
    (layout_and_subclass, lambda x: 2 * x),
    (unsafe_by_position, lambda x: x.astype(int).astype(float))], ids=lambda v: getattr(v, "__name__", ""))
def test_modelled(f, grad):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-6)
    np.testing.assert_allclose(s2s.grad(f)(X), grad(X), rtol=1e-6)
    xs = np.stack([X, -X])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-6)


def same_kind_int(x):
    return np.sum(x.astype(int, casting="same_kind") * 2)


def safe_by_position(x):
    return np.sum(x.astype(np.float32, "K", "safe"))


@pytest.mark.parametrize("f", [same_kind_int, safe_by_position], ids=lambda f: f.__name__)
def test_numpy_s_refusal(f):
    with pytest.raises(TypeError):
        f(X)
    for run in (s2s.jit(f), s2s.grad(f)):
        with pytest.raises(TypeError):
            run(X)
    with pytest.raises(TypeError):
        s2s.vmap(f)(np.stack([X, X]))
