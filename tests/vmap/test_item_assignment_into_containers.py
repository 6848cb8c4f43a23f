"""vmap of `a[i] = v` and `d[k] = v` into a list or dict the function built (issue 28: it keyed
the list with the batch axis, a TypeError): each item holds the whole batch, so the item is
replaced (an unbatched value replicated, the old item kept on examples a branch leaves out).
Checked against a loop over examples, for values and for gradients."""
import numpy as np
import pytest

import s2s


def in_a_branch(x):
    a = [x, x * 2.0]
    if np.sum(x) > 0.5:
        a[0] = x ** 2
    return np.sum(a[0] * a[1])


def dict_items(x):
    d = {"a": x, "b": 1.0}
    d["b"] = 3.0
    d["a"] = d["a"] * d["b"]
    return np.sum(d["a"])


def in_a_loop(x):
    a = [x, x]
    for i in range(2):
        a[i] = np.sin(a[i]) * (i + 1.0)
    return np.sum(a[0] * a[1])


XS = np.array([[0.3, 0.7], [0.1, -0.2], [1.0, 2.0]])


@pytest.mark.parametrize("fn", [in_a_branch, dict_items, in_a_loop], ids=lambda f: f.__name__)
@pytest.mark.parametrize("jit", [False, True])
def test_vmap_matches_a_loop(fn, jit):
    v = s2s.vmap(fn)
    np.testing.assert_allclose((s2s.jit(v) if jit else v)(XS), [fn(x) for x in XS], rtol=1e-12)


@pytest.mark.parametrize("fn", [in_a_branch, dict_items, in_a_loop], ids=lambda f: f.__name__)
def test_gradients_match_a_loop_and_differences(fn):
    want = np.array([s2s.grad(fn)(x) for x in XS])
    eps = 1e-6
    fd = np.array([[(fn(x + eps * e) - fn(x - eps * e)) / (2 * eps) for e in np.eye(2)] for x in XS])
    np.testing.assert_allclose(want, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(fn))(XS), want, rtol=1e-10)
    np.testing.assert_allclose(s2s.grad(lambda xs: np.sum(s2s.vmap(fn)(xs)))(XS), want, rtol=1e-10)


def _put(lst, v):
    lst[0] = v
    return lst[0] * 2.0


def _set_key(d, v):
    d["a"] = v
    return 0.0


def _push(lst, v):
    lst.append(v)
    return 0.0


def puts_into_a_list(x):
    lst = [x, x]
    return _put(lst, x * 3.0) + lst[1]


def sets_a_key(x):
    d = {"a": x}
    _set_key(d, x * 2.0)
    return d["a"]


def pushes(x):
    lst = [x]
    _push(lst, x * 3.0)
    return lst[0] + lst[1]


def test_a_key_stored_by_a_callee_into_a_built_dict_runs():
    """The callee's store into the dict it is given is followed (frontend/dict_updates.py): the
    caller reads the stored item, in vmap as in a loop, and its derivative (2.0) flows through it."""
    xs = np.arange(3.0)
    np.testing.assert_array_equal(s2s.vmap(sets_a_key)(xs), [sets_a_key(x) for x in xs])
    np.testing.assert_array_equal(s2s.vmap(s2s.grad(sets_a_key))(xs), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("fn, callee", [(puts_into_a_list, "_put")])
def test_an_item_stored_by_a_callee_into_a_built_container_is_refused(fn, callee):
    """The callee's batched version indexes its parameter as a batched array (a raw TypeError
    before): refused at the call, naming the callee and its line."""
    with pytest.raises(s2s.S2SError, match=f"`{callee}` stores an item into its parameter") as err:
        s2s.vmap(fn)(np.arange(3.0))
    assert "test_item_assignment_into_containers.py" in str(err.value)


def test_an_append_by_a_callee_still_runs():
    xs = np.arange(3.0)
    np.testing.assert_array_equal(s2s.vmap(pushes)(xs), [pushes(x) for x in xs])
