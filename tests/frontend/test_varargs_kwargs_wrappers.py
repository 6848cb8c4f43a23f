"""Wrappers `def g(*args, **kwargs): ... return f(*args, **kwargs)` (autograd's test suite's
symmetrize_matrix_arg): transformed themselves, made by a call inside a transformed function, and
with `args = list(args); args[i] = ...` before `f(*args)`; against hand-derived gradients and a
loop over the examples. A keyword the wrapper cannot place is still refused by name."""
import numpy as np
import pytest

import s2s


def weighted(x, c, scale=1.0):
    return scale * np.sum(x * c)


def symmetrize_arg(fun, argnum):
    def symmetrized(*args, **kwargs):
        args = list(args)
        args[argnum] = 0.5 * (args[argnum] + args[argnum].T)
        return fun(*args, **kwargs)
    return symmetrized


def passthrough(fun):
    def wrapped(*args, **kwargs):
        return fun(*args, **kwargs)
    return wrapped


X = np.array([[1.0, 2.0], [3.0, 4.0]])
C = np.array([[0.5, -1.0], [2.0, 0.25]])


def test_a_transformed_wrapper_with_args_and_kwargs():
    np.testing.assert_allclose(s2s.grad(passthrough(weighted))(X, C), C)
    np.testing.assert_allclose(s2s.grad(symmetrize_arg(weighted, 1), argnums=1)(X, C), 0.5 * (X + X.T))
    np.testing.assert_allclose(s2s.grad(symmetrize_arg(weighted, 0))(X, C), 0.5 * (C + C.T))


def test_a_wrapper_made_and_called_inside_a_transformed_function():
    def loss(x, c):
        return symmetrize_arg(weighted, 1)(x, c) + passthrough(weighted)(x, c, 2.0)

    np.testing.assert_allclose(s2s.grad(loss)(X, C), 0.5 * (C + C.T) + 2.0 * C)
    np.testing.assert_allclose(s2s.grad(loss, argnums=1)(X, C), 0.5 * (X + X.T) + 2.0 * X)
    xs = np.stack([X, 2.0 * X, X.T])
    got = s2s.vmap(s2s.grad(loss), in_axes=(0, None))(xs, C)
    np.testing.assert_allclose(got, np.stack([s2s.grad(loss)(x, C) for x in xs]))


def test_a_local_wrapper_passes_keywords_through_kwargs():
    def loss(x, c):
        def wrapped(*args, **kwargs):
            return weighted(*args, **kwargs)
        return wrapped(x, c, scale=2.0) + wrapped(x, c)

    def loss_list(x, c):
        def wrapped(*args, **kwargs):
            args = list(args)
            args[0] = 0.5 * (args[0] + args[0].T)
            return weighted(*args, **kwargs)
        return wrapped(x, c, 3.0) + wrapped(x, c, scale=0.5)

    np.testing.assert_allclose(s2s.grad(loss)(X, C), 3.0 * C)
    np.testing.assert_allclose(s2s.grad(loss_list)(X, C), 3.5 * 0.5 * (C + C.T))
    xs = np.stack([X, 2.0 * X, X.T])
    np.testing.assert_allclose(s2s.vmap(s2s.grad(loss), in_axes=(0, None))(xs, C), [s2s.grad(loss)(x, C) for x in xs])


def test_a_keyword_the_wrapper_cannot_place_is_refused():
    def loss(x, c):
        return passthrough(weighted)(x, c, scale=2.0)  # (scale reaches weighted through **kwargs)

    with pytest.raises(s2s.S2SError):
        s2s.grad(loss)(X, C)


def test_a_list_whose_length_may_change_is_not_unpacked_blindly():
    """`args[1:] = [...]` may change the list's length: `f(*args)` is then refused, never guessed."""
    def loss(x, c):
        args = [x, c]
        args = list(args)
        args[1:] = [c, 3.0]
        return weighted(*args)

    with pytest.raises(s2s.S2SError, match="how many values"):
        s2s.grad(loss)(X, C)


def test_vmap_of_an_item_assignment_into_a_list():
    def f(x, c):
        args = [x, c]
        args[0] = 0.5 * (args[0] + args[0].T)
        return np.sum(args[0] * args[1])

    xs = np.stack([X, 2.0 * X, X.T])
    np.testing.assert_allclose(s2s.vmap(f, in_axes=(0, None))(xs, C), [f(x, C) for x in xs])
