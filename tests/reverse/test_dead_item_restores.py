"""Items of a dict or list the backward sweep never reads are neither saved nor restored (issue 46,
section 2): the char RNN keeps its states by time step in dicts, `a[t] = ...`, and reverse mode
saved each item before its store and put it back in the backward sweep, which then copied the
dicts with its record, though nothing read them there. Checked against central differences,
with the saves gone from the generated code, and kept where another name holds the container."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s


def step(params, h_prev, x):
    """One tanh RNN step reading its weights from a dict by constant keys."""
    w, u = params["w"], params["u"]
    h = np.tanh(w @ x + u @ h_prev)
    return h, np.exp(h - np.max(h)) / np.sum(np.exp(h - np.max(h)))


def rnn(xs, h0, params):
    """States, inputs and outputs in dicts keyed by step, as the Dinosaur Island RNN keeps them."""
    x, a, y = {}, {}, {}
    a[-1] = np.copy(h0)
    loss = 0.0
    for t in range(len(xs)):
        x[t] = np.zeros((3, 1))
        if xs[t] is not None:
            x[t][xs[t]] = 1
        a[t], y[t] = step(params, a[t - 1], x[t])
        loss -= np.log(y[t][(t + 1) % 4, 0])
    cache = (y, a, x)
    return loss, cache


XS = [None, 0, 2, 1, 2]


def loss(w, u, h0):
    return rnn(XS, h0, {"w": w, "u": u})[0]


def args():
    rng = np.random.default_rng(5)
    return rng.normal(size=(4, 3)) * 0.5, rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 1))


def fd_all(f, a):
    return tuple(fd_grad(lambda v, k=k: f(*a[:k], v, *a[k + 1:]), a[k]) for k in range(len(a)))


@pytest.mark.parametrize("make", [lambda f: s2s.grad(f, argnums=(0, 1, 2)),
                                  lambda f: s2s.jit(s2s.grad(f, argnums=(0, 1, 2)))], ids=["grad", "jit_grad"])
def test_dict_states_by_step_match_central_differences(make):
    a = args()
    got = make(loss)(*a)
    for g, want in zip(got, fd_all(loss, a)):
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8)


def test_no_item_saved_or_restored():
    a = args()
    code = s2s.source(s2s.jit(s2s.grad(loss, argnums=(0, 1, 2))), *a)
    assert "rt.copy_slot" not in code
    assert "rt.private" not in code  # (nothing restored in place: the record's lists are copied alone)


def test_vjp_twice_and_the_callers_values_unchanged():
    a = args()
    out, vjp_fn = s2s.vjp(lambda w, u, h0: rnn(XS, h0, {"w": w, "u": u})[0], *a)
    first = vjp_fn(1.0)
    second = vjp_fn(1.0)
    for g, h in zip(first, second):
        np.testing.assert_array_equal(g, h)
    want = fd_all(loss, a)
    for g, w in zip(second, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-8)


def read_two(d, t):
    return d[t - 1] * d[t]


def via_callee(w):
    """`d` goes to a callee, whose record holds it: its items stay saved and restored."""
    d = {}
    d[0] = w
    s = 0.0
    for t in range(1, 4):
        d[t] = np.sin(d[t - 1]) * w
        s = s + np.sum(read_two(d, t))
    return s


def list_items(w):
    """A list display stored into by position: each item is read back before the next store."""
    xs = [0.0, 0.0, 0.0, 0.0]
    xs[0] = w
    for i in range(1, 4):
        xs[i] = np.cos(xs[i - 1]) * w[i]
    return np.sum(xs[3]) + np.sum(xs[1] * xs[2])


@pytest.mark.parametrize("f", [via_callee, list_items])
@pytest.mark.parametrize("jit", [False, True])
def test_other_containers_match_central_differences(f, jit):
    w = np.random.default_rng(7).normal(size=4)
    g = s2s.grad(f)
    got = (s2s.jit(g) if jit else g)(w)
    np.testing.assert_allclose(got, fd_grad(f, w), rtol=1e-6, atol=1e-8)


def test_a_container_passed_on_keeps_its_restores():
    w = np.random.default_rng(7).normal(size=4)
    assert "rt.copy_slot" in s2s.source(s2s.grad(via_callee), w)


def test_recorded_statements_keep_their_ids():
    """Reverse mode records its saves and restores by id: a recorded statement freed before the
    slimming let a new node take its id and be dropped in its place (`r1 = rt.reversed_range(r0)`,
    NameError). Compiled anew among fresh objects, the gradient stays right each time (3 of 60
    failed before)."""
    w = np.random.default_rng(7).normal(size=4)
    want = fd_grad(list_items, w)
    for k in range(60):
        s2s.clear_caches()
        crowd = [object() for _ in range(k * 50)]  # (allocations between compilations, as a test run has)
        np.testing.assert_allclose(s2s.grad(list_items)(w), want, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(s2s.grad(via_callee)(w), fd_grad(via_callee, w), rtol=1e-6, atol=1e-8)
        del crowd
