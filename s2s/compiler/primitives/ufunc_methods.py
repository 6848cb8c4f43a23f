"""What a ufunc method inside a transformed function stands for: `np.add.reduce` is np.sum over
axis 0, `np.add.accumulate` np.cumsum over axis 0, `np.maximum.accumulate` the running maximum
(rt.cummax), `np.add.reduceat` sums over segments (numpy_inside.add_reduceat); `.at` is lowered
for these ufuncs only: add and subtract (rt.add_at), multiply (rt.multiply_at)."""
import numpy as np

from ...library import numpy_inside
from ...runtime import reduce

REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
          np.logical_and: np.all, np.logical_or: np.any}
ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod, np.maximum: reduce.cummax, np.minimum: reduce.cummin}
REDUCEAT = {np.add: numpy_inside.add_reduceat}
AT = {np.add: 1.0, np.subtract: -1.0}  # the sign the values are added with
AT_HELPER = {np.multiply: "rt.multiply_at"}  # a helper that returns the updated copy
