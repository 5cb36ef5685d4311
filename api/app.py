"""The FastAPI application: routes are thin and mounted here; logic lives in services."""

from fastapi import FastAPI

from api.routes import health
from api.settings import ApiSettings


def create_app(settings: ApiSettings | None = None) -> FastAPI:
    app = FastAPI(title="Vraagbaak", version="0.1.0")
    app.state.settings = settings or ApiSettings()
    app.include_router(health.router)
    return app
