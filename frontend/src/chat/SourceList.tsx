// The documents under an answer: title, pages, "Document bekijken" and the two feedback questions per document;
// in documents-only mode also the passages themselves, the question's words marked.
import { useRef, useState, type ReactNode } from "react";
import { sendJson } from "../api/client";
import type { DocumentFeedback, Source } from "../api/types";
import { CONTAINS_ANSWER, HIGHLIGHT_CORRECT } from "./texts";

interface Props {
  messageId: number | null;
  sources: Source[];
  feedback: DocumentFeedback[];
  heading: string;
  onOpen(source: Source): void;
  /** Documents-only mode: show each passage's text with these words marked (no generated answer to read). */
  passagesFor?: string;
}

export function SourceList({ messageId, sources, feedback, heading, onOpen, passagesFor }: Props) {
  if (sources.length === 0) return null;
  return (
    <section className="sources" aria-label={heading}>
      <h3>{heading}</h3>
      <ol>
        {groupByDocument(sources).map((passages) => (
          <li key={passages[0].document_id}>
            <span className="source-title">{passages[0].title}</span>
            <ul className={passagesFor === undefined ? "passages" : "passages with-text"}>
              {groupByPages(passages).map((samePages) => (
                <li key={samePages[0].chunk_index}>
                  <span className="pages">{pagesText(samePages[0])}</span>
                  {samePages.length > 1 && <span className="count">({samePages.length} passages)</span>}
                  {passagesFor === undefined ? (
                    <button type="button" onClick={() => onOpen(samePages[0])}>
                      Document bekijken
                    </button>
                  ) : (
                    // Documents only: each passage's text with its own button, so each can be opened highlighted.
                    samePages.map((source) => (
                      <div key={source.chunk_index} className="passage-item">
                        <blockquote className="passage-text">{markWords(source.passage, passagesFor)}</blockquote>
                        <button type="button" onClick={() => onOpen(source)}>
                          Document bekijken
                        </button>
                      </div>
                    ))
                  )}
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

/** The 1-based number of `sources[index]`'s document in the list of documents used (`groupByDocument`'s order):
 * what a citation [n] shows, so it points at the numbered document the clinician sees below the answer. */
export function documentNumber(sources: readonly Source[], index: number): number {
  const documents = [...new Set(sources.map((source) => source.document_id))];
  return documents.indexOf(sources[index].document_id) + 1;
}

/** A document's passages that lie on the same page(s), together: one "Document bekijken" per page, not three
 * identical rows (the viewer opens the best of them, the first). */
export function groupByPages(passages: readonly Source[]): Source[][] {
  const groups = new Map<string, Source[]>();
  for (const source of passages) {
    const key = `${source.page_start}-${source.page_end}`;
    groups.set(key, [...(groups.get(key) ?? []), source]);
  }
  return [...groups.values()];
}

// Short Dutch words that say nothing about what a question is about.
const STOPWORDS = new Set(
  "aan als bij dan dat de den der des die dit door een en er het hoe ik in is je met na naar niet of om op te tot uit van voor wat wie waar wanneer welke zijn zo mag moet kan".split(" "),
);

/** The question's words worth marking: three letters or more, not a stopword. */
export function questionWords(question: string): string[] {
  const words = question.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.filter((word) => word.length >= 3 && !STOPWORDS.has(word)))];
}

/** The passage with each occurrence of a question word (or a word starting with it) in a <mark>. */
export function markWords(passage: string, question: string): ReactNode[] {
  const words = questionWords(question)
    .sort((a, b) => b.length - a.length)
    .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (words.length === 0) return [passage];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${words.join("|")})`, "giu");
  const parts = passage.split(pattern);
  return parts.map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part));
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
