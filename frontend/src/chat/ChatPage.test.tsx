import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { ChatPage } from "./ChatPage";
import { CONNECTION_LOST } from "./stream";
import { ANSWER_FOUND, DISCLAIMER, GENERATED_HEADING, NO_QUOTE, QUOTE_HEADING, SUPPORT_WARNING, UNSUPPORTED } from "./texts";

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

  it("says the database is down, not that the model is busy, when the API answers 503 for the database", async () => {
    const down = "De database is tijdelijk niet bereikbaar. Probeer het over enkele seconden opnieuw.";
    serveApi(() => json({ detail: down }, 503, { "Retry-After": "5" }), READY, {
      "POST /api/conversations": () => json({ detail: down }, 503, { "Retry-After": "5" }),
      "GET /api/health": () => json({ status: "unavailable", database: "unavailable (OperationalError)", workers: { ready: 1, loading: 0, total: 1 } }, 503),
    });
    askQuestion("max tijd stuwband?");
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe(down));
    expect((screen.getByLabelText("Jouw vraag") as HTMLTextAreaElement).value).toBe("max tijd stuwband?");
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

  it("shows why an answer was cut off when the generator fell silent, and that it was not saved when the database was down", async () => {
    const stream = answerStream();
    serveApi(() => stream.response);
    askQuestion();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("delta", { text: "Wrijf de handen" });
    const silent = "De generator reageert niet meer; het antwoord is afgebroken. Wat al geschreven was, is bewaard; stel de vraag opnieuw.";
    stream.send("error", { message: silent });
    expect((await screen.findByRole("alert")).textContent).toBe(silent);
    const notSaved = "Dit antwoord kon niet worden bewaard: de database was niet bereikbaar.";
    stream.send("error", { message: notSaved });
    stream.send("done", { message_id: 5, state: "failed", stop_reason: "worker_silent" });
    stream.close();
    await screen.findByRole("button", { name: "Vraag stellen" });
    expect(screen.getByRole("alert").textContent).toBe(`${silent} ${notSaved}`);
    expect(screen.getByText("Wrijf de handen")).toBeTruthy();
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

describe("ChatPage: the quote first, each generated sentence cited or flagged (issue 21)", () => {
  const quote = { text: "max 60 min", source_index: 0, document_id: "stuwband", title: "Stuwband aanleggen", page_start: 2, page_end: 2, start: 0, end: 10, score: 0.8 };
  const answer = "De stuwband mag maximaal 60 minuten blijven. Daarna koelen met ijs.";
  const sentences = [
    { text: "De stuwband mag maximaal 60 minuten blijven.", start: 0, end: 44, score: 0.9, supported: true, citation: 1, source_start: 0, source_end: 10 },
    { text: "Daarna koelen met ijs.", start: 45, end: 67, score: 0.1, supported: false, citation: null, source_start: null, source_end: null },
  ];

  it("shows the quote as soon as it arrives, the plain text while streaming, then the citations and flags", async () => {
    const stream = answerStream();
    serveApi(() => stream.response);
    askQuestion();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("sources", { sources: [source], not_found: false });
    stream.send("quote", { quote });
    const block = await screen.findByRole("region", { name: QUOTE_HEADING });
    expect(block.querySelector("q")?.textContent).toBe("max 60 min");
    stream.send("delta", { text: answer });
    expect(await screen.findByText(answer)).toBeTruthy();
    expect(screen.queryByText(UNSUPPORTED)).toBeNull();
    stream.send("support", { sentences, warning: true });
    stream.send("done", { message_id: 5, state: "answered", stop_reason: "eos" });
    stream.close();
    expect(await screen.findByText(UNSUPPORTED)).toBeTruthy();
    expect(screen.getByRole("button", { name: /^Bron \[1\]/ }).textContent).toBe("[1]");
    expect(screen.getByRole("note").textContent).toContain(SUPPORT_WARNING);
  });

  it("keeps a quote and a check that arrive after another conversation was opened with their own answer", async () => {
    const stream = answerStream();
    const old = { id: 7, title: "oud", created_at: "", updated_at: "", answer_found: null, messages: [{ id: 3, question: "oude vraag", answer: "Oud antwoord.", state: "answered", stop_reason: "eos", created_at: "", sources: [], feedback: [], model: null, method: null, stats: {}, quote: null, sentences: [], support_warning: false }] };
    serveApi(() => stream.response, READY, {
      "GET /api/conversations": () => json([{ id: 7, title: "oud", created_at: "", updated_at: "" }]),
      "GET /api/conversations/7": () => json(old),
    });
    askQuestion();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("sources", { sources: [source], not_found: false });
    fireEvent.click(await screen.findByRole("button", { name: "oud" }));
    await screen.findByText("Oud antwoord.");
    stream.send("quote", { quote });
    stream.send("delta", { text: answer });
    stream.send("support", { sentences, warning: true });
    stream.send("done", { message_id: 5, state: "answered", stop_reason: "eos" });
    stream.close();
    await screen.findByRole("button", { name: "Vraag stellen" });
    const [shown] = screen.getAllByRole("article");
    expect(screen.getAllByRole("article")).toHaveLength(1);
    expect(within(shown).getByText(NO_QUOTE)).toBeTruthy();
    expect(within(shown).queryByText("max 60 min")).toBeNull();
    expect(within(shown).queryByText(UNSUPPORTED)).toBeNull();
    expect(within(shown).queryByRole("note")).toBeNull();
  });

  it("says no passage was found when the quote event carries null", async () => {
    const stream = answerStream();
    serveApi(() => stream.response);
    askQuestion();
    stream.send("message", { message_id: 5, conversation_id: 1 });
    stream.send("sources", { sources: [], not_found: true });
    stream.send("quote", { quote: null });
    expect(await screen.findByText(NO_QUOTE)).toBeTruthy();
  });

  it("renders a stored message from the history with its quote, citations, flags and warning", async () => {
    const stored = {
      id: 5,
      question: "max tijd stuwband?",
      answer,
      state: "answered",
      stop_reason: "eos",
      created_at: "",
      sources: [source],
      feedback: [],
      model: null,
      method: null,
      stats: {},
      quote,
      sentences,
      support_warning: true,
    };
    const oldOne = { ...stored, id: 4, quote: null, sentences: [], support_warning: false, answer: "Een oud antwoord." };
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        if (url === "/api/conversations") return json([{ id: 1, title: "Stuwband", created_at: "", updated_at: "" }]);
        if (url === "/api/conversations/1") return json({ id: 1, title: "Stuwband", created_at: "", updated_at: "", answer_found: null, messages: [oldOne, stored] });
        return json({ detail: "Niet gevonden." }, 404);
      }),
    );
    render(<ChatPage />);
    fireEvent.click(await screen.findByRole("button", { name: "Stuwband" }));
    const [old, checked] = await screen.findAllByRole("article");
    expect(within(old).getByText(NO_QUOTE)).toBeTruthy();
    expect(within(old).getByRole("region", { name: GENERATED_HEADING }).textContent).toContain("Een oud antwoord.");
    expect(within(old).queryByText(UNSUPPORTED)).toBeNull();
    expect(within(checked).getByRole("region", { name: QUOTE_HEADING }).querySelector("q")?.textContent).toBe("max 60 min");
    expect(within(checked).getByRole("button", { name: /^Bron \[1\]/ })).toBeTruthy();
    expect(within(checked).getByText(UNSUPPORTED).closest(".sentence")?.textContent).toContain("Daarna koelen met ijs.");
    expect(within(checked).getByRole("note").textContent).toContain(SUPPORT_WARNING);
  });
});
