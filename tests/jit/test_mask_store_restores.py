"""Stores through a boolean mask or an index that changes on each pass of a loop (issue 44 section
7): the backward sweep puts a stored slot's old value back through that pass's index, so the index
is recorded with the values (analysis.relevant). Before, an array the derivative does not flow
through (cs231n's `ds[margins > 0] = 1` beside the loss) was restored through the last pass's mask:
NumPy's ValueError when the counts differ, a silently wrong gradient when an integer index moved.
A value recorded for the backward sweep that may be a view of such an array (`d[i % 2]`, `d[:]`,
`d.reshape(-1)`) is read through the array's memory, so the array is restored store by store too
(before, the backward sweep read every pass's row as the last pass left it: wrong, silently).
vjp, grad, jacrev and vmap of `jit(f)` and of `f` against `vjp(f)` and central differences, on a
family of such programs written out and on programs hypothesis draws."""
import importlib.util
import itertools

import numpy as np
import pytest
from course_losses import svm_first, svm_loss_and_dw
from helpers_compare import assert_trees_close, fd_grad
from hypothesis import given, settings
from hypothesis import strategies as st

import s2s


def fresh_mask_each_pass(x):
    s = 0.0
    for i in range(x.shape[0]):
        m = x[i] > 0
        d = np.zeros(x.shape[1])
        d[m] = 1.0
        s = s + np.sum(x[i] * d)
    return s


def carried_int_index(x):
    d = np.ones(x.shape[1])
    s = 0.0
    for i in range(x.shape[0]):
        j = np.argmax(x[i])
        d[j] = d[j] + 1.0
        s = s + np.sum(x[i] * d)
    return s


def carried_mask(x):
    d = np.ones(x.shape[1])
    s = 0.0
    for i in range(x.shape[0]):
        m = x[i] > 0
        d[m] = d[m] * 2.0
        s = s + np.sum(x[i] * d)
    return s


def carried_mask_while(x):
    d = np.ones(x.shape[1])
    s = 0.0
    i = 0
    while i < x.shape[0]:
        m = x[i] < 0.3
        d[m] += 0.5
        s = s + np.sum(np.sin(x[i]) * d)
        i += 1
    return s


def nested_loops_mask(x):
    d = np.ones(x.shape[1])
    s = 0.0
    for k in range(2):
        for i in range(x.shape[0]):
            m = x[i] * (k + 1) > 0.5
            d[m] = d[m] + 1.0
            s = s + np.sum(x[i] * d)
    return s


def row_view_mixed_store(x):
    d = np.ones((2, x.shape[1]))
    s = 0.0
    for i in range(x.shape[0]):
        m = x[i] > 0
        d[i % 2, m] += 1.0
        s = s + np.sum(x[i] * d[i % 2])
    return s


def row_view_fixed_store(x):
    d = np.ones((2, x.shape[1]))
    s = 0.0
    for i in range(x.shape[0]):
        d[0, 1] += 1.0
        s = s + np.sum(x[i] * d[0])
    return s


def reshaped_view(x):
    d = np.ones((x.shape[1], 1))
    s = 0.0
    for i in range(x.shape[0]):
        d[np.argmax(x[i]), 0] *= 2.0
        s = s + np.sum(x[i] * d.reshape(-1))
    return s


def mask_built_by_stores(x):
    s = 0.0
    d = np.ones(x.shape[1])
    for i in range(x.shape[0]):
        m = np.zeros(x.shape[1], dtype=bool)
        m[np.argmin(x[i])] = True
        d[m] = d[m] - 2.0
        s = s + np.sum(x[i] ** 2 * d)
    return s


def active_mask_store(x):
    a = x * 1.5
    a[a > 0] = 0.5
    return np.sum(a * x)


def masked_values_squared(x):
    a = np.sin(x)
    a[a > 0] = a[a > 0] ** 2
    return np.sum(a)


def masked_add(x):
    a = np.cos(x)
    m = x > 0.2
    a[m] += x[m] * 3.0
    return np.sum(a ** 2)


def masked_reads(x):
    return x[x > 0].sum() + np.sum(x[x < 0] ** 2)


def leaky_passes(x):
    h = x * 1.0
    for _ in range(3):
        h = h * 1.3 - 0.4
        h[h < 0] = 0.1 * h[h < 0]
    return np.sum(h ** 2)


def svm_vectorized(W):
    """cs231n's vectorized SVM loss, with the author's `binary[margins > 0] = 1` beside it."""
    X = np.linspace(-1, 1, 16).reshape(4, 4) ** 3 + 0.3
    y = np.array([0, 2, 1, 0])
    scores = X.dot(W)
    correct = scores[np.arange(4), y]
    margins = np.maximum(0, scores - correct[:, None] + 1)
    margins[np.arange(4), y] = 0
    loss = np.sum(margins) / 4
    binary = margins
    binary[margins > 0] = 1
    binary[np.arange(4), y] = -np.sum(binary, axis=1)
    dW = X.T.dot(binary) / 4  # noqa: F841  (the author's gradient, unread)
    return loss + 0.05 * np.sum(W * W)


FAMILY = [fresh_mask_each_pass, carried_int_index, carried_mask, carried_mask_while, nested_loops_mask,
          row_view_mixed_store, row_view_fixed_store, reshaped_view, mask_built_by_stores, active_mask_store,
          masked_values_squared, masked_add, masked_reads, leaky_passes, svm_vectorized]

TRANSFORMS = {
    "grad": s2s.grad,
    "vjp": lambda f: lambda x: s2s.vjp(f, x)[1](1.0)[0],
    "vjp(jit)": lambda f: lambda x: s2s.vjp(s2s.jit(f), x)[1](1.0)[0],
    "grad(jit)": lambda f: s2s.grad(s2s.jit(f)),
    "jit(grad)": lambda f: s2s.jit(s2s.grad(f)),
    "jacrev(jit)": lambda f: s2s.jacrev(s2s.jit(f)),
    "grad(checkpointed)": lambda f: s2s.grad(f, checkpoint=256),  # (loops replayed in segments)
}


def _x(seed):
    return np.random.default_rng(seed).standard_normal((4, 3)) * 1.5


@pytest.mark.parametrize("how", list(TRANSFORMS))
@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_derivative_through_per_pass_stores_matches_differences(f, how):
    x = _x(3)
    got = np.asarray(TRANSFORMS[how](f)(x))
    np.testing.assert_allclose(got, fd_grad(f, x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, s2s.vjp(f, x)[1](1.0)[0], rtol=1e-12, atol=1e-12)


REFUSED_BY_VMAP = (mask_built_by_stores, row_view_mixed_store)  # (a store through a per-example mask vmap keeps no
# stacked form of: refused, below)


@pytest.mark.parametrize("f", [f for f in FAMILY if f not in REFUSED_BY_VMAP], ids=lambda f: f.__name__)
def test_vmap_of_grad_of_jit_through_per_pass_stores(f):
    xs = np.random.default_rng(4).standard_normal((3, 4, 3)) * 1.5
    want = np.stack([fd_grad(f, x) for x in xs])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(s2s.jit(f)))(xs), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(s2s.grad(f)))(xs), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s2s.vmap(s2s.jit(f))(xs), [f(x) for x in xs], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f", FAMILY, ids=lambda f: f.__name__)
def test_jvp_of_jit_through_per_pass_stores(f):
    x, t = _x(5), np.random.default_rng(6).standard_normal((4, 3))
    out, tangent = s2s.jvp(s2s.jit(f), (x,), (t,))
    assert out == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx(np.sum(fd_grad(f, x) * t), rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("f", REFUSED_BY_VMAP, ids=lambda f: f.__name__)
def test_vmap_of_a_store_through_a_per_example_mask_it_cannot_batch_is_refused(f):
    """A mask each example fills by an index store, or a mask beside an integer index, is not one
    vmap's masked stores batch: refused with an S2SError at the store, not NumPy's error from
    inside the generated code."""
    xs = np.random.default_rng(4).standard_normal((3, 4, 3))
    with pytest.raises(s2s.S2SError, match="boolean mask that differs per example"):
        s2s.vmap(s2s.grad(s2s.jit(f)))(xs)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vjp_of_jit_of_cs231n_svm_first(seed):
    """The report: vjp of jit(svm_first) raised NumPy's ValueError where vjp(svm_first) worked
    (weights of scale 1, so the margins' masks differ from example to example)."""
    rng = np.random.default_rng(seed)
    W, X, y = rng.standard_normal((5, 9)), rng.standard_normal((6, 5)), rng.integers(0, 9, 6)
    out, pull = s2s.vjp(s2s.jit(svm_first), W, X, y, 0.1)
    want_out, want_pull = s2s.vjp(svm_first, W, X, y, 0.1)
    assert out == pytest.approx(want_out, rel=1e-12)
    got, want = pull(1.0), want_pull(1.0)
    assert_trees_close(got[:2] + got[3:], want[:2] + want[3:], rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(got[0], svm_loss_and_dw(W, X, y, 0.1)[1], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[0], fd_grad(lambda w: svm_first(w, X, y, 0.1), W), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got[1], fd_grad(lambda v: svm_first(W, v, y, 0.1), X), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(pull(2.0)[0], 2 * got[0], rtol=1e-12)  # the record is not used up


# ---- programs hypothesis draws: a loop over rows, an array stored into through a per-pass index ----
_COUNT = itertools.count()
INDEXES = {
    "mask": ["m = x[i] > {c}"],
    "argmax": ["m = np.argmax(x[i])"],
    "pair": ["m = [np.argmax(x[i]), 0]"],
    "filled": ["m = np.zeros(x.shape[1], dtype=bool)", "m[np.argmin(x[i])] = True"],
}
STORES = ["d[m] = 1.5", "d[m] = d[m] * 2.0", "d[m] = d[m] + 1.0", "d[m] += 0.5", "d[m] = x[i][m] * 0.0 + 3.0"]
UNARY = ["{}", "np.sin({})", "({}) ** 2", "np.tanh({})"]


@st.composite
def programs(draw):
    carried = draw(st.booleans())
    loop = draw(st.sampled_from(["for", "while", "nested"]))
    lines = ["def f(x):", "    s = 0.0"] + (["    d = np.ones(x.shape[1])"] if carried else [])
    pad = "        "
    if loop == "for":
        lines.append("    for i in range(x.shape[0]):")
    elif loop == "while":
        lines += ["    i = 0", "    while i < x.shape[0]:"]
    else:
        lines += ["    for k in range(2):", "        for i in range(x.shape[0]):"]
        pad += "    "
    body = [] if carried else ["d = np.ones(x.shape[1])"]
    c = draw(st.sampled_from(["0.0", "0.4", "-0.3"]))
    body += [ln.format(c=c) for ln in INDEXES[draw(st.sampled_from(list(INDEXES)))]]
    body.append(draw(st.sampled_from(STORES)))
    body.append("r = x[i] * 1.3 - 0.2")
    if draw(st.booleans()):
        body.append("r[r < 0] = 0.1 * r[r < 0]")
    read = draw(st.sampled_from(["d", "d[:]", "d.reshape(-1)", "d[0:2].sum()"]))
    body.append(f"s = s + np.sum({draw(st.sampled_from(UNARY)).format('r')} * {read})")
    if loop == "while":
        body.append("i += 1")
    lines += [pad + ln for ln in body]
    lines.append("    return s")
    return "\n".join(lines) + "\n"


def _load(src, folder):
    path = folder / f"masked_{next(_COUNT)}.py"
    path.write_text("import numpy as np\n\n\n" + src)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def _check_program(tmp_path_factory, src, seed, how):
    f = _load(src, tmp_path_factory.mktemp("masked"))
    x = _x(seed)
    got = np.asarray(TRANSFORMS[how](f)(x))
    np.testing.assert_allclose(got, fd_grad(f, x), rtol=1e-5, atol=1e-6, err_msg=src)
    np.testing.assert_allclose(got, s2s.vjp(f, x)[1](1.0)[0], rtol=1e-12, atol=1e-12, err_msg=src)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(src=programs(), seed=st.integers(0, 2**16), how=st.sampled_from(list(TRANSFORMS)))
def test_drawn_programs_with_per_pass_stores(tmp_path_factory, src, seed, how):
    _check_program(tmp_path_factory, src, seed, how)


@pytest.mark.full
@settings(max_examples=40, deadline=None)
@given(src=programs(), seed=st.integers(0, 2**16), how=st.sampled_from(list(TRANSFORMS)))
def test_more_drawn_programs_with_per_pass_stores(tmp_path_factory, src, seed, how):
    _check_program(tmp_path_factory, src, seed, how)
