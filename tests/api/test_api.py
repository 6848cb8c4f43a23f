"""The public API follows JAX: argnums, has_aux, value_and_grad, pytrees, vjp, stop_gradient."""

import numpy as np
import pytest

import s2s
from s2s import stop_gradient

# --------------------------------------------------------------------------- functions


def f_two(x, y):
    return np.sum(x * x * y)


def f_three(x, y, z):
    return np.sum(x * y) + 3.0 * np.sum(z * z)


def f_aux(x):
    y = np.sum(x ** 2)
    return y, x * 3.0


def f_aux_dict(x, y):
    loss = np.sum(x * y)
    return loss, {"norm": np.sum(x * x), "y": y}


def loss_tuple(params, x):
    w, b = params
    return np.sum((np.dot(x, w) + b) ** 2)


def loss_list(params, x):
    w = params[0]
    b = params[1]
    return np.sum((np.dot(x, w) + b) ** 2)


def loss_dict(params, x):
    return np.sum((np.dot(x, params["w"]) + params["b"]) ** 2)


def loss_nested(params, x):
    layer1, layer2 = params["layers"]
    h = np.tanh(np.dot(x, layer1["w"]) + layer1["b"])
    out = np.dot(h, layer2[0]) + layer2[1]
    return np.sum(out ** 2) + params["scale"] * np.sum(h)


def f_scalar(x):
    return x * x * x + 2.0 * x


def f_vector_out(x):
    return x * 2.0


def f_int_ok(x, n):
    return np.sum(x) * n


def f_vec(x, y):
    return np.array([x[0] * y[1], np.sin(x[1]), x[0] * x[1] * y[0]])


def f_vec_single(x):
    return np.tanh(x) * x[0]


def f_vec_tuple_out(x):
    return x * 2.0, np.sum(x)


def v_fn(theta, s):
    return np.dot(theta, s)


def td_loss(theta, s_tm1, r_t, s_t):
    target = r_t + v_fn(theta, s_t)
    return (stop_gradient(target) - v_fn(theta, s_tm1)) ** 2


def straight_through(x):
    return np.sum(x + stop_gradient(np.round(x) - x))


def straight_through_scaled(x):
    return np.sum((x + stop_gradient(np.round(x) - x)) * np.arange(1.0, 5.0))


def helper_square(z):
    return z * z


def helper_affine(z, a, b=1.0, c=0.0):
    return a * z + b + c


def loss_calls_helper(x):
    return np.sum(helper_square(x) + np.sin(x))


def loss_calls_helper_twice(x):
    return np.sum(helper_square(helper_square(x)))


def loss_helper_defaults(x):
    return np.sum(helper_affine(x, 2.0))


def loss_helper_keywords(x):
    return np.sum(helper_affine(x, a=3.0, c=x * x))


def loss_helper_positional_default(x):
    return np.sum(helper_affine(x, 2.0, x))


W_GLOBAL = np.array([1.0, -2.0, 0.5])
SCALE_GLOBAL = 4.0


def loss_global(x):
    return SCALE_GLOBAL * np.dot(W_GLOBAL, x) ** 2


# --------------------------------------------------------------------------- argnums


def test_argnums_default_is_first():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    g = s2s.grad(f_two)(x, y)
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, 2 * x * y)


def test_argnums_int():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    g = s2s.grad(f_two, argnums=1)(x, y)
    assert isinstance(g, np.ndarray)
    np.testing.assert_allclose(g, x * x)


def test_argnums_tuple_returns_tuple():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    g = s2s.grad(f_two, argnums=(0, 1))(x, y)
    assert isinstance(g, tuple) and len(g) == 2
    np.testing.assert_allclose(g[0], 2 * x * y)
    np.testing.assert_allclose(g[1], x * x)


def test_argnums_single_element_tuple_returns_tuple():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    g = s2s.grad(f_two, argnums=(1,))(x, y)
    assert isinstance(g, tuple) and len(g) == 1
    np.testing.assert_allclose(g[0], x * x)


def test_argnums_tuple_order_is_kept():
    x, y, z = np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 4.0])
    gz, gx = s2s.grad(f_three, argnums=(2, 0))(x, y, z)
    np.testing.assert_allclose(gz, 6.0 * z)
    np.testing.assert_allclose(gx, y)


def test_negative_argnums():
    x, y, z = np.array([1.0, 2.0]), np.array([3.0, -1.0]), np.array([0.5, 4.0])
    np.testing.assert_allclose(s2s.grad(f_three, argnums=-1)(x, y, z), 6.0 * z)
    gy, gz = s2s.grad(f_three, argnums=(-2, -1))(x, y, z)
    np.testing.assert_allclose(gy, x)
    np.testing.assert_allclose(gz, 6.0 * z)


def test_argnums_out_of_range_is_an_error():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    with pytest.raises(s2s.S2SError) as e:
        s2s.grad(f_two, argnums=2)(x, y)
    assert "argnums" in str(e.value)


# --------------------------------------------------------------------------- has_aux, value_and_grad


def test_grad_has_aux_returns_grad_and_aux():
    x = np.array([1.0, -2.0, 0.5])
    out = s2s.grad(f_aux, has_aux=True)(x)
    assert isinstance(out, tuple) and len(out) == 2
    g, aux = out
    np.testing.assert_allclose(g, 2 * x)
    np.testing.assert_allclose(aux, 3 * x)


def test_value_and_grad_has_aux_structure():
    x = np.array([1.0, -2.0, 0.5])
    out = s2s.value_and_grad(f_aux, has_aux=True)(x)
    assert isinstance(out, tuple) and len(out) == 2
    (v, aux), g = out
    np.testing.assert_allclose(v, np.sum(x ** 2))
    np.testing.assert_allclose(aux, 3 * x)
    np.testing.assert_allclose(g, 2 * x)


def test_has_aux_with_dict_aux_and_argnums_tuple():
    x, y = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    (gx, gy), aux = s2s.grad(f_aux_dict, argnums=(0, 1), has_aux=True)(x, y)
    np.testing.assert_allclose(gx, y)
    np.testing.assert_allclose(gy, x)
    assert set(aux) == {"norm", "y"}
    np.testing.assert_allclose(aux["norm"], 5.0)
    np.testing.assert_allclose(aux["y"], y)


def test_value_and_grad_value_equals_f():
    x, y = np.array([1.0, 2.0, -0.5]), np.array([3.0, -1.0, 2.0])
    v, g = s2s.value_and_grad(f_two)(x, y)
    assert v == pytest.approx(f_two(x, y), rel=1e-15)
    assert np.ndim(v) == 0
    np.testing.assert_allclose(g, 2 * x * y)


def test_value_and_grad_argnums_tuple():
    x, y = np.array([1.0, 2.0, -0.5]), np.array([3.0, -1.0, 2.0])
    v, (gx, gy) = s2s.value_and_grad(f_two, argnums=(0, 1))(x, y)
    assert v == pytest.approx(f_two(x, y), rel=1e-15)
    np.testing.assert_allclose(gx, 2 * x * y)
    np.testing.assert_allclose(gy, x * x)


def test_value_and_grad_matches_grad():
    x = np.linspace(-1.0, 1.0, 5)
    params = (np.ones((5, 2)) * 0.3, np.array([0.1, -0.2]))
    v, g = s2s.value_and_grad(loss_tuple)(params, x[None, :])
    g2 = s2s.grad(loss_tuple)(params, x[None, :])
    assert v == pytest.approx(loss_tuple(params, x[None, :]))
    for a, b in zip(g, g2):
        np.testing.assert_allclose(a, b, rtol=1e-15)


# --------------------------------------------------------------------------- pytrees


def _data():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3))
    w = rng.standard_normal((3, 2))
    b = rng.standard_normal(2)
    return x, w, b


def _expected_wb(x, w, b):
    r = 2.0 * (x @ w + b)
    return x.T @ r, r.sum(axis=0)


@pytest.mark.parametrize("loss, container", [(loss_tuple, tuple), (loss_list, list), (loss_tuple, list)],
                         ids=["tuple", "list", "list_unpacked"])
def test_pytree_sequence_params(loss, container):
    """The gradient has the parameters' container type (a list unpacked as `w, b = params` too)."""
    x, w, b = _data()
    g = s2s.grad(loss)(container([w, b]), x)
    assert isinstance(g, container) and len(g) == 2
    assert g[0].shape == w.shape and g[1].shape == b.shape
    ew, eb = _expected_wb(x, w, b)
    np.testing.assert_allclose(g[0], ew, rtol=1e-12)
    np.testing.assert_allclose(g[1], eb, rtol=1e-12)


def test_pytree_dict_params():
    x, w, b = _data()
    g = s2s.grad(loss_dict)({"w": w, "b": b}, x)
    assert isinstance(g, dict) and set(g) == {"w", "b"}
    assert g["w"].shape == w.shape and g["b"].shape == b.shape
    ew, eb = _expected_wb(x, w, b)
    np.testing.assert_allclose(g["w"], ew, rtol=1e-12)
    np.testing.assert_allclose(g["b"], eb, rtol=1e-12)


def _nested_params():
    rng = np.random.default_rng(1)
    return {
        "layers": [
            {"w": rng.standard_normal((3, 4)), "b": rng.standard_normal(4)},
            (rng.standard_normal((4, 2)), rng.standard_normal(2)),
        ],
        "scale": 0.7,
    }


def _nested_loss_numpy(params, x):
    return loss_nested(params, x)


def test_pytree_nested_structure_and_values():
    params = _nested_params()
    x = np.random.default_rng(2).standard_normal((5, 3))
    g = s2s.grad(loss_nested)(params, x)
    assert isinstance(g, dict) and set(g) == {"layers", "scale"}
    assert isinstance(g["layers"], list) and len(g["layers"]) == 2
    l1, l2 = g["layers"]
    assert isinstance(l1, dict) and set(l1) == {"w", "b"}
    assert isinstance(l2, tuple) and len(l2) == 2
    assert l1["w"].shape == (3, 4) and l1["b"].shape == (4,)
    assert l2[0].shape == (4, 2) and l2[1].shape == (2,)
    assert np.ndim(g["scale"]) == 0
    # hand-computed gradient
    p1, p2 = params["layers"]
    h = np.tanh(x @ p1["w"] + p1["b"])
    out = h @ p2[0] + p2[1]
    d_out = 2.0 * out
    d_h = d_out @ p2[0].T + params["scale"]
    d_pre = d_h * (1.0 - h * h)
    np.testing.assert_allclose(l2[0], h.T @ d_out, rtol=1e-12)
    np.testing.assert_allclose(l2[1], d_out.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(l1["w"], x.T @ d_pre, rtol=1e-12)
    np.testing.assert_allclose(l1["b"], d_pre.sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(g["scale"], np.sum(h), rtol=1e-12)


def test_pytree_nested_check_grads():
    from s2s.test_util import check_grads
    params = _nested_params()
    x = np.random.default_rng(3).standard_normal((5, 3))
    check_grads(loss_nested, (params, x), order=1, modes=("rev",))


# --------------------------------------------------------------------------- scalars and dtypes


def test_python_float_input():
    g = s2s.grad(f_scalar)(2.0)
    assert np.ndim(g) == 0
    assert float(g) == 3 * 4.0 + 2.0


def test_zero_d_array_input():
    g = s2s.grad(f_scalar)(np.array(2.0))
    assert np.shape(g) == ()
    assert float(g) == 14.0


def test_float32_input_keeps_dtype():
    x = np.array([1.0, 2.0], dtype=np.float32)
    g = s2s.grad(f_two)(x, np.array([3.0, 4.0], dtype=np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, [6.0, 16.0])


def test_grad_of_non_scalar_output_raises_type_error():
    with pytest.raises(TypeError) as e:
        s2s.grad(f_vector_out)(np.array([1.0, 2.0]))
    assert isinstance(e.value, s2s.S2SError)
    assert "scalar" in str(e.value)


def test_grad_wrt_integer_input_raises_type_error():
    with pytest.raises(TypeError) as e:
        s2s.grad(f_int_ok, argnums=1)(np.array([1.0, 2.0]), 3)
    assert isinstance(e.value, s2s.S2SError)
    assert "int" in str(e.value)


def test_grad_wrt_integer_array_raises_type_error():
    with pytest.raises(TypeError) as e:
        s2s.grad(f_scalar)(np.array(2))
    assert isinstance(e.value, s2s.S2SError)
    assert "int" in str(e.value)


def test_integer_non_differentiated_argument_is_fine():
    g = s2s.grad(f_int_ok)(np.array([1.0, 2.0]), 3)
    np.testing.assert_allclose(g, [3.0, 3.0])


# --------------------------------------------------------------------------- vjp


def test_vjp_vector_function_matches_jacobian_transpose():
    x = np.array([0.7, -1.3])
    y = np.array([2.0, 0.5])
    out, vjp_fn = s2s.vjp(f_vec, x, y)
    np.testing.assert_allclose(out, f_vec(x, y))
    u = np.array([1.5, -2.0, 0.25])
    # J wrt x and y, rows = outputs
    jx = np.array([[y[1], 0.0], [0.0, np.cos(x[1])], [x[1] * y[0], x[0] * y[0]]])
    jy = np.array([[0.0, x[0]], [0.0, 0.0], [x[0] * x[1], 0.0]])
    cts = vjp_fn(u)
    assert isinstance(cts, tuple) and len(cts) == 2
    np.testing.assert_allclose(cts[0], jx.T @ u, rtol=1e-14)
    np.testing.assert_allclose(cts[1], jy.T @ u, rtol=1e-14)


def test_vjp_single_argument_returns_one_tuple():
    x = np.array([0.3, -0.4, 1.1])
    out, vjp_fn = s2s.vjp(f_vec_single, x)
    np.testing.assert_allclose(out, np.tanh(x) * x[0])
    u = np.array([1.0, 2.0, -1.0])
    (ct,) = vjp_fn(u)
    jac = np.diag((1 - np.tanh(x) ** 2) * x[0])
    jac[:, 0] += np.tanh(x)
    np.testing.assert_allclose(ct, jac.T @ u, rtol=1e-14)


def test_vjp_fn_callable_twice_same_result():
    x = np.array([0.7, -1.3])
    y = np.array([2.0, 0.5])
    _, vjp_fn = s2s.vjp(f_vec, x, y)
    u = np.array([1.5, -2.0, 0.25])
    a = vjp_fn(u)
    b = vjp_fn(u)
    for p, q in zip(a, b):
        np.testing.assert_array_equal(p, q)
    c = vjp_fn(2.0 * u)
    for p, q in zip(a, c):
        np.testing.assert_allclose(2.0 * p, q, rtol=1e-14)
    d = vjp_fn(u)
    for p, q in zip(a, d):
        np.testing.assert_array_equal(p, q)


def test_vjp_tuple_output_cotangent():
    x = np.array([1.0, 2.0, 3.0])
    out, vjp_fn = s2s.vjp(f_vec_tuple_out, x)
    np.testing.assert_allclose(out[0], 2 * x)
    assert out[1] == pytest.approx(6.0)
    (ct,) = vjp_fn((np.array([1.0, 0.0, -1.0]), 10.0))
    np.testing.assert_allclose(ct, np.array([12.0, 10.0, 8.0]))


def test_vjp_of_pytree_input():
    x, w, b = _data()
    out, vjp_fn = s2s.vjp(loss_tuple, (w, b), x)
    assert out == pytest.approx(loss_tuple((w, b), x))
    (gwb, gx) = vjp_fn(1.0)
    ew, eb = _expected_wb(x, w, b)
    assert isinstance(gwb, tuple)
    np.testing.assert_allclose(gwb[0], ew, rtol=1e-12)
    np.testing.assert_allclose(gwb[1], eb, rtol=1e-12)
    np.testing.assert_allclose(gx, 2.0 * (x @ w + b) @ w.T, rtol=1e-12)


# --------------------------------------------------------------------------- stop_gradient


def test_stop_gradient_is_identity_on_values():
    x = np.array([1.0, 2.0])
    assert stop_gradient(x) is x


def test_td0_loss_gradient():
    rng = np.random.default_rng(4)
    theta = rng.standard_normal(4)
    s_tm1 = rng.standard_normal(4)
    s_t = rng.standard_normal(4)
    r_t = 0.75
    g = s2s.grad(td_loss)(theta, s_tm1, r_t, s_t)
    target = r_t + np.dot(theta, s_t)
    expected = -2.0 * (target - np.dot(theta, s_tm1)) * s_tm1
    np.testing.assert_allclose(g, expected, rtol=1e-13)
    v, g2 = s2s.value_and_grad(td_loss)(theta, s_tm1, r_t, s_t)
    assert v == pytest.approx((target - np.dot(theta, s_tm1)) ** 2, rel=1e-14)
    np.testing.assert_allclose(g2, expected, rtol=1e-13)


def test_td0_no_gradient_to_target_inputs():
    rng = np.random.default_rng(5)
    theta, s_tm1, s_t = rng.standard_normal(4), rng.standard_normal(4), rng.standard_normal(4)
    g_st = s2s.grad(td_loss, argnums=3)(theta, s_tm1, 0.5, s_t)
    np.testing.assert_array_equal(g_st, np.zeros(4))


def test_straight_through_estimator_has_unit_gradient():
    x = np.array([0.2, 1.7, -2.4, 3.1])
    g = s2s.grad(straight_through)(x)
    np.testing.assert_array_equal(g, np.ones(4))
    assert straight_through(x) == pytest.approx(np.sum(np.round(x)))


def test_straight_through_scaled():
    x = np.array([0.2, 1.7, -2.4, 3.1])
    np.testing.assert_array_equal(s2s.grad(straight_through_scaled)(x), np.arange(1.0, 5.0))


# --------------------------------------------------------------------------- calls, closures, globals


def test_calls_module_level_helper():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(loss_calls_helper)(x), 2 * x + np.cos(x), rtol=1e-14)


def test_calls_helper_nested():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(loss_calls_helper_twice)(x), 4 * x ** 3, rtol=1e-14)


def test_helper_with_default_arguments():
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(loss_helper_defaults)(x), np.full(3, 2.0))
    assert s2s.value_and_grad(loss_helper_defaults)(x)[0] == pytest.approx(np.sum(2 * x + 1.0))


def test_helper_with_keyword_arguments():
    x = np.array([0.5, -1.0, 2.0])
    v, g = s2s.value_and_grad(loss_helper_keywords)(x)
    assert v == pytest.approx(loss_helper_keywords(x))
    np.testing.assert_allclose(g, 3.0 + 2 * x, rtol=1e-14)


def test_helper_default_overridden_positionally():
    x = np.array([0.5, -1.0, 2.0])
    v, g = s2s.value_and_grad(loss_helper_positional_default)(x)
    assert v == pytest.approx(loss_helper_positional_default(x))
    np.testing.assert_allclose(g, np.full(3, 3.0))


def test_closure_reading_enclosing_variables():
    a = np.array([1.0, 2.0, 3.0])
    k = 2.5

    def loss(x):
        return k * np.sum(a * x * x)

    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(loss)(x), 2 * k * a * x, rtol=1e-14)


def test_closure_over_function_and_array():
    scale = np.array([2.0, -1.0])

    def inner(z):
        return np.sin(z) * scale

    def loss(x):
        return np.sum(inner(x))

    x = np.array([0.3, 0.9])
    np.testing.assert_allclose(s2s.grad(loss)(x), np.cos(x) * scale, rtol=1e-14)


def test_nested_function_no_closure():
    def loss(x):
        return np.sum(np.exp(x) * 2.0)

    x = np.array([0.3, 0.9])
    np.testing.assert_allclose(s2s.grad(loss)(x), 2.0 * np.exp(x), rtol=1e-14)


def test_module_globals_arrays_and_constants():
    x = np.array([0.5, 1.0, -1.0])
    d = np.dot(W_GLOBAL, x)
    np.testing.assert_allclose(s2s.grad(loss_global)(x), SCALE_GLOBAL * 2 * d * W_GLOBAL, rtol=1e-14)


# --------------------------------------------------------------------------- more JAX behaviour


def f_const(x):
    return 1.0


def f_uses_first_only(x, y):
    return np.sum(x)


def f_dict_one_key(p):
    return np.sum(p["a"] * 2.0)


def f_with_default(x, scale=2.0):
    return np.sum(x) * scale


def f_list_of_floats(xs):
    return xs[0] * xs[1]


def test_vjp_has_aux_returns_aux_third():
    x = np.array([1.0, 2.0])
    out, vjp_fn, aux = s2s.vjp(f_aux, x, has_aux=True)
    assert out == pytest.approx(5.0)
    np.testing.assert_allclose(aux, 3.0 * x)
    (ct,) = vjp_fn(1.0)
    np.testing.assert_allclose(ct, 2.0 * x)


def test_grad_of_constant_function_is_zero_like_input():
    g = s2s.grad(f_const)(np.array([1.0, 2.0]))
    assert np.shape(g) == (2,)
    np.testing.assert_array_equal(g, np.zeros(2))


def test_grad_wrt_unused_argument_is_zero():
    g = s2s.grad(f_uses_first_only, argnums=1)(np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0]))
    assert np.shape(g) == (3,)
    np.testing.assert_array_equal(g, np.zeros(3))


def test_dict_leaf_not_used_gets_zero_gradient():
    g = s2s.grad(f_dict_one_key)({"a": np.array([1.0]), "b": np.array([2.0, 3.0])})
    assert set(g) == {"a", "b"}
    np.testing.assert_array_equal(g["a"], [2.0])
    np.testing.assert_array_equal(g["b"], [0.0, 0.0])


def test_list_of_python_floats_gradient_is_list():
    g = s2s.grad(f_list_of_floats)([2.0, 3.0])
    assert isinstance(g, list)
    assert [float(v) for v in g] == [3.0, 2.0]


def test_transformed_function_keeps_default_arguments():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(f_with_default)(x), [2.0, 2.0])
    v, g = s2s.value_and_grad(f_with_default)(x)
    assert v == pytest.approx(6.0)
    np.testing.assert_allclose(g, [2.0, 2.0])


def test_transformed_function_accepts_keyword_arguments():
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(s2s.grad(f_with_default)(x, scale=3.0), [3.0, 3.0])
    np.testing.assert_allclose(s2s.grad(f_with_default)(x, 3.0), [3.0, 3.0])


A = np.array([[1.0, 2.0], [3.0, 4.0]])


def uses_global_array_methods(x):
    return np.sum(A.T @ x) + A.sum() * np.sum(x)


def test_attributes_and_methods_of_a_global_array():
    # d/dx sum(A.T @ x) = row sums of A; d/dx A.sum() * sum(x) = A.sum()
    np.testing.assert_allclose(s2s.grad(uses_global_array_methods)(np.ones(2)), A.sum(axis=1) + A.sum())


def pair(x):
    return x, x * 2.0


def inner_product(p):
    a, b = p
    return np.sum(a * b)


def tuple_used_twice(x):
    p = pair(x)
    return inner_product(p) + inner_product(p)


def test_tuple_returned_by_a_call_and_used_twice_adds_cotangents():
    x = np.array([0.3, -0.5])
    np.testing.assert_allclose(s2s.grad(tuple_used_twice)(x), 8.0 * x)


def optional_second(x, y=None):
    if y is None:
        return np.sum(x ** 2)
    return np.sum(x * y)


def test_jvp_and_vjp_fill_in_default_arguments():
    x = np.array([0.5, -1.0])
    out, t = s2s.jvp(optional_second, (x,), (np.ones(2),))
    assert t == pytest.approx(np.sum(2 * x))
    out, f_vjp = s2s.vjp(optional_second, x)
    (gx,) = f_vjp(1.0)
    np.testing.assert_allclose(gx, 2 * x)
