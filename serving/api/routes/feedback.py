"""POST /v1/feedback: whether an answer helped, stored without the profile, the session or the
address (the recorder: serving/api/usage.py)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from serving.api.deps import UsageDep
from serving.api.models import ERROR_RESPONSES
from serving.api.usage import FeedbackRequest

router = APIRouter()


@router.post("/v1/feedback", status_code=204, response_class=Response,
             responses={code: ERROR_RESPONSES[code] for code in (413, 415, 422, 429)},
             summary="Say whether an answer helped (stored without the profile, the session or the address)")
def feedback(body: FeedbackRequest, usage: UsageDep) -> Response:
    usage.feedback(body)
    return Response(status_code=204)
