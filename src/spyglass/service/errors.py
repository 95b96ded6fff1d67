"""One JSON error shape everywhere: ``{"error": {"code", "message"}}``, never a traceback."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from spyglass.errors import RequestRefused, StorageError

logger = logging.getLogger(__name__)

STATUS_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "NOT_ACCEPTABLE",
    413: "REQUEST_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
}


class ApiError(RequestRefused):
    """Raised by routes and dependencies; rendered as the JSON error shape."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(code, message, status)
        self.headers = headers


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def error_response(
    status: int, code: str, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=headers)


def describe_validation(errors: list[Any], accepted: Sequence[str] = ()) -> str:
    """Pydantic errors → one sentence per problem, each naming the field.

    ``accepted`` are the body's field names, said after an unknown top-level field so the
    caller learns what to send instead.
    """
    parts = []
    for error in errors[:5]:
        loc = [str(p) for p in error.get("loc", ())]
        if loc and loc[0] in ("body", "query", "path", "header"):
            loc = loc[1:]  # where the field was sent, not its name
        field = ".".join(loc) or "body"
        kind = error.get("type", "")
        if kind == "json_invalid":
            parts.append("the body is not valid JSON; send a JSON object")
        elif field == "body" and kind in ("model_attributes_type", "dict_type", "list_type"):
            parts.append(
                "the body must be a JSON "
                + ("array" if kind == "list_type" else "object")
                + " sent with Content-Type: application/json"
            )
        elif kind == "missing" and field == "body":
            parts.append("a JSON object body is required")
        elif kind == "missing":
            parts.append(f"{field} is required")
        elif kind == "extra_forbidden":
            # The name is repeated for the caller's own request body (its text was checked
            # to be encodable); capability argument names are never repeated (core.schema).
            sentence = f"{field[:80]} is not an accepted field"
            if accepted and len(loc) == 1:
                sentence += f" (send {', '.join(accepted)})"
            parts.append(sentence)
        elif kind == "string_unicode":
            parts.append(f"{field} is not valid text (it holds a lone surrogate); send UTF-8 text")
        elif kind == "value_error" and field == "body":
            parts.append(str(error.get("msg", "is invalid")).removeprefix("Value error, ")[:200])
        else:
            message = str(error.get("msg", "is invalid"))
            message = message.removeprefix("Value error, ")
            parts.append(f"{field}: {message[:200]}")
    return "invalid request: " + "; ".join(parts)


def _body_fields(request: Request) -> list[str]:
    """The field names of the matched route's JSON body model, or none."""
    route = request.scope.get("route")
    body = getattr(route, "body_field", None)
    model = getattr(getattr(body, "field_info", None), "annotation", None)
    fields = getattr(model, "model_fields", None)
    if not isinstance(fields, dict):
        return []
    return [info.alias or name for name, info in fields.items()]


def install(app: FastAPI) -> None:
    """Register the handlers that turn every failure into the JSON error shape."""

    async def api_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, ApiError)
        return error_response(exc.status, exc.code, exc.message, exc.headers)

    async def invalid(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, RequestValidationError)
        message = describe_validation(list(exc.errors()), _body_fields(request))
        return error_response(422, "INVALID_REQUEST", message)

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = STATUS_CODES.get(exc.status_code, "HTTP_ERROR")
        if exc.status_code == 404:
            message = f"nothing at {request.url.path[:200]}; the API is under /api/v1"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path[:200]}"
        else:
            message = str(exc.detail)
        return error_response(exc.status_code, code, message, getattr(exc, "headers", None))

    async def storage(request: Request, exc: Exception) -> JSONResponse:
        logger.error("%s", exc)
        return error_response(503, "STORAGE_UNAVAILABLE", str(exc))

    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        logger.exception("unhandled error on %s %s", request.method, request.url.path)
        return error_response(
            500, "INTERNAL_ERROR", "Spyglass hit an unexpected error; the details are in its log"
        )

    app.add_exception_handler(ApiError, api_error)
    app.add_exception_handler(StorageError, storage)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(Exception, unexpected)
