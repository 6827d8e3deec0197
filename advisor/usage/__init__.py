"""What students ask and say about the answers, kept for the advising office (issue 27).

Serving appends anonymized records to files under the warehouse (`logfiles.UsageLog`); the pipeline
reads them into the lakehouse (serving never writes DuckDB). No record holds a profile value, a
session id or an address."""
