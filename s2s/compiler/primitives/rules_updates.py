"""JAX's index updates `x.at[index].<op>(v)` (frontend/at_updates.py): the helpers that decide an
integer index's out-of-bound mode and which value `.min`/`.max` keep. They carry no derivative; the
stores and selections the frontend writes around them do."""
from .registry import BROADCAST, LOOP, nondiff

nondiff("rt.at_clip", sig="i, n", batch=BROADCAST)
nondiff("rt.at_in_bounds", sig="i, n, mode, at=''", batch=BROADCAST)
nondiff("rt.at_keep", "rt.at_pick", sig="x, index, v, largest", batch=LOOP)

# JAX's index-update methods -> how frontend/at_updates.py lowers each: a read, a store into a copy,
# a scatter of the updates (np.add.at, np.multiply.at, negated for subtract), x divided by (raised to)
# the product of the updates at each position, or the extreme of x and the updates there
AT_METHODS = {"get": "gather", "set": "store", "add": "scatter_add", "subtract": "scatter_subtract",
              "multiply": "scatter_multiply", "divide": "divide_by_product", "power": "power_of_product",
              "min": "smallest", "max": "largest"}
