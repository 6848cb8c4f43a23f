"""A list changed in place (`append`, `pop`) through one name and read through another is refused
(issue 27): the first-order gradient of such a program was silently wrong. A copy where the second
name is bound is differentiated (checked against central differences): common subexpressions no
longer merge `a[-1]` read before and after `a.append(...)`, which made that gradient wrong too."""
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError


def appended_through_alias(x):
    a = [x]
    b = a
    b.append(np.sin(x))
    a.append(np.cos(a[-1]) * b[0])
    return np.sum(a[-1] * b[1])


def popped_through_alias(x):
    a = [x, x * 2.0]
    b = a
    v = b.pop()
    return np.sum(v * a[-1])


def appended_to_a_copy(x):
    a = [x]
    b = list(a)
    b.append(np.sin(x))
    a.append(np.cos(a[-1]) * b[0])
    return np.sum(a[-1] * b[1])


X = np.array([0.3, -0.5])


@pytest.mark.parametrize("fn, line", [(appended_through_alias, "b.append(...)"), (popped_through_alias, "b.pop()")])
def test_list_changed_through_an_alias_is_refused(fn, line):
    with pytest.raises(S2SError, match=r"changes the list that `a` also refers to") as e:
        s2s.grad(fn)(X)
    assert line in str(e.value) and "test_list_alias_refused.py" in str(e.value)


def test_a_copied_list_is_differentiated():
    g = s2s.grad(appended_to_a_copy)(X)
    eps = 1e-6
    fd = [(appended_to_a_copy(X + eps * e) - appended_to_a_copy(X - eps * e)) / (2 * eps) for e in np.eye(2)]
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def read_before_and_after_append(x):
    a = [x]
    u = a[-1] * 2.0
    a.append(np.sin(x))
    return np.sum(a[-1] * u)


def test_an_item_read_again_after_append_is_not_merged():
    g = s2s.grad(read_before_and_after_append)(X)
    np.testing.assert_allclose(g, 2.0 * (np.cos(X) * X + np.sin(X)), rtol=1e-12)  # d/dx 2 x sin x
