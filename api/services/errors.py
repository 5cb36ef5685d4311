"""Errors services raise and the app turns into HTTP answers; the message is Dutch, for the user."""

DATABASE_DOWN = "De database is tijdelijk niet bereikbaar. Probeer het over enkele seconden opnieuw."
DATABASE_RETRY_AFTER_SECONDS = 5


class ServiceError(Exception):
    status = 400

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class NotFound(ServiceError):
    """Also for what exists but belongs to someone else: nobody learns which ids other users have."""

    status = 404


class Conflict(ServiceError):
    status = 409


class Invalid(ServiceError):
    status = 422


class TooLarge(ServiceError):
    status = 413


class UnsupportedMedia(ServiceError):
    status = 415


class Unavailable(ServiceError):
    """The service cannot take the request now (nothing would run it, or its queue is full)."""

    status = 503
