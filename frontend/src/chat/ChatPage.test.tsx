import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ChatPage } from "./ChatPage";
import { CONNECTION_LOST } from "./stream";
import { ANSWER_FOUND, DISCLAIMER } from "./texts";

const source = { document_id: "stuwband", title: "Stuwband aanleggen", page_start: 2, page_end: 2, chunk_index: 0, passage: "max 60 min", score: 0.9 };

/** The answer's event stream, fed by the test one event at a time (as the API sends them while generating). */
function answerStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  return {
    response: new Response(body, { headers: { "Content-Type": "text/event-stream" } }),
    send: (event: string, data: unknown) => controller.enqueue(new TextEncoder().encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    close: () => controller.close(),
  };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(status === 204 ? null : JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });

/** The response with a body that ends when `signal` aborts, as the browser's fetch does. */
function abortable(response: Response, signal?: AbortSignal | null): Response {
  if (!response.body) return response;
  const reader = response.body.getReader();
  signal?.addEventListener("abort", () => void reader.cancel());
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
  });
  return new Response(body, response);
}

const READY = { status: "ok", workers: { ready: 1, loading: 0, total: 1 } };

/** The API's routes that the chat page calls; `answer` is what asking a question returns. */
function serveApi(answer: () => Response, health: unknown = READY, routes: Record<string, () => Response> = {}) {
  const fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    const method = init.method ?? "GET";
    const route = routes[`${method} ${url}`];
    if (route) return route();
    if (url === "/api/health") return json(health);
    if (url === "/api/conversations" && method === "GET") return json([]);
    if (url === "/api/conversations" && method === "POST") return json({ id: 1, title: "t", created_at: "", updated_at: "" }, 201);
    if (url === "/api/conversations/1/messages") return abortable(answer(), init.signal);
    if (url.endsWith("/stop")) return json(null, 204);
    return json({ detail: "Niet gevonden." }, 404);
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

function askQuestion(text = "max tijd stuwband?") {
  render(<ChatPage />);
  fireEvent.change(screen.getByLabelText("Jouw vraag"), { target: { value: text } });
  fireEvent.click(screen.getByRole("button", { name: "Vraag stellen" }));
}

afterEach(() => vi.unstubAllGlobals());

describe("ChatPage", () => {
  it("shows the answer while it streams in, then the sources and 'Antwoord gevonden?'", async () => {
    const stream = answerStream();
    serveApi(() => stream.response);
    askQuestion();
    expect(screen.getByText(DISCLAIMER)).toBeTruthy();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("sources", { sources: [source], not_found: false });
    stream.send("delta", { text: "De stuwband mag maximaal" });
    expect(await screen.findByText("De stuwband mag maximaal")).toBeTruthy();
    expect(screen.queryByRole("group", { name: ANSWER_FOUND })).toBeNull();
    stream.send("delta", { text: " 60 minuten blijven." });
    stream.send("done", { message_id: 5, state: "answered", stop_reason: "eos" });
    stream.close();
    expect(await screen.findByText("De stuwband mag maximaal 60 minuten blijven.")).toBeTruthy();
    expect(screen.getByText("Stuwband aanleggen")).toBeTruthy();
    expect(await screen.findByRole("group", { name: ANSWER_FOUND })).toBeTruthy();
  });

  it("says once, without contradiction, that the model is busy on a 503; keeps the question; removes the new conversation", async () => {
    const fetch = serveApi(() => json({ detail: "Er is op dit moment geen taalmodel beschikbaar." }, 503, { "Retry-After": "20" }));
    askQuestion("max tijd stuwband?");
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toBe('Het taalmodel is bezet. Stel je vraag over 20 seconden opnieuw, of kies "Alleen documenten tonen": dat kan nu al.');
    expect((screen.getByLabelText("Jouw vraag") as HTMLTextAreaElement).value).toBe("max tijd stuwband?");
    expect(screen.queryByText("max tijd stuwband?", { selector: ".question" })).toBeNull();
    await waitFor(() => expect(fetch.mock.calls.some(([url, init]) => url === "/api/conversations/1" && init?.method === "DELETE")).toBe(true));
    expect(screen.getByRole("button", { name: "Vraag stellen" })).toBeTruthy();
  });

  it("says the model is loading before a question is asked, and asks nothing then but documents-only ones", async () => {
    const fetch = serveApi(() => json({ detail: "Niet gevonden." }, 404), { status: "ok", workers: { ready: 0, loading: 1, total: 1 } });
    render(<ChatPage />);
    expect((await screen.findByRole("status")).textContent).toContain("Het taalmodel wordt geladen…");
    fireEvent.change(screen.getByLabelText("Jouw vraag"), { target: { value: "max tijd stuwband?" } });
    fireEvent.click(screen.getByRole("button", { name: "Vraag stellen" }));
    expect((await screen.findByRole("alert")).textContent).toContain("Het taalmodel wordt geladen…");
    expect((screen.getByLabelText("Jouw vraag") as HTMLTextAreaElement).value).toBe("max tijd stuwband?");
    expect(fetch.mock.calls.some(([, init]) => init?.method === "POST")).toBe(false);
    fireEvent.click(screen.getByLabelText("Alleen documenten tonen (geen gegenereerd antwoord)"));
    fireEvent.click(screen.getByRole("button", { name: "Vraag stellen" }));
    await waitFor(() => expect(fetch.mock.calls.some(([url]) => url === "/api/conversations/1/messages")).toBe(true));
  });

  it("keeps a streaming answer under its own question when another conversation is opened", async () => {
    const stream = answerStream();
    const old = { id: 7, title: "oud", created_at: "", updated_at: "", answer_found: null, messages: [{ id: 3, question: "oude vraag", answer: "Oud antwoord.", state: "answered", stop_reason: "eos", created_at: "", sources: [], feedback: [], model: null, method: null, stats: {} }] };
    serveApi(() => stream.response, READY, {
      "GET /api/conversations": () => json([{ id: 7, title: "oud", created_at: "", updated_at: "" }]),
      "GET /api/conversations/7": () => json(old),
    });
    askQuestion("nieuwe vraag");
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("delta", { text: "Zestig " });
    await screen.findByText("Zestig");
    fireEvent.click(await screen.findByRole("button", { name: "oud" }));
    await screen.findByText("Oud antwoord.");
    stream.send("delta", { text: "minuten." });
    stream.send("done", { message_id: 5, state: "answered", stop_reason: "eos" });
    stream.close();
    await screen.findByRole("button", { name: "Vraag stellen" });
    expect(screen.getByText("Oud antwoord.")).toBeTruthy();
    expect(screen.queryByText(/Zestig/)).toBeNull();
    expect(screen.getAllByRole("article")).toHaveLength(1);
  });

  it("says the connection was lost when the stream ends before the answer is done", async () => {
    const stream = answerStream();
    serveApi(() => stream.response);
    askQuestion();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("delta", { text: "Maxi" });
    stream.close();
    expect((await screen.findByRole("alert")).textContent).toBe(CONNECTION_LOST);
  });

  it("stops a generation: asks the API to stop while still reading, and shows the stop the stream ends with", async () => {
    const stream = answerStream();
    let readingWhenStopped: boolean | null = null;
    let signal: AbortSignal | null | undefined;
    const fetch = serveApi(() => stream.response, READY, {
      "POST /api/messages/5/stop": () => {
        readingWhenStopped = signal ? !signal.aborted : null;
        stream.send("done", { message_id: 5, state: "stopped", stop_reason: "user_stopped" });
        stream.close();
        return json(null, 204);
      },
    });
    askQuestion();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("delta", { text: "Maxi" });
    await screen.findByText("Maxi");
    signal = fetch.mock.calls.find(([url]) => url === "/api/conversations/1/messages")?.[1]?.signal;
    fireEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect(await screen.findByText("Gestopt op jouw vraag.")).toBeTruthy();
    expect(readingWhenStopped).toBe(true); // closing the stream first would be stored as a lost connection
    expect(await screen.findByRole("button", { name: "Vraag stellen" })).toBeTruthy();
  });
});
