"""vmap's API: the seeds' examples with their printed numbers, in_axes/out_axes forms, JAX's
error cases, and composition with grad/jit/jacfwd/jvp."""

import numpy as np
import pytest
import vmap_axis_funcs as AXIS_F
import vmap_funcs as F

import s2s

X = np.arange(5.0)
W = np.array([2.0, 3.0, 4.0])
XS, WS = np.stack([X, X]), np.stack([W, W])
CONV = np.array([[11.0, 20.0, 29.0], [11.0, 20.0, 29.0]])


def test_seed_convolution():
    np.testing.assert_array_equal(s2s.vmap(F.convolve)(XS, WS), CONV)
    np.testing.assert_array_equal(s2s.vmap(F.convolve, in_axes=1, out_axes=1)(XS.T, WS.T), CONV.T)
    np.testing.assert_array_equal(s2s.vmap(F.convolve, in_axes=[0, None])(XS, W), CONV)
    np.testing.assert_array_equal(s2s.jit(s2s.vmap(F.convolve))(XS, WS), CONV)


def test_convolution_source_is_vectorized():
    src = s2s.source(s2s.vmap(F.convolve))
    assert "loop_windows" in src and "xp.arange(1," in src  # the user's loop, vectorized over its index
    vectorized = src.split("if loop_vectorized0:")[1].split("else:")[0]
    assert "for " not in vectorized and "while " not in vectorized  # no loop over the batch nor the index
    loops = [ln for ln in src.splitlines() if ln.strip().startswith(("for ", "while "))]
    assert len(loops) == 1  # the user's loop as written, for windows clipped at an end
    kept = s2s.source(s2s.vmap(F.convolve, in_axes=1, out_axes=1))
    assert "loop_windows" in kept


def test_seed_per_example_td_gradients():
    theta = np.array([0.1, -0.1, 0.0])
    s_tm1, r_t, s_t = np.array([1.0, 2.0, -1.0]), np.array(1.0), np.array([2.0, 1.0, 0.0])
    perex = s2s.jit(s2s.vmap(s2s.grad(F.td_loss), in_axes=(None, 0, 0, 0)))
    got = perex(theta, np.stack([s_tm1, s_tm1]), np.stack([r_t, r_t]), np.stack([s_t, s_t]))
    np.testing.assert_allclose(got, [[-2.4, -4.8, 2.4], [-2.4, -4.8, 2.4]], rtol=1e-12)
    almost = s2s.vmap(s2s.grad(F.td_loss))(np.stack([theta, theta]), np.stack([s_tm1, s_tm1]),
                                           np.stack([r_t, r_t]), np.stack([s_t, s_t]))
    np.testing.assert_allclose(almost, got, rtol=1e-12)


def test_seed_batched_matvec():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(10, 3))
    np.testing.assert_allclose(s2s.vmap(F.apply_matrix)(xs), xs @ F.MAT.T, rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(F.apply_matrix))(xs), np.stack([F.MAT @ v for v in xs]),
                               rtol=1e-12)


def test_decorator_and_negative_axis_and_dict_prefix():
    f = s2s.vmap(in_axes=(-1, None))(F.scaled_norm)
    xs = np.arange(6.0).reshape(3, 2) / 5
    np.testing.assert_allclose(f(xs, 0.7), [F.scaled_norm(xs[:, k], 0.7) for k in range(2)], rtol=1e-12)
    p = {"w": np.ones((4, 3)), "b": 0.5}
    x = np.arange(12.0).reshape(4, 3)
    g = s2s.vmap(F.dict_params, in_axes=({"w": 0, "b": None}, 0))
    np.testing.assert_allclose(g(p, x), [F.dict_params({"w": p["w"][k], "b": 0.5}, x[k]) for k in range(4)])


def test_axis_size_and_unbatched_output_broadcast():
    f = s2s.vmap(F.scaled_norm, in_axes=(None, None), axis_size=3)
    np.testing.assert_allclose(f(np.ones(2), 0.5), [F.scaled_norm(np.ones(2), 0.5)] * 3)


def test_batched_while_trip_counts_differ():
    xs = np.array([0.5, 3.0, 17.0, 1000.0])
    np.testing.assert_array_equal(s2s.vmap(F.count_steps)(xs), [F.count_steps(v) for v in xs])


@pytest.mark.parametrize("call, msg", [
    (lambda: s2s.vmap(F.scaled_norm)(np.ones((2, 3)), np.ones((3, 3))), "inconsistent sizes"),
    (lambda: s2s.vmap(F.scaled_norm, in_axes=(0, None, 0))(np.ones(2), 1.0), "len\\(in_axes\\)=3"),
    (lambda: s2s.vmap(F.scaled_norm, in_axes=(None, None))(np.ones(2), 1.0), "at least one non-None"),
    (lambda: s2s.vmap(F.scaled_norm, in_axes=(2, None))(np.ones((2, 3)), 1.0), "axis 2"),
    (lambda: s2s.vmap(F.scaled_norm, out_axes=None)(np.ones((2, 3)), np.ones((2, 3))), "out_axes is None"),
    (lambda: s2s.vmap(F.dict_params, in_axes=({"w": 0}, 0))({"w": np.ones((2, 2)), "b": 1.0}, np.ones((2, 2))),
     "tree prefix"),
    (lambda: s2s.vmap(F.scaled_norm, in_axes="x"), "must be an int, None"),
])
def test_errors(call, msg):
    with pytest.raises(s2s.S2SError, match=msg):
        call()


def test_inconsistent_sizes_names_arguments():
    with pytest.raises(s2s.S2SError) as e:
        s2s.vmap(F.scaled_norm)(np.ones((2, 3)), np.ones((3, 3)))
    assert "argument x has size 2" in str(e.value) and "argument w has size 3" in str(e.value)


def test_vmap_of_grad_equals_loop_of_grad():
    rng = np.random.default_rng(1)
    xs, ws = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    got = s2s.vmap(s2s.grad(F.scaled_norm))(xs, ws)
    np.testing.assert_allclose(got, [s2s.grad(F.scaled_norm)(x, w) for x, w in zip(xs, ws)], rtol=1e-12)


def test_nested_vmap():
    rng = np.random.default_rng(2)
    xs = rng.normal(size=(3, 4, 2))
    got = s2s.vmap(s2s.vmap(F.scaled_norm, in_axes=(0, None)), in_axes=(0, None))(xs, 0.3)
    np.testing.assert_allclose(got, [[F.scaled_norm(x, 0.3) for x in row] for row in xs], rtol=1e-12)


def test_vmap_of_function_calling_grad():
    xs = np.random.default_rng(3).normal(size=(4, 3))
    np.testing.assert_allclose(s2s.vmap(F.calls_grad)(xs), [F.calls_grad(x) for x in xs], rtol=1e-12)


def test_vmap_of_jacfwd():
    xs = np.random.default_rng(4).normal(size=(3, 2))
    j = s2s.jacfwd(F.scaled_norm)
    np.testing.assert_allclose(s2s.vmap(j, in_axes=(0, None))(xs, 0.5), [j(x, 0.5) for x in xs], rtol=1e-12)


def test_grad_and_jvp_of_function_calling_vmap():
    from s2s.test_util import check_grads
    xs = np.array([-1.0, 0.5, 2.0, -0.3])
    np.testing.assert_allclose(s2s.grad(F.sum_vmap_piecewise)(xs), [np.cos(-1.0), 1.0, 4.0, np.cos(-0.3)],
                               rtol=1e-12)
    check_grads(F.sum_vmap_piecewise, (xs,), order=1, modes=("fwd", "rev"))
    check_grads(F.sum_vmap_rows, (np.random.default_rng(0).normal(size=(2, 3, 4)),), order=1, modes=("fwd", "rev"))


def test_grad_of_batched_matvec():
    from s2s.test_util import check_grads
    xs = np.random.default_rng(5).normal(size=(4, 3))
    np.testing.assert_allclose(s2s.grad(F.matvec_sum)(xs), np.tile(F.MAT.sum(axis=0), (4, 1)), rtol=1e-12)
    check_grads(F.matvec_sum, (xs,), order=1, modes=("fwd", "rev"))


def test_grad_through_batched_helper_is_each_examples_derivative():
    """Ops batched by a helper (here np.diag's) are differentiated example by example, with the
    op's own rules (rules_batch_derivs.py): the values of central differences, never a zero."""
    xs = np.random.default_rng(7).normal(size=(4, 3, 3))
    g = s2s.grad(F.sum_vmap_diag)(xs)
    eps = 1e-6
    want = np.zeros_like(xs)
    for i in np.ndindex(xs.shape):
        e = np.zeros_like(xs)
        e[i] = eps
        want[i] = (np.sum([F.diag_sum(x) for x in xs + e]) - np.sum([F.diag_sum(x) for x in xs - e])) / (2 * eps)
    np.testing.assert_allclose(g, want, atol=1e-6)
    t = np.random.default_rng(8).normal(size=xs.shape)
    _, dy = s2s.jvp(F.sum_vmap_diag, (xs,), (t,))
    np.testing.assert_allclose(dy, np.sum(want * t), rtol=1e-6)


def test_custom_rules_and_closures_batched():
    xs = np.random.default_rng(6).normal(size=(4, 3))
    np.testing.assert_allclose(s2s.vmap(F.uses_custom)(xs), [F.uses_custom(x) for x in xs], rtol=1e-12)
    g = s2s.grad(F.uses_custom)  # the user's rules batched: clip_grad's bwd gives 0.5, softplus' jvp sigmoid
    want = 0.5 + 1.0 / (1.0 + np.exp(-xs))
    np.testing.assert_allclose([g(x) for x in xs], want, rtol=1e-12)
    np.testing.assert_allclose(s2s.vmap(g)(xs), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.grad(lambda v: np.sum(s2s.vmap(F.uses_custom)(v)))(xs), want, rtol=1e-12)
    np.testing.assert_allclose(s2s.jvp(s2s.vmap(F.uses_custom), (xs,), (np.ones_like(xs),))[1],
                               np.sum(want - 0.5 + (1.0 - np.tanh(xs) ** 2), axis=1), rtol=1e-12)
    np.testing.assert_allclose(s2s.jit(s2s.vmap(g))(xs), want, rtol=1e-12)
    f = F.make_scaler(3.0)
    v = np.array([-1.0, 2.0, 0.5, -0.1])
    np.testing.assert_allclose(s2s.vmap(f)(v), [f(x) for x in v], rtol=1e-12)


def test_rank_specialization_is_sound_when_a_variable_changes_rank():
    """`s` is a scalar, then a vector: its rank is unknown, so it is aligned at run time."""
    xs, w = np.array([1.0, 2.0, -3.0]), np.array([0.5, 1.5, 2.5, 3.5])
    np.testing.assert_allclose(s2s.vmap(F.rank_changes, in_axes=(0, None))(xs, w),
                               [F.rank_changes(x, w) for x in xs], rtol=1e-12)
    src = s2s.source(s2s.vmap(F.rank_changes, in_axes=(0, None)))
    assert "lift_rank" in src  # the generic version (used by composition) aligns at run time


def test_jacfwd_and_hessian_of_vector_functions():
    x = np.linspace(-1.0, 1.0, 12)
    h = s2s.hessian(F.tanh3)
    t = np.tanh(x)
    np.testing.assert_allclose(h(x), np.diag((6 * t - 12 * t ** 3) * (1 - t * t)), rtol=1e-12, atol=1e-14)
    j = s2s.jacfwd(F.vec_fn)
    np.testing.assert_allclose(j(x), s2s.jacrev(F.vec_fn)(x), rtol=1e-12, atol=1e-14)


# Folded from test_vmap_axis.py:
# vmap of a reduction whose `axis` is a variable holding None reduces each example over all of
# its own axes, never over the batch axis (vmap(grad(np.std)) used to mix the examples).


X_AXIS = np.random.default_rng(0).normal(size=(4, 3))


def loop(f, xs):
    return np.stack([f(x) for x in xs])


def test_reduction_with_a_variable_none_axis_equals_a_loop():
    np.testing.assert_allclose(s2s.vmap(AXIS_F.centered)(X_AXIS), loop(AXIS_F.centered, X_AXIS), rtol=1e-13)
    np.testing.assert_allclose(s2s.vmap(AXIS_F.var_sum)(X_AXIS), loop(AXIS_F.var_sum, X_AXIS), rtol=1e-13)


def test_vmap_of_grad_of_std_equals_a_loop_of_grad():
    g = s2s.grad(AXIS_F.std_of)
    np.testing.assert_allclose(s2s.vmap(g)(X_AXIS), loop(g, X_AXIS), rtol=1e-13)
    # hand-derived: d std / dx = (x - mean) / (n std)
    want = (X_AXIS - X_AXIS.mean(axis=1, keepdims=True)) / (3 * X_AXIS.std(axis=1, keepdims=True))
    np.testing.assert_allclose(s2s.vmap(g)(X_AXIS), want, rtol=1e-12)
