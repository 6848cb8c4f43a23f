"""A view made by a NumPy function, method or attribute (`a.reshape(...)`, `np.asarray(a)`, `a.T`,
`np.ravel(a)`, `np.diagonal(m)`, `np.squeeze(a)`) shares its array's memory: an update in place
through the view, or through the array while the view is read later, is refused as for `b = a`
and `b = a[i]` (issue 27: each of VIEWS gave a silently wrong gradient). A callee that updates
its parameter through such a view, or an element of a list it was passed, is refused at the call.
Copies (`a.copy()`, `np.array(a)`, `a.astype(t)`, `np.sin(a)`) stay free to update."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def reshaped(x):
    a = x * 1.0
    b = a.reshape(2, 1)
    b[0, 0] = 5.0 * x[1]
    return np.sum(a * x)


def asarray(x):
    a = x * 1.0
    b = np.asarray(a)
    b[0] = 5.0 * x[1]
    return np.sum(a * x)


def transposed(x):
    a = x * 1.0
    b = a.T
    b[0] = 5.0 * x[1]
    return np.sum(a * x)


def raveled(x):
    a = x * 1.0
    b = np.ravel(a)
    b[0] = 5.0 * x[1]
    return np.sum(a * x)


def diagonal_read_after_the_matrix_changes(x):
    m = np.outer(x, x)
    d = np.diagonal(m)
    m[0, 0] = 7.0 * x[1]
    return np.sum(d * x)


def squeezed(x):
    a = x * 1.0
    b = np.squeeze(a)
    b += 1.0
    return np.sum(a * x)


def _through_a_view(p, v):
    b = p.T
    b[0] = v
    return 0.0


def _through_an_element(lst, v):
    e = lst[0]
    e += v
    return 0.0


def callee_updates_through_a_view(x):
    a = x * 1.0
    _through_a_view(a, x[1] * 5.0)
    return np.sum(a * x)


def callee_updates_an_element(x):
    a = [x * 1.0]
    _through_an_element(a, x ** 2)
    return np.sum(a[0] * x)


VIEWS = [reshaped, asarray, transposed, raveled, diagonal_read_after_the_matrix_changes, squeezed]
CALLEES = [callee_updates_through_a_view, callee_updates_an_element]
X = np.array([0.3, 0.7])


@pytest.mark.parametrize("fn", VIEWS, ids=lambda f: f.__name__)
def test_update_through_a_view_is_refused(fn):
    with pytest.raises(S2SError, match=r"also refers to") as e:
        s2s.grad(fn)(X)
    assert "test_view_aliasing.py" in str(e.value)


@pytest.mark.parametrize("fn", CALLEES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_callee_updating_its_parameter_through_a_view_or_element_is_refused(fn, transform):
    with pytest.raises(S2SError, match=r"updates its parameter `(p|lst)` in place"):
        s2s.grad(fn)(X) if transform == "grad" else s2s.jvp(fn, (X,), (np.ones(2),))


def copies(x):
    a = x * 1.0
    b = a.copy()
    b[0] = 5.0 * x[1]
    c = np.array(a)
    c *= 2.0
    d = a.astype(np.float64)
    d += 1.0
    e = np.sin(a)
    e += 1.0
    return np.sum(a * x) + np.sum(b * c * d * e)


def test_copies_are_updated_freely():
    eps = 1e-6
    fd = [(copies(X + eps * u) - copies(X - eps * u)) / (2 * eps) for u in np.eye(2)]
    np.testing.assert_allclose(s2s.grad(copies)(X), fd, rtol=1e-6)
