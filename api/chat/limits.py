"""How many questions each user may have answered at once, so one user (or a leaked token) cannot occupy every
place on the workers. This process counts its own questions from their arrival (before their message is stored);
the caller adds the answers other live API processes are generating for the user (from the database). Two
questions arriving at two processes in the same instant can each pass: the cap can be exceeded by one per process,
briefly, never lastingly."""

from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

Item = TypeVar("Item")

TOO_MANY_QUESTIONS = (
    "Je hebt al {limit} vragen tegelijk lopen. Wacht tot een antwoord klaar is en stel je vraag dan opnieuw."
)


class TooManyQuestions(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(TOO_MANY_QUESTIONS.format(limit=limit))


class UserSlots:
    """User id → questions being answered now; `take` one before the work, `release` it once the answer ended."""

    def __init__(self) -> None:
        self._running: Counter[int] = Counter()

    def take(self, user_id: int, limit: int, elsewhere: int = 0) -> None:
        """Count one more question of the user here; `TooManyQuestions` when that, with the `elsewhere` ones other
        processes answer, passes the limit."""
        if self._running[user_id] + elsewhere >= limit:
            raise TooManyQuestions(limit)
        self._running[user_id] += 1

    def running(self, user_id: int) -> int:
        return self._running[user_id]

    def release(self, user_id: int) -> None:
        self._running[user_id] -= 1
        if self._running[user_id] <= 0:
            del self._running[user_id]

    async def holding(self, user_id: int, items: AsyncIterator[Item]) -> AsyncIterator[Item]:
        """`items`, releasing the user's place when they end, fail or the client goes away."""
        try:
            async for item in items:
                yield item
        finally:
            self.release(user_id)
            if isinstance(items, AsyncGenerator):
                await items.aclose()
