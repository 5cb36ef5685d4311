import { ApiError } from "../api/client";
import type { MessageState, Quote, Source, Support } from "../api/types";
import { CONNECTION_LOST, streamAnswer } from "./stream";
import { modelUnavailableText } from "./texts";

const source = { document_id: "stuwband", title: "Stuwband", page_start: 2, page_end: 2, chunk_index: 4, passage: "max 60 min", score: 0.9 } as unknown as Source;

function sse(...events: [string, unknown][]): string {
  return events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`).join("");
}

/** A 200 event-stream response; `fail` makes the network break after the text was delivered. */
function streamOf(text: string, fail = false): Response {
  let delivered = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!delivered) {
        delivered = true;
        controller.enqueue(new TextEncoder().encode(text));
      } else if (fail) controller.error(new TypeError("network error"));
      else controller.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
}

/** Records the handler calls in order, as the chat page receives them. */
function recorder() {
  const calls: unknown[][] = [];
  return {
    calls,
    handler: {
      onMessage: (id: number) => calls.push(["message", id]),
      onSources: (sources: Source[], notFound: boolean) => calls.push(["sources", sources.length, notFound]),
      onQuote: (quote: Quote | null) => calls.push(["quote", quote?.text ?? null]),
      onDelta: (text: string) => calls.push(["delta", text]),
      onSupport: (support: Support) => calls.push(["support", support.sentences.map((s) => s.citation), support.warning]),
      onDone: (state: MessageState, stopReason: string | null) => calls.push(["done", state, stopReason]),
      onError: (message: string, retryAfter: number | null) => calls.push(["error", message, retryAfter]),
    },
  };
}

function serve(answer: Response | (() => Promise<Response>)) {
  const fetch = vi.fn(async (_url: string, _init: RequestInit) => (typeof answer === "function" ? answer() : answer));
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

afterEach(() => vi.unstubAllGlobals());

describe("streamAnswer", () => {
  it("posts the question and hands over message, sources, each delta and done in order", async () => {
    const fetch = serve(
      streamOf(
        sse(["message", { message_id: 5, conversation_id: 1 }], ["sources", { sources: [source], not_found: false }], ["delta", { text: "Maximaal " }], ["delta", { text: "60 minuten." }], ["done", { message_id: 5, state: "answered", stop_reason: "eos" }]),
      ),
    );
    const { calls, handler } = recorder();
    await streamAnswer(1, { question: "max tijd stuwband?", retrieval_only: false }, handler, new AbortController().signal);
    expect(fetch.mock.calls[0][0]).toBe("/api/conversations/1/messages");
    expect(JSON.parse(fetch.mock.calls[0][1].body as string)).toEqual({ question: "max tijd stuwband?", retrieval_only: false });
    expect(calls).toEqual([["message", 5], ["sources", 1, false], ["delta", "Maximaal "], ["delta", "60 minuten."], ["done", "answered", "eos"]]);
  });

  it("hands over the quote before the text and the sentences' support after it", async () => {
    const quote = { text: "max 60 min", source_index: 0, document_id: "stuwband", title: "Stuwband", page_start: 2, page_end: 2, start: 0, end: 10, score: 0.8 };
    const sentence = { text: "Maximaal 60 minuten.", start: 0, end: 20, score: 0.9, supported: true, citation: 1, source_start: 0, source_end: 10 };
    serve(
      streamOf(
        sse(["message", { message_id: 5 }], ["sources", { sources: [source], not_found: false }], ["quote", { quote }], ["delta", { text: "Maximaal 60 minuten." }], ["support", { sentences: [sentence], warning: false }], ["done", { state: "answered", stop_reason: "eos" }]),
      ),
    );
    const { calls, handler } = recorder();
    await streamAnswer(1, { question: "q" }, handler, new AbortController().signal);
    expect(calls).toEqual([["message", 5], ["sources", 1, false], ["quote", "max 60 min"], ["delta", "Maximaal 60 minuten."], ["support", [1], false], ["done", "answered", "eos"]]);
  });

  it("passes on a null quote (no passage answers literally) and a warning", async () => {
    serve(streamOf(sse(["message", { message_id: 5 }], ["quote", { quote: null }], ["delta", { text: "Iets." }], ["support", { sentences: [], warning: true }], ["done", { state: "answered", stop_reason: "eos" }])));
    const { calls, handler } = recorder();
    await streamAnswer(1, { question: "q" }, handler, new AbortController().signal);
    expect(calls).toContainEqual(["quote", null]);
    expect(calls).toContainEqual(["support", [], true]);
  });

  it("passes on not_found and the API's error event with its retry time", async () => {
    serve(streamOf(sse(["message", { message_id: 5 }], ["sources", { sources: [], not_found: true }], ["error", { message: "Het taalmodel is bezet.", retry_after: 12 }], ["done", { state: "failed", stop_reason: null }])));
    const { calls, handler } = recorder();
    await streamAnswer(1, { question: "q" }, handler, new AbortController().signal);
    expect(calls).toContainEqual(["sources", 0, true]);
    expect(calls).toContainEqual(["error", "Het taalmodel is bezet.", 12]);
  });

  it("reports a lost connection when the stream ends before done", async () => {
    serve(streamOf(sse(["message", { message_id: 5 }], ["delta", { text: "Maxi" }])));
    const { calls, handler } = recorder();
    await streamAnswer(1, { question: "q" }, handler, new AbortController().signal);
    expect(calls.at(-1)).toEqual(["error", CONNECTION_LOST, null]);
  });

  it("reports a lost connection when the network breaks in the middle of the answer", async () => {
    serve(streamOf(sse(["message", { message_id: 5 }], ["delta", { text: "Maxi" }]), true));
    const { calls, handler } = recorder();
    await streamAnswer(1, { question: "q" }, handler, new AbortController().signal);
    expect(calls).toEqual([["message", 5], ["delta", "Maxi"], ["error", CONNECTION_LOST, null]]);
  });

  it("rejects a 503 with the API's Dutch message and the Retry-After seconds (nothing was stored)", async () => {
    serve(new Response(JSON.stringify({ detail: "Er is nu geen taalmodel beschikbaar." }), { status: 503, headers: { "Retry-After": "30" } }));
    const { calls, handler } = recorder();
    const failure = await streamAnswer(1, { question: "q" }, handler, new AbortController().signal).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 503, message: "Er is nu geen taalmodel beschikbaar.", retryAfter: 30 });
    expect(modelUnavailableText("ready", (failure as ApiError).retryAfter)).toBe('Het taalmodel is bezet. Stel je vraag over 30 seconden opnieuw, of kies "Alleen documenten tonen": dat kan nu al.');
    expect(calls).toEqual([]);
  });

  it("ends quietly when the user stops before the server answered", async () => {
    const controller = new AbortController();
    serve(async () => {
      controller.abort();
      throw new DOMException("The operation was aborted.", "AbortError");
    });
    const { calls, handler } = recorder();
    await expect(streamAnswer(1, { question: "q" }, handler, controller.signal)).resolves.toBeUndefined();
    expect(calls).toEqual([]);
  });
});
