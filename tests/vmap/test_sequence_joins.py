"""`+` of a list or tuple that holds no batch and one that does, under vmap (issue 44: vmap against
a loop over the examples). In the loop each example joins the two sequences; batched, the items of
the joined sequence must all hold the batch. s2s joined the unbatched items as they were, so a later
sum or product read an unbatched item as a batched one: a number of the wrong shape with no error
(and right by accident only where the shapes differed). The unbatched operand of such a `+` is now
made batched item by item (`rt.sequence_batch`), for a list display, a tuple, and a list passed
with in_axes None. Checked against the loop, and the derivatives against central differences."""
import numpy as np
import pytest
from helpers_compare import fd_grad

import s2s

X = np.array([0.31, -0.55, 0.72, 1.15, 0.43, -0.27])
XS = np.stack([X, -0.6 * X + 0.1, X ** 2])
L = [np.ones(2), np.array([2.0, -3.0])]


def display_plus_comprehension(x, lst):
    joined = [np.ones(2)] + [v * 2.0 for v in x[:3]]
    return sum(joined)


def display_plus_list_of_rows(x, lst):
    joined = [np.ones(2)] + list(x[:2])
    return joined[0] * joined[2]


def tuple_plus_tuple(x, lst):
    t = (np.ones(2),) + tuple(x[:2])
    return t[0] * t[2] + t[1]


def argument_plus_display(x, lst):
    return sum(lst + [x[0] * 2.0, np.sin(x[1])])


def display_plus_argument(x, lst):
    joined = [x[0] * 2.0] + lst
    return joined[1] * joined[0] + joined[2]


def sum_with_an_unbatched_start(x, lst):
    return sum([v * 2.0 for v in x[:3]], np.ones(2))


PROGRAMS = [display_plus_comprehension, display_plus_list_of_rows, tuple_plus_tuple, argument_plus_display,
            display_plus_argument, sum_with_an_unbatched_start]


@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_vmap_is_the_loop_over_examples(f):
    want = np.array([f(x, L) for x in XS])
    got = s2s.vmap(f, in_axes=(0, None))(XS, L)
    assert np.shape(got) == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(f, in_axes=(0, None)))(XS, L), want, rtol=1e-14)


@pytest.mark.parametrize("f", PROGRAMS, ids=[f.__name__ for f in PROGRAMS])
def test_derivatives_through_the_join(f):
    def loss(x):
        return np.sum(f(x, L) ** 2)

    def batched(xs):
        return np.sum(s2s.vmap(f, in_axes=(0, None))(xs, L) ** 2)

    np.testing.assert_allclose(s2s.grad(batched)(XS), fd_grad(lambda xs: sum(loss(x) for x in xs), XS),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(loss))(XS), [fd_grad(loss, x) for x in XS], rtol=1e-6, atol=1e-8)
