"""What every bundled college generator shares, whatever institution it imitates.

A college package (``advisor.demo_college``, ``advisor.business_college``) keeps everything that
makes it that institution: catalogs, wording, markup and page chrome, URL scheme, profile schema.
The kit holds the rest: the ground-truth records over a profile schema (``schema``, ``model``),
the manifest format, PDF rendering and documents made of blocks (``pdf``, ``book``), HTML
builders (``markup``), Korean particles and seeded choice among a college's phrasings
(``korean``, ``wording``), curriculum periods (``catalog``), FAQ entries (``faq``), which posts a
notice board shows (``board``), the build order and writing a build to disk (``build``,
``writer``) and the ``python -m`` entry (``cli``). No Dagster, no network.
"""
