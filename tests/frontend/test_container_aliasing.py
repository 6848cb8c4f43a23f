"""An array or list held by a container (a list, tuple or dict display, an `append`, `lst[k] = v`, a
shallow copy `list(a)`, a loop over containers, an element taken out with `c = b[0]` or unpacked, a
nested function's default), or named by another name on one path (`b = a if c else ...`) or in an
earlier iteration of a loop, and changed in place through one name is seen through every other name
that holds it. s2s rebinds where NumPy updates in place, so it refuses such an update when another
holder is read afterwards (issue 27: each program of REFUSED gave a silently wrong gradient before).
Programs whose holders are never read after the update are differentiated, checked against central
differences."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def held_array_updated(x):
    y = x * 1.0
    b = [y]
    y += 1.0
    return np.sum(b[0] * x)


def tuple_element_set(x):
    y = x * 1.0
    b = (y, y)
    y[0] = 5.0 * x[1]
    return np.sum(b[0] * x)


def appended_then_updated(x):
    y = x * 1.0
    lst = []
    lst.append(y)
    y += 1.0
    return np.sum(lst[0] * x)


def stored_then_updated(x):
    y = x * 1.0
    lst = [None]
    lst[0] = y
    y *= 3.0
    return np.sum(lst[0] * x)


def element_of_a_shallow_copy(x):
    a = [x * 1.0]
    b = list(a)
    b[0] *= 2.0
    return np.sum(a[0] * x)


def list_taken_out_and_appended(x):
    a = [x]
    b = [a]
    c = b[0]
    c.append(x * 3.0)
    return np.sum(a[-1])


def loop_over_lists(x):
    a, c = [x], [x * 2.0]
    for lst in (a, c):
        lst.append(lst[0] * 3.0)
    return np.sum(a[-1] + c[-1])


def list_in_a_dict_extended(x):
    a = [x]
    b = {"l": a}
    b["l"] += [x ** 2]
    return np.sum(a[-1])


def default_of_a_nested_function(x):
    y = x * 1.0

    def g(v=y):
        return np.sum(v * v)
    y += 1.0
    return g() * x[0]


def unpacked_item_updated(x):
    y = x * 1.0
    a, _ = (y, 2)
    a += 1.0
    return np.sum(y * x)


def enumerate_item_updated(x):
    ys = [x * 1.0, x * 2.0]
    for i, y in enumerate(ys):
        y += i
    return np.sum(ys[1] * x)


def zip_item_updated(x):
    ys = [x * 1.0, x * 2.0]
    for y, _ in zip(ys, ys):
        y *= 3.0
    return np.sum(ys[0] * x)


def dict_value_updated(x):
    d = {"a": x * 1.0}
    for _, v in d.items():
        v *= 3.0
    return np.sum(d["a"] * x)


def conditional_expression(x):
    a = x * 1.0
    b = a if x[0] > 0 else x * 2.0
    b *= 3.0
    return np.sum(a * x)


def one_branch_aliases(x):
    a = x * 1.0
    b = x * 2.0
    if x[0] > 0:
        b = a
    b *= 3.0
    return np.sum(a * x)


REFUSED = [default_of_a_nested_function, unpacked_item_updated, enumerate_item_updated, zip_item_updated,
           dict_value_updated, conditional_expression, one_branch_aliases, held_array_updated, tuple_element_set,
           appended_then_updated, stored_then_updated, element_of_a_shallow_copy, list_taken_out_and_appended,
           loop_over_lists, list_in_a_dict_extended]


def history(x):
    hist = [x]
    for _ in range(3):
        hist.append(np.sin(hist[-1]) + x)
    return np.sum(hist[-1] * hist[1])


def appended_then_rebound(x):
    y = x * 1.0
    lst = []
    lst.append(y)
    y = y + 1.0
    return np.sum(lst[0] * y)


def element_rebound(x):
    b = [x * 1.0]
    y = b[0]
    y = y + 1
    return np.sum(y * b[0])


def container_read_before_update(x):
    y = x * 2.0
    b = [y]
    s = np.sum(b[0] * x)
    y = y * 3.0
    return s + np.sum(y)


def appended_to_a_shallow_copy(x):
    a = [x]
    b = list(a)
    b.append(x * 3.0)
    return np.sum(b[-1] * a[-1])


def same_list_twice(x):
    a = [x * 1.0]
    b = [a, a]
    return np.sum(b[0][0] * b[1][0])


DIFFERENTIATED = [history, appended_then_rebound, element_rebound, container_read_before_update,
                  appended_to_a_shallow_copy, same_list_twice]
X = np.array([0.3, -0.7])


def _fd(f, x, eps=1e-6):
    return np.array([(f(x + eps * e) - f(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


@pytest.mark.parametrize("fn", REFUSED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", ["grad", "jit", "vmap"])
def test_update_seen_through_another_holder_is_refused(fn, transform):
    t = {"grad": s2s.grad, "jit": s2s.jit, "vmap": s2s.vmap}[transform](fn)
    with pytest.raises(S2SError, match=r"refers to|statement of its own") as e:
        t(np.stack([X, X]) if transform == "vmap" else X)
    assert "test_container_aliasing.py" in str(e.value)


def test_refused_programs_do_depend_on_the_update():
    """Each refused program's NumPy value differs from the same program with the update written as
    a rebinding (what s2s would compute): the refusal guards a real difference."""
    def rebound(x):
        y = x * 1.0
        b = [y]
        y = y + 1.0
        return np.sum(b[0] * x)
    assert not np.isclose(held_array_updated(X), rebound(X))


@pytest.mark.parametrize("fn", DIFFERENTIATED, ids=lambda f: f.__name__)
def test_holders_not_read_after_an_update_are_differentiated(fn):
    np.testing.assert_allclose(s2s.grad(fn)(X), _fd(fn, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.jit(fn)(X), fn(X), rtol=1e-12)


def aliased_in_the_previous_iteration(x):
    a = x * 1.0
    b = x * 2.0
    for _ in range(2):
        b += 1.0  # the second time, b is a
        b = a
    return np.sum(a * x)


def held_since_the_previous_iteration(x):
    a = x * 1.0
    lst = []
    for i in range(2):
        if i == 1:
            a *= 2.0  # lst[0] is a
        lst.append(a)
    return np.sum(lst[0] * x)


@pytest.mark.parametrize("fn", [aliased_in_the_previous_iteration, held_since_the_previous_iteration],
                         ids=lambda f: f.__name__)
def test_alias_made_in_an_earlier_iteration(fn):
    with pytest.raises(S2SError, match=r"refers to"):
        s2s.grad(fn)(X)
