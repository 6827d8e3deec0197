"""GET /healthz: 200 when an index build is loaded, 503 until then."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from serving.api.deps import AdvisorDep
from serving.api.models import ERROR_RESPONSES, Health

router = APIRouter()


@router.get("/healthz", response_model=Health, responses={503: ERROR_RESPONSES[503]},
            summary="200 when an index build is loaded")
async def healthz(advisor: AdvisorDep) -> JSONResponse:
    # async (and its dependencies too): answered on the event loop, never queued behind dialogue
    # work in the thread pool
    return JSONResponse({"status": "ok", "build_id": advisor.build_id})
