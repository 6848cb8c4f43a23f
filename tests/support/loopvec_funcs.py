"""Functions with loops for the loop-vectorization tests (tests/test_loopvec.py): which of them
the pass vectorizes is listed in VECTORIZED."""
import numpy as np


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(np.dot(x[i - 1:i + 2], w))
    return np.array(output)


def window_sums(x):
    out = []
    for i in range(len(x)):
        out.append(np.sum(x[i:i + 3]))  # the last two windows are shorter: the loop runs as written
    return np.array(out)


def pair_products(x):
    out = []
    for i in range(0, len(x) - 1, 2):
        out.append(x[i] * x[i + 1])
    return np.array(out)


def reversed_affine(x):
    out = []
    for i in range(len(x) - 1, -1, -1):
        out.append(x[i] * 2.0 + 1.0)
    return np.array(out)


def scatter(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = x[i] * x[i] + np.sin(x[i])
    return out


def index_branch(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        if i % 2 == 0:
            out[i] = x[i] * 2.0
        else:
            out[i] = -x[i]
    return out


def value_branch(x):
    out = []
    for i in range(len(x)):
        v = x[i]
        if v > 0:
            y = v * v
        else:
            y = -v
        out.append(y)
    return np.array(out)


def outer_plus(x, y):
    out = np.zeros((len(x), len(y)))
    for i in range(len(x)):
        for j in range(len(y)):
            out[i, j] = x[i] * y[j] + 1.0
    return out


def scaled_rows(m, v):
    out = np.zeros_like(m)
    for i in range(len(m)):
        out[i] = m[i] * v
    return out


def row_fill(m, v):
    out = np.zeros_like(m)
    for i in range(len(m)):
        out[i] = v[i]  # a scalar filling a row
    return out


def row_slices(m, v):
    out = np.ones_like(m)
    for i in range(len(m)):
        out[i, 1:] = m[i, :2] * v[0]
    return out


def running_sum(x):
    s = 0.0
    out = []
    for i in range(len(x)):
        s = s + x[i]
        out.append(s)
    return np.array(out)


def first_n(x, n):
    out = []
    for i in range(n):
        out.append(x[i] * 3.0)
    return np.array(out)


def conv_loss(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(np.dot(x[i - 1:i + 2], w))
    y = np.array(output)
    return np.sum(y * y)


def scatter_loss(x):
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = np.tanh(x[i]) * x[i]
    return np.sum(out * out)


VECTORIZED = {"convolve", "window_sums", "pair_products", "reversed_affine", "scatter", "index_branch",
              "value_branch", "outer_plus", "scaled_rows", "row_fill", "row_slices", "first_n", "conv_loss", "scatter_loss"}
