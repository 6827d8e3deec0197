"""The student-facing HTTP API (FastAPI) and its web page; see app.create_app."""

from serving.api.app import create_app
from serving.api.holder import AdvisorHolder
from serving.api.settings import ServingSettings

__all__ = ["create_app", "AdvisorHolder", "ServingSettings"]
