"""Schedules (off until a data engineer turns them on), each on its own cadence:

- `nightly_refresh`: everything, the evaluation included, with a full index build (a new LSA
  model over all the documents, the FAQ threshold recalibrated);
- `notices_hourly`: the dynamic collection only (notices): crawl its sources, clean, chunk,
  annotate and publish a build that reuses the static side (advisor/index_build/delta.py). No benchmark,
  no evaluation: those follow the nightly refresh or a request. A running server picks the new
  build up on its next request.
"""

from __future__ import annotations

from dagster import AssetSelection, DefaultScheduleStatus, ScheduleDefinition, define_asset_job

REFRESH_RUN_CONFIG = {"ops": {"index_build": {"config": {"full": True}}}}
refresh_job = define_asset_job("refresh_all", selection=AssetSelection.all(), config=REFRESH_RUN_CONFIG,
                               description="Re-crawl and rebuild everything that changed, the index in full.")

# What a changed notice reaches before it can be served; the benchmark, the evaluation and the
# intent dataset (built from the static pages) are not in it.
NOTICES_ASSETS = ("raw_documents", "documents", "chunks", "chunk_annotations", "chunk_augmentations", "index_build")
NOTICES_RUN_CONFIG = {"ops": {"raw_documents": {"config": {"collections": ["dynamic"]}}}}
notices_job = define_asset_job(
    "notices_refresh", selection=AssetSelection.assets(*NOTICES_ASSETS), config=NOTICES_RUN_CONFIG,
    description="Crawl the dynamic collection (notices) and publish a build that reuses the static side.")


def nightly_refresh(timezone: str) -> ScheduleDefinition:
    return ScheduleDefinition(
        name="nightly_refresh",
        job=refresh_job,
        cron_schedule="0 3 * * *",
        execution_timezone=timezone,  # the institution's night, not the server's
        default_status=DefaultScheduleStatus.STOPPED,
    )


def notices_hourly(timezone: str) -> ScheduleDefinition:
    return ScheduleDefinition(
        name="notices_hourly",
        job=notices_job,
        cron_schedule="30 * * * *",  # half past: clear of the nightly refresh starting on the hour
        execution_timezone=timezone,
        default_status=DefaultScheduleStatus.STOPPED,
    )
