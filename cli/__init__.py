"""The composition root: the `advisor` command, which wires the library, the Dagster definitions,
serving and the evaluation together. Nothing imports this package."""
