"""Print every rule table of s2s/primitives (VJP, JVP, batching, ranked, in-place VJPs and every
fact of every primitive), sorted, so that a refactor of the declarations can be checked to leave
them unchanged: `python tools/dump_rules.py > before.txt`, change, run again, `diff`."""
from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from s2s.compiler.primitives import registry  # noqa: E402


def main() -> None:
    for name in sorted(registry.PRIMS):
        p = registry.PRIMS[name]
        facts = {f.name: getattr(p, f.name) for f in dataclasses.fields(p)}
        text = str(sorted((k, repr(v)) for k, v in facts.items()))
        print("PRIM", name, re.sub(r" at 0x[0-9a-f]+", "", text))  # (functions: by name)
    for table in ("VJP", "JVP", "BATCH", "VJP_IN_PLACE"):
        for name, rule in sorted(getattr(registry, table).items()):
            print(table, name, repr(rule))
    for key, rule in sorted(registry.RANKED.items(), key=repr):
        print("RANKED", repr(key), rule)
    print("ORDER", list(registry.PRIMS))


if __name__ == "__main__":
    main()
