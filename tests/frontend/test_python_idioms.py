"""Python that real code uses (issue 45, section 3): tuple-assigned function aliases, `a, *rest = x`,
the walrus operator, `reversed`, `any`, `all`, `round`, `math.pow`, `math.fsum`, builtin `max`/`min`
of a list (Python's whole-value comparison) and a memo dict as a default argument. Values match the
plain function; grad matches central differences; jvp matches grad; vmap and vmap(grad) match a
loop over the examples."""
import math

import numpy as np
import pytest
from helpers_compare import fd_grad as central  # (central differences)

import s2s

X = np.array([0.3, -0.7, 1.1, 0.45])
XB = np.stack([X, 2 * X + 0.1, X - 0.4])


def aliases(x):
    pi, sqrt, tanh = np.pi, np.sqrt, np.tanh
    return np.sum(tanh(sqrt(x * x + 1.0)) * pi)


def starred(x):
    a, *rest = x
    b, *middle, c = x
    return a * np.sum(np.array(rest) ** 2) + b * c + len(middle)


def walrus(x):
    if (n := x.shape[0]) > 2:
        y = (s := np.sum(x ** 2)) * n
        return y + s
    return np.sum(x)


def reversed_loop(x):
    s = 0.0
    for v in reversed([x[0], x[1], x[2]]):
        s = s * 2.0 + np.sin(v)
    for i in reversed(range(x.shape[0])):
        s = s + i * x[i]
    return s


def any_all(x, flags=(True, False)):
    if any(flags) and all([1, 2]) and not all(flags):
        return np.sum(x ** 2)
    return np.sum(x)


def numbers(x):
    return np.sum(x) * round(2.6) + math.pow(np.sum(x * x), 1.5) + math.fsum([x[0], x[1] * x[2], 0.1])


def list_max(x):
    scores = [np.sum(x * x), np.sum(x), x[0] * 3.0]
    return max(scores) - min(scores) * 0.5


def memo(x, cache={}):  # noqa: B006 - the memo idiom under test
    if "scale" not in cache:
        cache["scale"] = 2.0
    return np.sum(np.cos(x)) * cache["scale"]


CASES = [aliases, starred, walrus, reversed_loop, any_all, numbers, list_max, memo]


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_matches_plain_and_differences(f):
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    g = s2s.grad(f)(X)
    np.testing.assert_allclose(g, central(f, X), rtol=1e-6, atol=1e-8)
    t = np.array([0.2, -1.0, 0.5, 0.3])
    out, tan = s2s.jvp(f, (X,), (t,))
    np.testing.assert_allclose(out, f(X), rtol=1e-12)
    np.testing.assert_allclose(tan, g @ t, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(s2s.vmap(f)(XB), [f(x) for x in XB], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XB), [central(f, x) for x in XB], rtol=1e-6, atol=1e-8)


def max_of_arrays(x):
    return np.sum(max([x, 2 * x]))


def too_few(x):
    a, b, *rest = x
    return a * b


def test_python_errors_are_pythons():
    with pytest.raises(ValueError) as plain:
        max_of_arrays(X)
    with pytest.raises(ValueError) as got:
        s2s.grad(max_of_arrays)(X)
    assert str(got.value) == str(plain.value)
    with pytest.raises(ValueError, match="not enough values to unpack"):
        s2s.grad(too_few)(X[:1])


def test_max_picks_the_first_largest_as_python():
    def f(x):
        return max([x[0], x[1]]) * 2.0

    np.testing.assert_allclose(s2s.grad(f)(np.array([1.0, 1.0])), [2.0, 0.0])  # a tie: the first, as Python
    np.testing.assert_allclose(s2s.grad(f)(np.array([1.0, 3.0])), [0.0, 2.0])


def is_positive(v):
    return v > 0


def filtered(x):
    vs = list(filter(lambda v: v > 0, [x[0], x[1], x[2]]))
    ws = list(filter(is_positive, [x[0], x[1], x[3]]))
    return sum(vs) * 2.0 + sum(ws) * x[2] + len(list(filter(None, [0, 1, 2])))


def filtered_static(x, scales=(0.5, None, 2.0)):
    kept = list(filter(lambda s: s is not None, scales))
    return sum(np.sum(x * s) for s in kept) + np.sum(np.sin(x) * len(kept))


def test_filter():
    for f in (filtered, filtered_static):
        np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
        np.testing.assert_allclose(s2s.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(filtered_static))(XB), [central(filtered_static, x) for x in XB],
                               rtol=1e-6, atol=1e-8)
    with pytest.raises(s2s.S2SError, match="differs per example"):  # a kept list's length differs per example
        s2s.vmap(filtered)(XB)


def merged_static(x):
    a = {"u": x, "v": x * 3.0}
    t = {**a, "v": np.sin(x), "w": x * x}
    return np.sum(t["u"] * t["v"] * t["w"]) + len(t)


def merged_dynamic(x, d={"u": 3.0, "v": 1.0}, e={"u": 5.0}):  # noqa: B006
    t = {"z": x, **d, "v": 2.0 * x, **e}
    return np.sum(t["u"] * t["v"] * np.cos(t["z"])) + len(t)


def test_double_star_in_dict_literals():
    for f in (merged_static, merged_dynamic):
        np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
        np.testing.assert_allclose(s2s.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)
        t = np.array([0.2, -1.0, 0.5, 0.3])
        np.testing.assert_allclose(s2s.jvp(f, (X,), (t,))[1], central(f, X) @ t, rtol=1e-6)
    np.testing.assert_allclose(s2s.vmap(merged_static)(XB), [merged_static(x) for x in XB], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(merged_static))(XB), [central(merged_static, x) for x in XB],
                               rtol=1e-6, atol=1e-8)


def test_double_star_source_read_otherwise_is_not_expanded_statically():
    from s2s.compiler.frontend import python_idioms

    fn = __import__("gast").parse("def f(x):\n    a = {'u': x}\n    g(a)\n    t = {**a}\n    return t\n").body[0]
    state = python_idioms._State(fn, lambda n: (False, None))
    assert python_idioms._literal_keys(state, fn.body[2].value.values[0]) is None
    fn = __import__("gast").parse("def f(x):\n    a = {'u': x}\n    t = {**a}\n    return a['u']\n").body[0]
    state = python_idioms._State(fn, lambda n: (False, None))
    assert python_idioms._literal_keys(state, fn.body[1].value.values[0]) == ["u"]


def bubble_pass(x):
    a = x * 1.0
    for j in range(a.shape[0] - 1):
        if a[j] > a[j + 1]:
            t = a[j]
            a[j] = a[j + 1]
            a[j + 1] = t
    return np.sum(a * np.arange(1.0, a.shape[0] + 1.0))


def row_swap_through_view(m):
    a = m * 1.0
    t = a[0]  # a row of a 2-d array: a view, which the next store changes
    a[0] = a[1]
    a[1] = t
    return np.sum(a)


def row_read_not_kept(m):
    a = m * 1.0
    r = a[0]
    total = np.sum(r * r)
    a[1] = a[0] * 2.0
    return total + np.sum(a)


def test_scalar_temporary_in_a_swap():
    f = bubble_pass
    np.testing.assert_allclose(s2s.jit(f)(X), f(X), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(f)(X), central(f, X), rtol=1e-6, atol=1e-8)
    t = np.array([0.2, -1.0, 0.5, 0.3])
    np.testing.assert_allclose(s2s.jvp(f, (X,), (t,))[1], central(f, X) @ t, rtol=1e-6)
    np.testing.assert_allclose(s2s.vmap(f)(XB), [f(x) for x in XB], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(XB), [central(f, x) for x in XB], rtol=1e-6, atol=1e-8)
    m = np.arange(6.0).reshape(2, 3)
    # a row of a 2-d array is a view: both rows become row 1, as in NumPy (frontend/view_writes.py)
    np.testing.assert_allclose(s2s.jit(row_swap_through_view)(m), row_swap_through_view(m.copy()), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(row_swap_through_view)(m), central(row_swap_through_view, m), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(s2s.grad(row_read_not_kept)(m), central(row_read_not_kept, m), rtol=1e-6)


def pivot_rows(m):
    a = m * 1.0
    for k in range(2):
        order = np.argsort(-np.abs(a[:, k]), kind="stable")
        a = a[order]  # rebinding `a` to a permuted copy: the old array has no name left to read it by
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
    return np.sum(a * a)


def test_rebinding_a_name_to_a_permutation_of_itself_then_storing():
    """`a = a[p]` then `a[...] = v` (scipy.linalg.lu_factor's pivoting) is neither the swap temporary
    nor an alias: it differentiates, as it did before the element reads were tracked."""
    m = np.array([[0.5, 2.0, -1.0], [3.0, 0.1, 0.7], [-1.2, 0.4, 2.2]])
    np.testing.assert_allclose(s2s.jit(pivot_rows)(m), pivot_rows(m), rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(pivot_rows)(m), central(pivot_rows, m), rtol=1e-6, atol=1e-8)


INPUTS = [0, 2, 1, 2]


def char_rnn(W):
    xs, hs = {}, {}
    hs[-1] = np.zeros(3)
    loss = 0.0
    for t in range(len(INPUTS)):
        xs[t] = np.zeros(3)  # a one-hot input, as character-level RNNs write it
        xs[t][INPUTS[t]] = 1
        hs[t] = np.tanh(W @ xs[t] + 0.5 * hs[t - 1])
        loss = loss + np.sum(hs[t] ** 2)
    return loss


def list_rows(x):
    rows = [np.zeros(3), np.ones(3)]
    rows[1][0] = x[0] * 2.0
    rows[0][1:] = x[1:3]
    return np.sum(rows[1] * x[:3]) + np.sum(rows[0] * rows[0])


def shared_element(x):
    xs = [np.zeros(3), np.zeros(3)]
    row = xs[1]
    xs[1][2] = 1.0
    return np.sum(row * x[:3])


def test_nested_subscript_stores():
    W = np.arange(9.0).reshape(3, 3) / 10 - 0.3
    WB = np.stack([W, -W, W * 0.5])
    for f, x, xb in ((char_rnn, W, WB), (list_rows, X, XB)):
        np.testing.assert_allclose(s2s.jit(f)(x), f(x), rtol=1e-12)
        g = s2s.grad(f)(x)
        np.testing.assert_allclose(g, central(f, x), rtol=1e-6, atol=1e-8)
        t = np.cos(np.arange(x.size) + 0.3).reshape(x.shape)
        np.testing.assert_allclose(s2s.jvp(f, (x,), (t,))[1], np.sum(g * t), rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(s2s.vmap(f)(xb), [f(v) for v in xb], rtol=1e-12)
        np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xb), [central(f, v) for v in xb], rtol=1e-6, atol=1e-8)
    with pytest.raises(s2s.S2SError, match="row"):  # `row` is the element the store changes in place
        s2s.grad(shared_element)(X)
