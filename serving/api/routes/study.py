"""The preference study's page and routes (serving/api/study.py): 404 study_not_enabled unless the
served institution config enables the study, documented in the OpenAPI document either way."""

from __future__ import annotations

from fastapi import APIRouter, Query, Response
from fastapi.responses import FileResponse, JSONResponse

from serving.api.deps import HolderDep, StudyDep
from serving.api.models import ERROR_RESPONSES
from serving.api.routes.pages import WEB_DIR
from serving.api.study import MAX_ROW, PARTICIPANT, StudyOut, VoteRequest, department_out, enabled_study

STUDY_ERRORS = {code: ERROR_RESPONSES[code] for code in (404, 422, 500)}

router = APIRouter()


@router.get("/study", include_in_schema=False)
def study_page(holder: HolderDep) -> FileResponse:
    enabled_study(holder.current())
    return FileResponse(WEB_DIR / "study.html", media_type="text/html; charset=utf-8")


@router.get("/v1/study", response_model=StudyOut, responses=STUDY_ERRORS,
            summary="The preference study's questions, each with its two answers in this participant's order")
def study(holder: HolderDep, state: StudyDep,
          participant: str = Query(pattern=PARTICIPANT, description="the page's random participant id"),
          row: int | None = Query(None, ge=0, le=MAX_ROW,
                                  description="the row given earlier; absent: a new participant")) -> JSONResponse:
    advisor = holder.current()
    config = enabled_study(advisor)
    if row is None:
        row = state.next_row()
    return JSONResponse({"build_id": advisor.build_id, "participant": participant, "row": row,
                         "department": department_out(advisor, config),
                         "questions": state.questions(advisor, config, row)})


@router.post("/v1/study/votes", status_code=204, responses=STUDY_ERRORS, summary="Record one vote of the study")
def vote(body: VoteRequest, holder: HolderDep, state: StudyDep) -> Response:
    advisor = holder.current()
    state.record_vote(advisor, enabled_study(advisor), body)
    return Response(status_code=204)
