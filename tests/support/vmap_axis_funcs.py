"""Functions whose reduction axis is a variable (None at run time), for tests/test_vmap_axis.py."""
import numpy as np


def centered(a, axis=None):
    return a - np.mean(a, axis=axis, keepdims=True)


def std_of(x):
    return np.std(x)


def var_sum(x, axis=None):
    return np.sum(np.var(x, axis=axis) * x)
