"""Stand-ins for what JAX's and autograd's example programs import besides the library itself:
plotting (matplotlib), command lines and tests (absl), privacy accounting (dp_accounting), JAX's
internal helpers (jax._src) and MNIST, which cannot be downloaded here.

The MNIST stand-in has MNIST's shapes and dtypes (uint8 28x28 images, uint8 labels 0..9) and
fewer examples, drawn from a fixed seed, so a training loop over it runs a few steps. Nothing
here computes a number the programs' results depend on, except the images themselves.
"""
from __future__ import annotations

import sys
import types
import unittest
from collections.abc import Callable
from typing import Any

import numpy as np

N_TRAIN, N_TEST = 100, 20


def synthetic_mnist_raw() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(train images, train labels, test images, test labels) as MNIST's files hold them: uint8
    images (n, 28, 28) with a class-dependent blob on noise, so classes are learnable."""
    rng = np.random.RandomState(20260323)
    out = []
    for n in (N_TRAIN, N_TEST):
        labels = rng.randint(0, 10, size=n).astype(np.uint8)
        images = rng.randint(0, 64, size=(n, 28, 28))
        rows = 2 + 2 * labels
        for i in range(n):
            images[i, rows[i]:rows[i] + 6, 4:24] += 180
        out += [np.clip(images, 0, 255).astype(np.uint8), labels]
    return tuple(out)


class _Anything:
    """Whatever a plotting call returns: every attribute and call gives another one, and it
    unpacks into two (`fig, ax = plt.subplots()`)."""

    def __getattr__(self, name: str) -> _Anything:
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> _Anything:
        return self

    def __iter__(self):
        return iter((self, self))

    def __getitem__(self, index: Any) -> _Anything:
        return self


class _NothingModule(types.ModuleType):
    """A module whose every attribute is an `_Anything` (matplotlib and its submodules)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


def matplotlib_modules() -> dict[str, types.ModuleType]:
    """matplotlib, pyplot, image and cm: every call does nothing."""
    mods = {name: _NothingModule(name) for name in ("matplotlib", "matplotlib.pyplot", "matplotlib.image",
                                                    "matplotlib.cm")}
    for name in ("pyplot", "image", "cm"):
        setattr(mods["matplotlib"], name, mods["matplotlib." + name])
    return mods


class _Flag:
    def __init__(self, value: Any) -> None:
        self.value = value


def absl_modules(argv: list[str]) -> dict[str, types.ModuleType]:
    """absl's `app.run(main)` (parses `--name=value` flags from `argv`, then calls main),
    `flags.DEFINE_*`, and `testing.absltest.main` / `parameterized.TestCase` over unittest
    (exits as absltest does: status 0 when every test passed). Used where absl-py is not
    installed; with absl-py, the programs get the real one."""
    registry: dict[str, _Flag] = {}
    kinds: dict[str, Callable] = {}

    def define(kind: Callable) -> Callable:
        def DEFINE(name: str, default: Any, help: str = "", **kw: Any) -> _Flag:
            registry[name], kinds[name] = _Flag(default), kind
            return registry[name]
        return DEFINE

    def parse(kind: Callable, text: str) -> Any:
        if kind is bool:
            return text.lower() in ("1", "true", "yes")
        return kind(text)

    def run(main: Callable) -> None:
        for arg in argv[1:]:
            name, _, text = arg.lstrip("-").partition("=")
            registry[name].value = parse(kinds[name], text)
        main(argv)

    def test_main() -> None:
        module = sys.modules["__main__"]
        suite = unittest.defaultTestLoader.loadTestsFromModule(module)
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=0).run(suite)
        sys.exit(0 if result.wasSuccessful() else 1)

    absl = types.ModuleType("absl")
    app = types.ModuleType("absl.app")
    app.run = run
    flags = types.ModuleType("absl.flags")
    flags.DEFINE_boolean = flags.DEFINE_bool = define(bool)
    flags.DEFINE_float, flags.DEFINE_integer, flags.DEFINE_string = define(float), define(int), define(str)
    flags.FLAGS = registry
    testing = types.ModuleType("absl.testing")
    absltest = types.ModuleType("absl.testing.absltest")
    absltest.main, absltest.TestCase = test_main, unittest.TestCase
    parameterized = types.ModuleType("absl.testing.parameterized")
    parameterized.TestCase = unittest.TestCase
    absl.app, absl.flags, absl.testing = app, flags, testing
    testing.absltest, testing.parameterized = absltest, parameterized
    return {"absl": absl, "absl.app": app, "absl.flags": flags, "absl.testing": testing,
            "absl.testing.absltest": absltest, "absl.testing.parameterized": parameterized}


def dp_accounting_modules() -> dict[str, types.ModuleType]:
    """dp_accounting's RDP accountant, answering NaN: the privacy bound is not JAX's
    computation and not compared; the program's own numbers are."""
    class RdpAccountant:
        def __init__(self, orders: Any) -> None:
            pass

        def compose(self, event: Any, count: int = 1) -> None:
            pass

        def get_epsilon(self, delta: float) -> float:
            return float("nan")

    top = types.ModuleType("dp_accounting")
    dp_event = types.ModuleType("dp_accounting.dp_event")
    dp_event.PoissonSampledDpEvent = lambda q, event: ("poisson", q, event)
    dp_event.GaussianDpEvent = lambda sigma: ("gaussian", sigma)
    rdp = types.ModuleType("dp_accounting.rdp")
    rdp.rdp_privacy_accountant = types.SimpleNamespace(RdpAccountant=RdpAccountant)
    top.dp_event, top.rdp = dp_event, rdp
    return {"dp_accounting": top, "dp_accounting.dp_event": dp_event, "dp_accounting.rdp": rdp}


def jax_internal_modules() -> dict[str, types.ModuleType]:
    """`jax._src.util` (safe_zip, safe_map, unzip2: plain Python, used by optimizers.py) and
    `jax._src.test_util` (imported by examples_test.py for its flags only)."""
    def safe_zip(*args: Any) -> list:
        lengths = {len(a) for a in args}
        if len(lengths) > 1:
            raise ValueError(f"safe_zip: lengths differ: {sorted(lengths)}")
        return list(zip(*args))

    def safe_map(f: Callable, *args: Any) -> list:
        return [f(*xs) for xs in safe_zip(*[list(a) for a in args])]

    def unzip2(pairs: Any) -> tuple[tuple, tuple]:
        firsts, seconds = [], []
        for a, b in pairs:
            firsts.append(a)
            seconds.append(b)
        return tuple(firsts), tuple(seconds)

    src = types.ModuleType("jax._src")
    util = types.ModuleType("jax._src.util")
    util.safe_zip, util.safe_map, util.unzip2 = safe_zip, safe_map, unzip2
    test_util = types.ModuleType("jax._src.test_util")
    src.util, src.test_util = util, test_util
    return {"jax._src": src, "jax._src.util": util, "jax._src.test_util": test_util}


def autograd_data_mnist() -> dict[str, types.ModuleType]:
    """autograd's `data_mnist` (which downloads) as a module whose `mnist()` gives the stand-in."""
    mod = types.ModuleType("data_mnist")
    mod.mnist = synthetic_mnist_raw
    return {"data_mnist": mod}
