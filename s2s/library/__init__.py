"""Plain Python that s2s reads and transforms like user code: NumPy's functions that take a
function, tree_util's stand-ins inside transformed code, and lax's convolutions."""
