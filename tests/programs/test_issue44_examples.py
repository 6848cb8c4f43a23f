"""Issue 44's examples, each written as the small program its bullet describes, checked on today's
code: the value NumPy gives, and derivatives under grad, jvp, jit, vmap, jacfwd and jacrev against
central differences or a loop over examples (or a clean S2SError at the user's line where refusal
is the stated choice). One test per bullet, named after it; the families' own property tests are
elsewhere (tests/frontend/test_stale_state.py, tests/ops/test_keywords_modelled.py,
tests/reverse/test_dtype_decides_derivative.py, tests/frontend/test_numpy_views.py,
tests/reverse/test_recomputation_replays_draws.py, tests/jacobian/test_jacobian_argnums_nesting.py,
tests/random/test_random.py). The audit found four bullets' programs still wrong in some
transform: the Cholesky factors of a matrix that is not symmetric (NumPy reads one triangle),
jacfwd of a row swap (a view taken for a copy), jvp of `v - v.astype(bool)` (a bool tangent), and
vmap of a gradient of a gradient through a slice (an internal IndexError)."""
from __future__ import annotations

import math
import sys

import numpy as np
import pytest

import s2s
from s2s import lax
from s2s.errors import S2SError

X2 = np.array([0.3, -0.7])
V3 = np.array([0.3, -0.2, 0.9])
A22 = np.array([[1.0, 2.0], [3.0, 4.0]])


def _fd(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


def _every_transform(f, x, vmap=True, tol=1e-6):
    """f(x) == jit(f)(x); grad, jit(grad), jacfwd, jacrev and jvp == central differences of the
    plain function; vmap and vmap(grad) == a loop over two examples."""
    want = f(x)
    np.testing.assert_allclose(s2s.jit(f)(x), want, rtol=1e-12, atol=1e-12)
    fd = _fd(f, x)
    for t in (s2s.grad, lambda f: s2s.jit(s2s.grad(f)), s2s.jacfwd, s2s.jacrev):
        np.testing.assert_allclose(t(f)(x), fd, rtol=tol, atol=tol)
    d = np.random.default_rng(0).standard_normal(np.shape(x))
    np.testing.assert_allclose(s2s.jvp(f, (x,), (d,))[1], np.sum(fd * d), rtol=tol, atol=tol)
    if vmap:
        xs = np.stack([x, 1.3 * x + 0.1])
        np.testing.assert_allclose(s2s.vmap(f)(xs), [f(a) for a in xs], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(s2s.vmap(s2s.grad(f))(xs), [_fd(f, a) for a in xs], rtol=tol, atol=tol)


def _refused_at(fn, line_text):
    with pytest.raises(S2SError) as err:
        fn()
    assert __file__.split("/")[-1] in str(err.value) and line_text in str(err.value)


# ---------------------------------------------------------------- 1. compiled code keeps no stale value

class Scaled:
    scale = 2.0

    def loss(self, v):
        return self.scale * np.sum(v ** 2)


def test_class_attribute_changed_between_two_transforms():
    m = Scaled()
    try:
        s2s.grad(m.loss)(X2)
        Scaled.scale = 3.0
        np.testing.assert_allclose(s2s.grad(m.loss)(X2), [1.8, -4.2])
    finally:
        Scaled.scale = 2.0


class Dense:
    def __init__(self, W):
        self.W = W

    def __call__(self, v):
        return np.tanh(self.W @ v)


class Net:
    def __init__(self):
        self.fc = Dense(np.eye(2))

    def loss(self, v):
        return np.sum(self.fc(v) ** 2)


def test_layer_weights_read_through_self_fc_and_jit():
    net = Net()
    g, j = s2s.grad(net.loss), s2s.jit(net.loss)
    g(X2), j(X2)
    net.fc.W = np.array([[1.0, 2.0], [0.5, -1.0]])
    np.testing.assert_allclose(j(X2), net.loss(X2), rtol=1e-12)
    np.testing.assert_allclose(g(X2), _fd(net.loss, X2), rtol=1e-6)
    np.testing.assert_allclose(s2s.grad(net.loss)(X2), _fd(net.loss, X2), rtol=1e-6)


class _Obj:
    pass


CFG = _Obj()
CFG.loss = _Obj()
CFG.loss.scale = 2.0


def config_loss(v):
    return CFG.loss.scale * np.sum(v ** 2)


def test_global_config_two_attributes_deep():
    g = s2s.grad(config_loss)
    g(X2)
    CFG.loss.scale = 5.0
    try:
        np.testing.assert_allclose(g(X2), 10 * X2)
        np.testing.assert_allclose(s2s.jvp(config_loss, (X2,), (np.ones(2),))[1], np.sum(10 * X2))
    finally:
        CFG.loss.scale = 2.0


ACT = {"f": np.tanh}
LAYERS = [lambda v: v * 2.0]


def act_loss(v):
    return np.sum(ACT["f"](v))


def stack_loss(v):
    for layer in LAYERS:
        v = layer(v)
    return np.sum(v ** 2)


def test_dict_of_functions_changed_and_list_of_layers_appended():
    ga, gs = s2s.grad(act_loss), s2s.grad(stack_loss)
    ga(X2), gs(X2)
    ACT["f"] = np.sin
    LAYERS.append(lambda v: v * 3.0)
    try:
        np.testing.assert_allclose(ga(X2), np.cos(X2))
        np.testing.assert_allclose(gs(X2), 72.0 * X2)
    finally:
        ACT["f"] = np.tanh
        del LAYERS[1:]


class Slotted:
    __slots__ = ("k",)

    def __init__(self):
        self.k = 2.0


class Forwarding:
    def __init__(self):
        self.d = {"k": 2.0}

    def __getattr__(self, name):
        if name == "d":
            raise AttributeError(name)
        return self.d[name]


class Replaced:
    def f(self, v):
        return np.sum(v ** 2)

    def loss(self, v):
        return self.f(v)


def test_slots_getattr_objects_and_a_method_replaced_on_the_class():
    sl, fw, rp = Slotted(), Forwarding(), Replaced()

    def f_slots(v):
        return sl.k * np.sum(v ** 2)

    def f_getattr(v):
        return fw.k * np.sum(v ** 2)

    grads = [s2s.grad(f) for f in (f_slots, f_getattr, rp.loss)]
    for g in grads:
        g(X2)
    sl.k, fw.d["k"] = 7.0, 9.0
    Replaced.f = lambda self, v: np.sum(v ** 3)
    np.testing.assert_allclose(grads[0](X2), 14 * X2)
    np.testing.assert_allclose(grads[1](X2), 18 * X2)
    np.testing.assert_allclose(grads[2](X2), 3 * X2 ** 2)


def tanh_loss(v):
    return np.sum(np.tanh(v))


def test_numpy_function_monkeypatched(monkeypatch):
    g = s2s.grad(tanh_loss)
    g(X2)
    monkeypatch.setattr(np, "tanh", np.sin)
    np.testing.assert_allclose(g(X2), np.cos(X2))
    np.testing.assert_allclose(s2s.jvp(tanh_loss, (X2,), (np.ones(2),))[1], np.sum(np.cos(X2)))


GAIN = 2.0


def gained(v, n):
    return GAIN * np.sum(v ** n)


def test_jit_static_argnums_with_a_rebound_global():
    global GAIN
    j = s2s.jit(gained, static_argnums=1)
    j(X2, 2)
    GAIN = 3.0
    try:
        assert j(X2, 2) == pytest.approx(gained(X2, 2), rel=1e-12)
    finally:
        GAIN = 2.0


def test_source_edited_on_disk_is_refused(tmp_path, monkeypatch):
    (tmp_path / "issue44_edited.py").write_text("import numpy as np\n\n\ndef h(v):\n    return np.sum(np.sin(v))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import issue44_edited
    try:
        (tmp_path / "issue44_edited.py").write_text("import numpy as np\n\n\ndef h(v):\n    return np.sum(np.exp(v))\n")
        with pytest.raises(S2SError, match="changed"):
            s2s.grad(issue44_edited.h)(X2)
    finally:
        sys.modules.pop("issue44_edited", None)


# ---------------------------------------------------------------- 2. keywords that change values

def flatten_f(a):
    return np.sum(a.flatten("F") * np.arange(4.0))


def test_flatten_order_f_under_jit_and_every_transform():
    a = np.arange(4.0).reshape(2, 2)
    assert s2s.jit(flatten_f)(a) == flatten_f(a) == 13.0  # (C order: 14.0)
    _every_transform(flatten_f, A22)
    _every_transform(lambda a: np.sum(np.ravel(a, order="F") * np.arange(4.0) ** 2), A22)
    _every_transform(lambda a: np.sum(a.reshape((4,), order="F") * np.arange(4.0) ** 2), A22)


def test_take_mode_clip_reads_minus_one_as_zero():
    _every_transform(lambda v: np.sum(np.take(v, [-1, 0], mode="clip") * np.array([2.0, 3.0])), V3)


def chol_upper(s):
    return np.sum(np.linalg.cholesky(s, upper=True) * np.array([[1.0, 2.0], [0.5, 3.0]]))


def chol_lower(s):
    return np.sum(np.linalg.cholesky(s) * np.array([[1.0, 2.0], [0.5, 3.0]]))


@pytest.mark.parametrize("f", [chol_upper, chol_lower])
@pytest.mark.parametrize("s", [np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([[4.0, 1.0], [0.3, 3.0]])],
                         ids=["symmetric", "not-symmetric"])
def test_cholesky_upper_is_the_upper_factor(f, s):
    """NumPy's factor reads one triangle of its argument (the lower, or the upper with
    upper=True): the derivative in every entry is NumPy's (a matrix that is not symmetric gave the
    symmetrized gradient, and jacfwd another, and upper=True the lower triangle's value)."""
    _every_transform(f, s, tol=1e-5)


def test_clip_with_crossed_bounds_returns_hi():
    f = lambda v: np.sum(np.clip(v, 0.5, 0.1) * v)  # noqa: E731
    np.testing.assert_allclose(np.clip(V3, 0.5, 0.1), 0.1)
    _every_transform(f, V3)


def pinv_rcond(m):
    return np.sum(np.linalg.pinv(m, rcond=1e-3) * np.array([[1.0, 2.0], [3.0, 4.0]]))


def test_pinv_rcond_that_drops_a_singular_value():
    """The value is NumPy's (the cutoff drops 1e-8); the derivative, which the full-rank rule would
    get wrong, is refused; a cutoff that drops nothing is differentiated."""
    m = np.array([[1.0, 0.0], [0.0, 1e-8]])
    np.testing.assert_allclose(s2s.jit(pinv_rcond)(m), pinv_rcond(m), rtol=1e-12)
    with pytest.raises(S2SError, match="pinv where its cutoff drops"):
        s2s.grad(pinv_rcond)(m)
    _every_transform(pinv_rcond, np.array([[1.0, 0.3], [0.2, 0.5]]))


def test_vmap_of_concatenate_axis_none():
    _every_transform(lambda a: np.sum(np.concatenate([a, a * 2], axis=None) * np.arange(8.0)), A22)


def _conv(x, w, spec):
    return lax.conv_general_dilated(x, w, (1,) * (x.ndim - 2), "VALID", dimension_numbers=spec)


@pytest.mark.parametrize("spec, xs, ws", [(("NHWC", "WHIO", "NHWC"), (1, 4, 5, 2), (3, 2, 2, 1)),
                                          (("NHWDC", "HWDIO", "NHWDC"), (1, 4, 5, 3, 2), (2, 3, 2, 2, 1))])
def test_conv_kernel_spatial_letters_in_another_order(spec, xs, ws):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    ct = rng.standard_normal(_conv(x, w, spec).shape)
    # the reference: each output position an explicit sum over the kernel's taps, letters by name
    out_spatial = ct.shape[1:-1]
    letters = spec[1][:-2]
    kernel = np.transpose(w, [letters.index(c) for c in spec[0][1:-1]] + [len(letters), len(letters) + 1])
    ref = np.zeros(ct.shape)
    for pos in np.ndindex(out_spatial):
        window = x[(slice(None),) + tuple(slice(p, p + k) for p, k in zip(pos, kernel.shape[:-2])) + (slice(None),)]
        ref[(slice(None),) + pos + (slice(None),)] = np.tensordot(window, kernel, axes=len(out_spatial) + 1)
    np.testing.assert_allclose(_conv(x, w, spec), ref, rtol=1e-12, atol=1e-12)
    fw = lambda w: np.sum(_conv(x, w, spec) * ct)  # noqa: E731
    np.testing.assert_allclose(s2s.grad(fw)(w), _fd(fw, w), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(s2s.jit(_conv)(x, w, spec), ref, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- 3. casts

C2 = np.array([0.3, 1.7])


def cast_store(v):
    b = np.zeros(2, dtype=int)
    b[:] = v
    return np.sum(v - b)


CASTS = {
    "astype_int": lambda v: np.sum(v - v.astype(int)),
    "astype_bool": lambda v: np.sum(v - v.astype(bool)),
    "astype_uint8": lambda v: np.sum(v - v.astype(np.uint8)),
    "asarray_dtype_int": lambda v: np.sum(v - np.asarray(v, dtype=int)),
    "array_dtype_int64": lambda v: np.sum(v - np.array(v, dtype=np.int64)),
    "sum_dtype_int64": lambda v: np.sum(v) - np.sum(v, dtype=np.int64),
    "full_dtype_int": lambda v: np.sum(v) - np.sum(np.full(2, v[0], dtype=int)),
    "store_into_int_zeros": cast_store,
}


@pytest.mark.parametrize("name", CASTS)
def test_integer_and_bool_casts_carry_no_derivative(name):
    """Gradient [1, 1] at [0.3, 1.7], in jvp and vmap(grad) too (jvp of `v - v.astype(bool)`
    raised NumPy's TypeError: the bool tangent was negated)."""
    _every_transform(CASTS[name], C2)


def complex_cast(v):
    return np.sum(np.abs(v.astype(complex) * (1 + 1j)))


def test_a_cast_to_complex_carries_the_derivative():
    # (refused before issue 45; JAX's convention: |v (1 + i)| = sqrt(2) |v|)
    np.testing.assert_allclose(s2s.grad(complex_cast)(C2), np.sqrt(2.0) * np.sign(C2), rtol=1e-12)


# ---------------------------------------------------------------- 4. views

def row_swap(a):
    a = a * 1.0
    a[0], a[1] = a[1], a[0]
    return np.sum(a * np.array([[1.0, 2.0], [3.0, 4.0]]))


def test_row_swap_of_a_matrix_copies_row_one_as_numpy():
    """Both rows become row 1 (they are views); jacfwd differentiated a swap (its vmap over the
    basis ran the choice once per example on copies, which are never views)."""
    np.testing.assert_allclose(s2s.grad(row_swap)(A22), [[0.0, 0.0], [4.0, 6.0]])
    _every_transform(row_swap, A22)


def rows_of_a_list(m):
    m = m * 1.0
    rows = list(m)
    m[0] = 0.0
    return np.sum(rows[0] * np.array([1.0, 2.0])) + np.sum(m)


def astype_no_copy(b):
    b = b * 1.0
    c = b.astype(np.float64, copy=False)
    b *= 2
    return np.sum(c * np.arange(1.0, 4.0))


def asarray_same_dtype(b):
    b = b * 1.0
    c = np.asarray(b, dtype=np.float64)
    b *= 2
    return np.sum(c * np.arange(1.0, 4.0))


def broadcast_arrays_view(b):
    b = b * 1.0
    c, _ = np.broadcast_arrays(b, 1.0)
    b *= 2
    return np.sum(c * np.arange(1.0, 4.0))


@pytest.mark.parametrize("f, x, line", [(rows_of_a_list, A22, "m[0] = 0.0"), (astype_no_copy, V3, "b *= 2"),
                                        (asarray_same_dtype, V3, "b *= 2"), (broadcast_arrays_view, V3, "b *= 2")])
def test_an_update_seen_through_a_view_is_refused(f, x, line):
    """list(M)'s rows, astype(copy=False), asarray of the same dtype and broadcast_arrays are views
    of the updated array: the update is refused at its line (s2s's stated choice), never a 2x."""
    _refused_at(lambda: s2s.grad(f)(x), line)


def shuffled_generator(b):
    b = b * 1.0
    np.random.default_rng(3).shuffle(b)
    return np.sum(b * np.arange(1.0, 4.0))


def shuffled_random_state(b):
    b = b * 1.0
    np.random.RandomState(3).shuffle(b)
    return np.sum(b * np.arange(1.0, 4.0))


def shuffled_global(b):
    np.random.seed(3)
    b = b * 1.0
    np.random.shuffle(b)
    return np.sum(b * np.arange(1.0, 4.0))


@pytest.mark.parametrize("f", [shuffled_generator, shuffled_random_state, shuffled_global])
def test_shuffle_permutes_the_differentiated_array(f):
    g = s2s.grad(f)(V3)
    np.testing.assert_allclose(g, _fd(f, V3), rtol=1e-6)
    assert not np.allclose(g, np.arange(1.0, 4.0))  # (this seed moves the entries)


# ---------------------------------------------------------------- 5. recomputation replays draws

def dropout_cell(h, w):
    mask = np.random.rand(*h.shape) < 0.5
    return np.tanh(w * h) * mask


CELL = s2s.checkpoint(dropout_cell)


def checkpointed(w):
    h = np.ones(3)
    for _ in range(3):
        h = CELL(h, w)
    return np.sum(h)


def plain_cells(w):
    h = np.ones(3)
    for _ in range(3):
        h = dropout_cell(h, w)
    return np.sum(h)


def draw_in_a_helper(h):
    return np.random.rand(*h.shape) > 0.3


class Noisy:
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def step(self, h, w):
        return np.tanh(w * h + 0.1 * self.rng.standard_normal(h.shape)) * draw_in_a_helper(h)


MODEL = Noisy()


def auto_checkpointed(w):
    h = np.ones(3)
    for _ in range(6):
        h = MODEL.step(h, w) + 0.5 * h
    return np.sum(h)


def _reseeded(f):
    def run(w):
        np.random.seed(7)
        MODEL.rng = np.random.default_rng(0)
        return f(w)
    return run


def test_a_checkpointed_dropout_replays_its_draw():
    w = np.array([0.5, -0.3, 0.8])
    np.random.seed(7)
    g = s2s.grad(checkpointed)(w)
    np.testing.assert_allclose(g, _fd(_reseeded(plain_cells), w), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("budget", ["auto", 500])
def test_checkpoint_auto_and_budgets_replay_draws_in_a_helper_and_a_method(budget):
    w = np.array([0.5, -0.3, 0.8])
    g = _reseeded(s2s.grad(auto_checkpointed, checkpoint=budget))(w)
    np.testing.assert_allclose(g, _fd(_reseeded(auto_checkpointed), w), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- 6. Jacobians of several arguments

def pair(a, b):
    return a * b, np.sum(b)


@pytest.mark.parametrize("jac", [s2s.jacrev, s2s.jacfwd])
def test_jacobians_of_two_arguments_nest_output_then_argument(jac):
    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    (j00, j01), (j10, j11) = jac(pair, argnums=(0, 1))(a, b)
    np.testing.assert_allclose(j00, np.diag(b))
    np.testing.assert_allclose(j01, np.diag(a))
    np.testing.assert_allclose(j10, [0.0, 0.0])
    np.testing.assert_allclose(j11, [1.0, 1.0])


# ---------------------------------------------------------------- 7. internal crashes

def test_prod_of_an_empty_slice():
    _every_transform(lambda v: np.prod(v[3:]) + np.sum(v * v), V3)


@pytest.mark.parametrize("mode, idx", [("clip", [5, -3]), ("wrap", [5, -4])])
def test_take_with_an_out_of_range_index(mode, idx):
    _every_transform(lambda v: np.sum(np.take(v, idx, mode=mode) * np.array([2.0, 3.0])), V3)


def test_solve_of_a_stack_with_a_one_d_b():
    a = np.eye(3)[None].repeat(2, 0) * np.array([1.0, 2.0])[:, None, None] + 0.1
    _every_transform(lambda a: np.sum(np.linalg.solve(a, np.array([1.0, 2.0, 3.0])) ** 2), a)


def linspace_step(x):
    s, step = np.linspace(0.0, x, 5, retstep=True)
    return np.sum(s * s) + step


def test_linspace_retstep():
    _every_transform(linspace_step, np.array(2.0))


def test_grad_of_concatenate_axis_none_and_vmap_of_ravel_order_f():
    _every_transform(lambda a: np.sum(np.concatenate([a, a ** 2], axis=None) * np.arange(8.0)), A22)
    batch = np.stack([A22, 2 * A22 + 1])
    np.testing.assert_allclose(s2s.vmap(lambda a: np.ravel(a, order="F"))(batch), [np.ravel(b, order="F") for b in batch])


def test_qr_mode_r():
    _every_transform(lambda a: np.sum(np.linalg.qr(a, mode="r") * np.array([[1.0, 2.0], [0.0, 3.0]])),
                     np.array([[1.0, 2.0], [0.5, -1.0], [0.3, 0.8]]), tol=1e-5)


def test_math_log_with_a_base():
    f = lambda x: math.log(x, 2) * x  # noqa: E731
    assert s2s.grad(f)(3.0) == pytest.approx((f(3.0 + 1e-6) - f(3.0 - 1e-6)) / 2e-6, rel=1e-7)
    assert s2s.jit(f)(3.0) == pytest.approx(f(3.0), rel=1e-12)


def test_max_of_an_empty_array_with_initial():
    _every_transform(lambda v: np.max(v[3:], initial=0.0) + np.sum(v * v), V3)


def write_stats(x, stats):
    h = np.tanh(x)
    stats["h"] = h
    return np.sum(h)


def test_writing_into_a_dict_argument():
    stats = {}
    np.testing.assert_allclose(s2s.grad(write_stats)(V3, stats), 1 - np.tanh(V3) ** 2)
    np.testing.assert_allclose(s2s.jit(write_stats)(V3, stats), write_stats(V3, {}))


def scan_pairs(xs):
    def body(c, x):
        a, b = x
        return c + a * b, c
    c, ys = lax.scan(body, 0.0, (xs, xs * 2))
    return c + np.sum(ys * ys)


def test_scan_over_a_tuple_of_arrays():
    _every_transform(scan_pairs, V3)


def minus_one_at_labels(s, y):
    d = s.copy()
    n = s.shape[0]
    d[range(n), y] -= 1
    return np.sum(d * s)


def test_vmap_of_grad_of_a_callee_doing_d_range_n_y_minus_one():
    s = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
    y = np.array([1, 2])
    g = s2s.grad(lambda s: minus_one_at_labels(s, y))
    batch = np.stack([s, 2 * s])
    np.testing.assert_allclose(s2s.vmap(g)(batch), [_fd(lambda t: minus_one_at_labels(t, y), b) for b in batch],
                               rtol=1e-6, atol=1e-8)


def test_getattr_objects_with_scipy_imported():
    """The same objects once SciPy is imported: s2s then looks for a SciPy counterpart of every
    object it reads, and asked the user's __getattr__ for `__self__` (a KeyError from a
    dict-forwarding object, which only a worker that had imported SciPy earlier met)."""
    pytest.importorskip("scipy.special")
    test_slots_getattr_objects_and_a_method_replaced_on_the_class()
