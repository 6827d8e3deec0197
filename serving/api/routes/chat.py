"""POST /v1/chat: a question, or the answers to the profile questions of the last reply."""

from __future__ import annotations

import logging

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from serving.api.deps import HolderDep, SessionsDep, SettingsDep, UsageDep, served_advisor
from serving.api.errors import ApiError
from serving.api.logs import where
from serving.api.models import ERROR_RESPONSES, AnswerReply, AskReply, ChatRequest
from serving.api.routes.sources import with_snapshots
from serving.api.settings import ServingSettings
from serving.dialogue.engine import DialogueInputError, EmptyMessage, MessageTooLong, checked_message

log = logging.getLogger("serving.api")

router = APIRouter()


@router.post("/v1/chat", response_model=AskReply | AnswerReply, responses=ERROR_RESPONSES,
             summary="Ask a question, or answer the profile questions of the last reply")
def chat(body: ChatRequest, holder: HolderDep, sessions: SessionsDep, settings: SettingsDep,
         usage: UsageDep) -> JSONResponse:
    message, profile = checked_turn(body, settings)
    advisor = served_advisor(holder)
    try:
        if body.session_id is None:  # stored once it has answered: a failed first turn leaves nothing
            session = advisor.new_session()
            reply = advisor.respond(session, message=message, profile=profile)
            session_id = sessions.add(session)
            waiting = None
        else:
            session_id = body.session_id
            # one request at a time per session, across workers when the store is shared;
            # different sessions run in parallel
            with sessions.checkout(session_id) as entry:
                if entry is None:
                    raise ApiError(404, "unknown_session",
                                   "this conversation expired or was forgotten; start a new one", "session_id")
                waiting = usage.before_turn(entry.session, message)
                reply = advisor.respond(entry.session, message=message, profile=profile)
    except ApiError:  # 404 above; 503 session_store_unavailable from a shared store
        raise
    except DialogueInputError as exc:
        raise ApiError(422, "invalid_input", str(exc), getattr(exc, "field", None)) from None
    except Exception as exc:
        log.error("engine failure on /v1/chat: %s", where(exc))
        raise ApiError(500, "engine_error", "the assistant failed to answer; please try again") from None
    usage.answered(waiting, message, reply, advisor)
    return JSONResponse(with_snapshots(reply.as_api(session_id), advisor))


def checked_turn(body: ChatRequest, settings: ServingSettings) -> tuple[str | None, dict | None]:
    """(message, None) or (None, profile answers) of a well-formed turn, else 422 naming the field."""
    if (body.message is None) == (body.profile is None):
        raise ApiError(422, "message_or_profile", "send exactly one of `message` and `profile`",
                       "message" if body.message is None else None)
    if body.message is not None:
        try:  # the engine's own check, with this server's limit
            return checked_message(body.message, settings.max_message_chars), None
        except EmptyMessage:
            raise ApiError(422, "empty_message", "the message is empty", "message") from None
        except MessageTooLong:
            raise ApiError(422, "message_too_long",
                           f"the message is longer than {settings.max_message_chars} characters", "message") from None
    if body.session_id is None:
        raise ApiError(422, "session_required", "profile answers need the session_id of the conversation", "session_id")
    if not body.profile:
        raise ApiError(422, "empty_profile", "profile needs at least one attribute -> value", "profile")
    return None, dict(body.profile)
