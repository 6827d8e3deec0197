"""What every bundled college generator shares, whatever institution it imitates.

A college package (``examples.demo_college``, ``examples.business_college``) keeps everything that
makes it that institution: catalogs, wording, markup and page chrome, URL scheme, profile schema,
the look of its PDFs as a table of values (``pdf_style.yaml``). The kit holds the rest: the
ground-truth records over a profile schema (``schema``, ``model``), the manifest format, PDF
rendering, its style table's reader and documents made of blocks (``pdf``, ``pdf_style``, ``book``), HTML
builders (``markup``), Korean particles and seeded choice among a college's phrasings
(``korean``, ``wording``), curriculum periods (``catalog``), FAQ entries (``faq``), which posts a
notice board shows (``board``), the build order and writing a build to disk (``build``,
``writer``) and the ``python -m`` entry (``cli``). No Dagster, no network.
"""
