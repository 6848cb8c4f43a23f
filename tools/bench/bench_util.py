"""Timing and reporting helpers shared by the benchmarks (tools/bench/bench.py, tools/bench/bench_compile.py).

Benchmarks compare implementations measured in the same process, so only ratios against the
hand-written NumPy version are meaningful; absolute times depend on the machine and its load.
"""

from __future__ import annotations

import importlib.util
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["calls_per_sample", "time_samples", "time_both", "summarize", "blocking", "machine_lines",
           "load_note", "markdown_table", "fmt_time"]


def _time_calls(fn: Callable[..., Any], args: tuple, number: int) -> float:
    """Seconds taken by ``number`` back-to-back calls of ``fn(*args)``."""
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return time.perf_counter() - start


def time_both(fn: Callable[..., Any], args: tuple, number: int) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process, every thread) per call of ``fn(*args)``, over
    ``number`` back-to-back calls: a threaded kernel takes less wall time than CPU time."""
    cpu, start = time.process_time(), time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number, (time.process_time() - cpu) / number


def calls_per_sample(fn: Callable[..., Any], args: tuple, target: float) -> int:
    """How many back-to-back calls of ``fn(*args)`` last at least ``target`` seconds."""
    number = 1
    while True:
        elapsed = _time_calls(fn, args, number)
        if elapsed >= target:
            return number
        # grow towards the target, at least doubling, at most by 10x per step
        guess = number * target / elapsed if elapsed > 0 else number * 10
        number = max(number * 2, min(int(guess * 1.1) + 1, number * 10))


def time_samples(fn: Callable[..., Any], args: tuple, number: int, repeat: int) -> list[float]:
    """``repeat`` samples of the seconds per call of ``fn(*args)``, each over ``number`` calls."""
    return [_time_calls(fn, args, number) / number for _ in range(repeat)]


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """Median, minimum and spread (IQR / median; range / median under 4 samples) of samples."""
    med = statistics.median(samples)
    if len(samples) >= 4:
        q = statistics.quantiles(samples, n=4)
        width = q[2] - q[0]
    else:
        width = max(samples) - min(samples)
    return {"median": med, "min": min(samples), "spread": width / med if med else 0.0}


def blocking(fn, block):
    """``fn`` followed by ``block`` on its result (JAX dispatches asynchronously)."""
    def call(*args):
        return block(fn(*args))
    return call


def fmt_time(seconds: float | None, unit: str = "us") -> str:
    """A time in µs (``unit="us"``) or ms, with a thousands separator and 3 significant digits."""
    if seconds is None:
        return "-"
    value = seconds * (1e6 if unit == "us" else 1e3)
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(name: str) -> str | None:
    try:
        from importlib.metadata import version
        return version(name)
    except Exception:  # noqa: BLE001 - not installed
        return None


def machine_lines() -> list[str]:
    """Markdown bullet lines describing the machine and the library versions (no paths)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    lines = [
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}",
        f"- python: {platform.python_version()} ({sys.implementation.name})",
        f"- platform: {platform.system()} {platform.machine()}",
        f"- cpu: {_cpu_model()}, usable cores: {usable}",
        f"- 1-min load average at start: {os.getloadavg()[0]:.2f}",
    ]
    try:
        import s2s
        lines.append(f"- s2s: {s2s.__version__} from {os.path.relpath(os.path.dirname(s2s.__file__))}")
    except ImportError:
        pass
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS"):
        lines.append(f"- {var}: {os.environ.get(var, '<unset>')}")
    for pkg in ("numpy", "gast", "autograd", "jax", "jaxlib", "numba", "matplotlib"):
        v = _version(pkg)
        if v:
            lines.append(f"- {pkg}: {v}")
    return lines


def load_note(start: float) -> str:
    """One line on how busy the machine was (timings on a shared machine are noisy)."""
    end = os.getloadavg()[0]
    return (f"1-min load average {start:.2f} at start, {end:.2f} at end, on {os.cpu_count()} CPUs "
            "(load near or above the CPU count makes every ratio unreliable)")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[bool]) -> str:
    """A Markdown table; ``right[i]`` aligns column ``i`` to the right (numbers)."""
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def load_program(source: str, directory: str, name: str, pad: int = 0):
    """Write ``source`` to ``directory/name.py`` and import it (s2s needs a file to read).
    ``pad`` blank lines first: code objects that differ only in their file compare equal, and s2s
    would find the earlier copy's transform in its cache; shifted lines make them differ."""
    path = os.path.join(directory, f"{name}.py")
    with open(path, "w") as f:
        f.write("\n" * pad + source)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def write_report(path: str, title: str, text: str, chart: Callable[[str], bool]) -> None:
    """`text` under the heading `title` in the Markdown file `path`, and its chart beside it
    (`chart(png_path)` says whether it drew one)."""
    with open(path, "w") as f:
        f.write(f"# {title}\n\n{text}")
    png = os.path.splitext(path)[0] + ".png"
    if chart(png):
        print(f"chart: {os.path.relpath(png)}")
