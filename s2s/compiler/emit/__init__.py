"""Code emission, from core form to running code: `codegen` prints and execs source, `loader`
attaches the record later transforms read (what s2s generated, from which AST and namespace) and
binds a generated function to the array backend of a call, `kernels`/`numba_kernels`/`numba_loops`/
`cupy_kernels` compile what the fusion and loop-kernel passes mark, `dump` writes a module of
generated functions. ("Backend" in s2s means an array library, `s2s.backends.arrays`; this is not one.)"""
