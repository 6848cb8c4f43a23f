"""A called function (a module-level helper or a closure) that updates a list, dict or array it
was passed, or that it captured, changes the caller's value. Every derivative transform refuses
such a call, with the callee's name and line (issue 27: before, `append` inside a callee was not
seen as an update, forward mode checked nothing, jit inlined the callee into a copy, and vmap
appended to a batched copy: silently wrong gradients and tangents, or an IndexError). Plain
calls, jit and vmap where the updated argument is itself batched keep working, checked against
NumPy and a loop over examples."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def push(lst, v):
    lst.append(v)


def set_first(lst, v):
    lst[0] = v


def closure_appends(x):
    acc = []

    def add(v):
        acc.append(v)
    add(x * 2.0)
    add(x * 3.0)
    return np.sum(acc[0] * acc[1])


def helper_appends(x):
    acc = [x]
    push(acc, np.sin(x))
    return np.sum(acc[-1] * acc[0])


def helper_sets_an_item(x):
    acc = [x, x]
    set_first(acc, x ** 2)
    return np.sum(acc[0])


def closure_sets_a_dict_item(x):
    d = {"a": x}

    def upd():
        d["a"] = d["a"] * 3.0
    upd()
    return np.sum(d["a"])


def closure_sets_an_array_item(x):
    y = x * 1.0

    def bump():
        y[0] = 7.0 * x[1]
    bump()
    return np.sum(y * x)


PROGRAMS = [closure_appends, helper_appends, helper_sets_an_item, closure_sets_a_dict_item,
            closure_sets_an_array_item]
X = np.array([0.3, 0.7])
T = np.array([1.0, -0.5])
TRANSFORMS = {
    "grad": lambda f: s2s.grad(f)(X),
    "jvp": lambda f: s2s.jvp(f, (X,), (T,)),
    "jacfwd": lambda f: s2s.jacfwd(f)(X),
    "jacrev": lambda f: s2s.jacrev(f)(X),
    "vmap(grad)": lambda f: s2s.vmap(s2s.grad(f))(np.stack([X, X])),
    "grad(jit)": lambda f: s2s.grad(s2s.jit(f))(X),
    "hessian": lambda f: s2s.hessian(f)(X),
}


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_derivative_through_a_callee_that_updates_its_argument_is_refused(fn, transform):
    # (vmap may refuse the call first: an item stored into a list or dict the caller built)
    with pytest.raises(S2SError, match=r"`\w+` (updates its parameter `\w+` in place|stores an item into its param)") as e:
        TRANSFORMS[transform](fn)
    if transform != "vmap(grad)":  # (there the call is found in vmap's generated code, at the user's line)
        assert "test_callee_updates_arguments.py" in str(e.value)


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_jit_runs_the_update(fn):
    np.testing.assert_allclose(s2s.jit(fn)(X), fn(X), rtol=1e-12)


@pytest.mark.parametrize("fn", [helper_appends, closure_sets_an_array_item], ids=lambda f: f.__name__)
def test_vmap_of_an_update_of_a_batched_argument(fn):
    xs = np.array([[0.3, 0.7], [0.1, -0.2], [1.5, 0.4]])
    np.testing.assert_allclose(s2s.vmap(fn)(xs), [fn(x) for x in xs], rtol=1e-12)


def test_vmap_refuses_per_example_values_stored_into_an_unbatched_argument():
    with pytest.raises(S2SError, match=r"`closure_appends_add` updates its parameter `acc` in place .* vmap"):
        s2s.vmap(closure_appends)(np.stack([X, X]))
