import { render, screen } from "@testing-library/react";
import type { Source } from "../api/types";
import { MessageView, type ChatMessage } from "./MessageView";
import { NEAREST_HEADING, SOURCES_HEADING } from "./texts";

const source = { document_id: "stuwband", title: "Stuwband aanleggen", page_start: 2, page_end: 3, chunk_index: 4, passage: "max 60 min", score: 0.9 } as unknown as Source;

function message(change: Partial<ChatMessage>): ChatMessage {
  return { id: 9, question: "max tijd stuwband?", answer: "", state: "answered", stopReason: null, sources: [], feedback: [], error: null, ...change };
}

const show = (change: Partial<ChatMessage>) => render(<MessageView message={message(change)} onOpen={() => undefined} />);

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
});
