"""The API's own description for people writing scripts against it: the OpenAPI document and its Swagger page,
for signed-in users only (anonymous callers learn nothing of the routes)."""

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse

from api.deps import CurrentUser

router = APIRouter(prefix="/api", include_in_schema=False)
OPENAPI_PATH = "/api/openapi.json"  # as FastAPI would serve it


@router.get("/openapi.json")
async def openapi(request: Request, _user: CurrentUser) -> JSONResponse:
    return JSONResponse(request.app.openapi())


@router.get("/docs")
async def swagger_page(request: Request, _user: CurrentUser) -> HTMLResponse:
    return get_swagger_ui_html(openapi_url=OPENAPI_PATH, title=f"{request.app.title} – API")
