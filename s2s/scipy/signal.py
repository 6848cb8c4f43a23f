"""`s2s.scipy.signal.convolve`: JAX's and SciPy's `convolve(in1, in2, mode)`, which also takes
autograd's `axes` and `dot_axes` (autograd.scipy.signal's generalized convolution: convolve along
the paired axes, sum the paired dot axes, keep the others). A primitive with derivative rules at
every order and a batching rule (s2s/compiler/primitives/rules_signal.py)."""
from __future__ import annotations

from ..runtime.signal import signal_convolve

__all__ = ["convolve"]


def convolve(in1, in2, mode="full", method="auto", axes=None, dot_axes=((), ())):
    """The convolution of `in1` and `in2` along all their axes (or the paired `axes`, summing the
    paired `dot_axes`); `mode` "full", "valid" or "same". `method` is accepted (NumPy computes
    directly)."""
    return signal_convolve(in1, in2, axes, dot_axes, mode)
