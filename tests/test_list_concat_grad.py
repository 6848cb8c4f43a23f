"""Gradients through `+` of lists and tuples (concatenation, not a sum): each operand's cotangent is
its slice of the result's, checked against central differences to second order in both modes."""

import numpy as np
import pytest

import s2s
from s2s.test_util import check_grads


def slice_then_append(A, B):
    L = [A, B]
    M = L[1:] + [A]
    return np.sum(M[0] * M[1])


def rotated(A, B):
    L = [A, B]
    M = L[1:] + L[:1]
    return np.sum(M[0] * np.sin(M[1]))


def zip_with_rotation(A, B):
    L = [A, B]
    s = 0.0
    for a, b in zip(L, L[1:] + [A]):
        s = s + np.sum(a * b)
    return s


def tuples(A, B):
    T = (A,) + (B, A)
    return np.sum(T[0] * T[1] * np.cos(T[2]))


def copies(L):
    M = list(L)
    N = tuple(L)
    return np.sum(M[0] * N[1]) + np.sum(np.tanh(L[0]))


def list_copies(A, B):
    return copies([A, B])


def arrays_added(A, B):
    return np.sum((A + B) * A) + np.sum(A[1:] + B[:-1])


RNG = np.random.default_rng(2)
ARGS = (RNG.normal(size=4), RNG.normal(size=4))


@pytest.mark.parametrize("f", [slice_then_append, rotated, zip_with_rotation, tuples, list_copies, arrays_added],
                         ids=lambda f: f.__name__)
def test_concatenation_gradients_match_finite_differences(f):
    check_grads(f, ARGS, order=2, modes=("rev", "fwd"))


def test_rotated_gradient_by_hand():
    A, B = ARGS
    gA, gB = s2s.grad(rotated, argnums=(0, 1))(A, B)  # f = sum(B * sin(A))
    np.testing.assert_allclose(gA, B * np.cos(A), rtol=1e-12)
    np.testing.assert_allclose(gB, np.sin(A), rtol=1e-12)


@pytest.mark.parametrize("f", [slice_then_append, rotated, zip_with_rotation], ids=lambda f: f.__name__)
def test_vmap_of_grad_matches_loop(f):
    As, Bs = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    got = s2s.vmap(s2s.grad(f, argnums=(0, 1)))(As, Bs)
    want = [s2s.grad(f, argnums=(0, 1))(a, b) for a, b in zip(As, Bs)]
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([w[k] for w in want]), rtol=1e-10, atol=1e-12)
