"""The generated fast paths of transformed functions (s2s/api/dispatch.py): once calls have shown one
signature, a transformed object's call is a generated function testing it inline. Every call it
serves must equal the general path's (and a hand-derived value); every call it was not built for
(another dtype or rank, keywords, a missing or extra argument, a rebound global) must reach the
general path and behave as it does there."""
import numpy as np
import pytest

import s2s

SCALE = 2.0


def scaled_square(x):
    return np.sum(x * x) * SCALE


def double(x):
    return x * SCALE


def three_only(x):
    return np.sum(np.sin(np.reshape(x, (3,))))  # NumPy's ValueError for any other size


@pytest.fixture(autouse=True)
def _scale(monkeypatch):
    monkeypatch.setitem(globals(), "SCALE", 2.0)  # and back after the test, which may rebind it


X = np.array([0.5, -1.0, 2.0])


def _transforms():
    return {"grad": (s2s.grad(scaled_square), lambda x, c: 2 * c * x),
            "vmap": (s2s.vmap(double), lambda x, c: c * x),
            "hessian": (s2s.hessian(scaled_square), lambda x, c: 2 * c * np.eye(x.size)),
            "jacfwd": (s2s.jacfwd(double), lambda x, c: c * np.eye(x.size)),
            "jit": (s2s.jit(s2s.grad(scaled_square)), lambda x, c: 2 * c * x)}


@pytest.mark.parametrize("name", list(_transforms()))
def test_fast_path_calls_agree_with_hand_derived_values(name):
    f, want = _transforms()[name]
    for _ in range(3):
        np.testing.assert_allclose(f(X), want(X, 2.0), rtol=1e-14)
    assert "_entry" in vars(f), "calls like these run the generated fast path"
    x32 = X.astype(np.float32)  # another dtype: the general path, then right
    np.testing.assert_allclose(f(x32), want(x32, 2.0), rtol=1e-6)
    np.testing.assert_allclose(f(X), want(X, 2.0), rtol=1e-14)


@pytest.mark.parametrize("name", list(_transforms()))
def test_a_rebound_global_is_seen_through_the_fast_path(name):
    global SCALE
    f, want = _transforms()[name]
    f(X)
    f(X)
    SCALE = 3.0
    np.testing.assert_allclose(f(X), want(X, 3.0), rtol=1e-14)
    np.testing.assert_allclose(f(X), want(X, 3.0), rtol=1e-14)
    SCALE = float("3.0")  # an equal value, another object: the same code
    np.testing.assert_allclose(f(X), want(X, 3.0), rtol=1e-14)


@pytest.mark.parametrize("name", list(_transforms()))
def test_keywords_and_wrong_counts_take_the_general_path(name):
    f, want = _transforms()[name]
    f(X)
    f(X)
    np.testing.assert_allclose(f(x=X), want(X, 2.0), rtol=1e-14)
    with pytest.raises((TypeError, s2s.S2SError)):  # grad: its argnums out of range
        f()
    with pytest.raises((TypeError, s2s.S2SError)):
        f(X, X, X)


def test_a_wrong_type_never_reaches_the_version():
    g = s2s.grad(scaled_square)
    g(X)
    g(X)
    with pytest.raises(s2s.S2SError, match="inexact"):
        g(np.array([1, 2, 3]))  # integers: JAX's error, from the general path's check
    np.testing.assert_allclose(g(X), 4.0 * X, rtol=1e-14)


def test_vmap_other_ranks_and_hessian_fallback_through_the_fast_path():
    v = s2s.vmap(double)
    v(X)
    v(X)
    m = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(v(m), 2.0 * m, rtol=1e-14)
    h = s2s.jacfwd(three_only)
    np.testing.assert_allclose(h(X), np.cos(X), rtol=1e-14)
    h(X)
    assert "_entry" in vars(h)
    calls = []

    def broken(*a):  # the batched version failing at run time, as a batching rule might
        calls.append(1)
        raise IndexError("cannot batch this")
    h._entry.__globals__["version"] = broken
    h._version = lambda ranks: broken
    np.testing.assert_allclose(h(X), np.cos(X), rtol=1e-12)  # the looped form, from then on
    assert h._use_loop and "_entry" not in vars(h) and calls
    with pytest.raises(ValueError, match="reshape"):
        h(np.ones(4))  # the user's own error, as the function raises it


def test_user_errors_pass_through_the_fast_path():
    g = s2s.grad(three_only)
    g(X)
    g(X)
    with pytest.raises(ValueError, match="reshape"):
        g(np.ones(4))
    np.testing.assert_allclose(g(X), np.cos(X), rtol=1e-14)


def tuple_loss(params, x):
    w, b = params
    return np.sum((x * w + b) ** 2) * SCALE


def _tuple_grad(p, x, c):
    r = x * p[0] + p[1]
    return 2 * c * r * x, 2 * c * np.sum(r)


def test_tuple_and_list_arguments_get_a_fast_path_too():
    global SCALE
    x = np.array([1.0, 2.0])
    p = (np.array([0.5, -1.0]), 0.25)
    for f in (s2s.grad(tuple_loss), s2s.jit(s2s.grad(tuple_loss))):
        for _ in range(3):
            got = f(p, x)
            assert type(got) is tuple
            for g, w in zip(got, _tuple_grad(p, x, 2.0)):
                np.testing.assert_allclose(g, w, rtol=1e-14)
        assert "_entry" in vars(f)
        p32 = (p[0].astype(np.float32), np.float32(0.25))  # other item types: the general path
        for g, w in zip(f(p32, x), _tuple_grad(p32, x, 2.0)):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        got = f([p[0], 0.25], x)  # a list: its own structure back
        assert type(got) is list
        np.testing.assert_allclose(got[0], _tuple_grad(p, x, 2.0)[0], rtol=1e-14)
        SCALE = 3.0
        np.testing.assert_allclose(f(p, x)[1], _tuple_grad(p, x, 3.0)[1], rtol=1e-14)
        SCALE = 2.0
        with pytest.raises(ValueError, match="unpack"):
            f((p[0],), x)  # one item: the unpacking fails, as it does in the function


def test_many_objects_of_one_function_share_one_fast_path_source():
    import linecache
    for _ in range(3):  # (the first objects compile and register what every later one shares)
        s2s.hessian(scaled_square)(X)
    before = len(linecache.cache)
    for _ in range(50):  # `s2s.hessian(f)(x)` in a loop: a new object every time
        h = s2s.hessian(scaled_square)
        np.testing.assert_allclose(h(X), 4.0 * np.eye(3), rtol=1e-14)
        g = s2s.grad(scaled_square)
        g(X)
        np.testing.assert_allclose(g(X), 4.0 * X, rtol=1e-14)
        assert "_entry" in vars(h) and "_entry" in vars(g)
    assert len(linecache.cache) - before <= 2
