"""Timing helpers for benchmarks: robust per-call times and a markdown report.

Benchmarks compare implementations measured in the same process, so only ratios against the
hand-written NumPy version ("hand") are meaningful; the absolute times depend on the machine.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

__all__ = ["report", "timeit_median"]


def _time_calls(fn: Callable[..., Any], args: tuple, number: int) -> float:
    """Seconds taken by ``number`` back-to-back calls of ``fn(*args)``."""
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return time.perf_counter() - start


def timeit_median(
    fn: Callable[..., Any], *args: Any, min_time: float = 0.2, repeat: int = 7
) -> tuple[float, float]:
    """Median and minimum seconds per call of ``fn(*args)`` over ``repeat`` samples.

    One untimed call warms caches (compilation included). Each sample then makes enough calls
    to last at least ``min_time / repeat`` seconds, so the whole measurement takes about
    ``min_time`` seconds however fast ``fn`` is, and timer resolution does not matter.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")
    fn(*args)
    target = min_time / repeat
    number = 1
    while True:
        elapsed = _time_calls(fn, args, number)
        if elapsed >= target:
            break
        # Grow towards the target, at least doubling, at most by 10x per step.
        guess = number * target / elapsed if elapsed > 0 else number * 10
        number = max(number * 2, min(int(guess * 1.1) + 1, number * 10))
    samples = [elapsed / number]
    samples += [_time_calls(fn, args, number) / number for _ in range(repeat - 1)]
    return statistics.median(samples), min(samples)


_COLUMNS = ("workload", "size", "impl", "median")


def _as_dict(row: Mapping[str, Any] | Sequence[Any]) -> dict[str, Any]:
    if isinstance(row, Mapping):
        return {key: row[key] for key in _COLUMNS}
    return dict(zip(_COLUMNS, row, strict=True))


def report(
    rows: Iterable[Mapping[str, Any] | Sequence[Any]],
    baseline: str = "hand",
    file: TextIO | None = None,
) -> str:
    """Print (and return) a markdown table of benchmark results.

    Each row is a mapping with keys ``workload``, ``size``, ``impl`` and ``median`` (seconds per
    call), or a tuple in that order. The "× hand" column divides each median by the median of the
    ``baseline`` implementation for the same workload and size ("—" when there is none).
    """
    table = [_as_dict(row) for row in rows]
    base = {
        (r["workload"], r["size"]): r["median"] for r in table if r["impl"] == baseline
    }
    lines = [
        f"| workload | size | impl | median µs | × {baseline} |",
        "|---|---:|---|---:|---:|",
    ]
    for r in table:
        ref = base.get((r["workload"], r["size"]))
        ratio = f"{r['median'] / ref:.2f}" if ref else "—"
        lines.append(
            f"| {r['workload']} | {r['size']} | {r['impl']} | {r['median'] * 1e6:.1f} | {ratio} |"
        )
    text = "\n".join(lines) + "\n"
    (file or sys.stdout).write(text)
    return text


def blocking(fn, block):
    """``fn`` followed by ``block`` on its result (JAX dispatches asynchronously)."""
    def call(*args):
        return block(fn(*args))
    return call


def load_note(start):
    """One line on how busy the machine was (timings on a shared machine are noisy)."""
    end = os.getloadavg()[0]
    return (f"1-min load average {start:.2f} at start, {end:.2f} at end, on {os.cpu_count()} CPUs "
            "(load near or above the CPU count makes every ratio unreliable)")


def time_rounds(impls, args, rounds, min_time):
    """Median over interleaved rounds of each implementation's median seconds per call."""
    medians = {name: [] for name, _ in impls}
    for _ in range(rounds):
        for name, fn in impls:
            medians[name].append(timeit_median(fn, *args, min_time=min_time)[0])
    return {name: statistics.median(m) for name, m in medians.items()}
