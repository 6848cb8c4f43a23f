"""vmap of a boolean mask that differs per example (issue 45 section 7): an in-place masked update
(`x[x < 0] *= a`), a masked store (`m[m < 0] = 0`, `d[m > 0] = 1`) and a reduction of a selection
(`np.sum(x[x > 0])`, its mean, max, with an axis) batch with the selection kept at its array's
shape, under vmap, vmap(grad), grad of the batched function, jit(vmap) and jvp, against a Python
loop over the examples and central differences; a result whose shape differs per example is
refused at the user's line."""
import masked_layers as ml
import numpy as np
import pytest

import s2s
from s2s.errors import S2SError

B = 4


def leaky_loss(x):
    return np.sum(ml.leaky_relu(x) ** 2)


def leaky_inline(x):
    x = x * 1.0
    x[x < 0] *= 0.2
    return np.sum(np.sin(x))


def svm(x):
    return ml.hinge(x, 1)


def dmask(x):
    d = np.zeros_like(x)
    d[x > 0] = 1
    return np.sum(d * x ** 2)


def store_per_example(x):
    y = x * 2.0
    y[x > 0.3] = np.max(x)
    return np.sum(y * x)


def selection_sum(x):
    return np.sum(x[x > 0] ** 2) + np.sum(np.exp(x[x < 0.5]))


def selection_stats(x):
    m = x > -0.2
    return np.mean(x[m]) + np.max(x[m] * 2.0) - np.min(x[m])


def rows_axis(x):  # x (n, d): the rows whose first column is positive, summed along the rows
    s = np.sum(np.tanh(x[x[:, 0] > 0]), axis=0)
    return np.sum(s * np.arange(1.0, s.shape[0] + 1))


def mask_2d(x):  # a mask over both axes of a matrix: the selection is 1-d
    sel = x[x > 0.1]
    return np.sum(sel * 3.0) + np.sum(x[x > 0.1] ** 2)


def mask_in_branch(x):
    y = x * 1.0
    if np.sum(x) > 0:
        y[y < 0] = 0.0
    return np.sum(y ** 3)


def scalar_times_selection(x):
    s = np.sum(x)
    return np.sum(np.cos(x[x > 0] * s))


def positive_mean(x):
    return ml.positive_mean(x) * 2.0


FNS_1D = [leaky_loss, leaky_inline, svm, dmask, store_per_example, selection_sum, selection_stats, mask_in_branch,
          scalar_times_selection, positive_mean]
FNS_2D = [rows_axis, mask_2d, leaky_loss]


def _data(f, seed=0):
    rng = np.random.default_rng(seed)
    shape = (B, 5, 3) if f in FNS_2D and f is not leaky_loss else (B, 6)
    x = rng.normal(size=shape)
    x[np.abs(x) < 0.05] += 0.2  # no element next to a kink (central differences)
    x[np.abs(x - 0.1) < 0.05] += 0.2
    x[np.abs(x - 0.3) < 0.05] += 0.2
    x[np.abs(x - 0.5) < 0.05] += 0.2
    x[np.abs(x + 0.2) < 0.05] += 0.2
    x.reshape(B, -1)[:, 0] = 0.8  # every example selects something (a mean of nothing is nan)
    return x


def _cd(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return g


CASES = [pytest.param(f, id=f.__name__) for f in FNS_1D] + [pytest.param(f, id=f.__name__ + "-2d") for f in FNS_2D]


@pytest.mark.parametrize("f", CASES)
def test_vmap_against_a_loop(f):
    xs = _data(f)
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(f))(xs), [f(x) for x in xs], rtol=1e-12)


@pytest.mark.parametrize("f", CASES)
def test_vmap_of_grad_against_central_differences(f):
    xs = _data(f, 1)
    ref = np.stack([_cd(f, x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), ref, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(s2s.grad(f)))(xs), ref, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", CASES)
def test_grad_and_jvp_of_vmap(f):
    xs = _data(f, 2)

    def total(x):
        return np.sum(s2s.vmap(f)(x))
    ref = _cd(lambda x: sum(f(e) for e in x), xs)
    np.testing.assert_allclose(s2s.grad(total)(xs), ref, rtol=1e-6, atol=1e-7)
    t = np.random.default_rng(3).normal(size=xs.shape)
    out, tan = s2s.jvp(s2s.vmap(f), (xs,), (t,))
    np.testing.assert_allclose(out, [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(tan, np.sum(ref * t, axis=tuple(range(1, xs.ndim))), rtol=1e-6, atol=1e-7)


def test_the_masked_update_of_a_callee_keeps_its_values():
    xs = _data(leaky_loss)
    np.testing.assert_allclose(s2s.vmap(ml.leaky_relu)(xs), [ml.leaky_relu(x) for x in xs], rtol=0)
    ys = np.array([0, 2, 1, 5])
    got = s2s.vmap(ml.hinge_dscores)(xs, ys)
    np.testing.assert_array_equal(got, [ml.hinge_dscores(x, y) for x, y in zip(xs, ys)])
    g = s2s.vmap(s2s.grad(ml.hinge))(xs, ys)
    np.testing.assert_allclose(g, got, rtol=0)  # the author's hand-written gradient


def test_a_selection_whose_shape_differs_per_example_is_refused_at_its_line():
    xs = _data(leaky_loss)
    with pytest.raises(S2SError, match=r"(?s)masked_layers.py:\d+.*selection by a boolean mask") as e:
        s2s.vmap(ml.returns_selection)(xs)
    assert "test_masked_selections" not in str(e.value).split("\n")[0]

    def length(x):
        return len(x[x > 0]) * 1.0
    with pytest.raises(S2SError, match=r"(?s)test_masked_selections.py:\d+.*differs per example"):
        s2s.vmap(length)(xs)

    def two_masks(x):
        return np.sum(x[x > 0] * x[x < 1])
    with pytest.raises(S2SError, match="different per-example masks"):
        s2s.vmap(two_masks)(xs)
    with pytest.raises(S2SError, match="different per-example masks"):
        s2s.jit(s2s.vmap(two_masks))(xs)


def same_mask_twice(x):
    d = x * 0.5
    d[x > 0] = x[x > 0] * 2.0
    return np.sum(d * x) + np.sum(x[x > 0] * x[x > 0])


def test_one_mask_computed_twice_pairs_its_selections():
    xs = _data(leaky_loss)
    f = same_mask_twice
    np.testing.assert_allclose(s2s.vmap(f)(xs), [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(f))(xs), [f(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [_cd(f, x) for x in xs], rtol=1e-6, atol=1e-8)


def _rebound_mask(x):
    m = x > 0
    u = x[m]
    m = x < 0.5
    return np.sum(u)


def _carried(x):
    s = 0.0
    u = x * 0.0
    for k in range(2):
        s = s + np.sum(u)
        u = x[x > k * 0.1]
    return s


def _indexed_by_a_selection(x):
    u = x[x > 0]
    return np.sum(x[u > 1])


@pytest.mark.parametrize("f", [_rebound_mask, _carried, _indexed_by_a_selection])
def test_a_selection_whose_mask_is_unknown_where_it_is_read_is_refused(f):
    """Refused, never a sum over the filled places: the mask rebound before the selection is
    reduced, a selection read by the next iteration of a loop, a selection used as an index."""
    with pytest.raises(S2SError, match="boolean mask that differs per example"):
        s2s.vmap(f)(_data(leaky_loss))


def _layers(x):
    h = x
    for _ in range(3):
        h = h * 1.5 - 0.3
        h[h < 0] *= 0.1
    return np.sum(h ** 2)


def test_a_masked_update_in_a_loop():
    xs = _data(leaky_loss)
    np.testing.assert_allclose(s2s.vmap(_layers)(xs), [_layers(x) for x in xs], rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(s2s.grad(_layers))(xs), [_cd(_layers, x) for x in xs], rtol=1e-6, atol=1e-8)


def test_an_operand_paired_with_the_selected_elements_is_refused():
    xs = _data(leaky_loss)
    ws = np.ones_like(xs)

    def paired(x, w):
        return np.sum(x[x > 0] * w)  # NumPy: w must have as many elements as the selection
    with pytest.raises(S2SError, match="selection"):
        s2s.vmap(paired)(xs, ws)


def test_a_maximum_of_an_empty_selection_raises_as_numpy_does():
    xs = _data(leaky_loss)
    xs[1] = -np.abs(xs[1]) - 1.0

    def top(x):
        return np.max(x[x > -0.2])
    with pytest.raises(ValueError):
        top(xs[1])
    with pytest.raises(ValueError):
        s2s.vmap(top)(xs)


def test_a_refusal_in_a_callee_names_the_callees_file():
    """vmap inlines a callee before batching it: a refusal there names the callee's file with its
    line, not the file of the function vmap was given."""
    xs = _data(leaky_loss)

    def caller(x):
        return ml.appends_per_example(x) * 2.0

    def ranged(x, n):
        return ml.ranged(x, n)
    for fn, args, line in [(caller, (xs,), "out.append(x)"), (ranged, (xs, np.array([0, 1, 2, 1])), "for i in range")]:
        with pytest.raises(S2SError, match=r"masked_layers.py:\d+") as e:
            s2s.vmap(fn)(*args)
        assert line in str(e.value) and "test_masked_selections.py" not in str(e.value)


def _hvp_loss(x):
    return np.sum(ml.softmax(x) * np.arange(1.0, x.shape[-1] + 1))


def test_a_branch_on_the_rank_pops_the_tape_under_vmap_of_a_hessian_and_of_a_vjp():
    """`if z.ndim == 1:` is the same for every example; the backward sweep reads it back from its
    record, batched, and pops its tape under it: no refusal, each example's value."""
    xs = _data(leaky_loss)

    def vjp_of(x):
        return s2s.vjp(_hvp_loss, x)[1](1.0)[0]
    np.testing.assert_allclose(s2s.vmap(s2s.hessian(_hvp_loss))(xs), [s2s.hessian(_hvp_loss)(x) for x in xs],
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(s2s.vmap(vjp_of)(xs), [_cd(_hvp_loss, x) for x in xs], rtol=1e-6, atol=1e-8)
    h = s2s.hessian(_hvp_loss)(xs[0])
    g = s2s.grad(_hvp_loss)
    ref = np.stack([_cd(lambda y: g(y)[i], xs[0]) for i in range(xs.shape[1])])
    np.testing.assert_allclose(h, ref, rtol=1e-6, atol=1e-8)


def test_a_refusal_in_derivative_code_names_the_users_file():
    """vmap of a hessian batches generated code (jvp of a backward sweep) whose statements keep
    the user's line numbers: its refusal names the user's file, not the generated one."""
    xs = _data(leaky_loss)
    xs[1] = -np.abs(xs[1]) - 1.0  # the examples take different branches
    with pytest.raises(S2SError, match=r"masked_layers.py:\d+") as e:
        s2s.vmap(s2s.hessian(ml.branchy))(xs)
    assert "<s2s:" not in str(e.value)
