"""`import jax` pointed at s2s: `alias_jax()` registers modules named `jax`, `jax.numpy`,
`jax.random`, `jax.lax`, `jax.nn` (and `.initializers`), `jax.tree_util`, `jax.scipy` (where s2s
has it) holding s2s's functions, so a JAX program runs on s2s with its imports unchanged.

The `jax` module is s2s's namespace plus what JAX programs reach through it: `jax.tree`
(`s2s.tree`: `flatten`, `map`, `transpose`, `map_with_path`, ... over `s2s.tree_util`),
`jax.test_util` (`s2s.test_util.check_grads`),
`jax.config` (s2s's settings; the absl hooks do nothing) and `default_matmul_precision` (NumPy
has one matmul precision, so it changes nothing). See docs/porting-from-jax.md.
"""
from __future__ import annotations

import contextlib
import types
from collections.abc import Callable
from typing import Any

import s2s
from s2s import config as _config
from s2s import lax, nn, random, test_util, tree, tree_util
from s2s import numpy as snp

from ._modules import install, restore, scipy_names

__all__ = ["alias_jax", "config", "default_matmul_precision", "make_jaxpr", "restore", "tree"]


class _Config:
    """`jax.config`: `update`/`read` go to `s2s.config`; absl's flag hooks do nothing."""

    def update(self, name: str, value: Any) -> None:
        _config.update(name, value)

    def read(self, name: str) -> Any:
        return _config.read(name)

    def __getattr__(self, name: str) -> Any:
        return getattr(_config.config, name)

    def parse_flags_with_absl(self) -> None:
        """JAX reads its flags from the command line here; s2s has none."""

    def config_with_absl(self) -> None:
        """JAX reads its flags from the command line here; s2s has none."""


config = _Config()


@contextlib.contextmanager
def default_matmul_precision(precision: str | None):
    """JAX's context manager (and decorator) for the precision of float32 matmuls on
    accelerators; NumPy has one precision, so it changes nothing."""
    yield


class _Listing(str):
    """Text that prints as itself (what `make_jaxpr(f)(*args)` returns)."""

    def __repr__(self) -> str:
        return str(self)


def make_jaxpr(fun: Callable, static_argnums: Any = ()) -> Callable:
    """JAX's `make_jaxpr(fun)(*args)` prints JAX's intermediate language for `fun` at `args`.
    s2s has none: its counterpart is the Python it generates, so this returns the listing of
    `s2s.jit(fun)` specialized at `args` (`s2s.source`)."""
    def listing(*args: Any) -> _Listing:
        compiled = s2s.jit(fun, static_argnums=static_argnums)
        compiled(*args)
        return _Listing(s2s.source(compiled))
    return listing


def alias_jax() -> dict[str, Any]:
    """Register the `jax...` modules in `sys.modules`; returns what they replaced (None for a name
    that was absent), for `restore`."""
    names: dict[str, Any] = {
        "jax.numpy": snp,
        "jax.random": random,
        "jax.lax": lax,
        "jax.nn": nn,
        "jax.nn.initializers": nn.initializers,
        "jax.tree_util": tree_util,
        "jax.tree": tree,
        "jax.test_util": test_util,
    }
    names.update(scipy_names("jax"))
    top = types.ModuleType("jax", "JAX's API, served by s2s (s2s.compat.jax.alias_jax).")
    top.__dict__.update({k: getattr(s2s, k) for k in s2s.__all__})
    top.__dict__.update(numpy=snp, random=random, lax=lax, nn=nn, tree_util=tree_util, tree=tree, test_util=test_util,
                        config=config, default_matmul_precision=default_matmul_precision,
                        make_jaxpr=make_jaxpr)
    if "jax.scipy" in names:
        top.scipy = names["jax.scipy"]
    names["jax"] = top
    return install(names)
