"""Schedules: a nightly refresh of the whole pipeline (off until a data engineer turns it on)."""

from __future__ import annotations

from dagster import AssetSelection, DefaultScheduleStatus, ScheduleDefinition, define_asset_job

refresh_job = define_asset_job("refresh_all", selection=AssetSelection.all(),
                               description="Re-crawl and rebuild everything that changed.")


def nightly_refresh(timezone: str) -> ScheduleDefinition:
    return ScheduleDefinition(
        name="nightly_refresh",
        job=refresh_job,
        cron_schedule="0 3 * * *",
        execution_timezone=timezone,  # the institution's night, not the server's
        default_status=DefaultScheduleStatus.STOPPED,
    )
