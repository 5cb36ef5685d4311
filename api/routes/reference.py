"""The API's own description for people writing scripts against it: the OpenAPI document, for signed-in users only
(anonymous callers learn nothing of the routes). There is no Swagger page: it loaded its code from a CDN, which
would run with the user's session; read the document with your own OpenAPI tool."""

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from api.deps import CurrentUser

router = APIRouter(prefix="/api", include_in_schema=False)


@router.get("/openapi.json")
async def openapi(request: Request, _user: CurrentUser) -> JSONResponse:
    return JSONResponse(request.app.openapi())
