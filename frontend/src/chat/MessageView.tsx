// One question and its answer: the quoted passage sentence, the generated text (each sentence cited or flagged once
// checked), its state, and the documents it used.
import type { AnswerSentence, DocumentFeedback, MessageState, Quote, Source } from "../api/types";
import { renderInlineMarkdown, renderMarkdown } from "./markdown";
import { SourceList, documentNumber, pagesText } from "./SourceList";
import {
  CONTRADICTS_QUOTE,
  GENERATED_HEADING,
  NEAREST_HEADING,
  NO_QUOTE,
  QUOTE_HEADING,
  SHOW_IN_DOCUMENT,
  SOURCES_HEADING,
  SUPPORT_WARNING,
  UNSUPPORTED,
  citationLabel,
  emptyAnswerText,
  saysSomething,
  stateNote,
} from "./texts";

export interface ChatMessage {
  id: number | null;
  question: string;
  answer: string;
  state: MessageState;
  stopReason: string | null;
  /** The user asked to stop it (from the history: the stop was recorded, also when its server was out of reach). */
  stopRequested?: boolean;
  sources: Source[];
  feedback: DocumentFeedback[];
  error: string | null;
  /** Undefined until the `quote` event arrived; null when no passage answers the question literally. */
  quote?: Quote | null;
  /** Empty until the `support` event arrived (and for messages stored before sentences were checked). */
  sentences?: AnswerSentence[];
  supportWarning?: boolean;
}

/** Opens the viewer on `source`; `sentence` (a verbatim part of its passage) is highlighted instead of the passage. */
export type OpenSource = (source: Source, sentence?: string) => void;

export function MessageView({ message, onOpen }: { message: ChatMessage; onOpen: OpenSource }) {
  const note = stateNote(message.state, message.stopReason, message.stopRequested);
  const notFound = message.state === "not_found";
  return (
    <article className={`message state-${message.state}`} aria-busy={message.state === "pending"}>
      <p className="question">{message.question}</p>
      {message.quote !== undefined && <QuoteBlock quote={message.quote} sources={message.sources} onOpen={onOpen} />}
      <AnswerPart message={message} onOpen={onOpen} />
      {message.state === "pending" && !message.answer && <p className="thinking">Bezig met zoeken en antwoorden…</p>}
      {note && !message.error && <p className="note">{note}</p>}
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

/** What the model wrote: the fixed "not found" text, the generated answer, or, when a finished answer holds no
 * words at all, a note that sends the reader to the quote and the documents (which stay as they are). */
function AnswerPart({ message, onOpen }: { message: ChatMessage; onOpen: OpenSource }) {
  if (message.state === "answered" && !saysSomething(message.answer))
    return (
      <section className="generated" aria-label={GENERATED_HEADING}>
        <h3>{GENERATED_HEADING}</h3>
        <p className="no-answer">{emptyAnswerText(Boolean(message.quote))}</p>
      </section>
    );
  if (!message.answer) return null;
  if (message.state === "not_found")
    return <div className="answer not-found" dangerouslySetInnerHTML={{ __html: renderMarkdown(message.answer) }} />;
  return <GeneratedAnswer message={message} onOpen={onOpen} />;
}

/** The passage's own words first; clicking them opens the PDF with exactly that sentence highlighted. */
function QuoteBlock({ quote, sources, onOpen }: { quote: Quote | null; sources: Source[]; onOpen: OpenSource }) {
  const source = quote ? sources[quote.source_index] : undefined;
  return (
    <section className="quote" aria-label={QUOTE_HEADING}>
      <h3>{QUOTE_HEADING}</h3>
      {quote === null ? (
        <p className="no-quote">{NO_QUOTE}</p>
      ) : source ? (
        <button
          type="button"
          className="quote-open"
          onClick={() => onOpen({ ...source, page_start: quote.page_start, page_end: quote.page_end }, quote.text)}
        >
          <q>{quote.text}</q>
          <span className="quote-source">
            {quote.title}, {pagesText(quote)} · {SHOW_IN_DOCUMENT}
          </span>
        </button>
      ) : (
        <p>
          <q>{quote.text}</q> <span className="quote-source">{quote.title}, {pagesText(quote)}</span>
        </p>
      )}
    </section>
  );
}

/** The model's text, labelled as generated: plain markdown while it streams, then sentence by sentence with a
 * citation per supported sentence and a visible flag on each unsupported one. */
function GeneratedAnswer({ message, onOpen }: { message: ChatMessage; onOpen: OpenSource }) {
  const sentences = [...(message.sentences ?? [])].sort((a, b) => a.start - b.start);
  return (
    <section className="generated" aria-label={GENERATED_HEADING}>
      <h3>{GENERATED_HEADING}</h3>
      {message.supportWarning && (
        <p className="support-warning" role="note">
          <span aria-hidden="true">⚠ </span>
          {SUPPORT_WARNING}
        </p>
      )}
      {sentences.length === 0 ? (
        <div className="answer" dangerouslySetInnerHTML={{ __html: renderMarkdown(message.answer) }} />
      ) : (
        <div className="answer checked">
          {pieces(message.answer, sentences).map((piece, index) =>
            typeof piece === "string" ? (
              piece
            ) : (
              <CheckedSentence key={index} text={piece.text} sentence={piece.sentence} sources={message.sources} onOpen={onOpen} />
            ),
          )}
        </div>
      )}
    </section>
  );
}

/** The answer cut into its sentences and the text between them (spaces, line breaks, list marks), in order. */
function pieces(answer: string, sentences: AnswerSentence[]): (string | { text: string; sentence: AnswerSentence })[] {
  const result: (string | { text: string; sentence: AnswerSentence })[] = [];
  let position = 0;
  for (const sentence of sentences) {
    const start = Math.max(sentence.start, position);
    if (start > position) result.push(answer.slice(position, start));
    result.push({ text: answer.slice(start, sentence.end) || sentence.text, sentence });
    position = Math.max(position, sentence.end);
  }
  if (position < answer.length) result.push(answer.slice(position));
  return result;
}

function CheckedSentence({ text, sentence, sources, onOpen }: { text: string; sentence: AnswerSentence; sources: Source[]; onOpen: OpenSource }) {
  const source = sentence.citation !== null ? sources[sentence.citation - 1] : undefined;
  const number = sentence.citation !== null ? documentNumber(sources, sentence.citation - 1) : null;
  const html = { __html: renderInlineMarkdown(text) };
  if (!sentence.supported)
    return (
      <span className="sentence unsupported">
        <span dangerouslySetInnerHTML={html} />{" "}
        <span className="unsupported-flag">
          <span aria-hidden="true">⚠ </span>
          {sentence.contradicts_quote ? CONTRADICTS_QUOTE : UNSUPPORTED}
        </span>
      </span>
    );
  const supporting =
    source && sentence.source_start !== null && sentence.source_end !== null
      ? source.passage.slice(sentence.source_start, sentence.source_end)
      : undefined;
  return (
    <span className="sentence supported">
      <span dangerouslySetInnerHTML={html} />
      {source && number !== null && (
        <button
          type="button"
          className="citation"
          aria-label={citationLabel(number, source.title, pagesText(source))}
          onClick={() => onOpen(source, supporting || undefined)}
        >
          [{number}]
        </button>
      )}
    </span>
  );
}
