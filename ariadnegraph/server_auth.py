"""Optional API-key auth for the LangGraph server (LangGraph's custom auth hook).

Off for local use: with no ``ARIADNE_API_KEY`` set every request is let in. With a key set, every
request must carry it as ``x-api-key`` (what ``langgraph_sdk.get_client(api_key=...)`` sends) or as
``Authorization: Bearer <key>``; anything else is refused with 401.
"""

from __future__ import annotations

import hmac
import os

from langgraph_sdk import Auth

API_KEY_ENV = "ARIADNE_API_KEY"

auth = Auth()


def _presented_key(headers: dict) -> str:
    def header(name: str) -> str:
        value = headers.get(name.encode()) or headers.get(name) or b""
        return value.decode() if isinstance(value, bytes) else str(value)

    bearer = header("authorization")
    if bearer.lower().startswith("bearer "):
        return bearer[7:].strip()
    return header("x-api-key").strip()


@auth.authenticate
async def authenticate(headers: dict) -> Auth.types.MinimalUserDict:
    expected = os.environ.get(API_KEY_ENV)
    if not expected:
        return {"identity": "local"}
    if not hmac.compare_digest(_presented_key(headers).encode(), expected.encode()):
        raise Auth.exceptions.HTTPException(status_code=401, detail="missing or wrong API key")
    return {"identity": "api-key"}
