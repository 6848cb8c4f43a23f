"""A vjp_fn is a pure function of its cotangent (issue 8, family 1): the backward sweep works on
its own copy of the forward sweep's record, so it can be called any number of times, in any
order, from several threads, and never changes what the forward sweep returned or received."""
import threading

import numpy as np

import s2s
from s2s.test_util import check_grads


def shift_rows(x):
    A = x.copy()
    for i in range(2):
        A[i] = A[i + 1] * 3.0
    return A * A


def square_into_zero_d(x):
    A = np.zeros(())
    A[()] = x * x
    return A


def loop_helper(v, w):
    for k in range(2):
        v = v * 0.7 + 0.3 * np.sin(w * v)
    return v


def calls_loop_helper(x):
    return loop_helper(x * 1.0, x)


def rec(v, n):
    if n == 0:
        return v
    return rec(np.sin(v) * 1.5, n - 1)


def calls_recursion(x):
    return rec(x * 1.0, 3)


def one_row_update(x):
    A = x.copy()
    A[0] = x[1] * x[2]
    return np.sum(A * A)


def loop_sum(x):
    acc = x * 1.0
    for i in range(1):
        acc = acc * 0.5 + 0.5 * np.tanh(x)
    return np.sum(acc * acc)


def list_in_loop(x):
    lst = []
    for i in range(3):
        lst.append(np.tanh(x) * (i + 1.0))
    return np.sum(np.stack(lst), axis=0) + 0.1 * lst[-1]


def plus_equal_rows(x):
    acc = x * 1.0
    acc[1] += np.sum(x) * 0.5
    acc[:2] += x[1:]
    return acc


def with_list_aux(x):
    lst = []
    for i in range(2):
        lst.append(x * (i + 1.0))
    A = x.copy()
    A[0] = x[1] * 2.0
    return np.sum(A * lst[0]), (A, lst)


X = np.array([0.4, -0.7, 1.1])
VECTOR_FNS = [shift_rows, calls_loop_helper, calls_recursion, list_in_loop, plus_equal_rows]


def _cotangents(out, n=3, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(np.shape(out)) for _ in range(n)]


def test_vjp_fn_called_twice_gives_the_same_cotangent():
    for f in VECTOR_FNS:
        out, vjp_fn = s2s.vjp(f, X)
        u = _cotangents(out)[0]
        first = vjp_fn(u)[0]
        np.testing.assert_array_equal(vjp_fn(u)[0], first, err_msg=f.__name__)


def test_vjp_fn_in_reversed_order_gives_the_same_cotangents():
    for f in VECTOR_FNS:
        out, vjp_fn = s2s.vjp(f, X)
        us = _cotangents(out)
        forward = [vjp_fn(u)[0] for u in us]
        backward = [vjp_fn(u)[0] for u in reversed(us)][::-1]
        for a, b in zip(forward, backward):
            np.testing.assert_array_equal(a, b, err_msg=f.__name__)
        # and each equals the cotangent of a fresh vjp (the reference: one call per forward sweep)
        for u, a in zip(us, forward):
            np.testing.assert_allclose(s2s.vjp(f, X)[1](u)[0], a, err_msg=f.__name__)


def test_vjp_fn_from_several_threads_gives_the_same_cotangents():
    for f in (shift_rows, calls_loop_helper, plus_equal_rows):
        out, vjp_fn = s2s.vjp(f, X)
        us = _cotangents(out, n=8, seed=1)
        expected = [s2s.vjp(f, X)[1](u)[0] for u in us]
        got = [None] * len(us)

        def work(k):
            for _ in range(20):
                got[k] = vjp_fn(us[k])[0]
        threads = [threading.Thread(target=work, args=(k,)) for k in range(len(us))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for e, g in zip(expected, got):
            np.testing.assert_allclose(g, e, err_msg=f.__name__)


def test_backward_sweep_leaves_outputs_and_inputs_unchanged():
    for f in VECTOR_FNS:
        x = X.copy()
        out, vjp_fn = s2s.vjp(f, x)
        out_before = np.array(out, copy=True)
        vjp_fn(np.ones_like(out))
        np.testing.assert_array_equal(out, out_before, err_msg=f.__name__)
        np.testing.assert_array_equal(x, X, err_msg=f.__name__)
        np.testing.assert_array_equal(out, f(X), err_msg=f.__name__)


def test_aux_and_value_are_taken_before_the_backward_sweep_restores():
    (value, (A, lst)), g = s2s.value_and_grad(with_list_aux, has_aux=True)(X)
    ref_value, (ref_A, ref_lst) = with_list_aux(X)
    np.testing.assert_allclose(value, ref_value)
    np.testing.assert_array_equal(A, ref_A)
    assert len(lst) == 2
    np.testing.assert_array_equal(lst[1], ref_lst[1])
    out, vjp_fn, aux = s2s.vjp(with_list_aux, X, has_aux=True)
    vjp_fn(1.0)
    vjp_fn(1.0)
    np.testing.assert_array_equal(aux[0], ref_A)
    assert len(aux[1]) == 2


def test_value_and_grad_of_a_zero_d_update_returns_the_updated_value():
    value, g = s2s.value_and_grad(square_into_zero_d)(3.0)
    assert float(value) == 9.0 and float(g) == 6.0


def test_jacrev_of_row_shifts_equals_jacfwd_and_finite_differences():
    x = np.array([1.0, 2.0, 3.0])
    jr, jf = s2s.jacrev(shift_rows)(x), s2s.jacfwd(shift_rows)(x)
    assert jr[1, 2] == 54.0  # d(3 * A[2]... )^2: 2 * (3 * 3) * 3, where it was 12
    np.testing.assert_allclose(jr, jf)
    check_grads(shift_rows, (x,), order=1, modes=("rev",))


def test_jacrev_through_helpers_with_loops_and_recursion_equals_jacfwd():
    for f in (calls_loop_helper, calls_recursion, list_in_loop, plus_equal_rows):
        np.testing.assert_allclose(s2s.jacrev(f)(X), s2s.jacfwd(f)(X), rtol=1e-12, err_msg=f.__name__)
        check_grads(f, (X,), order=1, modes=("rev",))


def _fd_hessian(f, x, eps=1e-6):
    g = s2s.grad(f)
    return np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(len(x))], axis=1)


def test_reverse_over_reverse_equals_finite_differences_of_grad():
    for f in (one_row_update, loop_sum):
        h = s2s.jacrev(s2s.jacrev(f))(X)
        np.testing.assert_allclose(h, _fd_hessian(f, X), rtol=1e-6, atol=1e-8, err_msg=f.__name__)


def test_forward_over_reverse_equals_reverse_over_reverse():
    """Batched jacfwd (vmap of a jvp) of code that updates arrays in place: each example's fallback
    call owns its unbatched arguments (jacfwd(grad(one_row_update))[1, 1] was 1.34, not 4.42)."""
    for f in (one_row_update, loop_sum):
        h = s2s.jacrev(s2s.jacrev(f))(X)
        np.testing.assert_allclose(h, s2s.jacfwd(s2s.grad(f))(X), rtol=1e-12, err_msg=f.__name__)
        np.testing.assert_allclose(h, s2s.hessian(f)(X), rtol=1e-12, err_msg=f.__name__)
