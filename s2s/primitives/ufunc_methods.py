"""What a ufunc method inside a transformed function stands for: `np.add.reduce` is np.sum over
axis 0, `np.add.accumulate` np.cumsum over axis 0; `.at` is lowered for these ufuncs only."""
import numpy as np

REDUCE = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min,
          np.logical_and: np.all, np.logical_or: np.any}
ACCUMULATE = {np.add: np.cumsum, np.multiply: np.cumprod}
AT = {np.add: 1.0, np.subtract: -1.0}  # the sign the values are added with
