// The clinicians' page: conversation history, the question box, streamed answers with their sources, the PDF viewer.
import { Suspense, lazy, useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { ApiError, getJson, sendJson } from "../api/client";
import type { Conversation, ConversationDetail, Health, Message, Source } from "../api/types";
import { usePolling } from "../api/usePolling";
import { ConversationList } from "./ConversationList";
import { MessageView, type ChatMessage } from "./MessageView";
import { YesNo } from "./SourceList";
import { streamAnswer } from "./stream";
import { ANSWER_FOUND, DISCLAIMER, modelState, modelStateText, modelUnavailableText, type ModelState } from "./texts";
import { cutAtWord } from "../text/dutch";

// pdf.js is large: it loads when a clinician first opens a document.
const PassageViewer = lazy(() => import("../pdf/PassageViewer").then((module) => ({ default: module.PassageViewer })));

/** How long a stopped answer may take to end its stream on its own before the page stops reading it. */
const STOP_GRACE_MS = 5000;

function fromStored(message: Message): ChatMessage {
  return {
    id: message.id,
    question: message.question,
    answer: message.answer,
    state: message.state,
    stopReason: message.stop_reason,
    stopRequested: Boolean(message.stop_requested_at),
    sources: message.sources,
    feedback: message.feedback,
    error: null,
    quote: message.quote,
    sentences: message.sentences,
    supportWarning: message.support_warning,
  };
}

/** The answer streaming now: its conversation and its message as far as it came, whichever conversation is shown. */
interface Live {
  conversationId: number | null;
  message: ChatMessage;
  stopRequested: boolean;
}

/** Whether the database answers (`/api/health` says 503 when not): a 503 is then the model's, else the API's own
 * Dutch detail says what is wrong. */
async function databaseAnswers(): Promise<boolean> {
  try {
    return (await fetch("/api/health", { credentials: "same-origin" })).ok;
  } catch {
    return true; // unknown: the model's message, as before
  }
}

export function ChatPage() {
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [active, setActive] = useState<number | null>(null);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [answerFound, setAnswerFound] = useState<boolean | null>(null);
  const [question, setQuestion] = useState("");
  const [retrievalOnly, setRetrievalOnly] = useState(false);
  const [generating, setGenerating] = useState(false);
  const [viewed, setViewed] = useState<{ source: Source; sentence?: string } | null>(null);
  const [pageError, setPageError] = useState<string | null>(null);
  const [askError, setAskError] = useState<string | null>(null);
  const [model, setModel] = useState<ModelState | null>(null);
  const abort = useRef<AbortController | null>(null);
  const live = useRef<Live | null>(null);
  const shown = useRef<number | null>(null); // the conversation on screen, for answers that arrive later
  const opener = useRef<HTMLElement | null>(null);

  const loadConversations = useCallback(async () => {
    setConversations(await getJson<Conversation[]>("/api/conversations"));
  }, []);

  const checkModel = useCallback(async (): Promise<ModelState | null> => {
    try {
      // /api/health answers 503 when the database is down; its body still says how the workers are.
      const response = await fetch("/api/health", { credentials: "same-origin" });
      const state = modelState((await response.json()) as Health);
      setModel(state);
      return state;
    } catch {
      return null; // unknown: asking will tell
    }
  }, []);

  useEffect(() => {
    loadConversations().catch(() => setPageError("De gesprekken konden niet worden geladen."));
    void checkModel();
  }, [loadConversations, checkModel]);
  usePolling(() => void checkModel(), model !== null && model !== "ready", 3000);

  function show(id: number | null, stored: ChatMessage[]) {
    shown.current = id;
    setActive(id);
    setMessages(stored);
    setViewed(null);
  }

  async function open(id: number) {
    shown.current = id;
    const detail = await getJson<ConversationDetail>(`/api/conversations/${id}`);
    if (shown.current !== id) return; // another conversation was chosen meanwhile
    const current = live.current;
    const stored = detail.messages.map((m) => (current?.message.id === m.id ? current.message : fromStored(m)));
    if (current?.conversationId === id && !stored.includes(current.message)) stored.push(current.message);
    show(id, stored);
    setAnswerFound(detail.answer_found);
  }

  function startNew() {
    show(null, []);
    setAnswerFound(null);
  }

  /** Changes the streaming message, on screen only where it is shown: never another conversation's message. */
  function updateLive(change: (message: ChatMessage) => ChatMessage) {
    const current = live.current;
    if (!current) return;
    const previous = current.message;
    const next = change(previous);
    current.message = next;
    setMessages((all) => all.map((m) => (m === previous ? next : m)));
  }

  async function ask(event: FormEvent) {
    event.preventDefault();
    const text = question.trim();
    if (!text || generating) return;
    setAskError(null);
    if (!retrievalOnly && model !== null && model !== "ready") {
      const now = await checkModel();
      if (now !== null && now !== "ready") {
        setAskError(modelUnavailableText(now, null));
        return; // nothing asked, nothing stored: the question stays in the box
      }
    }
    const pending: ChatMessage = { id: null, question: text, answer: "", state: "pending", stopReason: null, sources: [], feedback: [], error: null };
    const current: Live = { conversationId: active, message: pending, stopRequested: false };
    live.current = current;
    setQuestion("");
    setGenerating(true);
    setMessages((all) => [...all, pending]);
    const controller = new AbortController();
    abort.current = controller;
    let created: number | null = null;
    try {
      if (current.conversationId === null) {
        created = (await sendJson<Conversation>("POST", "/api/conversations", { title: cutAtWord(text, 80) })).id;
        current.conversationId = created;
        if (shown.current === null && live.current === current) {
          shown.current = created;
          setActive(created);
        }
      }
      await streamAnswer(
        current.conversationId,
        { question: text, retrieval_only: retrievalOnly },
        {
          onMessage: (id) => updateLive((m) => ({ ...m, id })),
          onSources: (sources) => updateLive((m) => ({ ...m, sources })),
          onQuote: (quote) => updateLive((m) => ({ ...m, quote })),
          onDelta: (delta) => updateLive((m) => ({ ...m, answer: m.answer + delta })),
          onSupport: ({ sentences, warning }) => updateLive((m) => ({ ...m, sentences, supportWarning: warning })),
          onDone: (state, stopReason) => updateLive((m) => ({ ...m, state, stopReason })),
          onError: (message) => updateLive((m) => ({ ...m, state: "failed", error: m.error ? `${m.error} ${message}` : message })),
        },
        controller.signal,
      );
      if (current.stopRequested && current.message.state === "pending") updateLive((m) => ({ ...m, state: "stopped" }));
      await loadConversations();
    } catch (error) {
      await refused(current, created, error);
    } finally {
      live.current = null;
      abort.current = null;
      setGenerating(false);
    }
  }

  /** A question the API refused before storing it: it goes back into the box, with one message saying why, and a
   * conversation made for it alone is removed again. */
  async function refused(current: Live, created: number | null, error: unknown) {
    if (current.message.id !== null) {
      updateLive((m) => ({ ...m, state: "failed", error: error instanceof ApiError ? error.message : "Er ging iets mis." }));
      return;
    }
    const pending = current.message;
    setMessages((all) => all.filter((m) => m !== pending));
    setQuestion((typed) => typed || pending.question);
    const modelBusy = error instanceof ApiError && error.status === 503 && (await databaseAnswers());
    setAskError(modelBusy ? modelUnavailableText((await checkModel()) ?? "unavailable", error.retryAfter) : error instanceof ApiError ? error.message : "Er ging iets mis.");
    if (created !== null) {
      await sendJson("DELETE", `/api/conversations/${created}`).catch(() => undefined);
      if (shown.current === created) show(null, []);
      await loadConversations().catch(() => undefined);
    }
  }

  /** Asks the API to stop; the answer's stream then ends with its `done` (stored as the user's stop). Reading
   * stops only if that does not come: closing the stream first would be stored as a lost connection. */
  async function stop() {
    const current = live.current;
    const controller = abort.current;
    if (!current || !controller) return;
    current.stopRequested = true;
    const id = current.message.id;
    const ok = id !== null && (await sendJson("POST", `/api/messages/${id}/stop`).then(() => true, () => false));
    if (!ok) controller.abort();
    else window.setTimeout(() => controller.abort(), STOP_GRACE_MS);
  }

  async function markAnswerFound(value: boolean) {
    if (active === null) return;
    await sendJson("PUT", `/api/conversations/${active}/feedback`, { answer_found: value });
    setAnswerFound(value);
  }

  function openViewer(source: Source, sentence?: string) {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setViewed({ source, sentence });
  }

  const closeViewer = useCallback(() => {
    opener.current?.focus(); // back to the "Document bekijken" that opened it
    opener.current = null;
    setViewed(null);
  }, []);

  return (
    <div className={viewed ? "chat with-viewer" : "chat"}>
      <ConversationList conversations={conversations} activeId={active} onSelect={(id) => void open(id)} onNew={startNew} />
      <main className="conversation" aria-label="Gesprek">
        <div className="thread">
          {pageError && <p role="alert" className="error">{pageError}</p>}
          {messages.length === 0 && <p className="empty">Stel een vraag over de procedures van het ziekenhuis.</p>}
          {messages.map((message, index) => (
            <MessageView key={message.id ?? `pending-${index}`} message={message} onOpen={openViewer} />
          ))}
          {active !== null && messages.length > 0 && !generating && (
            <YesNo question={ANSWER_FOUND} value={answerFound} onChange={(value) => void markAnswerFound(value)} />
          )}
        </div>
        <form className="ask" onSubmit={ask}>
          {model !== null && model !== "ready" && (
            <p role="status" className="model-state">
              {modelStateText(model)}
            </p>
          )}
          {askError && <p role="alert" className="error">{askError}</p>}
          <label htmlFor="question">Jouw vraag</label>
          <textarea
            id="question"
            autoFocus
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                e.currentTarget.form?.requestSubmit();
              }
            }}
            rows={2}
            placeholder="Bijvoorbeeld: hoe lang mag een stuwband blijven zitten?"
          />
          <label className="toggle">
            <input type="checkbox" checked={retrievalOnly} onChange={(e) => setRetrievalOnly(e.target.checked)} />
            Alleen documenten tonen (geen gegenereerd antwoord)
          </label>
          {generating ? (
            <button type="button" onClick={() => void stop()}>
              Stop
            </button>
          ) : (
            <button type="submit" disabled={!question.trim()}>
              Vraag stellen
            </button>
          )}
        </form>
        <p className="disclaimer">{DISCLAIMER}</p>
      </main>
      {viewed && (
        <Suspense fallback={<p>Document laden…</p>}>
          <PassageViewer source={viewed.source} sentence={viewed.sentence} onClose={closeViewer} />
        </Suspense>
      )}
    </div>
  );
}
