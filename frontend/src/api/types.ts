// The web API's shapes (docs/api.md).

export type Role = "clinician" | "admin" | "evaluator";

export interface User {
  id: number;
  username: string;
  roles: Role[];
  disabled?: boolean;
}

export interface Session {
  user: User;
  csrf_token: string | null;
}

/** GET /api/auth/config: what the login page offers. */
export interface AuthConfig {
  sso: boolean;
}

/** GET /api/health: the API's own state and how many generation workers are ready (or still loading). */
export interface Health {
  status: string;
  workers?: { ready: number; total: number; loading?: number };
}

export interface Conversation {
  id: number;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface Source {
  document_id: string;
  title: string;
  page_start: number;
  page_end: number;
  chunk_index: number;
  passage: string;
  score: number;
}

/** The sentence(s) of a retrieved passage that best answer the question, verbatim: `passage[start:end] === text` of
 * `sources[source_index]`; `page_start/page_end` are the pages the quoted text lies on. */
export interface Quote {
  text: string;
  source_index: number;
  document_id: string;
  title: string;
  page_start: number;
  page_end: number;
  start: number;
  end: number;
  score: number;
}

/** One sentence of a generated answer (`answer[start:end]`) and the passage sentence that supports it, if any:
 * `citation` is the 1-based number of the source, `source_start/source_end` offsets in that source's passage. */
export interface AnswerSentence {
  text: string;
  start: number;
  end: number;
  score: number;
  supported: boolean;
  citation: number | null;
  source_start: number | null;
  source_end: number | null;
  /** The sentence states another value than the quote in a unit of the same kind (absent in older messages). */
  contradicts_quote?: boolean;
}

/** The `support` event: the answer's sentences, and whether most of them are unsupported. */
export interface Support {
  sentences: AnswerSentence[];
  warning: boolean;
}

export interface DocumentFeedback {
  message_id: number;
  document_id: string;
  contains_answer: boolean | null;
  highlight_correct: boolean | null;
}

export type MessageState = "pending" | "answered" | "not_found" | "retrieval_only" | "stopped" | "failed";

export interface Message {
  id: number;
  question: string;
  answer: string;
  state: MessageState;
  stop_reason: string | null;
  /** When its owner asked to stop the answer (absent or null: never). */
  stop_requested_at?: string | null;
  created_at: string;
  sources: Source[];
  feedback: DocumentFeedback[];
  model: string | null;
  method: string | null;
  stats: Record<string, unknown>;
  quote: Quote | null;
  sentences: AnswerSentence[];
  support_warning: boolean;
}

export interface ConversationDetail extends Conversation {
  answer_found: boolean | null;
  messages: Message[];
}

export interface DocumentInfo {
  id: string;
  title: string;
  /** The name the admin gave an upload (kept as given), or the file's own name. */
  file_name: string;
  /** The PDF shown is a conversion (Word, OpenDocument) or an OCR'd copy; the original is at /original. */
  converted: boolean;
  page_count: number;
  chunk_count: number;
  audiences: string[];
  departments: string[];
  ingested_at: string;
}

export interface JobFile {
  name: string;
  status: string;
  message: string | null;
  /** How an upload was stored, when the admin should know (under another name than its own). */
  note: string | null;
  chunks_total: number;
  chunks_done: number;
}

export interface Job {
  id: number;
  status: string;
  created_at: string;
  finished_at: string | null;
  progress: number;
  counts: Record<string, number>;
  files: JobFile[];
}

export interface EvaluationSet {
  id: number;
  name: string;
  questions: number;
  unresolved: string[];
}

export interface Report {
  id: number;
  set_id: number;
  kind: "retrieval" | "answers"; // Hit@k / MRR, or answer quality through the chat
  status: string;
  progress: number;
  created_at: string;
  finished_at: string | null;
  error: string | null;
  metrics: Record<string, Record<string, number>>;
  files: string[];
}
