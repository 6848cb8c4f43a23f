"""Functions of the vmap tests (s2s reads their source): the seeds' examples and small helpers."""

import numpy as np

import s2s


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(np.dot(x[i - 1:i + 2], w))
    return np.array(output)


def value_fn(theta, state):
    return np.dot(theta, state)


def td_loss(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (s2s.stop_gradient(target) - v_tm1) ** 2


MAT = np.arange(15.0).reshape(5, 3) / 7.0


def apply_matrix(v):
    return np.dot(MAT, v)


def scaled_norm(x, w):
    return np.sum(np.tanh(x * w) ** 2)


def dict_params(p, x):
    return np.sum(p["w"] * x) + p["b"]


def calls_grad(x):
    return s2s.grad(scaled_norm)(x, 2.0) * x


def calls_vmap(xs):
    return np.sum(s2s.vmap(scaled_norm, in_axes=(0, None))(xs, 1.5))


def count_steps(x):
    n = 0
    while x > 1.0:
        x = x / 2.0
        n = n + 1
    return n


def piecewise(x):
    if x > 0.0:
        y = x * x
    else:
        y = np.sin(x)
    return y


def sum_vmap_piecewise(xs):
    return np.sum(s2s.vmap(piecewise)(xs))


def rows_sq(m):
    out = np.zeros(3)
    for i in range(3):
        out[i] = np.sum(m[i] * m[i])
    return out


def sum_vmap_rows(ms):
    return np.sum(s2s.vmap(rows_sq)(ms) ** 2)


def matvec_sum(xs):
    return np.sum(s2s.vmap(apply_matrix)(xs))


def diag_sum(x):
    return np.sum(np.diag(x) * 2.0)


def sum_vmap_diag(xs):
    return np.sum(s2s.vmap(diag_sum)(xs))


@s2s.custom_vjp
def clip_grad(x):
    return np.tanh(x)


def _clip_fwd(x):
    return np.tanh(x), x


def _clip_bwd(x, g):
    return (g * 0.5,)


clip_grad.defvjp(_clip_fwd, _clip_bwd)


@s2s.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (dx,) = primals, tangents
    return np.log1p(np.exp(x)), dx / (1.0 + np.exp(-x))  # (calling softplus here recurses in grad: main's bug)


def uses_custom(x):
    return np.sum(clip_grad(x) + softplus(x))


def make_scaler(k):
    def scaled(x):
        if x > 0.0:
            return x * k
        return x - k
    return scaled


def rank_changes(x, w):
    s = 0.0
    for i in range(2):
        s = s + w * x
    return s + x


def tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def vec_fn(x):
    return np.sin(x) * x[0] + np.cumsum(x) ** 2
