"""pytest plugin (`-p autograd_suite_plugin`) for autograd's own test suite, vendored under
tests/programs/foreign/autograd/tests: points `import autograd` at s2s before the suite's modules
are imported, so they test s2s's transforms unmodified."""
from s2s.compat.autograd import alias_autograd

alias_autograd()
