"""Sensors: re-run the pipeline when the institution config changes (off by default)."""


from dagster import DefaultSensorStatus, RunRequest, SensorEvaluationContext, SkipReason, sensor

from advisor.config import ConfigError
from assets.resources import InstitutionResource
from pipelines.schedules import refresh_job


@sensor(job=refresh_job, minimum_interval_seconds=60, default_status=DefaultSensorStatus.STOPPED)
def config_changed(context: SensorEvaluationContext, institution: InstitutionResource):
    """A new config fingerprint (sources, selectors, profile schema...) triggers a refresh run."""
    try:
        fingerprint = institution.load().fingerprint()
    except ConfigError as exc:
        return SkipReason(f"config does not load: {exc}")
    if fingerprint == context.cursor:
        return SkipReason("config unchanged")
    context.update_cursor(fingerprint)
    return RunRequest(run_key=f"config-{fingerprint}")
