"""autograd.scipy.signal: autograd's `convolve(A, B, axes=None, dot_axes=[(), ()], mode="full")`,
s2s.scipy.signal's primitive with autograd's order of parameters."""
from __future__ import annotations

from s2s.runtime.signal import signal_convolve

__all__ = ["convolve"]


def convolve(A, B, axes=None, dot_axes=((), ()), mode="full"):  # noqa: N803 - autograd's names
    """`A` and `B` convolved along the paired `axes`, the paired `dot_axes` summed, the other axes
    kept (a's, then b's, then the convolved ones); `mode` "full", "valid" or "same"."""
    return signal_convolve(A, B, axes, dot_axes, mode)
