"""Reverse mode through Python control flow, checked against gradients derived by hand.

Also: constructs s2s does not support inside a transformed function raise S2SError naming the
user's file and line.
"""

import contextlib
import inspect
import math

import numpy as np
import pytest
from corpus import helper_poly

import s2s

# ---------------------------------------------------------------- loops


def loop_power(x, n):
    y = 1.0
    for i in range(n):
        y = y * x
    return y


@pytest.mark.parametrize("n", [0, 1, 2, 5, 9])
def test_loop_multiply_power(n):
    x = 1.3
    assert math.isclose(s2s.grad(loop_power)(x, n), n * x ** (n - 1) if n else 0.0, rel_tol=1e-12)


def loop_power_array(x, n):
    y = np.ones_like(x)
    for i in range(n):
        y = y * x
    return np.sum(y)


def test_loop_multiply_power_array():
    x = np.array([0.5, 1.5, -2.0])
    np.testing.assert_allclose(s2s.grad(loop_power_array)(x, 4), 4 * x**3, rtol=1e-12)


def int_counter_weights(x):
    s = 0
    for i in range(4):
        s = s + i * x
    return s


def test_integer_counter_weights():
    # d/dx (0 + 1 + 2 + 3) x = 6; the counter itself is never differentiated
    assert s2s.grad(int_counter_weights)(0.4) == pytest.approx(6.0, rel=1e-12)


def sum_rows(a):
    s = np.zeros(a.shape[1])
    for row in a:
        s = s + row * row
    return np.sum(s)


def test_for_over_rows():
    a = np.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(s2s.grad(sum_rows)(a), 2 * a, rtol=1e-12)


def zip_dot(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


def test_zip_dot():
    x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, -5.0, 6.0])
    gx, gy = s2s.grad(zip_dot, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, y, rtol=1e-12)
    np.testing.assert_allclose(gy, x, rtol=1e-12)


def test_zip_stops_at_shorter():
    x, y = np.array([1.0, 2.0, 3.0, 4.0]), np.array([4.0, -5.0])
    gx, gy = s2s.grad(zip_dot, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gx, [4.0, -5.0, 0.0, 0.0], rtol=1e-12)
    np.testing.assert_allclose(gy, [1.0, 2.0], rtol=1e-12)


def enumerate_weights(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + i * v
    return s


def test_enumerate_weights():
    np.testing.assert_allclose(s2s.grad(enumerate_weights)(np.ones(4)), [0.0, 1.0, 2.0, 3.0])


def enumerate_from_one(x):
    s = 0.0
    for i, v in enumerate(x, 1):
        s = s + i * v
    return s


def enumerate_start_keyword(x):
    s = 0.0
    for i, v in enumerate(x, start=2):
        s = s + i * v
    return s


def test_enumerate_with_start():
    x = np.array([5.0, -1.0, 2.0])
    assert s2s.value_and_grad(enumerate_from_one)(x)[0] == pytest.approx(enumerate_from_one(x))
    np.testing.assert_allclose(s2s.grad(enumerate_from_one)(x), [1.0, 2.0, 3.0])
    assert s2s.value_and_grad(enumerate_start_keyword)(x)[0] == pytest.approx(enumerate_start_keyword(x))
    np.testing.assert_allclose(s2s.grad(enumerate_start_keyword)(x), [2.0, 3.0, 4.0])


def loop_var_reassigned(x):
    s = 0.0
    for i in range(3):
        i = i * 2
        s = s + x[i] * i
    return s


def test_loop_variable_reassigned_in_body():
    # x[0] * 0 + x[2] * 2 + x[4] * 4
    x = np.array([0.3, -0.7, 0.9, 0.2, -1.1])
    np.testing.assert_allclose(s2s.grad(loop_var_reassigned)(x), [0.0, 0.0, 2.0, 0.0, 4.0])


def iterate_then_rebind(x):
    a = x
    s = 0.0
    for v in a:
        a = a * 2.0  # the loop still walks the array it started with
        s = s + v
    return s + np.sum(a)


def test_rebinding_the_iterated_name():
    # s = sum(x), a = 8 x: value 9 sum(x), gradient 9
    x = np.array([1.0, 2.0, 3.0])
    value, g = s2s.value_and_grad(iterate_then_rebind)(x)
    assert value == pytest.approx(iterate_then_rebind(x))
    np.testing.assert_allclose(g, [9.0, 9.0, 9.0])


def reversed_range_horner(c, t):
    s = 0.0
    for i in range(len(c) - 1, -1, -1):
        s = s * t + c[i]
    return s


def test_horner_reversed_range():
    c = np.array([1.0, -2.0, 0.5, 3.0])
    t = 0.7
    gc, gt = s2s.grad(reversed_range_horner, argnums=(0, 1))(c, t)
    np.testing.assert_allclose(gc, t ** np.arange(4), rtol=1e-12)
    assert gt == pytest.approx(sum(k * c[k] * t ** (k - 1) for k in range(1, 4)), rel=1e-12)


def step_two(x):
    s = 0.0
    for i in range(0, len(x), 2):
        s = s + x[i] ** 2
    return s


def test_range_step_two():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_allclose(s2s.grad(step_two)(x), [2.0, 0.0, 6.0, 0.0, 10.0], rtol=1e-12)


def comprehension_if(x):
    return np.sum(np.array([v * v for v in x if v > 0]))


def test_list_comprehension_with_if():
    x = np.array([1.0, -2.0, 3.0, -4.0])
    np.testing.assert_allclose(s2s.grad(comprehension_if)(x), [2.0, 0.0, 6.0, 0.0], rtol=1e-12)


# ---------------------------------------------------------------- while loops


def newton_sqrt(a):
    y = a
    while abs(y * y - a) > 1e-10:
        y = 0.5 * (y + a / y)
    return y


@pytest.mark.parametrize("a", [0.25, 2.0, 9.0, 100.0])
def test_newton_sqrt(a):
    value, g = s2s.value_and_grad(newton_sqrt)(a)
    assert value == pytest.approx(math.sqrt(a), rel=1e-10)
    assert g == pytest.approx(1.0 / (2.0 * math.sqrt(a)), rel=1e-8)


def doubling(x):
    while x < 10.0:
        x = x * 2.0
    return x


@pytest.mark.parametrize("x, trips", [(0.7, 4), (3.0, 2), (12.0, 0), (0.01, 10)])
def test_while_trip_count_depends_on_x(x, trips):
    value, g = s2s.value_and_grad(doubling)(x)
    assert value == pytest.approx(x * 2.0**trips, rel=1e-12)
    assert g == pytest.approx(2.0**trips, rel=1e-12)


def count_steps(x):
    n = 0
    while x < 10.0:
        x = x + 1.0
        n += 1
    return x * n


@pytest.mark.parametrize("x, n", [(0.5, 10), (7.5, 3), (10.5, 0)])
def test_while_counter_times_value(x, n):
    # x_final = x + n with n fixed near x, so d/dx (x + n) * n = n
    assert s2s.grad(count_steps)(x) == pytest.approx(float(n), rel=1e-12)


def grow_array(x):
    while x.sum() < 10:
        x = x * 1.5
    return np.sum(x * x)


def test_while_on_array_sum():
    x = np.array([0.5, 1.0, 1.5])  # sum 3 -> 4.5 -> 6.75 -> 10.125: three trips
    k = 1.5**3
    np.testing.assert_allclose(s2s.grad(grow_array)(x), 2 * k * k * x, rtol=1e-12)


# ---------------------------------------------------------------- break, continue, else


def sum_until_negative(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0:
            break
        s = s + x[i] * x[i]
    return s


def test_break():
    x = np.array([1.0, 2.0, -1.0, 3.0])
    np.testing.assert_allclose(s2s.grad(sum_until_negative)(x), [2.0, 4.0, 0.0, 0.0], rtol=1e-12)


def sum_positive(x):
    s = 0.0
    for v in x:
        if v < 0:
            continue
        s = s + v**3
    return s


def test_continue():
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(s2s.grad(sum_positive)(x), [3.0, 0.0, 27.0], rtol=1e-12)


def for_else_scale(x):
    s = 0.0
    for v in x:
        if v > 10.0:
            break
        s = s + v
    else:
        s = s * s
    return s


def test_for_else():
    x = np.array([1.0, 2.0, 3.0])  # no break: else runs, s = (sum)^2
    np.testing.assert_allclose(s2s.grad(for_else_scale)(x), [12.0, 12.0, 12.0], rtol=1e-12)
    x = np.array([1.0, 20.0, 3.0])  # break at 20: s = 1
    np.testing.assert_allclose(s2s.grad(for_else_scale)(x), [1.0, 0.0, 0.0], rtol=1e-12)


def while_else_scale(x):
    n = 0
    while n < 3:
        x = x * 2.0
        n += 1
        if x > 100.0:
            break
    else:
        x = x * x
    return x


def test_while_else():
    # no break: x -> 8x, then (8x)^2 = 64 x^2, gradient 128 x
    assert s2s.grad(while_else_scale)(1.0) == pytest.approx(128.0, rel=1e-12)
    # break after the first doubling: 2x
    assert s2s.grad(while_else_scale)(60.0) == pytest.approx(2.0, rel=1e-12)


# ---------------------------------------------------------------- branches and returns


def piecewise(x):
    if x > 1.0:
        return x**2
    elif x > -1.0:
        return 3.0 * x
    else:
        return -(x**3)


@pytest.mark.parametrize("x, want", [(2.0, 4.0), (0.5, 3.0), (-2.0, -12.0)])
def test_if_elif_else_returns(x, want):
    value, g = s2s.value_and_grad(piecewise)(x)
    assert value == pytest.approx(piecewise(x), rel=1e-12)
    assert g == pytest.approx(want, rel=1e-12)


def cond_expr(x):
    y = x * x if x.sum() > 0 else np.sin(x)
    return np.sum(y)


def test_conditional_expression():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(cond_expr)(x), 2 * x, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(cond_expr)(-x), np.cos(-x), rtol=1e-12)


def both_positive(x, y):
    if x > 0 and y > 0:
        return x * y
    if x < -5.0 or y < -5.0:
        return x + y
    return x - y


def test_and_or():
    f = s2s.grad(both_positive, argnums=(0, 1))
    assert f(1.0, 2.0) == pytest.approx((2.0, 1.0))
    assert f(-6.0, 2.0) == pytest.approx((1.0, 1.0))
    assert f(-1.0, 2.0) == pytest.approx((1.0, -1.0))


def in_band(x):
    if 0.0 < x < 1.0:
        return x**3
    return x


def test_chained_comparison():
    assert s2s.grad(in_band)(0.5) == pytest.approx(0.75, rel=1e-12)
    assert s2s.grad(in_band)(2.0) == pytest.approx(1.0, rel=1e-12)


def nested_if_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            if x[i] > 1.0:
                s = s + x[i] ** 2
            else:
                s = s + 3.0 * x[i]
        else:
            s = s - x[i] ** 3
    return s


def test_nested_if_in_loop():
    x = np.array([2.0, 0.5, -1.0, 0.25, 3.0])
    np.testing.assert_allclose(s2s.grad(nested_if_in_loop)(x), [4.0, 3.0, -3.0, 3.0, 6.0], rtol=1e-12)


def first_large_prefix(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i]
        if s > 3.0:
            return s * x[i]
    return -s


def test_return_inside_loop():
    x = np.array([1.0, 1.5, 2.0, 4.0])
    # returns at i=2: s = 4.5, value s * x[2]; ds/dx = [1,1,1,0]
    np.testing.assert_allclose(s2s.grad(first_large_prefix)(x), [2.0, 2.0, 6.5, 0.0], rtol=1e-12)
    x = np.array([0.5, 0.5, 0.5])  # no early return: -sum
    np.testing.assert_allclose(s2s.grad(first_large_prefix)(x), [-1.0, -1.0, -1.0], rtol=1e-12)
    assert s2s.value_and_grad(first_large_prefix)(np.array([1.0, 1.5, 2.0, 4.0]))[0] == pytest.approx(9.0)


# ---------------------------------------------------------------- in-place updates


def overwrite_first(x):
    a = x.copy()
    a[0] = 5.0
    return a.sum()


def test_overwritten_value_gets_zero_gradient():
    np.testing.assert_array_equal(s2s.grad(overwrite_first)(np.arange(4.0)), [0.0, 1.0, 1.0, 1.0])


def overwrite_slice(x):
    a = np.copy(x)
    a[1:3] = 0.0
    return np.sum(a * a)


def test_overwritten_slice():
    x = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    np.testing.assert_allclose(s2s.grad(overwrite_slice)(x), [2.0, 0.0, 0.0, 8.0, 10.0], rtol=1e-12)


def overwrite_twice(x):
    a = np.zeros(3)
    a[0] = x[0] * x[1]
    a[0] = x[2]
    a[1] = x[0]
    return np.sum(a * np.array([1.0, 10.0, 100.0]))


def test_overwritten_twice():
    x = np.array([2.0, 3.0, 4.0])
    np.testing.assert_allclose(s2s.grad(overwrite_twice)(x), [10.0, 0.0, 1.0], rtol=1e-12)


def setitem_reads_old_value(x):
    a = x.copy()
    a[1] = a[1] * a[0]
    a[0] = a[1] + 1.0
    return a[0] * a[2]


def test_setitem_reads_old_value():
    # a1 = x1 x0, a0 = x1 x0 + 1, out = (x1 x0 + 1) x2
    x = np.array([2.0, 3.0, 4.0])
    np.testing.assert_allclose(s2s.grad(setitem_reads_old_value)(x), [12.0, 8.0, 7.0], rtol=1e-12)


def augmented_2d(x):
    a = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            a[i, j] += x[i] * x[j]
            a[i, j] += x[i]
    return np.sum(a)


def test_augmented_2d_setitem():
    # sum_ij x_i x_j + 2 sum_i x_i: gradient 2 sum(x) + 2
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(augmented_2d)(x), [8.0, 8.0], rtol=1e-12)


def add_into_param(y, x):
    y += x
    y *= x
    return np.sum(y)


def test_augmented_on_parameters():
    y, x = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    # out = sum((y + x) * x): d/dy = x, d/dx = y + 2x
    gy, gx = s2s.grad(add_into_param, argnums=(0, 1))(y.copy(), x.copy())
    np.testing.assert_allclose(gy, x, rtol=1e-12)
    np.testing.assert_allclose(gx, y + 2 * x, rtol=1e-12)
    value, _ = s2s.value_and_grad(add_into_param, argnums=(0, 1))(y.copy(), x.copy())
    assert value == pytest.approx(add_into_param(y.copy(), x.copy()))


def setitem_param(x, v):
    x[1] = v * v
    return np.sum(x * x)


def test_setitem_on_parameter():
    x = np.array([1.0, 2.0, 3.0])
    gx, gv = s2s.grad(setitem_param, argnums=(0, 1))(x.copy(), 0.5)
    np.testing.assert_allclose(gx, [2.0, 0.0, 6.0], rtol=1e-12)
    assert gv == pytest.approx(4 * 0.5**3, rel=1e-12)


def loop_mul_inplace(x):
    y = np.ones_like(x)
    for k in range(3):
        y *= x
    return np.sum(y)


def test_loop_inplace_multiply():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(loop_mul_inplace)(x), 3 * x**2, rtol=1e-12)


def prefix_products(x):
    a = np.zeros_like(x)
    a[0] = x[0]
    for i in range(1, len(x)):
        a[i] = a[i - 1] * x[i]
    return a[-1] + a[1]


def test_prefix_products_in_place():
    x = np.array([2.0, 3.0, 5.0])
    # a[-1] = x0 x1 x2, a[1] = x0 x1
    np.testing.assert_allclose(s2s.grad(prefix_products)(x), [15.0 + 3.0, 10.0 + 2.0, 6.0], rtol=1e-12)


# Aliasing: NumPy's in-place operators write through every name bound to the same array. s2s must
# either follow NumPy (value and gradient) or refuse the function with an S2SError; it must never
# return a different value or a wrong gradient silently.


def alias_augassign(x):
    y = x * 1.0
    z = y
    z += 1.0  # also changes y
    return np.sum(y * z)


def alias_setitem(x):
    a = x.copy()
    b = a
    b[0] = 0.0  # also changes a
    return np.sum(a * x)


def _set_first(a, v):
    a[0] = v
    return 0.0


def mutate_in_callee(x):
    a = x.copy()
    _set_first(a, 3.0 * x[1])  # changes the caller's a
    return np.sum(a * a)


def view_then_setitem(x):
    a = x.copy()
    head = a[:2]  # a view of a
    a[0] = 10.0  # also changes head
    return np.sum(head * x[:2])


def rows_scaled_in_place(x):
    m = np.outer(x, x)
    for row in m:
        row *= 2.0  # rows are views: changes m
    return np.sum(m)


@pytest.mark.parametrize(
    "fn, want_grad",
    [
        (alias_augassign, lambda x: 2.0 * (x + 1.0)),
        (alias_setitem, lambda x: np.concatenate([[0.0], 2.0 * x[1:]])),
        (mutate_in_callee, lambda x: np.array([0.0, 20.0 * x[1], 2.0 * x[2]])),
        (view_then_setitem, lambda x: np.array([10.0, 2.0 * x[1], 0.0])),
        (rows_scaled_in_place, lambda x: 4.0 * np.sum(x) * np.ones_like(x)),
    ],
    ids=["augassign", "setitem", "callee_setitem", "view_setitem", "row_view_augassign"],
)
def test_aliased_in_place_update_is_right_or_rejected(fn, want_grad):
    x = np.array([1.0, 2.0, 3.0])
    try:
        value, g = s2s.value_and_grad(fn)(x.copy())
    except s2s.S2SError as e:
        assert "test_control_flow.py:" in str(e)
        return
    assert value == pytest.approx(fn(x.copy()), rel=1e-12)
    np.testing.assert_allclose(g, want_grad(x), rtol=1e-12)


# ---------------------------------------------------------------- lists, tuples, calls


def squares_stacked(x):
    out = []
    for v in x:
        out.append(v * v)
    return np.sum(np.stack(out) * np.array([1.0, 2.0, 3.0]))


def test_append_then_stack():
    x = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(s2s.grad(squares_stacked)(x), [2.0, 8.0, 18.0], rtol=1e-12)


def fibonacci_pair(x, y):
    a, b = x, y
    for i in range(5):
        a, b = b, a + b
    return a


def test_tuple_swap_fibonacci():
    # (a, b) -> (b, a + b) five times from (x, y) gives a = 3x + 5y
    g = s2s.grad(fibonacci_pair, argnums=(0, 1))(0.3, 0.7)
    assert g == pytest.approx((3.0, 5.0), rel=1e-12)


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def uses_power(x):
    return power(x, 4)


def test_recursion_with_integer_argument():
    assert s2s.grad(uses_power)(1.5) == pytest.approx(4 * 1.5**3, rel=1e-12)
    assert s2s.grad(power)(1.5, 3) == pytest.approx(3 * 1.5**2, rel=1e-12)


def scaled(x, a=2.0, b=1.0):
    return a * x * x + b * x


def uses_defaults(x):
    return scaled(x) + scaled(x, 3.0) + scaled(x, b=-1.0) + scaled(b=0.0, x=x, a=1.0)


def test_default_and_keyword_arguments():
    x = 0.5
    want = (4 * x + 1) + (6 * x + 1) + (4 * x - 1) + 2 * x
    assert s2s.grad(uses_defaults)(x) == pytest.approx(want, rel=1e-12)


def helper_sq(v):
    return v * v


def call_in_loop_and_branch(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            s = s + helper_sq(x[i])
        else:
            s = s - helper_sq(x[i]) * 2.0
    return s


def test_calls_inside_loop_and_branch():
    x = np.array([1.0, -2.0, 3.0])
    np.testing.assert_allclose(s2s.grad(call_in_loop_and_branch)(x), [2.0, 8.0, 6.0], rtol=1e-12)


cube = lambda v: v * v * v


def uses_lambda(x):
    s = 0.0
    for i in range(2):
        s = s + cube(x)
    return s


def test_lambda_bound_to_name():
    assert s2s.grad(uses_lambda)(2.0) == pytest.approx(24.0, rel=1e-12)


def rnn_last(w, x, h):
    for t in range(x.shape[0]):
        h = np.tanh(w @ h + x[t])
    return np.sum(h)


def test_rnn_matches_hand_written_bptt():
    rng = np.random.default_rng(0)
    w, x, h0 = rng.normal(0, 0.5, (3, 3)), rng.normal(0, 1, (5, 3)), rng.normal(0, 1, 3)
    hs = [h0]
    for t in range(5):
        hs.append(np.tanh(w @ hs[-1] + x[t]))
    gw, gx, gh = np.zeros_like(w), np.zeros_like(x), np.ones(3)
    for t in range(4, -1, -1):
        gz = gh * (1 - hs[t + 1] ** 2)
        gw += np.outer(gz, hs[t])
        gx[t] = gz
        gh = w.T @ gz
    got = s2s.grad(rnn_last, argnums=(0, 1, 2))(w, x, h0)
    for a, b in zip(got, (gw, gx, gh)):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def uses_imported(x):
    s = 0.0
    for i in range(2):
        s = s + helper_poly(x, b=1.0 * i)
    return s


def test_call_to_function_from_another_module():
    # helper_poly(v, a=2.0, b) = a v + b v^2: sum over b = 0, 1 gives 4 + 2 x
    assert s2s.grad(uses_imported)(0.5) == pytest.approx(5.0, rel=1e-12)


def make_scaled(c, w):
    def scaled_sq(x):
        s = 0.0
        for k in range(len(w)):
            s = s + c * w[k] * x * x
        return s

    return scaled_sq


def test_closure_reads_enclosing_variables():
    w = np.array([1.0, 2.0, 3.0])
    f = make_scaled(0.5, w)
    # 0.5 * 6 * x^2: gradient 6 x
    assert s2s.grad(f)(2.0) == pytest.approx(12.0, rel=1e-12)


def nested_def(x):
    def inner(v):
        return v * v * 3.0

    s = 0.0
    for i in range(2):
        s = s + inner(x)
    return s


def test_nested_def():
    # 2 * 3 x^2: gradient 12 x
    assert s2s.grad(nested_def)(0.5) == pytest.approx(6.0, rel=1e-12)


# ---------------------------------------------------------------- unsupported constructs


def _line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    for k, text in enumerate(lines):
        if marker in text:
            return first + k
    raise AssertionError(f"marker {marker!r} not in {fn.__name__}")


def uses_try(x):
    try:
        return np.log(x)  # BAD (a jump out of a try that has a finally block)
    finally:
        x = x + 1.0


def uses_with(x):
    with contextlib.suppress(FloatingPointError):  # BAD (np.errstate is accepted: tests/frontend/test_guards_raise.py)
        y = np.log(x)
    return y


def uses_yield(x):
    yield x * 2.0  # BAD


G = 0.0


def uses_global(x):
    global G  # BAD
    G = x
    return x * 2.0


def make_nonlocal():
    count = 0.0

    def uses_nonlocal(x):
        nonlocal count  # BAD
        count = count + 1.0
        return x * count

    return uses_nonlocal


async def uses_async(x):  # BAD
    return x * 2.0


def uses_del(x):
    y = x * 2.0
    del y  # BAD
    return x


UNSUPPORTED = [
    (uses_try, "try"),
    (uses_with, "with"),
    (uses_yield, "yield"),
    (uses_global, "global"),
    (make_nonlocal(), "nonlocal"),
    (uses_async, "async"),
    (uses_del, "del"),
]


@pytest.mark.parametrize("fn, construct", UNSUPPORTED, ids=[c for _, c in UNSUPPORTED])
def test_unsupported_construct_raises_s2s_error(fn, construct):
    line = _line_of(fn, "# BAD")
    with pytest.raises(s2s.S2SError) as info:
        s2s.grad(fn)(1.0)
    msg = str(info.value)
    assert f"test_control_flow.py:{line}" in msg, msg
    assert construct in msg, msg
    with pytest.raises(s2s.S2SError):
        s2s.vjp(fn, 1.0)


def sum_of_generator(x):
    return sum(v * v for v in x)


def test_generator_expression_consumed_by_sum():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(sum_of_generator)(x), 2.0 * x, rtol=1e-12)
