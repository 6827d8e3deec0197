"""The advising dialogue: intent routing, query- and evidence-driven profiling, URAG tiers."""
