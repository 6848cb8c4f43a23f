"""Names bound to tuples, lists and dicts of different structure, and unpacking targets that bind in
Python's order (issue 45, the hipsternet `bn_forward` crash).

`out, _, _ = f(x)` binds `_` twice; the core form's unpack bound every name at once, so reverse
mode gave the first `_`'s zero the shape of the last one's value (a float where `bn_forward`
returns a tuple: a crash in the backward sweep) and gave a name bound twice its adjoint at both
places (a silently wrong gradient). `y[i], i = ...` stored with the new `i`. Each program here is
checked against central differences and the plain function, in grad, vjp, jvp, jit(grad) and
vmap(grad); names rebound to a container of another length under an `if`, in a loop or before an
early return are checked the same way.
"""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.3, -0.2, 0.7])


# ---- unpacking targets that bind a name twice, or rebind a name an earlier part reads ----

def bn_like(X, cache, train=True):
    """hipsternet's bn_forward, reduced: a tuple parameter unpacked, then rebound to a longer tuple."""
    running_mean, running_var = cache
    if train:
        mu = np.mean(X, axis=0)
        cache = (X, mu)
    return X * 2.0 + running_mean, cache, 1.0


def discard_twice(x):
    out, _, _ = bn_like(x, (np.zeros(3), np.ones(3)))
    return np.sum(np.sin(out))


def discard_thrice_after_train(x):
    out, cache, _ = bn_like(x, (np.zeros(3), np.ones(3)))
    _, _, _ = cache[0], cache[1], 2.0
    return np.sum(out * cache[1])


def bound_twice(x):
    a, a = x * 2.0, np.sin(x)
    return np.sum(a * x)


def bound_twice_nested(x):
    (a, b), a = (x * 2.0, x * 3.0), x * 5.0
    return np.sum(a * b)


def list_target_twice(x):
    [a, b, a] = [x * 2.0, x, np.cos(x)]
    return np.sum(a * b)


def used_discard(x):
    t = (np.sin(x), np.cos(x), x ** 2)
    a, _, _ = t
    s = np.sum(a)
    for _k in range(2):
        _, a, _ = t
        s = s + np.sum(a * _)
    return s


def loop_target_twice(x):
    s = 0.0
    for a, a in zip(x, x ** 2):
        s = s + np.sin(a)
    return s


def comprehension_target_twice(x):
    return sum([a * np.sin(a) for a, a in zip(x, np.cos(x))])


def store_then_index_rebound(x):
    y = np.zeros(3)
    i = 0
    y[i], i = x[0] * 2.0, 1
    y[i] = x[2]
    return np.sum(y * np.arange(1.0, 4.0))


def nested_store_then_rebound(x):
    y = np.zeros(3)
    i = 2
    (y[i], z), i = (x[1] ** 2, x[0]), 0
    return np.sum(y) + z * i + y[i] + z


def swap(x):
    a, b = x * 2.0, np.sin(x)
    a, b = b, a
    return np.sum(a * b ** 2)


# ---- a name bound to containers of different structure on different paths ----

def rebound_longer(x, cache, train):
    a, b = cache
    if train:
        cache = (x, np.sin(x), a)
    return x * 2.0, cache


def rebound_in_if(x):
    out, c = rebound_longer(x, (x * 3.0, np.ones(3)), True)
    return np.sum(out) + np.sum(c[1] * c[2])


def not_rebound(x):
    out, c = rebound_longer(x, (x * 3.0, np.ones(3)), False)
    return np.sum(out) + np.sum(c[0] * c[1])


def rebound_if_else(x):
    c = (x, x * 2.0)
    if np.sum(x) > 0:
        c = [x * 3.0, np.cos(x), x]
    else:
        c = (np.sin(x),)
    return np.sum(c[0] * c[-1])


def grows_in_loop(x):
    c = (x,)
    for _i in range(3):
        c = c + (np.sin(c[-1]),)
    return np.sum(c[-1] * c[0]) + len(c)


def list_grows_in_loop(x):
    c = [x]
    for _i in range(3):
        c = c + [c[-1] * 2.0, np.sin(c[0])]
    return np.sum(c[-1] * c[-2])


def early_return_helper(x, c):
    a, b = c
    if np.sum(x) > 0:
        return (a * x, b, x)
    c = (x, b)
    return c


def early_return(x):
    r = early_return_helper(x, (x * 2.0, np.ones(3)))
    return np.sum(r[0]) + np.sum(r[-1] ** 2)


def dict_gains_key(x):
    d = {"a": x}
    a = d["a"]
    if np.sum(x) > 0:
        d = {"a": x * 2.0, "b": np.sin(x)}
    return np.sum(d["a"] * a) + np.sum(d["b"])


PROGRAMS = [discard_twice, discard_thrice_after_train, bound_twice, bound_twice_nested, list_target_twice,
            used_discard, loop_target_twice, comprehension_target_twice, store_then_index_rebound,
            nested_store_then_rebound, swap, rebound_in_if, not_rebound, rebound_if_else, grows_in_loop,
            list_grows_in_loop, early_return, dict_gains_key]
# a batched `if` whose paths give a container different structure: vmap refuses (see below)
PER_EXAMPLE_STRUCTURE = {rebound_if_else, dict_gains_key, early_return}


def _ids(fs):
    return [f.__name__ for f in fs]


@pytest.mark.parametrize("f", PROGRAMS, ids=_ids(PROGRAMS))
def test_grad_and_value(f):
    value, g = s2s.value_and_grad(f)(X)
    np.testing.assert_allclose(value, f(X), rtol=1e-12)
    np.testing.assert_allclose(g, fd_grad(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=_ids(PROGRAMS))
def test_vjp(f):
    out, pullback = s2s.vjp(f, X)
    np.testing.assert_allclose(out, f(X), rtol=1e-12)
    np.testing.assert_allclose(pullback(2.0)[0], 2.0 * fd_grad(f, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=_ids(PROGRAMS))
def test_jvp(f):
    want = fd_grad(f, X)
    for k in range(3):
        e = np.eye(3)[k]
        out, tangent = s2s.jvp(f, (X,), (e,))
        np.testing.assert_allclose(out, f(X), rtol=1e-12)
        np.testing.assert_allclose(tangent, want[k], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", PROGRAMS, ids=_ids(PROGRAMS))
def test_jit(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.grad(f))(X), fd_grad(f, X), rtol=1e-6, atol=1e-8)


BATCHED = [f for f in PROGRAMS if f not in PER_EXAMPLE_STRUCTURE]


@pytest.mark.parametrize("f", BATCHED, ids=_ids(BATCHED))
def test_vmap_against_a_loop(f):
    xs = np.stack([X, -1.5 * X[::-1]])
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [fd_grad(f, x) for x in xs], rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", sorted(PER_EXAMPLE_STRUCTURE, key=lambda f: f.__name__),
                         ids=_ids(sorted(PER_EXAMPLE_STRUCTURE, key=lambda f: f.__name__)))
def test_vmap_refuses_structure_per_example(f):
    """A container whose length or keys an `if` on a batched value decides cannot be one batched
    value: an S2SError (the dict's used to be a KeyError inside the runtime)."""
    with pytest.raises(s2s.S2SError, match="different (length|keys) per example"):
        s2s.vmap(f)(np.stack([X, -1.5 * X[::-1]]))  # (sums of both signs: each path taken)


def test_bn_like_returns_the_rebound_cache():
    """The tuple a parameter was unpacked from, rebound and returned: its parts' cotangents reach x."""
    def loss(x):
        _, cache, _ = bn_like(x, (np.zeros(3), np.ones(3)))
        return np.sum(cache[0] ** 2) + np.sum(np.sin(cache[1]))

    x = np.arange(6.0).reshape(2, 3) / 5.0
    np.testing.assert_allclose(s2s.grad(loss)(x), fd_grad(loss, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(s2s.grad(loss))(x), fd_grad(loss, x), rtol=1e-6, atol=1e-8)
