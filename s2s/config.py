"""Run-time settings of s2s, JAX-style: ``s2s.config.update(name, value)`` / ``config.read(name)``.

A leaf module (imports nothing of s2s but its errors) so every other module may consult it.
Settings start from environment variables (``S2S_BACKEND``, ``S2S_THREEFRY_PARTITIONABLE``,
``S2S_ENABLE_X64``, ``S2S_TRACEBACK``) read at import, and ``update`` changes them for the rest of the process.
``enable_x64`` (JAX's ``jax_enable_x64``) decides the default dtype of what `s2s.random` draws and
`s2s.nn.initializers` make: float64/int64 with it, float32/int32 without, as in JAX. NumPy code
in a transformed function computes in the dtypes NumPy gives either way. ``traceback``
(``S2S_TRACEBACK``): "filtered" hides s2s's own frames from an S2SError's traceback, "full" keeps
them (tracebacks.py). ``heap_top_pad`` (``S2S_HEAP_TOP_PAD``, bytes, default 64 MiB): the freed
memory glibc keeps in the process once a `jit` function first runs (base/heap.py); 0 leaves
the C allocator as it is.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .errors import S2STypeError, S2SValueError

__all__ = ["BACKENDS", "Config", "config", "default_float", "default_int", "read", "update"]

BACKENDS = ("numpy", "cupy", "dask")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _bool(name: str, value: Any) -> bool:
    if isinstance(value, str):
        text = value.strip().lower()
        if text in _TRUE | _FALSE:
            return text in _TRUE
    elif isinstance(value, (bool, int)) and value in (0, 1):
        return bool(value)
    raise S2SValueError(f"s2s.config: {name} must be True or False, got {value!r}")


def _backend(name: str, value: Any) -> str:
    if not isinstance(value, str) or value.strip().lower() not in BACKENDS:
        raise S2SValueError(
            f"s2s.config: {name} must be one of {', '.join(map(repr, BACKENDS))}, got {value!r}"
        )
    return value.strip().lower()


TRACEBACKS = ("filtered", "full")


def _traceback(name: str, value: Any) -> str:
    if not isinstance(value, str) or value.strip().lower() not in TRACEBACKS:
        raise S2SValueError(
            f"s2s.config: {name} must be one of {', '.join(map(repr, TRACEBACKS))}, got {value!r}"
        )
    return value.strip().lower()


def _bytes(name: str, value: Any) -> int:
    try:
        n = int(value.strip()) if isinstance(value, str) else value
    except ValueError:
        n = None
    if type(n) is not int or not 0 <= n < 2 ** 31:
        raise S2SValueError(f"s2s.config: {name} must be a number of bytes from 0 to 2**31 - 1, got {value!r}")
    return n


# name -> (validator, default, environment variable)
_SETTINGS = {
    "threefry_partitionable": (_bool, False, "S2S_THREEFRY_PARTITIONABLE"),
    "backend": (_backend, "numpy", "S2S_BACKEND"),
    "enable_x64": (_bool, False, "S2S_ENABLE_X64"),
    "traceback": (_traceback, "filtered", "S2S_TRACEBACK"),
    "heap_top_pad": (_bytes, 64 << 20, "S2S_HEAP_TOP_PAD"),
}


class Config:
    """The current settings; ``update`` validates, ``read`` returns the value."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        for name, (check, default, env) in _SETTINGS.items():
            raw = os.environ.get(env)
            self._values[name] = default if raw is None else check(f"{env} (environment)", raw)

    def _name(self, name: str) -> str:
        if not isinstance(name, str):
            raise S2STypeError(f"s2s.config: setting names are strings, got {name!r}")
        key = name.removeprefix("jax_")  # accept JAX's spelling, e.g. jax_threefry_partitionable
        if key not in _SETTINGS:
            raise S2SValueError(
                f"s2s.config: unknown setting {name!r}; known: {', '.join(sorted(_SETTINGS))}"
            )
        return key

    def update(self, name: str, value: Any) -> None:
        """Set ``name`` to ``value`` (checked) for the rest of the process."""
        key = self._name(name)
        self._values[key] = _SETTINGS[key][0](key, value)

    def read(self, name: str) -> Any:
        """The current value of setting ``name``."""
        return self._values[self._name(name)]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.read(name)
        except S2SValueError as exc:
            raise AttributeError(str(exc)) from None

    def __repr__(self) -> str:
        return f"s2s.config({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"


config = Config()


def update(name: str, value: Any) -> None:
    """Set ``name`` to ``value`` (checked): ``s2s.config.update("threefry_partitionable", True)``."""
    config.update(name, value)


def read(name: str) -> Any:
    """The current value of setting ``name``: ``s2s.config.read("backend")``."""
    return config.read(name)


def default_float() -> type:
    """The float dtype JAX's functions default to: float64 with ``enable_x64``, else float32."""
    return np.float64 if config.read("enable_x64") else np.float32


def default_int() -> type:
    """The integer dtype JAX's functions default to: int64 with ``enable_x64``, else int32."""
    return np.int64 if config.read("enable_x64") else np.int32
