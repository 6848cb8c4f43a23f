"""A callee in a module of its own whose derivative s2s refuses only when it runs (a pseudo-inverse
whose cutoff drops a singular value): tests/api/test_runtime_error_lines.py checks that the error
names this file and the line of the call."""
import numpy as np


def inverse_sum(y):
    z = np.linalg.pinv(np.outer(y, y), rcond=0.5)
    return np.sum(z)
