"""What the routes share, as FastAPI dependencies (`Annotated` aliases, as in the FastAPI full-stack
template's deps.py): the engine holder, the session store, the settings, the usage recorder, the
study and the student page, each made once per app by create_app and kept on `app.state`.

Every dependency is `async def`: FastAPI runs a plain function dependency in its thread pool, where
/healthz would queue behind dialogue work."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, Request

from serving.api.errors import ApiError
from serving.api.holder import AdvisorHolder
from serving.api.sessions import SessionStore
from serving.api.settings import ServingSettings
from serving.api.study import Study
from serving.api.usage import UsageRecorder

NO_BUILD = "no index build is loaded yet (run `advisor materialize`, then wait for the server to pick it up)"


def served_advisor(holder: AdvisorHolder) -> Any:
    """The Advisor this request is served by, taken once (the request keeps it through a build
    swap); 503 no_build before the first build is loaded."""
    advisor = holder.current()
    if advisor is None:
        raise ApiError(503, "no_build", NO_BUILD)
    return advisor


def _app_state(name: str) -> Callable[[Request], Awaitable[Any]]:
    async def dependency(request: Request) -> Any:
        return getattr(request.app.state, name)

    dependency.__name__ = f"app_state_{name}"
    return dependency


HolderDep = Annotated[AdvisorHolder, Depends(_app_state("holder"))]
SessionsDep = Annotated[SessionStore, Depends(_app_state("sessions"))]
SettingsDep = Annotated[ServingSettings, Depends(_app_state("settings"))]
UsageDep = Annotated[UsageRecorder, Depends(_app_state("usage"))]
StudyDep = Annotated[Study, Depends(_app_state("study"))]
PageDep = Annotated[str, Depends(_app_state("page"))]  # the student page's HTML, rendered once (routes/pages.py)


async def _advisor(holder: HolderDep) -> Any:
    return served_advisor(holder)


# For a route whose every answer needs the engine; a route that checks its input first takes
# HolderDep and calls served_advisor itself, so bad input is a 422 whether or not a build is loaded.
AdvisorDep = Annotated[Any, Depends(_advisor)]
