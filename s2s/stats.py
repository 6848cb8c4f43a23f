"""Counters of the compiler's work (nodes walked, statements inspected, set elements copied), kept
by s2s itself so a test can check that compile time grows linearly whatever the machine."""
from __future__ import annotations

import collections

STATS: collections.Counter = collections.Counter()
