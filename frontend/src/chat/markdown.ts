// Answers are markdown written by a language model: rendered, then sanitised before they reach the page.
import DOMPurify from "dompurify";
import { marked } from "marked";

export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true, breaks: true }));
}

/** One sentence of an answer, rendered inline (emphasis, code) and sanitised: sentences sit side by side in a line. */
export function renderInlineMarkdown(text: string): string {
  return DOMPurify.sanitize(marked.parseInline(text, { async: false, gfm: true, breaks: true }));
}
