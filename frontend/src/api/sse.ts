// Reads a Server-Sent Events response body (the chat's POST answers with one) event by event.
import { EventSourceParserStream } from "eventsource-parser/stream";

export interface StreamEvent {
  event: string;
  data: unknown;
}

/** Yields each event of `response` with its JSON data parsed, until the stream ends. */
export async function* readEvents(response: Response): AsyncGenerator<StreamEvent> {
  if (!response.body) return;
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield { event: value.event ?? "message", data: value.data ? JSON.parse(value.data) : null };
    }
  } finally {
    reader.releaseLock();
  }
}
