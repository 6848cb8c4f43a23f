"""A jit version is keyed on the arrays inside a small tuple or list argument (`w1, b1 = params`),
as on top-level arrays: a call whose tuple member has another dtype, rank or shape gets a version
of its own (or the any-shape one), never the code built for the first, and its values are the
plain function's. The fast path that runs its version's statements itself (api/merged_entry.py)
keeps every test the call made before it."""
from __future__ import annotations

import numpy as np
import pytest

import s2s


def _loss(params, x):
    w, b = params
    return np.sum(np.tanh(x @ w + b) ** 2)


def _params(dtype, n=3, m=2):
    r = np.random.default_rng(0)
    return (r.normal(size=(n, m)).astype(dtype), r.normal(size=m).astype(dtype))


def _assert_same(got, want):
    for g, w in zip(got, want):
        dtype = np.asarray(g).dtype
        assert type(g) is type(w) and dtype == np.asarray(w).dtype and np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("first,second", [(np.float64, np.float32), (np.float32, np.float64)])
def test_a_tuple_members_dtype_keys_its_own_version(first, second):
    x = np.random.default_rng(1).normal(size=(4, 3))
    j, g = s2s.jit(s2s.grad(_loss)), s2s.grad(_loss)
    for dtype in (first, first, second, second, first, second):  # (the fast path, then the other dtype)
        p = _params(dtype)
        _assert_same(j(p, x), g(p, x))
    assert len(j._versions) == 2


def test_jit_of_the_plain_function_follows_a_members_dtype():
    x = np.random.default_rng(1).normal(size=(4, 3)).astype(np.float32)
    j = s2s.jit(lambda params, x: np.tanh(x @ params[0] + params[1]))
    for dtype in (np.float32, np.float32, np.float64, np.float32, np.float64):
        p = _params(dtype)
        out, want = j(p, x), np.tanh(x @ p[0] + p[1])
        assert out.dtype == want.dtype
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("shapes", [((3, 2), (2,), (5, 2), (2,)),   # another shape
                                    ((3, 2), (2,), (3, 2), (1, 2)),  # another rank
                                    ((3, 2), (2,), (3, 2), ())])     # an array of rank 0
def test_a_tuple_members_shape_or_rank_change(shapes):
    r = np.random.default_rng(2)
    j, g = s2s.jit(s2s.grad(lambda p, x: np.sum(np.tanh(x @ p[0] + p[1]) ** 2))), \
        s2s.grad(lambda p, x: np.sum(np.tanh(x @ p[0] + p[1]) ** 2))
    calls = []
    for ws, bs in ((shapes[0], shapes[1]),) * 2 + ((shapes[2], shapes[3]),) * 2 + ((shapes[0], shapes[1]),):
        p = (r.normal(size=ws), r.normal(size=bs))
        x = r.normal(size=(4, ws[0]))
        calls.append((p, x))
    for p, x in calls:
        _assert_same(j(p, x), g(p, x))


def test_a_list_argument_and_a_number_member():
    r = np.random.default_rng(3)
    f = lambda p, x: np.sum(p[0] * x ** 2 + p[1] * x)  # noqa: E731
    j, g = s2s.jit(s2s.grad(f, argnums=1)), s2s.grad(f, argnums=1)
    for p in ([r.normal(size=3), 2.0], [r.normal(size=3), 2.0], [r.normal(size=3).astype(np.float32), 2.0],
              [r.normal(size=3), 3], [r.normal(size=3), 2.5]):
        x = r.normal(size=3)
        got, want = j(p, x), g(p, x)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12)
        np.testing.assert_allclose(got, 2 * p[0] * x + p[1], rtol=1e-6)


def test_the_fast_path_runs_the_versions_statements():
    f = lambda x, y: np.sum(np.sin(x) * y)  # noqa: E731
    j = s2s.jit(s2s.grad(f))
    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    j(x, y)
    j(x, y)
    entry = j.__dict__["_entry"]
    assert entry.__code__.co_filename.startswith("<s2s:jit_")  # (the version's own file: one frame)
    np.testing.assert_allclose(j(x, y), np.cos(x) * y, rtol=1e-12)
    np.testing.assert_allclose(j(x[:3], y[:3]), np.cos(x[:3]) * y[:3], rtol=1e-12)  # (another shape: tested)
    np.testing.assert_allclose(j(x.astype(np.float32), y), np.cos(x.astype(np.float32)) * y, rtol=1e-6)
    with pytest.raises(s2s.S2SError):
        j(x, y, x)  # (a wrong call: the general path's error)


def test_an_error_in_the_merged_fast_path_names_the_users_line():
    def f(a):
        return np.linalg.cholesky(a)[0, 0]
    j = s2s.jit(f)
    good = np.array([[2.0, 0.5], [0.5, 1.0]])
    assert j(good) == f(good)
    assert j(good) == f(good)
    with pytest.raises(np.linalg.LinAlgError) as e:
        j(np.array([[1.0, 2.0], [2.0, 1.0]]))
    assert any("np.linalg.cholesky(a)" in n for n in getattr(e.value, "__notes__", []))


def _linear(params, x, y):
    w, b = params
    return np.mean((x @ w + b - y) ** 2)


def test_float64_members_drop_the_real_checks():
    """The float64 facts of a tuple's arrays (passes/float64.tuple_items): JAX's checks that the
    loss and the gradient are real fold away, as for top-level float64 arrays."""
    r = np.random.default_rng(4)
    p, x, y = (r.normal(size=(5, 3)), r.normal(size=3)), r.normal(size=(4, 5)), r.normal(size=(4, 3))
    j, g = s2s.jit(s2s.grad(_linear)), s2s.grad(_linear)
    _assert_same(j(p, x, y), g(p, x, y))
    src = s2s.source(j, p, x, y)
    assert "rt.real_cotangent" not in src and "rt.real_result" not in src
    t = 2.0 * (x @ p[0] + p[1] - y) / y.size  # (the hand-written gradient)
    np.testing.assert_allclose(j(p, x, y)[0], x.T @ t, rtol=1e-12)
    np.testing.assert_allclose(j(p, x, y)[1], t.sum(axis=0), rtol=1e-12)


@pytest.mark.parametrize("dtypes", [(np.float64, np.float32), (np.float32, np.float64), (np.float32, np.float32)])
def test_a_narrow_member_keeps_its_cast(dtypes):
    r = np.random.default_rng(5)
    p = (r.normal(size=(5, 3)).astype(dtypes[0]), r.normal(size=3).astype(dtypes[1]))
    x, y = r.normal(size=(4, 5)), r.normal(size=(4, 3))
    j, g = s2s.jit(s2s.grad(_linear)), s2s.grad(_linear)
    for _ in range(3):
        _assert_same(j(p, x, y), g(p, x, y))


def _dict_loss(params, x):
    return np.sum(np.tanh(x @ params["w"] + params["b"]) ** 2)


def test_a_dict_argument_keys_its_values_and_takes_the_fast_path():
    r = np.random.default_rng(6)
    x = r.normal(size=(4, 3))
    j, g = s2s.jit(s2s.grad(_dict_loss)), s2s.grad(_dict_loss)
    p64 = {"w": r.normal(size=(3, 2)), "b": r.normal(size=2)}
    for p in (p64, p64, {"b": p64["b"], "w": p64["w"]}):  # (another key order: the same version)
        got, want = j(p, x), g(p, x)
        assert set(got) == {"w", "b"}
        for k in want:
            _assert_same([got[k]], [want[k]])
    assert len(j._versions) == 1 and "_entry" in j.__dict__
    for p in ({"w": p64["w"].astype(np.float32), "b": p64["b"]},  # (a value's dtype, rank, a key)
              {"w": p64["w"], "b": p64["b"][None]},
              {"w": p64["w"], "b": p64["b"], "c": 1.0}):
        got = j(p, x)
        want = g(p, x)
        for k in want:
            _assert_same([got[k]], [want[k]])
    assert len(j._versions) == 4


def test_the_fast_path_keeps_no_argument_alive():
    import gc
    import weakref

    j = s2s.jit(s2s.grad(_linear))
    r = np.random.default_rng(7)
    p, x, y = (r.normal(size=(5, 3)), r.normal(size=3)), r.normal(size=(4, 5)), r.normal(size=(4, 3))
    j(p, x, y)
    j(p, x, y)
    assert "_entry" in j.__dict__
    refs = [weakref.ref(a) for a in (*p, x, y)]
    del p, x, y
    gc.collect()
    assert all(ref() is None for ref in refs)


def test_the_merged_fast_path_is_made_once_per_version_and_guard(monkeypatch):
    """A dispatcher may install its fast path again at each call its guard refuses; making the
    merged function parses the version's source, so it is made once per version and guard (the
    Elman RNN's gradient, a 450-line version, ran at 2.5x the author's loops while it was not)."""
    from s2s.api import dispatch, merged_entry

    f = lambda x, y: np.sum(np.tanh(x) * y)  # noqa: E731
    j = s2s.jit(s2s.grad(f))
    x, y = np.linspace(0.0, 1.0, 5), np.linspace(1.0, 2.0, 5)
    j(x, y)
    j(x, y)
    version = next(iter(j._versions.values()))
    made = []
    real = merged_entry._make
    monkeypatch.setattr(merged_entry, "_make", lambda *a: made.append(1) or real(*a))
    merged_entry._MADE.pop(version, None)
    env = {"general": lambda args, kw: "general", "given": dispatch.given, "hide_internal": lambda e: None,
           "MISSING": dispatch.MISSING}
    fns = [merged_entry.merged("not more and not kw", env, version, 2) for _ in range(3)]
    assert made == [1] and all(fn is not None for fn in fns)
    for fn in fns:
        np.testing.assert_allclose(fn(x, y), (1.0 - np.tanh(x) ** 2) * y, rtol=1e-12)
        assert fn(x, y, x) == "general"  # (the guard refuses: the general path)
