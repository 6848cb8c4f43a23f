"""A called function that stores items into the dict it is given (frontend/dict_updates.py; cs231n's
batchnorm storing `bn_param['running_mean']`): the caller's dict holds the new items afterwards,
as in Python, and the derivative flows through the items the caller reads back. Each program is
checked against the plain function (value, the dict's items after the call), central differences
(grad), grad·t (jvp), jit and a loop over examples (vmap, vmap of grad); the forms s2s cannot follow
soundly keep the refusal."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def norm(x, param):
    eps = param.get("eps", 1e-5)
    mode = param["mode"]
    out = x / (np.sqrt(np.mean(x ** 2)) + eps)
    param["running"] = 0.9 * param.get("running", 0.0) + 0.1 * np.sum(x)
    param["scale"] = out * 2.0 if mode == "train" else out
    return out, (x, eps)


def rescale(x, param):
    """Stores, reads back the stored items (`[...]` and `.get`), and stores one again in a loop."""
    param["acc"] = x * 1.5
    param["b"] = param["acc"] + np.sin(x)
    for _ in range(2):
        param["acc"] = param["acc"] * param.get("b", 1.0)
    return np.tanh(param["acc"])


def passes_on(x, param):
    """Hands the dict to a function that stores into it, then reads what it stored."""
    y = x.T.reshape(-1)
    out, cache = norm(y, param)
    return out * param["running"], cache


def train_param():
    return {"mode": "train"}


def with_literal(x):
    return np.sum(norm(x, {"mode": "train"})[0] ** 2)


def with_helper_dict(x):
    return np.sum(passes_on(x, train_param())[0])


def local_dict_read_back(x):
    d = {"mode": "train", "eps": 0.5}
    out, _ = norm(x, d)
    return np.sum(out * d["scale"]) + d["running"] ** 2


def local_dict_looped(x):
    d = {}
    total = 0.0
    for k in range(2):
        total = total + np.sum(rescale(x * (k + 1.0), d) * d["b"])
    return total + np.sum(d["acc"])


def store_scaled(x, param):
    param["s"] = x * param["w"]
    param["t"] = np.cos(param["s"])
    return x * param["s"]


def local_dict_indexed(x):
    d = {"w": 2.0}
    y = store_scaled(x, d)
    z = store_scaled(y, d)
    return np.sum(z * d["t"]) + np.sum(d["s"])


def param_dict(x, d):
    y = rescale(x, d)
    return np.sum(y * d["acc"])


PROGRAMS = [with_literal, with_helper_dict, local_dict_read_back, local_dict_looped, local_dict_indexed]
# `d.get(k, default)` on a dict that holds a per-example item is `k in d`, which vmap refuses
# (tests/corpus/GAPS.md): the refusal is checked here, so that the day it works the test says so.
VMAP_REFUSED = (local_dict_read_back,)


def fd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


def inputs(seed):
    rng = np.random.default_rng(seed)
    return rng.uniform(0.2, 1.0, size=(2, 3)) * rng.choice([-1.0, 1.0], size=(2, 3))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_grad_jvp_jit_vmap_agree(f, seed):
    x = inputs(seed)
    value, g = s2s.value_and_grad(f)(x)
    assert np.isclose(value, f(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(g, fd(f, x), rtol=1e-5, atol=1e-7)
    t = np.random.default_rng(seed + 10).normal(size=x.shape)
    primal, tangent = s2s.jvp(f, (x,), (t,))
    assert np.isclose(primal, f(x), rtol=1e-13, atol=0)
    assert np.isclose(tangent, np.sum(g * t), rtol=1e-9, atol=1e-12)
    assert np.isclose(s2s.jit(f)(x), f(x), rtol=1e-13, atol=0)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(x), g, rtol=1e-12, atol=1e-14)
    xs = np.stack([x, -0.5 * x[::-1]])
    if f in VMAP_REFUSED:
        with pytest.raises(S2SError, match="vmap cannot batch `in`"):
            s2s.vmap(f)(xs)
        return
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(a) for a in xs], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [s2s.grad(f)(a) for a in xs], rtol=1e-12, atol=1e-14)


def test_a_dict_parameter_of_the_transformed_function():
    x = inputs(3)
    d = {"k": 0.0}

    def fixed(v):
        return param_dict(v, dict(d))

    g = s2s.grad(param_dict)(x, dict(d))
    np.testing.assert_allclose(g, fd(fixed, x), rtol=1e-5, atol=1e-7)
    assert np.isclose(s2s.jit(param_dict)(x, dict(d)), param_dict(x, dict(d)), rtol=1e-13)


def stored_items(x):
    """The caller's dict after the call, returned as a tuple: the stored state is the plain one."""
    d = {"mode": "train"}
    out, _ = norm(x, d)
    return out, d["running"], d["scale"], d["mode"]


def test_the_callers_dict_holds_the_plain_items():
    x = inputs(4)
    want = stored_items(x)
    for got in (s2s.jit(stored_items)(x), s2s.vjp(stored_items, x)[0], s2s.jvp(stored_items, (x,), (x,))[0]):
        assert got[3] == "train"
        for a, b in zip(got[:3], want[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-13)


def test_the_plain_callee_is_left_as_python_runs_it():
    d = {"mode": "train"}
    x = inputs(5)
    s2s.grad(with_literal)(x)
    out, _ = norm(x, d)  # (the user's own call still stores into the user's dict)
    assert set(d) == {"mode", "running", "scale"}


def cond_store(x, param):
    if np.sum(x) > 0:
        param["k"] = x * 2.0
    return x * 3.0


def store_then_pass(x, param):
    param["mode"] = "test"
    return norm(x, param)[0]


def store_then_len(x, param):
    param["k"] = x
    return x * len(param)


@pytest.mark.parametrize("callee", [cond_store, store_then_pass, store_then_len], ids=lambda f: f.__name__)
def test_forms_not_followed_keep_the_refusal(callee):
    def f(x):
        d = {"mode": "train"}
        y = callee(x, d)
        return np.sum(y)

    with pytest.raises(S2SError, match="updates its parameter `param` in place"):
        s2s.grad(f)(inputs(6))


def test_a_dict_the_caller_gets_from_a_global_keeps_the_refusal():
    shared = {"mode": "train"}

    def g():
        return shared

    def f(x):
        return np.sum(norm(x, g())[0])

    with pytest.raises(S2SError, match="updates its parameter `param` in place"):
        s2s.grad(f)(inputs(7))


def eps_of(param):
    return param.get("eps", 1e-5)


def reads_then_stores(x, param):
    """Passes the dict to a function that only reads it, before storing into it."""
    eps = eps_of(param)
    param["k"] = x / (1.0 + eps)
    return x * param["k"]


def two_params(x, p, q):
    p["k"] = x * 2.0
    return x * q.get("k", 1.0)


def item_updated_in_place(x, param):
    param["k"] = x * 1.0
    param["k"][0] = 5.0
    return x * param["k"]


def test_a_read_only_callee_before_the_store():
    def f(x):
        d = {"eps": 0.25}
        y = reads_then_stores(x, d)
        return np.sum(y * d["k"])

    x = inputs(8)
    np.testing.assert_allclose(s2s.grad(f)(x), fd(f, x), rtol=1e-5, atol=1e-7)
    assert np.isclose(s2s.jit(f)(x), f(x), rtol=1e-13)


def test_the_same_dict_for_two_parameters_keeps_the_refusal():
    def f(x):
        d = {}
        return np.sum(two_params(x, d, d))   # Python: q sees p's store

    with pytest.raises(S2SError, match="updates its parameter `p` in place"):
        s2s.grad(f)(inputs(9))


def test_an_item_updated_in_place_is_not_followed():
    def f(x):
        return np.sum(item_updated_in_place(x, {}))

    with pytest.raises(S2SError, match="only into a local variable"):
        s2s.grad(f)(inputs(10))


@pytest.mark.parametrize("f", [with_literal, local_dict_indexed], ids=lambda f: f.__name__)
def test_second_derivatives(f):
    x = inputs(11)
    h = s2s.hessian(f)(x)
    g = s2s.grad(f)
    fdh = np.stack([fd(lambda v, i=i: g(v)[np.unravel_index(i, x.shape)], x) for i in range(x.size)])
    np.testing.assert_allclose(h.reshape(x.size, x.size), fdh.reshape(x.size, x.size), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(s2s.jacfwd(g)(x), h, rtol=1e-9, atol=1e-11)
