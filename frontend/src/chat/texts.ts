// The chat's fixed Dutch texts, in one place.
export const DISCLAIMER = "Disclaimer: Deze chatbot kan en zal fouten maken. Controleer belangrijke info.";
export const SOURCES_HEADING = "Gebruikte documenten";
export const NEAREST_HEADING = "Documenten die het dichtst bij de vraag komen";
export const CONTAINS_ANSWER = "Bevat dit document een antwoord op jouw vraag?";
export const HIGHLIGHT_CORRECT = "Is de markering op het juiste deel van de tekst geplaatst?";
export const ANSWER_FOUND = "Antwoord gevonden?";

export function busyText(retryAfter: number | null): string {
  return retryAfter
    ? `Het taalmodel is bezet. Probeer het over ${retryAfter} seconden opnieuw.`
    : "Het taalmodel is bezet. Probeer het zo dadelijk opnieuw.";
}

export function stateNote(state: string, stopReason: string | null): string | null {
  if (state === "stopped") return "Gestopt op jouw vraag.";
  if (state === "retrieval_only") return "Alleen documenten: er werd geen antwoord gegenereerd.";
  if (stopReason === "length") return "Het antwoord werd afgebroken: het maximum aantal woorden is bereikt.";
  if (stopReason === "repetition") return "Het antwoord werd afgebroken omdat het zichzelf herhaalde.";
  if (stopReason === "deadline") return "Het antwoord werd afgebroken: het duurde te lang.";
  return null;
}

// Issue 21: the quote first, then the generated answer with each sentence cited or flagged.
export const QUOTE_HEADING = "Uit het document";
export const NO_QUOTE = "Geen passage gevonden die de vraag letterlijk beantwoordt.";
export const GENERATED_HEADING = "Gegenereerd antwoord";
export const UNSUPPORTED = "niet gevonden in de bronnen";
export const SUPPORT_WARNING = "Let op: de meeste zinnen van dit antwoord staan niet in de bronnen. Controleer ze in de documenten.";

export const SHOW_IN_DOCUMENT = "toon in het document";

export function citationLabel(citation: number, title: string, pages: string): string {
  return `Bron [${citation}]: toon de zin in ${title}, ${pages}`;
}
