"""Other libraries' APIs over s2s's, so programs written for them run by changing their imports.

`s2s.compat.autograd` offers autograd's names (`grad(fun, argnum)`, `elementwise_grad`,
`jacobian`, `hessian_vector_product`, `misc.optimizers`, `misc.flatten`, `test_util`); each is
a few lines over s2s's transforms. `alias_autograd()` makes `import autograd...` load them.
See docs/porting-from-autograd.md.
"""
