// Asking a question: POST it and turn the answer's event stream (docs/api.md) into calls on a handler.
import { request } from "../api/client";
import { readEvents } from "../api/sse";
import type { MessageState, Quote, Source, Support } from "../api/types";

export interface AskRequest {
  question: string;
  retrieval_only?: boolean;
}

export interface AnswerHandler {
  onMessage(messageId: number): void;
  onSources(sources: Source[], notFound: boolean): void;
  /** The verbatim answering sentence(s) of a passage, or null when no passage answers the question literally. */
  onQuote(quote: Quote | null): void;
  onDelta(text: string): void;
  /** After the last delta: each generated sentence with its citation or flag. */
  onSupport(support: Support): void;
  onDone(state: MessageState, stopReason: string | null): void;
  onError(message: string, retryAfter: number | null): void;
}

export const CONNECTION_LOST =
  "De verbinding met de server werd verbroken voor het antwoord af was. Wat al geschreven was, is bewaard; stel de vraag opnieuw.";

/**
 * Streams the answer to `ask` into `handler`. Resolves when the stream ends; a stream that ends without its `done`
 * event (a lost connection) is reported as an error. Aborting `signal` stops reading (the caller also asks the API
 * to stop the generation).
 */
export async function streamAnswer(
  conversationId: number,
  ask: AskRequest,
  handler: AnswerHandler,
  signal: AbortSignal,
): Promise<void> {
  let response: Response;
  try {
    response = await request(`/api/conversations/${conversationId}/messages`, {
      method: "POST",
      body: JSON.stringify(ask),
      signal,
    });
  } catch (error) {
    if (signal.aborted) return; // stopped before the server answered: not a failure
    throw error;
  }
  let finished = false;
  try {
    for await (const { event, data } of readEvents(response)) {
      const body = data as Record<string, unknown>;
      if (event === "message") handler.onMessage(body.message_id as number);
      else if (event === "sources") handler.onSources(body.sources as Source[], Boolean(body.not_found));
      else if (event === "quote") handler.onQuote((body.quote as Quote | null) ?? null);
      else if (event === "delta") handler.onDelta(body.text as string);
      else if (event === "support") handler.onSupport({ sentences: (body.sentences as Support["sentences"] | undefined) ?? [], warning: Boolean(body.warning) });
      else if (event === "error") handler.onError(body.message as string, (body.retry_after as number | undefined) ?? null);
      else if (event === "done") {
        finished = true;
        handler.onDone(body.state as MessageState, (body.stop_reason as string | null) ?? null);
      }
    }
  } catch (error) {
    if (signal.aborted) return;
    if (!(error instanceof TypeError)) throw error;
    handler.onError(CONNECTION_LOST, null); // the network broke while reading (fetch reports it as a TypeError)
    return;
  }
  if (!finished && !signal.aborted) handler.onError(CONNECTION_LOST, null);
}
