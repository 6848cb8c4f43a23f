"""Generated names: one Namer per generated scope owns every name in it, user names and the
prefixes transforms add (`b_` adjoints, `d_` tangents, `fwd_`/`bwd_`/`jvp_` callees, temporaries)."""
from __future__ import annotations

import builtins

# Names generated code reaches as globals (the array module, the runtime, user rules, the builtins
# it calls). No Namer hands one out, and the frontend renames a user's binding of one
# (s2s.compiler.frontend.hygiene), so no user identifier can capture a generated reference.
GLOBALS = frozenset({"xp", "rt", "ext", "stop_gradient"})
RESERVED = GLOBALS | frozenset(dir(builtins))


class Namer:
    """Deterministic fresh names that avoid every name already in use and every reserved one."""

    def __init__(self, taken):
        self.taken = set(taken) | RESERVED
        self.counts: dict[str, int] = {}

    def fresh(self, base: str = "t") -> str:
        while True:
            n = self.counts.get(base, 0)
            self.counts[base] = n + 1
            cand = f"{base}{n}"
            if cand not in self.taken:
                self.taken.add(cand)
                return cand

    def bind(self, ns: dict, label: str, obj) -> str:
        """The name under which generated code finds `obj` in namespace `ns` (added if new)."""
        for k, v in ns.items():
            if v is obj:
                return k
        n = self.exact(label.replace(".", "_"))
        ns[n] = obj
        return n

    def exact(self, want: str) -> str:
        """`want` itself if free, else want_1, want_2, ..."""
        cand, k = want, 0
        while cand in self.taken:
            k += 1
            cand = f"{want}_{k}"
        self.taken.add(cand)
        return cand
