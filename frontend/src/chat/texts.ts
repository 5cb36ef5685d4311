// The chat's fixed Dutch texts, in one place.
import type { Health } from "../api/types";

export const DISCLAIMER = "Disclaimer: Deze chatbot kan en zal fouten maken. Controleer belangrijke info.";
export const SOURCES_HEADING = "Gebruikte documenten";
export const NEAREST_HEADING = "Documenten die het dichtst bij de vraag komen";
export const CONTAINS_ANSWER = "Bevat dit document een antwoord op jouw vraag?";
export const HIGHLIGHT_CORRECT = "Is de markering op het juiste deel van de tekst geplaatst?";
export const ANSWER_FOUND = "Antwoord gevonden?";

export type ModelState = "ready" | "loading" | "unavailable";

/** The language model's state from `/api/health`: a worker ready, one still loading, or none to be reached. */
export function modelState(health: Health): ModelState {
  const workers = health.workers;
  if (workers && workers.ready > 0) return "ready";
  return workers && (workers.loading ?? 0) > 0 ? "loading" : "unavailable";
}

/** The model's state above the question box while it cannot answer (before anything is asked). */
export function modelStateText(state: Exclude<ModelState, "ready">): string {
  return state === "loading"
    ? 'Het taalmodel wordt geladen… Je kunt intussen al zoeken met "Alleen documenten tonen".'
    : 'Het taalmodel is nu niet bereikbaar. Je kunt wel zoeken met "Alleen documenten tonen".';
}

/** One message for a question the model cannot take now, saying what can be done meanwhile. */
export function modelUnavailableText(state: ModelState, retryAfter: number | null): string {
  const what = {
    loading: "Het taalmodel wordt geladen…",
    ready: "Het taalmodel is bezet.",
    unavailable: "Het taalmodel is nu niet bereikbaar.",
  }[state];
  const when = retryAfter ? `Stel je vraag over ${retryAfter} seconden opnieuw` : "Stel je vraag zo dadelijk opnieuw";
  return `${what} ${when}, of kies "Alleen documenten tonen": dat kan nu al.`;
}

export const WORKER_SILENT = "De generator reageerde niet meer; het antwoord werd afgebroken.";

export const STOP_RECORDED_NOTE =
  "Je vroeg dit antwoord te stoppen; de server die het schreef, was toen niet bereikbaar en viel weg. Stel de vraag zo nodig opnieuw.";

export function stateNote(state: string, stopReason: string | null, stopRequested = false): string | null {
  if (state === "stopped") return "Gestopt op jouw vraag.";
  if (state === "retrieval_only") return "Alleen documenten: er werd geen antwoord gegenereerd.";
  if (stopReason === "length") return "Het antwoord werd afgebroken: het maximum aantal woorden is bereikt.";
  if (stopReason === "repetition") return "Het antwoord werd afgebroken omdat het zichzelf herhaalde.";
  if (stopReason === "deadline") return "Het antwoord werd afgebroken: het duurde te lang.";
  if (stopReason === "worker_silent") return WORKER_SILENT;
  if (stopReason === "worker_timeout") return "Het taalmodel werd niet op tijd klaar; het antwoord werd afgebroken.";
  if (stopReason === "worker_failed") return "Het antwoord werd onderbroken door een fout in het taalmodel.";
  if (stopReason === "api_interrupted" && stopRequested) return STOP_RECORDED_NOTE;
  if (stopReason === "api_interrupted")
    return "Het antwoord werd onderbroken: de server die het schreef, viel weg. Stel de vraag opnieuw.";
  return null;
}

// Issue 21: the quote first, then the generated answer with each sentence cited or flagged.
export const QUOTE_HEADING = "Uit het document";
export const NO_QUOTE = "Geen passage gevonden die de vraag letterlijk beantwoordt.";
export const GENERATED_HEADING = "Gegenereerd antwoord";
export const UNSUPPORTED = "niet gevonden in de bronnen";
export const CONTRADICTS_QUOTE = "wijkt af van het citaat uit het document";

/** In place of a finished answer in which the model wrote nothing (or only template markers and citations). */
export function emptyAnswerText(quoted: boolean): string {
  return quoted
    ? "Het taalmodel gaf geen antwoord. Lees het citaat hierboven en de gebruikte documenten hieronder."
    : "Het taalmodel gaf geen antwoord. Bekijk de gebruikte documenten hieronder.";
}

// A template marker ("[einde vraag]") or a citation ("[1]"): on its own it says nothing.
const MARKER = /\[(?:begin|einde)[^\]]*\]|\[\d+\]/giu;

/** Whether a generated answer says anything: a letter or digit outside the template's markers and citations. */
export function saysSomething(answer: string): boolean {
  return /[\p{L}\p{N}]/u.test(answer.replace(MARKER, ""));
}
export const SUPPORT_WARNING = "Let op: de meeste zinnen van dit antwoord staan niet in de bronnen. Controleer ze in de documenten.";

export const SHOW_IN_DOCUMENT = "toon in het document";

export function citationLabel(citation: number, title: string, pages: string): string {
  return `Bron [${citation}]: toon de zin in ${title}, ${pages}`;
}
