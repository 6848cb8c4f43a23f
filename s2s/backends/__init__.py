"""Array backends: which array module (NumPy, CuPy, Dask) a call runs on, the NumPy functions a
backend lacks, and device placement."""
