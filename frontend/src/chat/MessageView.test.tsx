import { cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import type { AnswerSentence, Quote, Source } from "../api/types";
import { MessageView, type ChatMessage } from "./MessageView";
import { CONTRADICTS_QUOTE, GENERATED_HEADING, NEAREST_HEADING, NO_QUOTE, QUOTE_HEADING, SOURCES_HEADING, STOP_RECORDED_NOTE, SUPPORT_WARNING, UNSUPPORTED, WORKER_SILENT, emptyAnswerText } from "./texts";

const source = { document_id: "stuwband", title: "Stuwband aanleggen", page_start: 2, page_end: 3, chunk_index: 4, passage: "max 60 min", score: 0.9 } as unknown as Source;

function message(change: Partial<ChatMessage>): ChatMessage {
  return { id: 9, question: "max tijd stuwband?", answer: "", state: "answered", stopReason: null, sources: [], feedback: [], error: null, ...change };
}

const show = (change: Partial<ChatMessage>, onOpen = vi.fn()) => {
  const view = render(<MessageView message={message(change)} onOpen={onOpen} />);
  return { ...view, onOpen };
};

// Issue 21's shapes: a passage, the quote taken from it, and an answer of three sentences checked against it.
const handAlcohol = {
  document_id: "handhygiene",
  title: "Handhygiëne",
  page_start: 2,
  page_end: 3,
  chunk_index: 7,
  passage: "Handalcohol werkt niet tegen sporen van C. difficile. Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.",
  score: 0.8,
} as Source;
const quote: Quote = {
  text: "Wrijf de handen 20 tot 30 seconden in tot ze droog zijn.",
  source_index: 0,
  document_id: "handhygiene",
  title: "Handhygiëne",
  page_start: 3,
  page_end: 3,
  start: 54,
  end: 110,
  score: 0.7,
};
const answer = "Wrijf de handen **20 tot 30 seconden**. Handalcohol werkt niet tegen sporen. Gebruik daarna handcrème.";
const sentences: AnswerSentence[] = [
  { text: "Wrijf de handen **20 tot 30 seconden**.", start: 0, end: 39, score: 0.9, supported: true, citation: 1, source_start: 54, source_end: 110 },
  { text: "Handalcohol werkt niet tegen sporen.", start: 40, end: 76, score: 0.8, supported: true, citation: 1, source_start: 0, source_end: 53 },
  { text: "Gebruik daarna handcrème.", start: 77, end: 102, score: 0.1, supported: false, citation: null, source_start: null, source_end: null },
];
const checked: Partial<ChatMessage> = { answer, sources: [handAlcohol], quote, sentences, supportWarning: false };

describe("MessageView", () => {
  it("renders the answer's markdown and lists the documents used with their pages", () => {
    show({ answer: "De stuwband mag **maximaal 60 minuten** blijven.", sources: [source] });
    expect(screen.getByText("maximaal 60 minuten").tagName).toBe("STRONG");
    expect(screen.getByRole("heading", { name: SOURCES_HEADING })).toBeTruthy();
    expect(screen.getByText("Stuwband aanleggen")).toBeTruthy();
    expect(screen.getByText("pagina's 2–3")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Document bekijken" })).toBeTruthy();
  });

  it("shows the nearest documents under their own heading when nothing was found", () => {
    show({ state: "not_found", answer: "Ik vond het antwoord niet in de documenten.", sources: [source] });
    expect(screen.getByRole("heading", { name: NEAREST_HEADING })).toBeTruthy();
    expect(screen.queryByRole("heading", { name: SOURCES_HEADING })).toBeNull();
  });

  it("says that a stopped answer was stopped", () => {
    show({ state: "stopped", answer: "Maxi" });
    expect(screen.getByText("Gestopt op jouw vraag.")).toBeTruthy();
  });

  it("says, also from the history, that an answer was cut off because the generator stopped sending", () => {
    show({ state: "failed", stopReason: "worker_silent", answer: "Wrijf de handen" });
    expect(screen.getByText(WORKER_SILENT)).toBeTruthy();
    expect(WORKER_SILENT).toContain("De generator reageerde niet meer");
  });

  it("says, in the history too, that an answer was cut off because its server fell away", () => {
    show({ state: "failed", stopReason: "api_interrupted" });
    expect(screen.getByText(/de server die het schreef, viel weg\. Stel de vraag opnieuw\./)).toBeTruthy();
  });

  it("says, in the history, that the user's stop was recorded when its server was out of reach and fell away", () => {
    show({ state: "failed", stopReason: "api_interrupted", stopRequested: true });
    expect(screen.getByText(STOP_RECORDED_NOTE)).toBeTruthy();
  });

  it("says that a retrieval-only answer has no generated text", () => {
    show({ state: "retrieval_only", sources: [source] });
    expect(screen.getByText("Alleen documenten: er werd geen antwoord gegenereerd.")).toBeTruthy();
  });

  it("shows that it is busy while waiting for the first words", () => {
    show({ state: "pending", id: null });
    expect(screen.getByText("Bezig met zoeken en antwoorden…")).toBeTruthy();
    expect(screen.getByRole("article").getAttribute("aria-busy")).toBe("true");
  });

  it("announces an error (busy worker, lost connection) as an alert", () => {
    show({ state: "failed", error: "Het taalmodel is bezet. Probeer het over 30 seconden opnieuw." });
    expect(screen.getByRole("alert").textContent).toBe("Het taalmodel is bezet. Probeer het over 30 seconden opnieuw.");
  });

  it("never lets HTML in a model's answer run: scripts and event handlers are removed", () => {
    const { container } = show({
      answer: 'Zie <script>window.hacked = true</script><img src="x" onerror="window.hacked = true"> en <a href="javascript:alert(1)">hier</a>',
    });
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")?.getAttribute("onerror") ?? null).toBeNull();
    expect(container.querySelector("a")?.getAttribute("href") ?? null).toBeNull();
    expect((window as unknown as { hacked?: boolean }).hacked).toBeUndefined();
  });

  it("quotes the passage's own sentence first, with its document and page, above the generated answer", () => {
    const { container } = show(checked);
    const block = screen.getByRole("region", { name: QUOTE_HEADING });
    expect(within(block).getByRole("heading", { name: QUOTE_HEADING })).toBeTruthy();
    expect(block.querySelector("q")?.textContent).toBe(quote.text);
    expect(within(block).getByText(/Handhygiëne, pagina 3/)).toBeTruthy();
    const generated = screen.getByRole("region", { name: GENERATED_HEADING });
    expect(block.compareDocumentPosition(generated) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(container.querySelector(".answer")?.closest("section")).toBe(generated);
  });

  it("opens the quote's page with exactly the quoted sentence to highlight", () => {
    const { onOpen } = show(checked);
    fireEvent.click(within(screen.getByRole("region", { name: QUOTE_HEADING })).getByRole("button"));
    expect(onOpen).toHaveBeenCalledWith({ ...handAlcohol, page_start: 3, page_end: 3 }, quote.text);
  });

  it("says no passage answers the question literally when the quote is null", () => {
    show({ ...checked, quote: null });
    const block = screen.getByRole("region", { name: QUOTE_HEADING });
    expect(block.textContent).toContain(NO_QUOTE);
    expect(within(block).queryByRole("button")).toBeNull();
  });

  it("shows no quote block before the quote event arrived", () => {
    show({ state: "pending", answer: "Wrijf" });
    expect(screen.queryByRole("region", { name: QUOTE_HEADING })).toBeNull();
    expect(screen.getByRole("region", { name: GENERATED_HEADING }).textContent).toContain("Wrijf");
  });

  it("cites each supported sentence; the citation opens the source at its supporting sentence", () => {
    const { onOpen } = show(checked);
    const citations = screen.getAllByRole("button", { name: /^Bron \[1\]/ });
    expect(citations.map((c) => c.textContent)).toEqual(["[1]", "[1]"]);
    expect(citations[0].getAttribute("aria-label")).toBe("Bron [1]: toon de zin in Handhygiëne, pagina's 2–3");
    expect(citations[0].closest(".sentence")?.querySelector("strong")?.textContent).toBe("20 tot 30 seconden");
    fireEvent.click(citations[1]);
    expect(onOpen).toHaveBeenCalledWith(handAlcohol, "Handalcohol werkt niet tegen sporen van C. difficile.");
  });

  it("marks an unsupported sentence with words, not colour alone, and gives it no citation", () => {
    show(checked);
    const flags = screen.getAllByText(UNSUPPORTED);
    expect(flags).toHaveLength(1);
    const flagged = flags[0].closest(".sentence") as HTMLElement;
    expect(flagged.textContent).toContain("Gebruik daarna handcrème.");
    expect(flagged.className).toContain("unsupported");
    expect(within(flagged).queryByRole("button")).toBeNull();
    expect(screen.getByRole("region", { name: GENERATED_HEADING }).textContent).toContain(
      "Wrijf de handen 20 tot 30 seconden.[1] Handalcohol werkt niet tegen sporen.[1] Gebruik daarna handcrème.",
    );
  });

  it("says a flagged sentence contradicts the quote when it states another value than the quote", () => {
    show({ ...checked, sentences: [sentences[0], sentences[1], { ...sentences[2], contradicts_quote: true }] });
    expect(screen.queryByText(UNSUPPORTED)).toBeNull();
    const flagged = screen.getByText(CONTRADICTS_QUOTE).closest(".sentence") as HTMLElement;
    expect(flagged.textContent).toContain("Gebruik daarna handcrème.");
    expect(flagged.className).toContain("unsupported");
  });

  it("warns above the answer when most of its sentences are not in the sources", () => {
    show({ ...checked, supportWarning: true });
    const warning = screen.getByRole("note");
    expect(warning.textContent).toContain(SUPPORT_WARNING);
    const generated = screen.getByRole("region", { name: GENERATED_HEADING });
    expect(warning.compareDocumentPosition(generated.querySelector(".answer") as Node) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });

  it("shows no warning and no flags while the answer streams (before its support is known)", () => {
    show({ state: "pending", answer, sources: [handAlcohol], quote });
    expect(screen.queryByText(UNSUPPORTED)).toBeNull();
    expect(screen.queryByRole("note")).toBeNull();
    expect(screen.getByText("20 tot 30 seconden").tagName).toBe("STRONG");
  });

  it("never lets HTML in a checked sentence run", () => {
    const text = 'Zie <img src="x" onerror="window.hacked = true">.';
    const { container } = show({ answer: text, sentences: [{ ...sentences[2], text, start: 0, end: text.length }] });
    expect(container.querySelector("img")?.getAttribute("onerror") ?? null).toBeNull();
    expect(screen.getByText(UNSUPPORTED)).toBeTruthy();
  });
  it("says the model gave no answer when a finished answer is empty, and keeps the quote and the documents", () => {
    show({ ...checked, answer: "", sentences: [] });
    const generated = screen.getByRole("region", { name: GENERATED_HEADING });
    expect(generated.textContent).toContain(emptyAnswerText(true));
    expect(emptyAnswerText(true)).toBe("Het taalmodel gaf geen antwoord. Lees het citaat hierboven en de gebruikte documenten hieronder.");
    expect(screen.getByRole("region", { name: QUOTE_HEADING }).querySelector("q")?.textContent).toBe(quote.text);
    expect(screen.getByRole("heading", { name: SOURCES_HEADING })).toBeTruthy();
    expect(screen.getByText("Handhygiëne")).toBeTruthy();
  });

  it("counts an answer of only template markers, citations and punctuation as empty", () => {
    const markers = "[einde vraag]\n[1] [2].\n**";
    const flagged = { ...sentences[2], text: markers, start: 0, end: markers.length };
    show({ ...checked, answer: markers, sentences: [flagged] });
    const generated = screen.getByRole("region", { name: GENERATED_HEADING });
    expect(generated.textContent).toContain(emptyAnswerText(true));
    expect(generated.textContent).not.toContain("einde vraag");
    expect(screen.queryByText(UNSUPPORTED)).toBeNull();
  });

  it("sends the reader to the documents only when an empty answer has no quote", () => {
    show({ ...checked, answer: " \n", sentences: [], quote: null });
    expect(screen.getByRole("region", { name: GENERATED_HEADING }).textContent).toContain(
      "Het taalmodel gaf geen antwoord. Bekijk de gebruikte documenten hieronder.",
    );
    expect(screen.getByRole("region", { name: QUOTE_HEADING }).textContent).toContain(NO_QUOTE);
  });

  it("keeps a short answer that says something (a number), and says nothing while an answer is still to come", () => {
    show({ ...checked, answer: "60 [1]", sentences: [] });
    expect(screen.getByRole("region", { name: GENERATED_HEADING }).textContent).toContain("60 [1]");
    expect(screen.queryByText(emptyAnswerText(true))).toBeNull();
    cleanup();
    show({ ...checked, state: "pending", answer: "", sentences: [] });
    expect(screen.queryByRole("region", { name: GENERATED_HEADING })).toBeNull();
    cleanup();
    show({ ...checked, state: "stopped", answer: "", sentences: [] });
    expect(screen.queryByRole("region", { name: GENERATED_HEADING })).toBeNull();
    expect(screen.getByText("Gestopt op jouw vraag.")).toBeTruthy();
  });

  it("numbers a citation as its document in the list of documents used, whichever passage of it is cited", () => {
    const secondPassage = { ...handAlcohol, chunk_index: 8 } as Source;
    const cites = (citation: number): AnswerSentence => ({ ...sentences[0], citation });
    show({ ...checked, sources: [handAlcohol, secondPassage, source], sentences: [cites(2), cites(3)] });
    const numbers = screen.getAllByRole("button", { name: /^Bron \[\d\]/ }).map((c) => c.textContent);
    expect(numbers).toEqual(["[1]", "[2]"]);
  });
});
