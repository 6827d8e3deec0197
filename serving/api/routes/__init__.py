"""The API's routes, one `APIRouter` per resource (create_app includes them in this order, which
is the OpenAPI document's): feedback, chat, sessions, index, sources, health, the pages, the study."""

from __future__ import annotations

from serving.api.routes import chat, feedback, health, index, pages, sessions, sources, study

ROUTERS = (feedback.router, chat.router, sessions.router, index.router, sources.router, health.router,
           pages.router, study.router)

__all__ = ["ROUTERS"]
