"""The programs of benchmark workloads W1-W10 and X1 (``../shared/reference/peer-baselines.md``), as written
for NumPy, and their hand-written NumPy versions.

tools/bench/bench.py loads a fresh copy of this module for every s2s implementation it times (so the
first call pays the whole transform and compile, with no cache hit), and copies in which the
global ``np`` is ``autograd.numpy`` or ``jax.numpy`` (and ``stop_gradient`` theirs) for the
peers: every system runs the same source. Keep the module cheap to import: definitions only.
"""

import numpy as np

from s2s import stop_gradient

MAT = None  # W3's matrix, set by the benchmark (the tutorial's global)


# W1: TD(0) per-example gradients (seed 000)
def value_fn(theta, state):
    return np.dot(theta, state)


def td_loss(theta, s_tm1, r_t, s_t):
    v_tm1 = value_fn(theta, s_tm1)
    target = r_t + value_fn(theta, s_t)
    return (stop_gradient(target) - v_tm1) ** 2


def td_hand(theta, s_tm1, r_t, s_t):
    return -2.0 * (r_t + s_t @ theta - s_tm1 @ theta)[:, None] * s_tm1


# W2: 1-D convolution with a Python loop (seed 000)
def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(np.dot(x[i - 1:i + 2], w))
    return np.array(output)


def convolve_hand(xs, ws):
    n = xs.shape[1]
    return xs[:, 0:n - 2] * ws[:, 0:1] + xs[:, 1:n - 1] * ws[:, 1:2] + xs[:, 2:n] * ws[:, 2:3]


# W3: batched matrix-vector product (seed 004)
def apply_matrix(v):
    return np.dot(MAT, v)


def matvec_hand(vs):
    return np.dot(vs, MAT.T)


# W4: SELU and the gradient of its sum
def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def sum_selu(x):
    return np.sum(selu(x))


def selu_grad_hand(x):
    return 1.05 * np.where(x > 0, 1.0, 1.67 * np.exp(x))


# W5: linear layer, mean squared error
def linear_loss(params, x, y):
    w, b = params
    return np.mean((x @ w + b - y) ** 2)


def linear_hand(params, x, y):
    w, b = params
    r = x @ w + b - y
    g = 2.0 * r / r.size
    return x.T @ g, g.sum(axis=0)


# W6: Hessians
def f_dot(x):
    return np.dot(x, x)


def f_tanh3(x):
    return np.sum(np.tanh(x) ** 3)


def hess_dot_hand(x):
    return 2.0 * np.eye(x.shape[0])


def hess_tanh3_hand(x):
    t = np.tanh(x)
    return np.diag((6.0 * t - 12.0 * t ** 3) * (1.0 - t * t))


# W7: MLP 64 -> 128 tanh -> 128 tanh -> 10, softmax cross-entropy
def mlp_loss(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    z = logits - stop_gradient(np.max(logits, axis=1, keepdims=True))
    lse = np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(y * (z - lse), axis=1))


def mlp_hand(params, x, y):
    w1, b1, w2, b2, w3, b3 = params
    h1 = np.tanh(x @ w1 + b1)
    h2 = np.tanh(h1 @ w2 + b2)
    logits = h2 @ w3 + b3
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    d3 = (e / e.sum(axis=1, keepdims=True) - y) / x.shape[0]
    d2 = (d3 @ w3.T) * (1.0 - h2 * h2)
    d1 = (d2 @ w2.T) * (1.0 - h1 * h1)
    return x.T @ d1, d1.sum(axis=0), h1.T @ d2, d2.sum(axis=0), h2.T @ d3, d3.sum(axis=0)


# W9: one ReLU hidden layer, softmax cross-entropy (MNIST-sized: 784 -> 256 -> 10)
def xent_loss(params, x, y):
    w1, b1, w2, b2 = params
    h = np.maximum(x @ w1 + b1, 0.0)
    logits = h @ w2 + b2
    z = logits - stop_gradient(np.max(logits, axis=1, keepdims=True))
    lse = np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(y * (z - lse), axis=1))


def xent_hand(params, x, y):
    w1, b1, w2, b2 = params
    a = x @ w1 + b1
    h = np.maximum(a, 0.0)
    logits = h @ w2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    d2 = (e / e.sum(axis=1, keepdims=True) - y) / x.shape[0]
    d1 = (d2 @ w2.T) * (a > 0)
    return x.T @ d1, d1.sum(axis=0), h.T @ d2, d2.sum(axis=0)


# W10: one self-attention head (sequence 128, width 64), gradient of sum(out ** 2)
def attention_loss(params, x):
    wq, wk, wv = params
    q = x @ wq
    k = x @ wk
    v = x @ wv
    s = (q @ k.T) * 0.125
    s = s - stop_gradient(np.max(s, axis=1, keepdims=True))
    e = np.exp(s)
    a = e / np.sum(e, axis=1, keepdims=True)
    o = a @ v
    return np.sum(o ** 2)


def attention_hand(params, x):
    wq, wk, wv = params
    q, k, v = x @ wq, x @ wk, x @ wv
    s = (q @ k.T) * 0.125
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    o = a @ v
    do = 2.0 * o
    da = do @ v.T
    ds = a * (da - np.sum(da * a, axis=1, keepdims=True)) * 0.125
    return x.T @ (ds @ k), x.T @ (ds.T @ q), x.T @ (a.T @ do)


def attention_data(n=128, d=64):
    r = rng()
    params = tuple(r.normal(scale=1.0 / np.sqrt(d), size=(d, d)) for _ in range(3))
    return params, r.normal(size=(n, d))


# X1: tanh RNN, gradient through T steps (JAX's version: tools/bench/bench.py, lax.scan)
def rnn_loss(params, xs, h0):
    wx, wh, b = params
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ wx + h @ wh + b)
    return np.mean(h ** 2)


def rnn_hand(params, xs, h0):
    """Hand-written backpropagation through time."""
    wx, wh, b = params
    hs = [h0]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(xs[t] @ wx + hs[-1] @ wh + b))
    dh = 2.0 * hs[-1] / hs[-1].size
    dwx, dwh, db = np.zeros_like(wx), np.zeros_like(wh), np.zeros_like(b)
    for t in range(xs.shape[0] - 1, -1, -1):
        dz = dh * (1.0 - hs[t + 1] ** 2)
        dwx += xs[t].T @ dz
        dwh += hs[t].T @ dz
        db += dz.sum(axis=0)
        dh = dz @ wh.T
    return dwx, dwh, db


def rnn_data(t, b=8, h=32, n=32):
    r = rng()
    params = (r.normal(size=(n, h)) / np.sqrt(n), r.normal(size=(h, h)) / np.sqrt(h), 0.1 * r.normal(size=h))
    return params, r.normal(size=(t, b, n)), np.zeros((b, h))


# W8: nested grad of a cubic (seeds 000, 002, 004)
def cubic(x):
    return x ** 3 + 2 * x ** 2 - 3 * x + 1


def d4_hand(x):
    return 0.0 * x


def d1_hand(x):
    return 3.0 * x * x + 4.0 * x - 3.0


# data, float64, seeded
def rng(seed=0):
    return np.random.default_rng(seed)


def td_data(b):
    r = rng()
    return r.normal(size=3), r.normal(size=(b, 3)), r.normal(size=b), r.normal(size=(b, 3))


def conv_data(n, b):
    r = rng()
    return r.normal(size=(b, n)), r.normal(size=(b, 3))


def mlp_data(b=256, sizes=(64, 128, 128, 10)):
    r = rng()
    params = []
    for m, n in zip(sizes[:-1], sizes[1:]):
        params += [r.normal(scale=1.0 / np.sqrt(m), size=(m, n)), r.normal(scale=0.1, size=n)]
    x = r.normal(size=(b, sizes[0]))
    y = np.eye(sizes[-1])[r.integers(0, sizes[-1], size=b)]
    return tuple(params), x, y
