"""A corpus of NumPy functions with Python control flow, for checking s2s's reverse mode.

Each entry of ``CORPUS`` is ``(fn, make_args)``: ``make_args(rng)`` returns a tuple of float64
arguments (arrays or Python floats) chosen away from the points where a branch, a loop's trip
count or a kink (max, abs, comparisons) would switch under a small perturbation, so that central
finite differences are a valid reference.

The functions are deliberately written the way people write NumPy: loops over ranges, rows,
lists, zip and enumerate; while loops with data-dependent trip counts; early returns; in-place
updates of arrays; lists built with ``append``; calls to other module-level functions, default
and keyword arguments, recursion and lambdas.
"""

import numpy as np

CORPUS = []


def register(make_args):
    """Decorator: add ``fn`` to CORPUS with its argument maker."""

    def deco(fn):
        CORPUS.append((fn, make_args))
        return fn

    return deco


# ---------------------------------------------------------------- argument makers


def vec(n=5, lo=-1.0, hi=1.0):
    def make(rng):
        return (rng.uniform(lo, hi, n),)

    return make


def pos_vec(n=5):
    return vec(n, 0.5, 1.5)


def mat(n=4, m=4):
    def make(rng):
        return (rng.uniform(-1.0, 1.0, (n, m)),)

    return make


def two_vecs(n=5):
    def make(rng):
        return (rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n))

    return make


def scalar(lo=0.5, hi=2.0):
    def make(rng):
        return (float(rng.uniform(lo, hi)),)

    return make


def signed_sum_vec(n=5):
    """A vector whose sum is one of -3, -0.75, 0.75, 3: never near 0 or +-1.5 (the branch points)."""

    def make(rng):
        x = rng.uniform(-0.3, 0.3, n)
        x = x - x.mean() + rng.choice([-3.0, -0.75, 0.75, 3.0]) / n
        return (x,)

    return make


def away_from_zero(n=6):
    """Entries with |x| in [0.3, 1.2] and random signs."""

    def make(rng):
        return (rng.uniform(0.3, 1.2, n) * rng.choice([-1.0, 1.0], n),)

    return make


# ---------------------------------------------------------------- helpers called by the corpus


def helper_square(v):
    return v * v


def helper_poly(v, a=2.0, b=0.5):
    return a * v + b * v * v


def helper_pair(v):
    return np.sin(v), np.cos(v)


def helper_step(h, x, rate):
    return h + rate * np.tanh(x - h)


def power(x, n):
    return 1.0 if n == 0 else x * power(x, n - 1)


def rec_sum(x, i):
    if i == 0:
        return x[0]
    return x[i] * x[i] + rec_sum(x, i - 1)


def rec_halve(x, n):
    if n <= 0:
        return x
    return rec_halve(np.sin(x) + 0.5 * x, n - 1)


square_fn = lambda v: v * v
cube_fn = lambda v: v * v * v
affine_fn = lambda v, a, b: a * v + b


# ---------------------------------------------------------------- for over range


@register(vec())
def for_const_range(x):
    for i in range(4):
        x = 0.9 * x + 0.1 * np.sin(x)
    return np.sum(x * x)


@register(vec())
def for_range_len(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 2 * (i + 1)
    return s


@register(mat(3, 4))
def for_range_shape(a):
    acc = np.zeros(a.shape[1])
    for i in range(a.shape[0]):
        acc = acc + np.sin(a[i]) * (i + 1.0)
    return np.sum(acc * acc)


@register(vec(6))
def for_range_interior(x):
    n = len(x)
    s = 0.0
    for i in range(1, n - 1):
        s = s + x[i - 1] * x[i + 1] - x[i] ** 2
    return s


@register(vec(6))
def for_range_reversed(x):
    n = len(x)
    s = 0.0
    for i in range(n - 1, -1, -1):
        s = s * 0.5 + x[i]
    return s * s


@register(vec(6))
def for_range_step2(x):
    s = 0.0
    for i in range(0, len(x), 2):
        s = s + x[i] * x[i + 1]
    return s


@register(vec(7))
def for_range_step_negative(x):
    s = 0.0
    for i in range(len(x) - 1, 0, -2):
        s = s + np.cos(x[i]) * x[i - 1]
    return s


@register(vec(6))
def for_range_data_bound(x):
    # the bound is a Python int computed from the data's shape
    half = x.shape[0] // 2
    s = 0.0
    for i in range(half):
        s = s + x[i] * x[half + i]
    return s


# ---------------------------------------------------------------- for over arrays, lists, zip, enumerate


@register(mat(4, 3))
def for_over_rows(a):
    s = 0.0
    for row in a:
        s = s + np.sum(row**2) * np.sum(row)
    return s


@register(vec())
def for_over_list_consts(x):
    s = 0.0
    for c in [1.0, 2.0, 3.0]:
        s = s + c * np.sum(np.sin(c * x))
    return s


@register(vec())
def for_over_list_arrays(x):
    s = 0.0
    for v in [x, 2.0 * x, x * x]:
        s = s + np.sum(np.tanh(v))
    return s


@register(two_vecs())
def for_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b + np.sin(a - b)
    return s


@register(vec())
def for_enumerate(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + i * v**2
    return s


@register(mat(3, 3))
def for_zip_rows_enumerate(a):
    s = 0.0
    for i, (r, c) in enumerate(zip(a, a.T)):
        s = s + (i + 1.0) * np.sum(r * c)
    return s


# ---------------------------------------------------------------- nested loops


@register(mat(3, 3))
def nested_loops(a):
    s = 0.0
    n, m = a.shape
    for i in range(n):
        for j in range(m):
            s = s + a[i, j] * a[j, i] + np.sin(a[i, j])
    return s


@register(vec(5))
def nested_triangular(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i):
            s = s + x[i] * x[j] / (1.0 + i + j)
    return s


@register(mat(3, 3))
def nested_matpow(a):
    p = np.eye(3)
    for k in range(3):
        p = p @ a
        for i in range(2):
            p = p + 0.1 * np.tanh(p)
    return np.sum(p)


# ---------------------------------------------------------------- list comprehensions


@register(vec())
def listcomp_simple(x):
    ys = [np.sin(v) * v for v in x]
    return np.sum(np.array(ys) ** 2)


@register(away_from_zero())
def listcomp_if(x):
    ys = [v**2 for v in x if v > 0]
    return np.sum(np.array(ys)) + 0.5 * x[0]


@register(vec(6))
def listcomp_range_stack(x):
    ys = [x[i] * x[i + 1] for i in range(len(x) - 1)]
    return np.sum(np.stack(ys))


@register(vec(4))
def listcomp_nested(x):
    ys = [x[i] * x[j] for i in range(len(x)) for j in range(len(x)) if i < j]
    return np.sum(np.array(ys))


# ---------------------------------------------------------------- while loops


@register(scalar(0.5, 4.0))
def while_newton_sqrt(a):
    y = a
    while abs(y * y - a) > 1e-10:
        y = 0.5 * (y + a / y)
    return y


@register(pos_vec(4))
def while_grow(x):
    while x.sum() < 10:
        x = x * 1.5
    return np.sum(x * x)


@register(vec())
def while_int_counter(x):
    i = 0
    s = x
    while i < 5:
        s = np.sin(s) + x
        i += 1
    return np.sum(s)


@register(scalar(0.2, 0.9))
def while_ode_threshold(y):
    # explicit Euler on y' = y until y passes 3; the trip count depends on y
    t = 0.0
    while y < 3.0:
        y = y + 0.01 * y
        t = t + 0.01
    return y * t


@register(pos_vec(4))
def while_cube_root(a):
    y = np.ones_like(a)
    while np.max(np.abs(y**3 - a)) > 1e-12:
        y = y - (y**3 - a) / (3.0 * y**2)
    return np.sum(y)


@register(vec())
def while_stride_counter(x):
    k = 0
    s = 0.0
    while k < len(x):
        s = s + x[k] * (k + 1)
        k += 2
    return s


# ---------------------------------------------------------------- break, continue, else


def _break_args(rng):
    # partial sums of x**2 cross 1.5 somewhere in the middle; keep them away from it
    while True:
        x = rng.uniform(0.3, 1.0, 6)
        c = np.cumsum(x**2)
        if np.min(np.abs(c - 1.5)) > 0.05:
            return (x,)


@register(_break_args)
def for_break(x):
    s = 0.0
    for i in range(len(x)):
        if s > 1.5:
            break
        s = s + x[i] ** 2
    return s


@register(scalar(0.5, 1.5))
def while_true_break(x):
    y = x
    n = 0
    while True:
        y = np.sin(y) + x
        n += 1
        if n >= 4:
            break
    return y


@register(away_from_zero())
def for_continue(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] < 0:
            continue
        s = s + x[i] ** 3
    return s


@register(away_from_zero())
def while_continue(x):
    i = 0
    s = 0.0
    while i < len(x):
        v = x[i]
        i += 1
        if v < 0:
            continue
        s = s + np.exp(v)
    return s


def _for_else_args(rng):
    # sometimes an entry exceeds 2 (break), sometimes not (else runs)
    x = rng.uniform(-1.0, 1.0, 5)
    if rng.uniform() < 0.5:
        x[rng.integers(1, 5)] = 2.5
    return (x,)


@register(_for_else_args)
def for_else(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 2.0:
            s = s * x[i]
            break
        s = s + x[i]
    else:
        s = s * s + 1.0
    return s


@register(scalar(0.2, 0.9))
def while_else(x):
    y = x
    n = 0
    while y < 5.0:
        y = y * 1.7 + 0.1
        n += 1
        if n > 100:
            break
    else:
        y = y - np.sin(y)
    return y


@register(_break_args)
def nested_break_inner(x):
    s = 0.0
    for k in range(2):
        t = 0.0
        for i in range(len(x)):
            if t > 1.5:
                break
            t = t + x[i] ** 2
        s = s + t * (k + 1)
    return s


# ---------------------------------------------------------------- if/elif/else, conditional expressions


@register(signed_sum_vec())
def if_elif_else(x):
    if x.sum() > 1.5:
        y = np.sin(x)
    elif x.sum() > -1.5:
        y = x * x
    else:
        y = np.exp(x)
    return np.sum(y)


@register(signed_sum_vec())
def ifexp(x):
    y = np.sin(x) if x.sum() > 0 else np.cos(x) * x
    return np.sum(y * x)


def _two_signed(rng):
    x = signed_sum_vec()(rng)[0]
    y = signed_sum_vec()(rng)[0]
    return (x, y)


@register(_two_signed)
def and_or_conditions(x, y):
    if x.sum() > 1.5 and y.sum() > 1.5:
        return np.sum(x * y)
    elif x.sum() < -1.5 or y.sum() < -1.5:
        return np.sum(x + y**2)
    return np.sum(np.sin(x) * np.cos(y))


@register(signed_sum_vec())
def chained_comparison(x):
    if -1.5 < x.sum() < 1.5:
        return np.sum(x**3)
    return np.sum(np.tanh(x))


@register(signed_sum_vec())
def if_not_condition(x):
    s = x.sum()
    if not s > 0:
        s = -s * 2.0
    return s * np.sum(x * x)


@register(away_from_zero())
def if_in_loop_piecewise(x):
    a = np.zeros_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            a[i] = x[i] ** 2
        else:
            a[i] = 0.1 * x[i]
    return np.sum(a * a)


@register(away_from_zero())
def ifexp_in_loop(x):
    s = 0.0
    for v in x:
        s = s + (v * v if v > 0 else np.sin(v))
    return s


def _distinct(rng):
    # entries at least 0.1 apart so the running maximum never ties
    x = rng.permutation(np.arange(6) * 0.3) + rng.uniform(-0.05, 0.05, 6)
    return (x,)


@register(_distinct)
def running_max(x):
    m = x[0]
    k = 0
    for i in range(len(x)):
        if x[i] > m:
            m = x[i]
            k = i
    return m * m * (k + 1.0)


# ---------------------------------------------------------------- early and multiple returns


@register(signed_sum_vec())
def early_return(x):
    if x.sum() > 0:
        return np.sum(x**2)
    y = np.sin(x)
    return np.sum(y * x)


@register(signed_sum_vec())
def multiple_returns(x):
    s = x.sum()
    if s > 1.5:
        return s * 2.0
    elif s < -1.5:
        return np.sum(np.exp(x))
    else:
        return np.sum(x**3)


@register(_break_args)
def return_inside_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 2
        if s > 1.5:
            return s * x[0]
    return s


@register(_break_args)
def return_inside_while(x):
    s = 0.0
    i = 0
    while i < len(x):
        s = s + x[i] ** 2
        i += 1
        if s > 1.5:
            return np.sin(s)
    return s


@register(_break_args)
def return_in_nested_loop(x):
    s = 0.0
    for k in range(3):
        for i in range(len(x)):
            s = s + x[i] ** 2 / (k + 1.0)
            if s > 1.5:
                return s * x[1]
    return -s


# ---------------------------------------------------------------- in-place updates


@register(vec())
def setitem_zeros(x):
    a = np.zeros(len(x))
    for i in range(len(x)):
        a[i] = x[i] ** 2 + 1.0
    return np.sum(a * x)


@register(vec(6))
def setitem_slice_copy(x):
    a = np.copy(x)
    a[1:3] = np.sin(x[1:3])
    a[4:] = a[4:] * x[:2]
    return np.sum(a * a)


@register(mat(3, 3))
def setitem_2d_augmented(m):
    a = np.zeros((3, 3))
    for i in range(3):
        for j in range(3):
            a[i, j] += m[i, j] * m[j, i]
            a[i, j] += np.sin(m[i, j])
    return np.sum(a * m)


@register(vec())
def setitem_overwrite(x):
    a = x.copy()
    a[0] = 5.0
    a[1] = a[2] * a[3]
    a[2] = a[1] + x[0]
    return np.sum(a * a)


@register(vec())
def setitem_overwrite_in_loop(x):
    a = x.copy()
    for k in range(3):
        for i in range(1, len(x)):
            a[i] = a[i - 1] * 0.5 + np.sin(a[i])
    return np.sum(a)


@register(vec())
def aug_add_mul_copy(x):
    y = x.copy()
    y += np.sin(x)
    y *= x
    y -= 0.5 * x
    y /= 2.0
    return np.sum(y)


@register(vec())
def aug_mul_loop(x):
    y = np.ones_like(x)
    for k in range(3):
        y *= x
    return np.sum(y)


def _vec_and_scalar(rng):
    return (rng.uniform(-1.0, 1.0, 5), float(rng.uniform(0.5, 1.5)))


@register(_vec_and_scalar)
def aug_on_scalar_param(x, s):
    s += np.sum(x)
    s *= s
    s -= x[0]
    return s


@register(mat(3, 4))
def setitem_rows_and_cols(a):
    b = np.zeros((3, 4))
    for i in range(3):
        b[i, :] = a[i] * (i + 1.0)
    for j in range(4):
        b[:, j] = b[:, j] + np.tanh(a[:, j])
    return np.sum(b * b)


@register(_distinct)
def bubble_sort(x):
    a = x.copy()
    n = len(a)
    for i in range(n):
        for j in range(n - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    w = np.arange(n) + 1.0
    return np.sum(a * w)


@register(vec())
def cumulative_in_place(x):
    c = np.zeros_like(x)
    c[0] = x[0]
    for i in range(1, len(x)):
        c[i] = c[i - 1] * np.cos(x[i]) + x[i]
    return np.sum(c**2)


# ---------------------------------------------------------------- lists built with append


@register(vec())
def append_then_array(x):
    out = []
    for i in range(1, len(x)):
        out.append(x[i] * x[i - 1])
    return np.sum(np.array(out) ** 2)


@register(mat(3, 4))
def append_then_stack(a):
    rows = []
    for row in a:
        rows.append(np.tanh(row))
    m = np.stack(rows)
    return np.sum(m @ m.T)


@register(vec())
def append_and_index(x):
    hist = [x]
    for k in range(3):
        hist.append(np.sin(hist[-1]) + x)
    return np.sum(hist[-1] * hist[1])


# ---------------------------------------------------------------- tuple unpacking and swaps


@register(vec())
def tuple_swap_fibonacci(x):
    a, b = x, np.ones_like(x)
    for i in range(5):
        a, b = b, a + b * 0.5
    return np.sum(a * b)


@register(vec())
def tuple_unpack_call(x):
    s, c = helper_pair(x)
    u, v = c, s
    return np.sum(u * v + s)


@register(two_vecs())
def tuple_swap_args(x, y):
    for i in range(3):
        x, y = y, x * 0.5 + np.sin(y)
    return np.sum(x * y)


# ---------------------------------------------------------------- calls to module-level functions


@register(vec())
def call_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + helper_square(x[i]) * (i + 1)
    return s


@register(signed_sum_vec())
def call_in_branch(x):
    if x.sum() > 0:
        y = helper_square(x)
    else:
        y = helper_poly(x)
    return np.sum(y)


@register(vec())
def call_default_and_keyword(x):
    a = helper_poly(x)
    b = helper_poly(x, 3.0)
    c = helper_poly(x, b=-1.0)
    d = helper_poly(v=x, a=0.5, b=0.25)
    return np.sum(a * b + c * d)


@register(two_vecs())
def call_keyword_in_loop(h, x):
    for t in range(4):
        h = helper_step(h, x=x, rate=0.3)
    return np.sum(h * h)


@register(scalar(0.5, 1.5))
def recursion_power(x):
    return power(x, 5) + power(x, 0)


@register(vec())
def recursion_over_index(x):
    return rec_sum(x, len(x) - 1)


@register(vec())
def recursion_array_state(x):
    return np.sum(rec_halve(x, 4))


@register(vec())
def lambda_calls(x):
    return np.sum(square_fn(x) + cube_fn(x) + affine_fn(x, 2.0, 1.0))


@register(vec())
def lambda_in_loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(affine_fn(square_fn(x), i + 1.0, 0.5))
    return s


# ---------------------------------------------------------------- Python int/float mixed with arrays


@register(vec())
def int_float_mix(x):
    s = 0
    for i in range(len(x)):
        s = s + i * x[i] + 1
    y = 3 - x / 2 + float(len(x)) * x ** 2
    return s + np.sum(y) / len(x)


@register(vec())
def int_counter_index_math(x):
    n = len(x)
    s = 0.0
    k = 0
    for i in range(n):
        k = (k + 3) % n
        s = s + x[k] * x[i] * (k - i)
    return s


# ---------------------------------------------------------------- RNN, optimizers, long loops


def _rnn_args(rng):
    hid, inp, steps = 4, 3, 6
    return (
        rng.normal(0.0, 0.4, (hid, hid)),
        rng.normal(0.0, 0.4, (hid, inp)),
        rng.normal(0.0, 1.0, (steps, inp)),
        rng.normal(0.0, 0.5, hid),
    )


@register(_rnn_args)
def rnn(w, u, x, h):
    for t in range(x.shape[0]):
        h = np.tanh(w @ h + u @ x[t])
    return np.sum(h * h)


@register(_rnn_args)
def rnn_collect_states(w, u, x, h):
    hs = []
    for t in range(len(x)):
        h = np.tanh(w @ h + u @ x[t])
        hs.append(h)
    states = np.stack(hs)
    return np.sum(states[1:] * states[:-1])


@register(two_vecs())
def gradient_descent_unrolled(w, x):
    for k in range(10):
        w = w - 0.1 * 2.0 * (w - x) - 0.01 * np.sin(w)
    return np.sum(w**2)


@register(scalar(0.5, 1.5))
def scalar_loop_many(x):
    y = x
    for i in range(3000):
        y = y - 0.001 * np.sin(y) + 0.0005 * x
    return y


@register(vec())
def horner_coeffs(c):
    t = 0.7
    s = 0.0
    for i in range(len(c) - 1, -1, -1):
        s = s * t + c[i]
    return s * s


@register(vec())
def softmax_loop(x):
    m = np.max(x)
    e = np.zeros_like(x)
    for i in range(len(x)):
        e[i] = np.exp(x[i] - m)
    p = e / np.sum(e)
    return np.sum(p * np.arange(len(x)))


@register(vec())
def first_assigned_in_loop(x):
    for i in range(3):
        y = x * (i + 1.0)
        z = np.sin(y)
    return np.sum(z * y)


@register(signed_sum_vec())
def branch_defines_variable(x):
    if x.sum() > 0:
        w = np.sin(x)
        scale = 2.0
    else:
        w = x * x
        scale = 0.5
    return scale * np.sum(w * x)


# ---------------------------------------------------------------- harder combinations


@register(pos_vec(4))
def while_inside_for(x):
    # a data-dependent inner trip count per outer iteration
    s = 0.0
    for i in range(len(x)):
        y = x[i]
        while y < 4.0:
            y = y * 1.3 + 0.05
        s = s + y * (i + 1)
    return s


@register(vec(5))
def empty_and_single_trip_ranges(x):
    s = np.sum(x)
    for i in range(len(x) - 5):
        s = s * x[i]
    for i in range(len(x) - 1, len(x)):
        s = s + x[i] ** 3
    k = 0
    while k > 1:
        s = s * 2.0
    return s


@register(_break_args)
def while_and_condition(x):
    i = 0
    s = 0.0
    while i < len(x) and s < 1.5:
        s = s + x[i] ** 2
        i += 1
    return s * x[0]


@register(vec())
def loop_over_list_of_tuples(x):
    s = 0.0
    for w, b in [(x, 1.0), (x * x, 2.0), (np.sin(x), -1.0)]:
        s = s + np.sum(w * b)
    return s


@register(vec())
def call_returning_tuple_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        a, b = helper_pair(x[i])
        s = s + a * b * (i + 1)
    return s


def inner_loop_helper(v, n):
    for k in range(n):
        v = np.sin(v) + 0.5 * v
    return v


@register(vec(4))
def call_with_loop_inside_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + inner_loop_helper(x[i], i + 1)
    return s


@register(scalar(0.5, 1.5))
def recursion_inside_loop(x):
    s = 0.0
    for n in range(4):
        s = s + power(x, n)
    return s


@register(vec(6))
def setitem_step_slice(x):
    a = np.zeros(6)
    a[::2] = x[1::2] * 2.0
    a[1::2] = np.exp(x[::2])
    a[-1] = a[0] * a[1]
    return np.sum(a * x)


@register(mat(3, 3))
def enumerate_rows_setitem(m):
    out = np.zeros((3, 3))
    for i, row in enumerate(m):
        out[i] = np.tanh(row) * (i + 1.0)
        if i > 0:
            out[i] = out[i] + out[i - 1]
    return np.sum(out**2)


def _int_bound_args(rng):
    # x[0] in (0.6, 0.9) or (1.1, 1.4): int(x[0] * 2) is 1 or 2, away from the jump
    x = rng.uniform(-1.0, 1.0, 4)
    x[0] = rng.choice([0.75, 1.25]) + rng.uniform(-0.1, 0.1)
    return (x,)


@register(_int_bound_args)
def int_from_data_as_bound(x):
    n = int(x[0] * 2) + 1
    s = 0.0
    for i in range(n):
        s = s + x[i + 1] * x[0]
    return s


@register(vec())
def list_pop_stack(x):
    stack = []
    for i in range(len(x)):
        stack.append(x[i] * (i + 1.0))
    s = 0.0
    while len(stack) > 0:
        v = stack.pop()
        s = s * 0.5 + v
    return s


@register(vec())
def where_in_loop(x):
    y = x
    for k in range(3):
        y = np.where(y > 0.5, y * 0.5, y + 0.1 * np.sin(y))
    return np.sum(y)


@register(_break_args)
def break_in_while_true_nested(x):
    s = 0.0
    for k in range(2):
        i = 0
        while True:
            s = s + x[i] ** 2 * (k + 1)
            i += 1
            if i >= len(x) or s > 3.0:
                break
    return s


@register(vec())
def loop_variable_after_loop(x):
    for i in range(len(x) - 2):
        x = x * 0.9
    return x[i] * np.sum(x)


@register(vec())
def conditional_in_while_condition(x):
    k = 0
    s = 0.0
    while k < (len(x) if x[0] > -5.0 else 2):
        s = s + x[k] * x[k - 1]
        k += 1
    return s


@register(two_vecs(4))
def max_min_builtins(x, y):
    s = 0.0
    for i in range(len(x)):
        s = s + max(x[i], 5.0) * min(y[i], -5.0) + abs(x[i] - 3.0)
    return s


@register(vec(5))
def enumerate_with_start(x):
    s = 0.0
    for i, v in enumerate(x, 1):
        s = s + i * np.sin(v)
    for i, v in enumerate(x, start=3):
        s = s + v * v / i
    return s


@register(vec(5))
def loop_variable_reassigned(x):
    s = 0.0
    for i in range(3):
        i = i * 2
        s = s + x[i] * np.cos(x[i]) * (i + 1)
    return s


@register(vec(3))
def for_over_rebound_array(x):
    a = x
    s = 0.0
    for v in a:
        a = a * 1.5 + 0.1
        s = s + v * v
    return s + np.sum(np.sin(a))


def grow_until(v):
    while v < 5.0:
        v = v * 1.5
    return v


def early_exit_helper(v):
    for k in range(5):
        v = v * 1.2
        if v > 2.0:
            return v * 3.0
    return v


def local_setitem_helper(v):
    a = np.zeros(3)
    for k in range(3):
        a[k] = v * (k + 1.0)
    a[1] = 7.0
    return np.sum(a * a)


def rec_until_large(x):
    if x > 10.0:
        return x
    return rec_until_large(x * 2.0) + 0.5 * x


@register(scalar(0.7, 1.2))
def recursion_data_dependent_depth(x):
    return rec_until_large(x) * x


@register(pos_vec(4))
def callee_while_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + grow_until(x[i]) * (i + 1)
    return s


@register(pos_vec(4))
def callee_early_return_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + early_exit_helper(x[i])
    return s


@register(vec(4))
def callee_setitem_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + local_setitem_helper(x[i]) * x[i]
    return s


def _three_vecs(rng):
    return tuple(rng.uniform(-1.0, 1.0, 4) for _ in range(3))


@register(_three_vecs)
def zip_three(x, y, z):
    s = 0.0
    for a, b, c in zip(x, y, z):
        s = s + a * b * c + np.sin(a + c)
    return s
