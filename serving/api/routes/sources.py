"""GET /v1/sources/{chunk_id}: the saved copy of a cited document, for when the original is
unreachable; and the path of that copy on each citation of an answer."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from serving.api.deps import HolderDep, served_advisor
from serving.api.errors import ApiError
from serving.api.models import ERROR_RESPONSES, SourceOut

# Chunk ids are 16 hex digits (advisor/chunking/chunker.py); a little slack for other id schemes, nothing
# that could be a path, markup or a very long string.
CHUNK_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")

router = APIRouter()


@router.get("/v1/sources/{chunk_id}", response_model=SourceOut,
            responses={code: ERROR_RESPONSES[code] for code in (404, 422, 503)},
            summary="The saved copy of a cited document (by the citation's chunk_id)")
def source(chunk_id: str, holder: HolderDep) -> JSONResponse:
    if not CHUNK_ID.fullmatch(chunk_id):
        raise ApiError(422, "invalid_chunk_id", "a chunk id is 1-64 letters, digits, '-' or '_'", "chunk_id")
    advisor = served_advisor(holder)
    kept = snapshots(advisor)
    if kept is None:
        raise ApiError(404, "no_snapshots", "the index build being served keeps no saved copies of its sources "
                                            "(it was built before they existed); open the original URL")
    snapshot = kept.get(chunk_id)
    if snapshot is None:
        raise ApiError(404, "unknown_chunk", "no source with this chunk id in the index build being served",
                       "chunk_id")
    return JSONResponse(snapshot.as_api(advisor.build_id))


def snapshots(advisor: Any):
    """The advisor's source snapshots, or None (a build without them, or an engine that keeps none)."""
    sources = getattr(advisor, "sources", None)
    return sources() if callable(sources) else None


def with_snapshots(body: dict, advisor: Any) -> dict:
    """Each citation gets the path of its saved copy (an added field: clients that do not know it
    ignore it), or null when the build keeps none for it."""
    citations = body.get("citations") or []
    kept = snapshots(advisor) if citations else None
    for citation in citations:
        chunk_id = citation.get("chunk_id") or ""
        citation["snapshot"] = f"/v1/sources/{chunk_id}" if kept is not None and chunk_id in kept else None
    return body
