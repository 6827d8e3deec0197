"""Making a build: the `index_build` stage reads the lakehouse (chunks, tokens, annotations,
augmentations, intent examples), writes the indexes through `advisor.index.writer`, adds what the
dialogue needs besides them (`serving_artifacts`: FAQ store, intent model, calibrated FAQ
threshold) and publishes the folder atomically. Above `advisor.index`, `advisor.faq` and
`advisor.retrieval`, which a serving process loads without any of this."""
