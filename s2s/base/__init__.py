"""The leaves every other part of s2s stands on: pytrees, the record attached to generated
functions, work counters, user vector spaces, the dtype and complex checks at s2s's edges, and
the tracebacks S2SErrors show."""
