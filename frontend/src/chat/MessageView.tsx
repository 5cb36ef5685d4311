// One question and its answer: the streamed text (rendered markdown), its state, and the documents it used.
import type { DocumentFeedback, MessageState, Source } from "../api/types";
import { renderMarkdown } from "./markdown";
import { SourceList } from "./SourceList";
import { NEAREST_HEADING, SOURCES_HEADING, stateNote } from "./texts";

export interface ChatMessage {
  id: number | null;
  question: string;
  answer: string;
  state: MessageState;
  stopReason: string | null;
  sources: Source[];
  feedback: DocumentFeedback[];
  error: string | null;
}

export function MessageView({ message, onOpen }: { message: ChatMessage; onOpen(source: Source): void }) {
  const note = stateNote(message.state, message.stopReason);
  const notFound = message.state === "not_found";
  return (
    <article className={`message state-${message.state}`} aria-busy={message.state === "pending"}>
      <p className="question">{message.question}</p>
      {message.answer && (
        <div className={notFound ? "answer not-found" : "answer"} dangerouslySetInnerHTML={{ __html: renderMarkdown(message.answer) }} />
      )}
      {message.state === "pending" && !message.answer && <p className="thinking">Bezig met zoeken en antwoorden…</p>}
      {note && <p className="note">{note}</p>}
      {message.error && <p role="alert" className="error">{message.error}</p>}
      <SourceList
        messageId={message.id}
        sources={message.sources}
        feedback={message.feedback}
        heading={notFound ? NEAREST_HEADING : SOURCES_HEADING}
        onOpen={onOpen}
        passagesFor={message.state === "retrieval_only" ? message.question : undefined}
      />
    </article>
  );
}
