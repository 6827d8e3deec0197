"""DELETE /v1/sessions/{session_id}: a conversation, and the profile it holds, forgotten now."""

from __future__ import annotations

from fastapi import APIRouter, Response

from serving.api.deps import SessionsDep
from serving.api.errors import ApiError
from serving.api.models import ERROR_RESPONSES

router = APIRouter()


@router.delete("/v1/sessions/{session_id}", status_code=204, responses={404: ERROR_RESPONSES[404]},
               summary="Forget a conversation (and its profile) now")
def forget(session_id: str, sessions: SessionsDep) -> Response:
    if not sessions.delete(session_id):  # SessionStoreUnavailable: 503
        raise ApiError(404, "unknown_session", "no such conversation (expired or already forgotten)", "session_id")
    return Response(status_code=204)
