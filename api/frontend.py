"""The built front-end (frontend/dist) served at / in the embedded mode; nginx serves it in production.

Paths that name no file get `index.html`, so the single-page app's own routes survive a reload. Nothing under
`/api` is ever answered with the page: an unknown API route stays a JSON 404.
"""

from pathlib import Path

from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

INDEX = "index.html"


class SinglePageApp(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        if path == "api" or path.startswith("api/"):
            raise HTTPException(status_code=404)
        try:
            return await super().get_response(path, scope)
        except HTTPException as error:
            if error.status_code != 404:
                raise
            return await super().get_response(INDEX, scope)


def built_frontend(folder: Path) -> SinglePageApp | None:
    """The app over the built front-end, or None when it has not been built."""
    if not (folder / INDEX).is_file():
        return None
    return SinglePageApp(directory=folder, html=True)
