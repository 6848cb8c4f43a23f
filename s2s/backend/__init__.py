"""From core form to running code: `codegen` prints and execs source, `loader` attaches the
record later transforms read (what s2s generated, from which AST and namespace)."""
