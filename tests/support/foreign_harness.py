"""Runs JAX's and autograd's example programs, unmodified, on s2s or on the real library.

`run(lib, name, backend)` executes `tests/programs/foreign/<lib>/examples/<name>.py` as
`__main__` and returns what it printed. With backend "s2s" the program's `import jax...` /
`import autograd...` load s2s's modules (`s2s.compat.jax.alias_jax`,
`s2s.compat.autograd.alias_autograd`); with "real" they load the installed library. Either way
the run is in float64 (`config.update("jax_enable_x64", True)`), JAX's `example_libraries` are
the stored copies, and plotting, absl, dp_accounting and MNIST are `foreign_fakes`' stand-ins.
Programs are configured only as their authors allow (command-line flags, `ARGV`), by the size of
the data set, by a cap on `scipy.optimize.minimize`'s iterations (`MINIMIZE_MAXITER`), and for
programs that print a line per step of a long iteration, by the number of lines (`MAX_LINES`).
`numbers(text)` is what a run is compared by: every number printed, timings left out.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import io
import re
import runpy
import sys
import types
from pathlib import Path
from typing import Any

import foreign_fakes
import numpy as np

FOREIGN = Path(__file__).resolve().parents[1] / "programs" / "foreign"
REFERENCE = FOREIGN / "reference"

JAX_PROGRAMS = ["mnist_classifier_fromscratch", "mnist_classifier", "differentially_private_sgd",
                "mnist_vae", "advi", "gaussian_process_regression", "kernel_lsq", "examples_test"]
AUTOGRAD_PROGRAMS = [
    "bayesian_neural_net", "bayesian_optimization", "black_box_svi", "convnet", "deep_gaussian_process",
    "define_gradient", "dot_graph", "fixed_points", "gaussian_process", "generative_adversarial_net", "gmm", "gplvm",
    "hmm_em", "ica", "logistic_regression", "lstm", "mixture_variational_inference",
    "natural_gradient_black_box_svi", "negative_binomial_maxlike", "neural_net", "neural_net_regression",
    "ode_net", "print_trace", "rkhs", "rnn", "rosenbrock", "sinusoid", "tanh", "variational_autoencoder",
]
PROGRAMS = {"jax": JAX_PROGRAMS, "autograd": AUTOGRAD_PROGRAMS}

# programs run without x64 on both sides: JAX with x64 refuses `lax.conv_general_dilated` of
# the float32 images (datasets.mnist makes float32) with float64 weights
FLOAT32 = {("jax", "differentially_private_sgd")}

# autograd's examples that fit with scipy.optimize.minimize run it to convergence (minutes to
# hours); each run gets at most this many iterations (`options={"maxiter": ...}`), the same on
# both sides: the program's own objective and gradient, fewer steps
MINIMIZE_MAXITER = 10

# command-line flags a program reads (absl): fewer epochs, the same model and algorithm
ARGV = {("jax", "differentially_private_sgd"): ["--epochs=2"]}

# programs that iterate for thousands of steps and print as they go, with no setting to shorten
# them: each run stops, the same on both sides, once it has printed this many lines (hmm_em's EM
# prints its log likelihood at each of its thousands of iterations, ode_net each of its 1000 Adam
# steps, mixture_variational_inference each of 2000; mnist_vae and convnet a line per epoch of 100
# and 50; bayesian_neural_net each of its 1000 steps; rnn and lstm a loss and 43/47 lines of sampled
# text every 10 iterations: 12 and 6 losses). A wrong derivative shows in the first steps; the
# suite's time is the rest. The runs are deterministic, so a shorter run's reference is the first
# lines of a longer one's.
MAX_LINES = {("autograd", "hmm_em"): 15, ("autograd", "ode_net"): 5,
             ("autograd", "mixture_variational_inference"): 400, ("jax", "mnist_vae"): 5,
             ("autograd", "convnet"): 7, ("autograd", "rnn"): 1 + 44 * 12, ("autograd", "lstm"): 1 + 48 * 6,
             ("autograd", "bayesian_neural_net"): 301}

_TIMING = re.compile(r"[-+]?\d+(\.\d*)?(e[-+]?\d+)?\s*sec\b")
_DTYPE = re.compile(r"dtype=\w+")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|\bnan\b|\binf\b")


def numbers(text: str, only: str | None = None) -> list[float]:
    """Every number `text` prints, in order, leaving out timings ("0.52 sec") and dtype names;
    with `only`, just the lines that match that regular expression."""
    out = []
    for line in text.splitlines():
        if only is not None and not re.search(only, line):
            continue
        line = _DTYPE.sub("", _TIMING.sub("", line))
        out += [float(tok) for tok in _NUMBER.findall(line)]
    return out


# lines compared, where a program prints more than its results
ONLY = {("jax", "kernel_lsq"): r"^MSE:", ("jax", "examples_test"): r"^exit status",
        # advi's funnel amplifies rounding up to a thousandfold per iteration (s2s's and JAX's
        # gradients at the same parameters agree to 1e-15; the bounds agree to 1e-15 at iteration 1,
        # 1e-12 at 2, 2e-7 at 4, 1e-5 at 5, and both reach nan at iteration 94): the first five
        # iterations are compared
        ("jax", "advi"): r"^Iteration [0-4] ",
        # the losses, not the text the models sample (its digits come and go as rounding moves a draw)
        ("autograd", "rnn"): r"^Iteration", ("autograd", "lstm"): r"^Iteration"}


def run(lib: str, name: str, backend: str) -> str:
    """What program `name` of `lib` ("jax" or "autograd") prints when run on `backend` ("s2s" or
    "real"). Modules it loaded are dropped afterwards; settings changed are restored."""
    path = FOREIGN / lib / "examples" / f"{name}.py"
    argv = [str(path), *ARGV.get((lib, name), [])]
    out = _Output(MAX_LINES.get((lib, name)))
    x64 = (lib, name) not in FLOAT32
    with _installed(lib, backend, argv, x64), contextlib.redirect_stdout(out):
        np.random.seed(0)  # for programs that draw from np.random without seeding it
        try:
            runpy.run_path(str(path), run_name="__main__")
        except SystemExit as stop:  # absltest.main's verdict
            print(f"exit status {0 if not stop.code else 1}")
        except _Enough:
            pass
    return out.getvalue()


class _Enough(BaseException):
    """Raised by `_Output` once a program has printed its MAX_LINES (a BaseException, so that the
    program's own `except Exception` does not catch it)."""


class _Output(io.StringIO):
    """What a program prints; with `limit`, the program is stopped once that many lines are out."""

    def __init__(self, limit: int | None) -> None:
        super().__init__()
        self.limit = limit

    def write(self, text: str) -> int:
        n = super().write(text)
        if self.limit is not None and self.getvalue().count("\n") >= self.limit:
            raise _Enough
        return n


@contextlib.contextmanager
def _installed(lib: str, backend: str, argv: list[str], x64: bool):
    before = dict(sys.modules)
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    fakes: dict[str, Any] = {}
    fakes.update(foreign_fakes.matplotlib_modules())
    if importlib.util.find_spec("absl") is None:
        fakes.update(foreign_fakes.absl_modules(argv))
    fakes.update(foreign_fakes.dp_accounting_modules())
    restore_settings = _settings(backend, x64)
    restore_minimize = _capped_minimize()
    restore_random_state = _seeded_random_state()
    try:
        sys.modules.update(fakes)
        sys.argv = argv
        undo = _library(lib, backend)
        if lib == "jax":
            _jax_examples_package()
        else:
            sys.modules.update(foreign_fakes.autograd_data_mnist())
            sys.path.insert(0, str(FOREIGN / "autograd" / "examples"))
        try:
            yield
        finally:
            undo()
    finally:
        restore_settings()
        restore_minimize()
        restore_random_state()
        sys.argv[:], sys.path[:] = saved_argv, saved_path
        for key in [k for k in sys.modules if k not in before]:
            if not _keep(key):
                del sys.modules[key]
        for key, mod in before.items():
            if sys.modules.get(key) is not mod:
                sys.modules[key] = mod


def _keep(key: str) -> bool:
    """Modules a run may leave loaded: the real libraries and their dependencies, never the
    programs, the fakes or the aliases."""
    mod = sys.modules.get(key)
    where = str(getattr(mod, "__file__", "") or "")
    if where.startswith(str(FOREIGN)) or key.split(".")[0] in ("examples", "data", "data_mnist"):
        return False
    if isinstance(mod, (foreign_fakes._NothingModule,)) or not where:
        return False
    if key.split(".")[0] in ("jax", "autograd") and getattr(mod, "__name__", key) != key:
        return False  # s2s's module under the foreign name: left behind, SciPy would take it for JAX
    return True


def _capped_minimize():
    """`scipy.optimize.minimize` with at most MINIMIZE_MAXITER iterations; an undo. (Without
    SciPy the programs that import it stop at the import, on both sides.)"""
    if importlib.util.find_spec("scipy") is None:
        return lambda: None
    import scipy.optimize
    real = scipy.optimize.minimize

    @functools.wraps(real)
    def minimize(*args: Any, **kwargs: Any) -> Any:
        options = dict(kwargs.pop("options", None) or {})
        options["maxiter"] = min(options.get("maxiter", MINIMIZE_MAXITER), MINIMIZE_MAXITER)
        return real(*args, options=options, **kwargs)

    scipy.optimize.minimize = minimize

    def undo():
        scipy.optimize.minimize = real
    return undo


def _seeded_random_state():
    """`np.random.RandomState()` without a seed draws the same numbers in every run (seed 0), as
    `np.random` is seeded for each run: convnet's weights; an undo."""
    real = np.random.RandomState

    class RandomState(real):
        def __init__(self, seed=None):
            super().__init__(0 if seed is None else seed)

    np.random.RandomState = RandomState

    def undo():
        np.random.RandomState = real
    return undo


def _settings(backend: str, x64: bool):
    """x64 as asked; JAX's default (partitionable) threefry layout for s2s.random; an undo."""
    import s2s
    old = {k: s2s.config.read(k) for k in ("enable_x64", "threefry_partitionable")}
    s2s.config.update("jax_enable_x64", x64)
    s2s.config.update("jax_threefry_partitionable", True)
    real = None
    if backend == "real" and importlib.util.find_spec("jax") is not None:
        import jax
        real = jax.config.read("jax_enable_x64")
        jax.config.update("jax_enable_x64", x64)

    def undo():
        for k, v in old.items():
            s2s.config.update(k, v)
        if real is not None:
            import jax
            jax.config.update("jax_enable_x64", real)
    return undo


def _library(lib: str, backend: str):
    """Point `import jax`/`import autograd` at s2s (backend "s2s"), or leave the real one; the
    stored example_libraries either way. Returns an undo."""
    if backend == "s2s":
        # the real library's modules, loaded by an earlier live comparison, must not answer the
        # program's imports (`import autograd.tracer`); the run's cleanup restores them
        for key in [k for k in sys.modules if k == lib or k.startswith(lib + ".")]:
            del sys.modules[key]
        if lib == "jax":
            from s2s.compat import jax as compat
            old = compat.alias_jax()
            sys.modules.update(foreign_fakes.jax_internal_modules())
            sys.modules["jax"]._src = sys.modules["jax._src"]
        else:
            from s2s.compat import autograd as compat
            old = compat.alias_autograd()
        undo = lambda: compat.restore(old)
    elif backend == "real":
        importlib.import_module(lib)
        undo = lambda: None
    else:
        raise ValueError(f"backend must be 's2s' or 'real', got {backend!r}")
    if lib == "jax":
        pkg = types.ModuleType("jax.example_libraries")
        pkg.__path__ = [str(FOREIGN / "jax" / "example_libraries")]
        sys.modules["jax.example_libraries"] = pkg
    return undo


def _jax_examples_package() -> None:
    """`from examples import datasets`: the stored package, its `mnist_raw` the stand-in."""
    pkg = types.ModuleType("examples")
    pkg.__path__ = [str(FOREIGN / "jax" / "examples")]
    sys.modules["examples"] = pkg
    datasets = importlib.import_module("examples.datasets")
    datasets.mnist_raw = foreign_fakes.synthetic_mnist_raw


def reference(lib: str) -> dict[str, Any]:
    """The recorded outputs of the real library (tools/foreign_reference.py wrote them)."""
    import json
    return json.loads((REFERENCE / f"{lib}.json").read_text())
