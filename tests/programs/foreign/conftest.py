"""The stored JAX and autograd programs are run by test_foreign_programs.py, never collected
(JAX's examples_test.py matches pytest's `*_test.py` pattern)."""
collect_ignore = ["jax", "autograd"]
