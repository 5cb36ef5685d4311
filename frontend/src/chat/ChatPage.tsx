// The clinicians' page: conversation history, the question box, streamed answers with their sources, the PDF viewer.
import { Suspense, lazy, useCallback, useEffect, useRef, useState, type FormEvent } from "react";
import { ApiError, getJson, sendJson } from "../api/client";
import type { Conversation, ConversationDetail, Message, Source } from "../api/types";
import { ConversationList } from "./ConversationList";
import { MessageView, type ChatMessage } from "./MessageView";
import { YesNo } from "./SourceList";
import { streamAnswer } from "./stream";
import { ANSWER_FOUND, DISCLAIMER, busyText } from "./texts";
import { cutAtWord } from "../text/dutch";

// pdf.js is large: it loads when a clinician first opens a document.
const PassageViewer = lazy(() => import("../pdf/PassageViewer").then((module) => ({ default: module.PassageViewer })));

function fromStored(message: Message): ChatMessage {
  return {
    id: message.id,
    question: message.question,
    answer: message.answer,
    state: message.state,
    stopReason: message.stop_reason,
    sources: message.sources,
    feedback: message.feedback,
    error: null,
    quote: message.quote,
    sentences: message.sentences,
    supportWarning: message.support_warning,
  };
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
  const abort = useRef<AbortController | null>(null);
  const answering = useRef<number | null>(null);

  const loadConversations = useCallback(async () => {
    setConversations(await getJson<Conversation[]>("/api/conversations"));
  }, []);

  useEffect(() => {
    loadConversations().catch(() => setPageError("De gesprekken konden niet worden geladen."));
  }, [loadConversations]);

  async function open(id: number) {
    const detail = await getJson<ConversationDetail>(`/api/conversations/${id}`);
    setActive(id);
    setMessages(detail.messages.map(fromStored));
    setAnswerFound(detail.answer_found);
    setViewed(null);
  }

  function startNew() {
    setActive(null);
    setMessages([]);
    setAnswerFound(null);
    setViewed(null);
  }

  const updateLast = (change: (message: ChatMessage) => ChatMessage) =>
    setMessages((all) => [...all.slice(0, -1), change(all[all.length - 1])]);

  async function ask(event: FormEvent) {
    event.preventDefault();
    const text = question.trim();
    if (!text || generating) return;
    setQuestion("");
    setGenerating(true);
    setMessages((all) => [
      ...all,
      { id: null, question: text, answer: "", state: "pending", stopReason: null, sources: [], feedback: [], error: null },
    ]);
    const controller = new AbortController();
    abort.current = controller;
    try {
      const conversationId = active ?? (await sendJson<Conversation>("POST", "/api/conversations", { title: cutAtWord(text, 80) })).id;
      setActive(conversationId);
      await streamAnswer(
        conversationId,
        { question: text, retrieval_only: retrievalOnly },
        {
          onMessage: (id) => {
            answering.current = id;
            updateLast((m) => ({ ...m, id }));
          },
          onSources: (sources) => updateLast((m) => ({ ...m, sources })),
          onQuote: (quote) => updateLast((m) => ({ ...m, quote })),
          onDelta: (delta) => updateLast((m) => ({ ...m, answer: m.answer + delta })),
          onSupport: ({ sentences, warning }) => updateLast((m) => ({ ...m, sentences, supportWarning: warning })),
          onDone: (state, stopReason) => updateLast((m) => ({ ...m, state, stopReason })),
          onError: (message, retryAfter) =>
            updateLast((m) => ({ ...m, state: "failed", error: retryAfter ? `${message} ${busyText(retryAfter)}` : message })),
        },
        controller.signal,
      );
      await loadConversations();
    } catch (error) {
      const message =
        error instanceof ApiError && error.status === 503 ? `${error.message} ${busyText(error.retryAfter)}` : error instanceof ApiError ? error.message : "Er ging iets mis.";
      updateLast((m) => ({ ...m, state: "failed", error: message }));
    } finally {
      setGenerating(false);
      abort.current = null;
      answering.current = null;
    }
  }

  async function stop() {
    const id = answering.current;
    abort.current?.abort();
    updateLast((m) => ({ ...m, state: "stopped" }));
    if (id !== null) await sendJson("POST", `/api/messages/${id}/stop`).catch(() => undefined);
  }

  async function markAnswerFound(value: boolean) {
    if (active === null) return;
    await sendJson("PUT", `/api/conversations/${active}/feedback`, { answer_found: value });
    setAnswerFound(value);
  }

  return (
    <div className={viewed ? "chat with-viewer" : "chat"}>
      <ConversationList conversations={conversations} activeId={active} onSelect={(id) => void open(id)} onNew={startNew} />
      <main className="conversation" aria-label="Gesprek">
        <div className="thread">
          {pageError && <p role="alert" className="error">{pageError}</p>}
          {messages.length === 0 && <p className="empty">Stel een vraag over de procedures van het ziekenhuis.</p>}
          {messages.map((message, index) => (
            <MessageView
              key={message.id ?? `pending-${index}`}
              message={message}
              onOpen={(source, sentence) => setViewed({ source, sentence })}
            />
          ))}
          {active !== null && messages.length > 0 && !generating && (
            <YesNo question={ANSWER_FOUND} value={answerFound} onChange={(value) => void markAnswerFound(value)} />
          )}
        </div>
        <form className="ask" onSubmit={ask}>
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
          <PassageViewer source={viewed.source} sentence={viewed.sentence} onClose={() => setViewed(null)} />
        </Suspense>
      )}
    </div>
  );
}
