"""JAX's index updates `x.at[index].<op>(v)` (frontend/at_updates.py): `.set` as a value
(rt.at_set), and the helpers that decide an integer index's out-of-bound mode and which value
`.min`/`.max` keep, which carry no derivative (the selections the frontend writes around them do)."""
from .registry import BROADCAST, LOOP, defjvp, defvjp, linear, nondiff, prim

nondiff("rt.at_clip", sig="i, n", batch=BROADCAST)
nondiff("rt.at_in_bounds", sig="i, n, mode, at=''", batch=BROADCAST)
nondiff("rt.at_keep", "rt.at_pick", sig="x, index, v, largest", batch=LOOP)

# x.at[index].set(v) as a value (a store into a named copy would be an in-place update the alias
# checks follow through loops): the last update at a repeated index wins, and only it gets a cotangent
prim("rt.at_set", "x, index, v", zero_args=("index",), batch=LOOP)
defvjp("rt.at_set", x="rt.zero_at(rt.fresh(g), index)", v="rt.at_set_vjp_v(g, x, index, v)")
defjvp("rt.at_set", x="rt.at_set(dx, index, 0.0)", v="rt.at_set(xp.zeros_like(x), index, dv)")
linear("rt.at_set_vjp_v", "g_, x, index, v", "g_", "rt.at_set(xp.zeros_like(x), index, g)", batch=LOOP)

# JAX's index-update methods -> how frontend/at_updates.py lowers each: a read, rt.at_set,
# a scatter of the updates (np.add.at, np.multiply.at, negated for subtract), x divided by (raised to)
# the product of the updates at each position, or the extreme of x and the updates there
AT_METHODS = {"get": "gather", "set": "store", "add": "scatter_add", "subtract": "scatter_subtract",
              "multiply": "scatter_multiply", "divide": "divide_by_product", "power": "power_of_product",
              "min": "smallest", "max": "largest"}
