// The documents under an answer: title, pages, "Document bekijken" and the two feedback questions per document.
import { useRef, useState } from "react";
import { sendJson } from "../api/client";
import type { DocumentFeedback, Source } from "../api/types";
import { CONTAINS_ANSWER, HIGHLIGHT_CORRECT } from "./texts";

interface Props {
  messageId: number | null;
  sources: Source[];
  feedback: DocumentFeedback[];
  heading: string;
  onOpen(source: Source): void;
}

export function SourceList({ messageId, sources, feedback, heading, onOpen }: Props) {
  if (sources.length === 0) return null;
  return (
    <section className="sources" aria-label={heading}>
      <h3>{heading}</h3>
      <ol>
        {groupByDocument(sources).map((passages) => (
          <li key={passages[0].document_id}>
            <span className="source-title">{passages[0].title}</span>
            <ul className="passages">
              {passages.map((source) => (
                <li key={source.chunk_index}>
                  <span className="pages">{pagesText(source)}</span>
                  <button type="button" onClick={() => onOpen(source)}>
                    Document bekijken
                  </button>
                </li>
              ))}
            </ul>
            {messageId !== null && (
              <FeedbackQuestions
                messageId={messageId}
                documentId={passages[0].document_id}
                initial={feedback.find((f) => f.document_id === passages[0].document_id)}
              />
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}

/** One entry per document, in the order of its best passage: feedback is stored per document, so one document
 * retrieved three times gets one pair of questions (and a viewer button per passage). */
export function groupByDocument(sources: readonly Source[]): Source[][] {
  const groups = new Map<string, Source[]>();
  for (const source of sources) groups.set(source.document_id, [...(groups.get(source.document_id) ?? []), source]);
  return [...groups.values()];
}

export function pagesText(source: Pick<Source, "page_start" | "page_end">): string {
  return source.page_start === source.page_end
    ? `pagina ${source.page_start}`
    : `pagina's ${source.page_start}–${source.page_end}`;
}

type Answer = boolean | null;

interface Answers {
  contains_answer: Answer;
  highlight_correct: Answer;
}

function FeedbackQuestions({ messageId, documentId, initial }: { messageId: number; documentId: string; initial?: DocumentFeedback }) {
  const [answers, setAnswers] = useState<Answers>({
    contains_answer: initial?.contains_answer ?? null,
    highlight_correct: initial?.highlight_correct ?? null,
  });
  // Both answers go in every PUT: a ref, not the render's state, so a second click before the first PUT returned
  // does not send the first question's old answer.
  const latest = useRef(answers);
  const [error, setError] = useState<string | null>(null);

  async function save(change: Partial<Answers>) {
    const previous = latest.current;
    const next = { ...previous, ...change };
    latest.current = next;
    setAnswers(next);
    try {
      await sendJson("PUT", `/api/messages/${messageId}/feedback/${encodeURIComponent(documentId)}`, next);
      setError(null);
    } catch {
      latest.current = previous;
      setAnswers(previous);
      setError("Je feedback kon niet worden bewaard. Probeer opnieuw.");
    }
  }

  return (
    <div className="feedback">
      <YesNo question={CONTAINS_ANSWER} value={answers.contains_answer} onChange={(value) => void save({ contains_answer: value })} />
      <YesNo question={HIGHLIGHT_CORRECT} value={answers.highlight_correct} onChange={(value) => void save({ highlight_correct: value })} />
      {error && <p role="alert" className="error">{error}</p>}
    </div>
  );
}

export function YesNo({ question, value, onChange }: { question: string; value: Answer; onChange(value: boolean): void }) {
  return (
    <div className="yesno" role="group" aria-label={question}>
      <span>{question}</span>
      <button type="button" aria-pressed={value === true} onClick={() => onChange(true)}>
        Ja
      </button>
      <button type="button" aria-pressed={value === false} onClick={() => onChange(false)}>
        Nee
      </button>
    </div>
  );
}
