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
