"""vmap of code under a per-example condition (a masked region): values made there that no other
example reads are not merged with their old values, so a list made in the region takes appends
and a variable may change shape there; what another example does read keeps its merge. Each
batched result is compared with a Python loop over the examples (found by tools/fuzz.py)."""
import numpy as np
import pytest

import s2s
from s2s import runtime as rt
from s2s.errors import S2SError

# examples on both sides of every condition below
XS = np.array([[0.9, 0.8, 0.7], [-0.6, -0.9, -0.3], [0.1, -0.2, 0.05]])


def _check(f, *args):
    got = s2s.vmap(f)(*args)
    want = np.stack([np.asarray(f(*a)) for a in zip(*args)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def list_after_early_return(x):
    acc = x * 1.0
    if np.sum(acc) > 0.5:
        acc = acc * 2.0 + x
        return np.sum(acc * acc)
    lst = []
    for i in range(2):
        lst.append(np.tanh(x) * (i + 1.0))
    acc = acc + 0.3 * np.sum(np.stack(lst), axis=0) + 0.1 * lst[-1]
    return np.sum(acc * acc)


def two_lists_around_an_early_return(x):
    lst = []
    for i in range(2):
        lst.append(x * (i + 1.0))
    acc = np.sum(np.stack(lst), axis=0)
    if np.sum(acc) > 1.0:
        return np.sum(acc)
    lst = []
    for i in range(3):
        lst.append(np.sin(x) * i)
    return np.sum(np.stack(lst)) + lst[0][1]


def list_in_both_branches(x):
    if np.sum(x) > 0.0:
        parts = []
        for i in range(2):
            parts.append(x * i)
        r = np.sum(np.stack(parts))
    else:
        parts = [x]
        parts.append(np.cos(x))
        r = np.sum(parts[1] * parts[0])
    return r


def list_in_a_batched_while(x):
    k = 0
    acc = x * 1.0
    while np.sum(acc * acc) < 4.0 and k < 5:
        tmp = []
        tmp.append(acc * 0.5)
        tmp.append(np.tanh(acc) + 0.3)
        acc = acc + tmp[0] * 0.1 + tmp[1]
        k = k + 1
    return acc


def shape_change_after_early_return(x):
    acc = x * 1.0
    if np.sum(acc) > -1.0:
        acc = acc * 2.0 + x
        return np.sum(acc * acc)
    t = x
    acc = acc + 0.5 * np.tanh(t)
    t = 1.5
    acc = acc + 0.5 * np.tanh(t)
    return np.sum(acc * acc)


def other_branch_reads_the_old_value(x):
    t = x * 1.0
    if np.sum(x) > 0.0:
        t = x * 3.0
        r = np.sum(t)
    else:
        r = np.sum(t * t)
    return r


def outer_else_reads_the_old_value(x):
    t = x * 1.0
    if np.sum(x) > -0.5:
        if x[0] > 0.5:
            t = np.sin(x)
            r = np.sum(t)
        else:
            r = np.sum(x)
    else:
        r = np.sum(t * 2.0)
    return r


@pytest.mark.parametrize("f", [list_after_early_return, two_lists_around_an_early_return, list_in_both_branches,
                               list_in_a_batched_while, shape_change_after_early_return,
                               other_branch_reads_the_old_value, outer_else_reads_the_old_value])
def test_masked_region_matches_loop(f):
    _check(f, XS)


def test_vmap_grad_of_list_after_early_return_matches_loop():
    got = s2s.vmap(s2s.grad(list_after_early_return))(XS)
    want = np.stack([s2s.grad(list_after_early_return)(x) for x in XS])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def append_to_outer_list(x):
    lst = [x]
    if np.sum(x) > 0.0:
        lst.append(x * 2.0)
    return np.sum(np.stack(lst))


def remade_list_read_after_the_branch(x):
    lst = [x]
    if np.sum(x) > 0.0:
        lst = [x * 2.0]
        lst.append(x)
    return np.sum(np.stack(lst))


@pytest.mark.parametrize("f", [append_to_outer_list, remade_list_read_after_the_branch])
def test_lists_of_per_example_length_are_refused(f):
    """A list whose length would differ per example is an S2SError at the append, never a wrong number."""
    with pytest.raises(S2SError, match="append"):
        s2s.vmap(f)(XS)


def untaken_branch_fails_on_these_values(x):
    if np.sum(x) > 100.0:
        return np.sum(np.linalg.inv(np.reshape(x, (1, 3))))  # not square: raises if it runs at all
    return np.sum(x * x)


def norm_of_first(x):
    return np.linalg.norm(x[0]) * x[1]


def test_a_branch_no_example_takes_is_skipped():
    _check(untaken_branch_fails_on_these_values, XS)


def test_vmap_grad_through_a_rule_branching_on_rank():
    """norm's derivative helper branches on matrix vs vector; the matrix branch used to run (masked)
    on per-example scalars and raise an AxisError."""
    got = s2s.vmap(s2s.grad(norm_of_first))(XS)
    want = np.stack([s2s.grad(norm_of_first)(x) for x in XS])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# Folded from test_vmap_fallback.py:
# vmap's per-example fallback (rt.map_examples) gives every example its own copy of the unbatched
# arguments, so a helper that updates one in place (rt.add_at) cannot leak into the next example.


def test_unbatched_argument_updated_in_place_is_private_per_example():
    acc = np.zeros(3)
    v = np.array([1.0, 2.0, 3.0])
    out = rt.map_examples("rt.add_at", (False, False, True), 3, acc, 1, v)
    np.testing.assert_array_equal(out, [[0.0, 1.0, 0.0], [0.0, 2.0, 0.0], [0.0, 3.0, 0.0]])
    np.testing.assert_array_equal(acc, np.zeros(3))


def one_row_update(x):
    A = x.copy()
    A[0] = x[1] * x[2]
    return np.sum(A * A)


def test_batched_jacfwd_of_grad_with_an_in_place_update_is_the_hessian():
    """jacfwd runs one vmap of the jvp with the primal unbatched: it must equal the column loop."""
    x = np.array([0.4, -0.7, 1.1])
    loop = np.stack([s2s.jvp(s2s.grad(one_row_update), (x,), (e,))[1] for e in np.eye(3)])
    # the hand-derived Hessian of (x1 x2)^2 + x1^2 + x2^2
    hand = np.array([[0.0, 0.0, 0.0], [0.0, 2 * x[2] ** 2 + 2, 4 * x[1] * x[2]],
                     [0.0, 4 * x[1] * x[2], 2 * x[1] ** 2 + 2]])
    np.testing.assert_allclose(loop, hand, rtol=1e-12)
    np.testing.assert_allclose(s2s.jacfwd(s2s.grad(one_row_update))(x), hand, rtol=1e-12)
    np.testing.assert_allclose(s2s.hessian(one_row_update)(x), hand, rtol=1e-12)


# Folded from test_vmap_masked_store.py:
# vmap: a value that is the same for every example, stored into part of a per-example array
# under a per-example condition (the mask is shaped by the batched old slot, not by the new
# value: found through jacfwd of a fuzz program), and the batch size of a batched call whose
# first batched argument holds no array.


def store_const_under_branch(x):
    a = x * 1.0
    if np.sum(x) > 0.5:
        a[[0, 2]] = np.array([1.3, 2.0])
    return a


def store_row_under_branch(x):
    a = np.zeros((2, 3)) + x
    if x[0] > 0.0:
        a[1] = np.array([5.0, 6.0, 7.0])
    return a


def test_unbatched_value_stored_under_a_batched_branch_equals_a_loop():
    xs = np.array([[0.1, 0.2, 0.3], [0.5, 0.4, -0.2], [-0.3, 0.1, 0.2], [0.9, -0.1, 0.0]])
    for f in (store_const_under_branch, store_row_under_branch):
        np.testing.assert_array_equal(s2s.vmap(f)(xs), np.stack([f(x) for x in xs]))


def test_batch_size_from_the_first_batched_argument_with_an_array():
    assert rt.num_examples(((), np.zeros((4, 2)))) == 4
    assert rt.num_examples((None, [np.zeros((3,))])) == 3


def test_hessian_through_a_norm_of_one_element():
    def f(x):
        acc = x + (np.linalg.norm(x[0]) + 0.1)
        return np.sum(acc * acc)
    x = np.array([0.3, -0.2, 0.5])
    g = s2s.grad(f)
    eps = 1e-6
    fd = np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(s2s.hessian(f)(x), fd, rtol=1e-6, atol=1e-8)


# Tuple assignments under a per-example condition (found by tools/fuzz.py: `a, b = ...` in a masked
# branch merged every target with its old value, also a target first bound in the branch, which has
# none: UnboundLocalError in the generated code). Each target is now handled as a single name is.


def tuple_swap_in_branch(x):
    a = x * 1.0
    b = x * 2.0
    if np.sum(x) > 0.0:
        a, b = b + 1.0, a * 3.0
    return a * b


def tuple_binds_a_new_name(x):
    a = x * 1.0
    if np.sum(x) > 0.0:
        a, c = x * 2.0, np.sin(x)
        a = a + c
    return a


def tuple_new_name_in_both_branches(x):
    a = x * 1.0
    if np.sum(x) > 0.0:
        a, c = x * 2.0, x * 3.0
    else:
        c = np.cos(x)
    return a + c


def nested_tuple_in_branch(x):
    a = x * 1.0
    b = x * 2.0
    c = x * 3.0
    if np.sum(x) > 0.0:
        a, (b, c) = c, (a, np.tanh(b))
    return a + 2.0 * b + 3.0 * c


def unpack_rows_in_branch(x):
    a = x[0]
    b = x[1]
    if np.sum(x) > 0.0:
        a, b, c = x * 2.0
        a = a + c
    return a * b


def subscript_targets_in_branch(x):
    y = x * 1.0
    if np.sum(x) > 0.0:
        y[0], y[2] = y[2] * 2.0, y[0]
    return y


def augmented_assignments_in_branch(x):
    a = x * 1.0
    if np.sum(x) > 0.0:
        a += 2.0
        a *= x
        a[1] -= x[0]
    return a


def tuple_swap_in_masked_loops(x):
    a, b = x * 0.0, x * 1.0
    for i in range(4):
        if np.sum(a) > 0.3:
            a, b = b, a + b
        else:
            a, b = b * 0.5, a
    k = 0
    while np.sum(a * a) < 9.0 and k < 6:
        a, b = a + b + 0.5, a
        k = k + 1
    return a - b


def unbatched_tuple_target_batched_later(x):
    a, b = np.arange(3.0), 2.0  # `a` is per example later: broadcast here, read before the branch
    s = np.sum(a) + x
    if np.sum(x) > 0.0:
        a = x * 3.0
    return np.sum(a) * b + s


def unbatched_tuple_in_a_branch(x):
    a, b = 0.0, 1.0
    if np.sum(x) > 0.0:
        b, a = a, np.sum(x) * 3.0
    return x * a + b


TUPLE_CASES = [tuple_swap_in_branch, tuple_binds_a_new_name, tuple_new_name_in_both_branches,
               nested_tuple_in_branch, unpack_rows_in_branch, subscript_targets_in_branch,
               augmented_assignments_in_branch, tuple_swap_in_masked_loops,
               unbatched_tuple_target_batched_later, unbatched_tuple_in_a_branch]


@pytest.mark.parametrize("f", TUPLE_CASES)
def test_tuple_assignment_under_a_batched_condition_matches_loop(f):
    _check(f, XS)


@pytest.mark.parametrize("f", [tuple_swap_in_branch, tuple_binds_a_new_name, nested_tuple_in_branch,
                               unpack_rows_in_branch, tuple_swap_in_masked_loops])
def test_vmap_grad_of_tuple_assignment_under_a_batched_condition_matches_loop(f):
    def loss(x):
        return np.sum(f(x) ** 2)
    got = s2s.vmap(s2s.grad(loss))(XS)
    want = np.stack([s2s.grad(loss)(x) for x in XS])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    eps = 1e-6  # and the per-example gradient is the derivative: central differences
    fd = np.stack([[(loss(x + eps * e) - loss(x - eps * e)) / (2 * eps) for e in np.eye(3)] for x in XS])
    np.testing.assert_allclose(got, fd, rtol=1e-6, atol=1e-8)


def starred_in_branch(x):
    a = x[0]
    if np.sum(x) > 0.0:
        a, *rest = x[0], x[1], x[2]
        a = a + rest[0]
    return a


def test_starred_target_under_a_per_example_branch():
    # (a, *rest = ... is accepted since issue 45: the same values as a loop over the examples)
    np.testing.assert_allclose(s2s.vmap(starred_in_branch)(XS), [starred_in_branch(x) for x in XS], rtol=1e-12)
