"""The core form every transform reads and writes: `core` (CoreFn, its operator table),
`names` (one Namer per generated scope), `build` (every AST node s2s makes), `validate` (the
grammar, checked on every transform's output in tests and with S2S_VALIDATE=1)."""
