"""Chart of docs/memory.md's measured table: peak memory (in states) and time against T, one line
per variant, written to docs/memory.png (needs matplotlib).

    python tools/bench/bench_memory.py --steps 256,1024,4096   # measure; paste the table into docs/memory.md
    python tools/bench/memory_chart.py                          # draw it
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def rows(text: str) -> dict:
    """{variant: [(T, peak states, time ms)]} from the markdown table whose header starts `| T |`."""
    out: dict = defaultdict(list)
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| T | variant |"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = dict(zip(header, (c.strip() for c in line.strip("|").split("|"))))
        out[cells["variant"]].append((int(cells["T"]), float(cells["peak states"]), float(cells["time ms"])))
    return out


def main() -> int:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("memory_chart: matplotlib is not installed (pip install matplotlib)")
        return 2
    data = rows((DOCS / "memory.md").read_text(encoding="utf-8"))
    fig, (mem, time) = plt.subplots(1, 2, figsize=(11, 4.2))
    for variant, points in data.items():
        ts, states, ms = zip(*sorted(points))
        mem.plot(ts, states, marker="o", label=variant)
        time.plot(ts, ms, marker="o", label=variant)
    for ax, what in ((mem, "peak memory (states of h)"), (time, "time (ms)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("T (loop steps)")
        ax.set_ylabel(what)
        ax.grid(True, which="both", alpha=0.3)
    mem.legend(fontsize=7)
    fig.suptitle("tanh RNN gradient, B=32, H=64, D=16: memory and time against T")
    fig.tight_layout()
    fig.savefig(DOCS / "memory.png", dpi=110)
    print("wrote docs/memory.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
