"""Elementwise functions that jit fuses into one kernel, shared by the fusion tests
(tests/test_fusion.py: NumPy kernels; tests/test_backends_kernels.py: their CuPy form)."""
import numpy as np


def selu(x):
    return 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67)


def mixed(x, y, a):
    return np.tanh(x * a + y) / (1.0 + np.abs(y) ** 2) - np.maximum(x, y)


def positive(x, y):
    return x * 2.0 + y * y > 1.0


def energy(x):
    return np.sum(np.exp(-x * x) * 0.5 + x)
