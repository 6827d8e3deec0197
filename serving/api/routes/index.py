"""GET /v1/index: the index build being served."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse

from serving.api.deps import AdvisorDep
from serving.api.models import ERROR_RESPONSES, IndexInfo

router = APIRouter()


@router.get("/v1/index", response_model=IndexInfo, responses={503: ERROR_RESPONSES[503]},
            summary="The index build being served")
def index_info(advisor: AdvisorDep) -> JSONResponse:
    return JSONResponse(jsonable_encoder(advisor.index_info()))
