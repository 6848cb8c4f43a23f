"""Per-example layer code with boolean masks, in a module of its own (tests/vmap/test_masked_selections.py
batches it from another file): LeakyReLU, an SVM's hinge loss and its hand-written gradient."""
import numpy as np


def leaky_relu(x, alpha=0.1):
    out = x.copy()
    out[out < 0] *= alpha
    return out


def hinge(scores, y):
    margins = scores - scores[y] + 1.0
    margins[y] = 0.0
    margins[margins < 0] = 0
    return np.sum(margins)


def hinge_dscores(scores, y):
    margins = scores - scores[y] + 1.0
    margins[y] = 0.0
    d = np.zeros_like(scores)
    d[margins > 0] = 1
    d[y] = -np.sum(margins > 0)
    return d


def positive_mean(x):
    return np.mean(x[x > 0])


def returns_selection(x):
    return x[x > 0]


def softmax(z):
    """A softmax for one example or a batch of rows, chosen by the rank (the same for every example)."""
    if z.ndim == 1:
        z = z - np.max(z)
        e = np.exp(z)
        return e / np.sum(e)
    z = z - np.max(z, axis=1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=1, keepdims=True)


def appends_per_example(x):
    out = []
    if np.sum(x) > 0:
        out.append(x)
    return np.sum(x)


def ranged(x, n):
    s = 0.0
    for i in range(n, 5):
        s = s + x[i]
    return s


def branchy(x):
    if np.sum(x) > 0:
        z = np.exp(x) * x
    else:
        z = np.sin(x) * x
    return np.sum(z * z)
