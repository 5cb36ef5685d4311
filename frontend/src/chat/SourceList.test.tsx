import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import type { Source } from "../api/types";
import { SourceList } from "./SourceList";
import { CONTAINS_ANSWER, HIGHLIGHT_CORRECT } from "./texts";

const source = { document_id: "stuwband", title: "Stuwband aanleggen", page_start: 2, page_end: 2, chunk_index: 4, passage: "max 60 min", score: 0.9 } as unknown as Source;

afterEach(() => vi.unstubAllGlobals());

function showList(onOpen = vi.fn()) {
  render(<SourceList messageId={9} sources={[source]} feedback={[]} heading="Gebruikte documenten" onOpen={onOpen} />);
  return onOpen;
}

const question = (name: string) => within(screen.getByRole("group", { name }));

describe("SourceList", () => {
  it("opens the viewer on the source that was clicked", () => {
    const onOpen = showList();
    fireEvent.click(screen.getByRole("button", { name: "Document bekijken" }));
    expect(onOpen).toHaveBeenCalledWith(source);
  });

  it("stores an answer to a feedback question and shows it as pressed", async () => {
    const fetch = vi.fn(async () => new Response(JSON.stringify({}), { status: 200 }));
    vi.stubGlobal("fetch", fetch);
    showList();
    fireEvent.click(question(CONTAINS_ANSWER).getByRole("button", { name: "Ja" }));
    await waitFor(() => expect(question(CONTAINS_ANSWER).getByRole("button", { name: "Ja" }).getAttribute("aria-pressed")).toBe("true"));
    expect(question(CONTAINS_ANSWER).getByRole("button", { name: "Nee" }).getAttribute("aria-pressed")).toBe("false");
    expect(question(HIGHLIGHT_CORRECT).getByRole("button", { name: "Ja" }).getAttribute("aria-pressed")).toBe("false");
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe("/api/messages/9/feedback/stuwband");
    expect(init.method).toBe("PUT");
    expect(JSON.parse(init.body as string)).toEqual({ contains_answer: true, highlight_correct: null });
  });

  it("keeps the earlier answer and says so when the feedback could not be stored", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ detail: "Niet gevonden." }), { status: 404 })));
    showList();
    fireEvent.click(question(HIGHLIGHT_CORRECT).getByRole("button", { name: "Nee" }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/niet worden bewaard/);
    expect(question(HIGHLIGHT_CORRECT).getByRole("button", { name: "Nee" }).getAttribute("aria-pressed")).toBe("false");
  });

  it("keeps both answers when the second question is answered before the first was stored", async () => {
    const stored: unknown[] = [];
    let release!: () => void;
    const firstDone = new Promise<void>((resolve) => (release = resolve));
    vi.stubGlobal("fetch", vi.fn(async (_url: string, init: RequestInit) => {
      stored.push(JSON.parse(init.body as string));
      if (stored.length === 1) await firstDone;
      return new Response(JSON.stringify({}), { status: 200 });
    }));
    showList();
    fireEvent.click(question(CONTAINS_ANSWER).getByRole("button", { name: "Ja" }));
    fireEvent.click(question(HIGHLIGHT_CORRECT).getByRole("button", { name: "Nee" }));
    release();
    await waitFor(() => expect(stored).toHaveLength(2));
    expect(stored[1]).toEqual({ contains_answer: true, highlight_correct: false });
    expect(question(CONTAINS_ANSWER).getByRole("button", { name: "Ja" }).getAttribute("aria-pressed")).toBe("true");
  });

  it("lists a document retrieved several times once, with one pair of questions and a viewer button per passage", () => {
    const onOpen = vi.fn();
    const later = { ...source, chunk_index: 5, page_start: 3, page_end: 3 };
    const other = { ...source, document_id: "handhygiene", title: "Handhygiëne", chunk_index: 1 };
    render(<SourceList messageId={9} sources={[source, other, later]} feedback={[]} heading="Gebruikte documenten" onOpen={onOpen} />);
    const documents = screen.getAllByText(/Stuwband aanleggen|Handhygiëne/).map((title) => title.textContent);
    expect(documents).toEqual(["Stuwband aanleggen", "Handhygiëne"]);
    expect(screen.getAllByRole("group", { name: CONTAINS_ANSWER })).toHaveLength(2);
    fireEvent.click(screen.getAllByRole("button", { name: "Document bekijken" })[1]);
    expect(onOpen).toHaveBeenCalledWith(later);
  });

  it("asks no feedback before the message is stored", () => {
    render(<SourceList messageId={null} sources={[source]} feedback={[]} heading="Gebruikte documenten" onOpen={() => undefined} />);
    expect(screen.queryByRole("group")).toBeNull();
  });
});

describe("SourceList in documents-only mode", () => {
  const onPage2 = (chunk_index: number, passage: string) => ({ ...source, chunk_index, passage }) as Source;

  it("groups passages of one page under one button instead of identical rows", () => {
    const onOpen = vi.fn();
    const sources = [onPage2(4, "eerste"), onPage2(5, "tweede"), onPage2(6, "derde"), { ...onPage2(9, "elders"), page_start: 5, page_end: 6 }];
    render(<SourceList messageId={null} sources={sources} feedback={[]} heading="Gebruikte documenten" onOpen={onOpen} />);
    const buttons = screen.getAllByRole("button", { name: "Document bekijken" });
    expect(buttons).toHaveLength(2);
    expect(screen.getByText("pagina 2")).toBeTruthy();
    expect(screen.getByText("(3 passages)")).toBeTruthy();
    expect(screen.getByText("pagina's 5–6")).toBeTruthy();
    fireEvent.click(buttons[0]);
    expect(onOpen).toHaveBeenCalledWith(sources[0]);
  });

  it("shows each passage's text with the question's words marked", () => {
    const sources = [onPage2(4, "De stuwband blijft maximaal 60 minuten zitten."), onPage2(5, "Verwijder stuwbanden na de afname.")];
    const { container } = render(
      <SourceList messageId={null} sources={sources} feedback={[]} heading="Gebruikte documenten" onOpen={vi.fn()} passagesFor="Hoe lang mag een stuwband zitten?" />,
    );
    const quotes = container.querySelectorAll("blockquote.passage-text");
    expect([...quotes].map((quote) => quote.textContent)).toEqual(["De stuwband blijft maximaal 60 minuten zitten.", "Verwijder stuwbanden na de afname."]);
    expect([...container.querySelectorAll("mark")].map((mark) => mark.textContent)).toEqual(["stuwband", "zitten", "stuwband"]);
  });

  it("gives each shown passage its own viewer button, so a second passage of the page opens highlighted", () => {
    const onOpen = vi.fn();
    const sources = [onPage2(4, "De stuwband blijft maximaal 60 minuten zitten."), onPage2(5, "Verwijder stuwbanden na de afname.")];
    render(<SourceList messageId={null} sources={sources} feedback={[]} heading="Gebruikte documenten" onOpen={onOpen} passagesFor="stuwband?" />);
    const buttons = screen.getAllByRole("button", { name: "Document bekijken" });
    expect(buttons).toHaveLength(2);
    fireEvent.click(buttons[1]);
    expect(onOpen).toHaveBeenCalledWith(sources[1]);
  });

  it("shows no passage text when an answer was generated", () => {
    const { container } = render(<SourceList messageId={null} sources={[source]} feedback={[]} heading="Gebruikte documenten" onOpen={vi.fn()} />);
    expect(container.querySelector("blockquote")).toBeNull();
  });
});
