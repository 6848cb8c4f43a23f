"""Functions whose `python -m s2s dump` modules tests/cli/test_dump_runs.py imports and runs, one
per construct the generated code handles differently: a loop, an if, a call of a helper function,
an in-place store (with a loop and an if around it), and one of two arguments for the options
(--argnums, --in-axes)."""
import numpy as np

SCALE = 0.5


def loop_sum(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sin(x[i]) * x[i]
    return s * SCALE


def branch(x):
    if np.sum(x) > 0:
        return np.sum(x * x * x)
    return np.sum(np.exp(x))


def helper(x):
    return np.tanh(x) * x


def calls_helper(x):
    return np.sum(helper(x) * np.cos(x))


def store(x):
    y = np.zeros_like(x)
    for i in range(x.shape[0]):
        if x[i] > 0:
            y[i] = x[i] ** 2
        else:
            y[i] = np.tanh(x[i])
    return np.sum(y * y)


def weighted(x, w):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + np.tanh(x[i] * w[i]) * x[i]
    return total
