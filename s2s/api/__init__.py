"""What users hold: the transforms (`entry_points`), the objects they return (`calls`, `jitted`,
`dispatch`), user rules (`custom`), checkpoints and memory, and the tools over them (`sources`,
`ops_table`, `cli`)."""
