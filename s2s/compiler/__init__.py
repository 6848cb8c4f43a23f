"""The compiler, in the order a user function goes through it: `frontend` (parse, resolve,
normalize to core form in `ir`), `primitives` (every operation's rules) and `analysis`,
`transforms` (grad, jvp, vmap, ...), `passes` (optimization), `emit` (source, exec, kernels), with
`driver` (caches, the call graph) and `cachekey` (when a cached version still holds) over them."""
