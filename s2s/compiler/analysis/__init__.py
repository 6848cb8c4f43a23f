"""Side-table analyses of a core-form function (tables keyed by statement, never attributes on
nodes), one module per question:

- `stmts`: what each statement reads and writes (`classify`, `operands`, `targets`, `loads`,
  `walk_stmts`, `exposed`, `assigned_counts`);
- `activity`: which variables a derivative flows through (`activity`, `useful`, `relevant`);
- `liveness`: which names each statement may read later (`Liveness`, `TopLiveness`);
- `assigned`: the names certainly assigned where each statement starts (`definitely_assigned`);
- `shapes`: which names certainly share a shape (`shape_roots`, `expr_shape_root`, `shape_like`);
- `float_arrays`: which expressions are certainly float arrays, and of which rank (`array_rank`);
- `raising`: which statements may raise, and which of those nothing reads (`unread_raising`);
- `python_numbers`: which names hold Python numbers by the source (vmap's checked divisions).

Callers use the package's names (`analysis.Liveness`); each module's are re-exported here.
"""
from .activity import activity, relevant, useful
from .assigned import AssignedSet, definitely_assigned, first_assignment_nested
from .float_arrays import ARITH, IDENTITY, array_rank, bound_ranks, number_literal
from .liveness import CopyingLiveness, Liveness, LiveSet, SetView, TopLiveness
from .shapes import ShapeRoots, expr_shape_root, shape_like, shape_roots
from .stmts import (
    BINOPS,
    BUILTINS,
    CMPOPS,
    UNOPS,
    assigned_counts,
    classify,
    diff_operands,
    dotted,
    exposed,
    exposed_and_assigned,
    iter_nodes,
    loads,
    loop_level,
    operands,
    targets,
    walk_stmts,
)

__all__ = ["ARITH", "BINOPS", "BUILTINS", "CMPOPS", "IDENTITY", "UNOPS", "AssignedSet", "LiveSet", "Liveness", "SetView",
           "ShapeRoots", "TopLiveness", "CopyingLiveness", "activity", "array_rank", "assigned_counts", "bound_ranks",
           "classify", "definitely_assigned", "diff_operands", "dotted", "expr_shape_root", "exposed",
           "exposed_and_assigned", "first_assignment_nested", "iter_nodes", "loads", "loop_level", "number_literal",
           "operands", "relevant", "shape_like", "shape_roots", "targets", "useful", "walk_stmts"]
