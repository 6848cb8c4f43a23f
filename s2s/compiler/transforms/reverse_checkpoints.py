"""Checkpointed loops of reverse mode (`s2s.checkpoint`'s schedules, runtime/checkpoints.py).

Which top-level loops can run again from a snapshot of what they carry; their forward sweep, which
keeps snapshots instead of records; and their backward sweep, which replays a segment with its
records, then reverses it. `CheckpointedLoops` is a mixin of `Reverse` (reverse.py), which calls
these where `checkpoint=` asks for a schedule.
"""
from __future__ import annotations

import gast

from ...base import record
from .. import analysis
from ..ir import build
from ..primitives import registry
from . import tape as tapes
from .base import loc


class CheckpointedLoops:
    """The checkpointed loops' methods of `Reverse` (it holds the state: records, loops, namer)."""

    def checkpointable(self, s) -> bool:
        """Whether loop `s` can be run again from a snapshot of the variables it carries: no
        `break`, nothing updated in place (arrays, lists), no draw or other effect, no call of a
        function that might have one."""
        if any(isinstance(n, gast.Break) for n in analysis.loop_level(s.body)):
            return False
        for st in analysis.walk_stmts(s.body):
            if isinstance(st, (gast.AugAssign, gast.Expr)) and not build.is_comment(st) \
                    or isinstance(st, gast.Assign) and not isinstance(st.targets[0], (gast.Name, gast.Tuple)):
                return False
            value = getattr(st, "value", None)
            if not isinstance(value, gast.Call):
                continue
            kind = analysis.classify(value)
            if kind == "list.pop" or isinstance(value.func, gast.Attribute) and analysis.dotted(value.func) is None \
                    or any(k.arg == "out" for k in value.keywords):
                return False
            p = registry.lookup(kind)
            if p is not None and p.effect or kind == "call" and not self.replayable(value):
                return False
        return True

    def replayable(self, call) -> bool:
        fn = self.core.ns.get(getattr(call.func, "id", None))
        if fn is None:
            return False
        rules = record.custom(fn)
        if rules is not None:
            return hasattr(rules, "policy")  # s2s.checkpoint: its own function runs again, nothing else
        return self.pure_callee(fn)

    def forward_checkpointed(self, s, depth) -> list:
        """Loop `s` under a checkpoint schedule (runtime/checkpoints.py): run without recording,
        keeping the state it carries at the start of every k-th step. The forward sweep with the
        records is built here too: the backward sweep runs it again, one segment at a time."""
        out, info = [], {"ckpt": self.namer.fresh("ckpt")}
        budget = build.const(self.checkpoint)
        what = "every ceil(sqrt(T))-th step" if self.checkpoint == "auto" else (
            f"the steps the binomial (revolve) schedule picks within {self.checkpoint} bytes")
        if isinstance(s, gast.For):
            rng = self.for_range(s, out, info)
            self.seen.add(s.target.id)
            info["range"] = rng
            out.append(build.comment(f"checkpointed: the carried state is kept at {what} of the T = len({rng.id}) "
                                     "steps; the backward sweep follows the plan: advance (run steps, keep a "
                                     "snapshot) or reverse a segment (its forward sweep with records, then back)"))
            out.append(build.assign(info["ckpt"], build.call("rt.checkpoint_schedule", [rng, budget])))
        else:
            kept = ("every k-th step, k doubling to keep sqrt(T) to 2*sqrt(T) snapshots" if self.checkpoint == "auto"
                    else f"every k-th step, k doubling to keep the snapshots within {self.checkpoint} bytes")
            out.append(build.comment(f"checkpointed: the carried state is kept at {kept} (an online schedule: the "
                                     "trip count T is found as the loop runs); the backward sweep reverses each "
                                     "segment (its forward sweep with records, then back), last first"))
            out.append(build.assign(info["ckpt"], build.call("rt.checkpoint_schedule", [build.const(None), budget])))
        info["save"] = build.call("rt.checkpoint_save", [build.name(info["ckpt"])])
        plain = [build.expr_stmt(info["save"])] + [build.clone(st) for st in s.body]
        info["taped"] = self.forward(s.body, depth + 1)
        if isinstance(s, gast.For):
            out.append(loc(gast.For(target=build.name(s.target.id, store=True), iter=rng, body=plain, orelse=[],
                                    type_comment=None), s))
        else:
            out.append(loc(gast.While(test=s.test, body=plain, orelse=[]), s))
        self.loops[s] = info
        return out

    def backward_checkpointed(self, s, info, body) -> list:
        """The backward sweep of a checkpointed loop: the actions of the schedule's plan, each from a
        snapshot: run steps without records and keep the state reached (an advance), or run a
        segment's forward sweep with the records, then its backward sweep (`body`)."""
        ck = build.name(info["ckpt"])
        plan, act, radv, rseg, rrev = (self.namer.fresh(p) for p in ("plan", "act", "r", "r", "r"))
        rng = [info["range"]] if "range" in info else []
        idx = s.target.id if isinstance(s, gast.For) else self.namer.fresh("k")

        def loop(r, stmts):
            return gast.For(target=build.name(idx, store=True), iter=build.name(r), body=stmts or [gast.Pass()],
                            orelse=[], type_comment=None)
        info["store"] = build.call("rt.checkpoint_store", [build.name(act)])
        info["advance"] = [build.clone(st) for st in s.body]
        act_body = [build.expr_stmt(build.call("rt.checkpoint_restore", [build.name(act)])),  # its target: run()
                    build.assign(radv, build.call("rt.checkpoint_advance", [build.name(act)] + rng)),
                    loop(radv, info["advance"]),
                    build.expr_stmt(info["store"]),
                    build.assign(rseg, build.call("rt.checkpoint_range", [build.name(act)] + rng)),
                    loop(rseg, info["taped"]),
                    build.assign(rrev, build.call("rt.reversed_range", [build.name(rseg)]))]
        adjoint = loop(rrev, body)
        act_body.append(adjoint)
        self.bwd_loops[s] = adjoint
        actions = gast.For(target=build.name(act, store=True), iter=build.name(plan), body=act_body, orelse=[],
                           type_comment=None)
        info["segment_loop"] = actions
        out = [build.assign(plan, build.call("rt.checkpoint_plan", [ck, build.const(self.consume)])), actions]
        if info.get("restore_target"):
            out.append(build.assign(s.target.id, self.pop(self.ctl)))
        return out

    def carried(self, bwd) -> set[str]:
        """Fill in what each checkpointed loop keeps: the variables its body assigns that it reads
        before assigning them, or that the backward sweep reads outside the loop's own replay.
        Returns the names of the statements replayed there (which `tapes.slim` reads past)."""
        replayed: set[int] = set()
        for s, info in self.loops.items():
            if not info.get("ckpt") or "segment_loop" not in info:
                continue
            assigned = {t for st in analysis.walk_stmts(s.body) for t in analysis.targets(st)}
            if isinstance(s, gast.For):
                assigned.discard(s.target.id)
            outside = tapes.reads(bwd, skip={id(info["segment_loop"])})
            keep = sorted(assigned & (analysis.exposed(s.body) | set(outside)))
            info["save"].args += [build.name(v) for v in keep]
            info["store"].args += [build.name(v) for v in keep]
            restore = info["segment_loop"].body[0]
            if keep:
                target = build.name(keep[0]) if len(keep) == 1 else build.tuple_([build.name(v) for v in keep])
                info["segment_loop"].body[0] = build.assign(build.store(target), restore.value)
            else:
                info["segment_loop"].body.pop(0)
            self.saved.update(keep)
            replayed.update(id(st) for st in analysis.walk_stmts(info["taped"] + info["advance"]))
            info["assigned"] = assigned
        return replayed
