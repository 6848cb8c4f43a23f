"""The rule tables: primitives and their derivative (VJP, JVP) and batching rules."""
from . import (
    rules_batch,  # noqa: F401  (declares every rule table, batching rules last)
    rules_loops,  # noqa: F401  (the vectorized loops' helpers, on top of the batching rules)
)
