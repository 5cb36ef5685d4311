import { fireEvent, render, screen, within } from "@testing-library/react";
import type { Job } from "../api/types";
import { AdminPage, DROP_LABEL } from "./AdminPage";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function job(change: Partial<Job>): Job {
  return { id: 3, status: "running", created_at: "2026-11-25T21:40:00Z", finished_at: null, progress: 0.5, counts: {}, files: [], ...change } as Job;
}

function serveApi(jobs: Job[], upload: () => Response = () => json({ job: jobs[0] }, 201), documents: unknown[] = []) {
  const fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    if (url === "/api/admin/jobs") return json(jobs);
    if (url === "/api/documents") return json(documents);
    if (url.endsWith("/version") && init.method === "POST") return upload();
    if (url === "/api/admin/uploads" && init.method === "POST") return upload();
    return json({ detail: "Niet gevonden." }, 404);
  });
  vi.stubGlobal("fetch", fetch);
  return fetch;
}

afterEach(() => vi.unstubAllGlobals());

describe("AdminPage", () => {
  it("shows each job's progress and each file's error message", async () => {
    serveApi([
      job({
        status: "finished",
        progress: 1,
        files: [
          { name: "wondzorg.pdf", status: "indexed", message: null, chunks_total: 4, chunks_done: 4 },
          { name: "kapot.pdf", status: "failed", message: "Het bestand is geen leesbare PDF.", chunks_total: 0, chunks_done: 0 },
        ] as Job["files"],
      }),
    ]);
    render(<AdminPage />);
    const card = within(await screen.findByRole("article", { name: "Taak 3" }));
    expect((card.getByRole("progressbar", { name: "Voortgang taak 3" }) as HTMLProgressElement).value).toBe(1);
    expect(card.getByText(/kapot\.pdf/).textContent).toContain("Het bestand is geen leesbare PDF.");
    expect(card.getByText(/wondzorg\.pdf/).textContent).toContain("geïndexeerd");
  });

  it("names every job and file state in Dutch", async () => {
    const files = ["parsing", "embedding", "withdrawn"].map((status) => ({ name: `${status}.pdf`, status, message: null, chunks_total: 0, chunks_done: 0 }));
    serveApi([job({ status: "running", files: files as Job["files"] }), job({ id: 4, status: "finished", progress: 1 })]);
    render(<AdminPage />);
    const running = within(await screen.findByRole("article", { name: "Taak 3" }));
    expect(running.getByText(/parsing\.pdf/).textContent).toBe("parsing.pdf: tekst lezen");
    expect(running.getByText(/embedding\.pdf/).textContent).toBe("embedding.pdf: indexeren");
    expect(running.getByText(/withdrawn\.pdf/).textContent).toBe("withdrawn.pdf: ingetrokken");
    expect(running.getByText("bezig")).toBeTruthy();
    expect(within(screen.getByRole("article", { name: "Taak 4" })).getByText("klaar")).toBeTruthy();
  });

  it("says when a job started and ended, and how long it took", async () => {
    serveApi([job({ status: "finished", progress: 1, finished_at: "2026-11-25T21:40:18Z" }), job({ id: 4 })]);
    render(<AdminPage />);
    const done = within(await screen.findByRole("article", { name: "Taak 3" }));
    expect(done.getByText(/^gestart /).textContent).toMatch(/^gestart 25 nov\.? 2026.* · klaar .* \(18 s\)$/);
    expect(within(screen.getByRole("article", { name: "Taak 4" })).getByText(/^gestart /).textContent).not.toContain("klaar");
  });

  it("gives a file whose text is being read a moving bar, and an embedding file its share", async () => {
    const files = [
      { name: "lezen.pdf", status: "parsing", message: null, chunks_total: 0, chunks_done: 0 },
      { name: "indexeren.pdf", status: "embedding", message: null, chunks_total: 10, chunks_done: 4 },
    ];
    serveApi([job({ files: files as Job["files"] })]);
    render(<AdminPage />);
    const reading = (await screen.findByRole("progressbar", { name: "lezen.pdf: tekst lezen" })) as HTMLProgressElement;
    expect(reading.hasAttribute("value")).toBe(false); // indeterminate: the browser animates it
    expect((screen.getByRole("progressbar", { name: "indexeren.pdf: indexeren" }) as HTMLProgressElement).value).toBe(4);
  });

  it("opens the file picker from a Dutch button; the browser's own input is out of the tab order", async () => {
    serveApi([]);
    render(<AdminPage />);
    const input = screen.getByLabelText(DROP_LABEL) as HTMLInputElement;
    const click = vi.spyOn(input, "click");
    fireEvent.click(screen.getByRole("button", { name: "Bestanden kiezen" }));
    expect(click).toHaveBeenCalledOnce();
    expect(input.tabIndex).toBe(-1);
  });

  it("says which kinds of file it takes and offers them in the picker", async () => {
    serveApi([]);
    render(<AdminPage />);
    const input = screen.getByLabelText(DROP_LABEL) as HTMLInputElement;
    expect(DROP_LABEL).toBe("Sleep PDF-, Word- of OpenDocument-bestanden hierheen of kies ze");
    expect(input.accept.split(",")).toEqual(expect.arrayContaining([".pdf", ".docx", ".doc", ".odt"]));
    expect(screen.getByText(/PDF, Word \(\.docx, \.doc\) en OpenDocument \(\.odt\)/)).toBeTruthy();
  });

  it("shows how an upload was stored when its name belongs to another document", async () => {
    const note = "opgeslagen als Insuline kind _ 6 jaar (2).pdf: Insuline kind _ 6 jaar.pdf hoort al bij een ander document (Insuline kind ≥ 6 jaar.pdf); dat document is niet vervangen";
    const files = [{ name: "Insuline kind < 6 jaar.pdf", status: "queued", message: null, note, chunks_total: 0, chunks_done: 0 }];
    serveApi([job({ files: files as Job["files"] })]);
    render(<AdminPage />);
    const card = within(await screen.findByRole("article", { name: "Taak 3" }));
    expect(card.getByText(/Insuline kind < 6 jaar\.pdf/).textContent).toContain(note);
  });

  it("replaces a chosen document with a new version of any name, and links a converted document's original", async () => {
    const documents = [
      { id: "abc", title: "Subcutane injectie", file_name: "injectie.docx", converted: true, page_count: 2, chunk_count: 3, audiences: [], departments: [], ingested_at: "2026-11-25T21:40:00Z" },
    ];
    const fetch = serveApi([], () => json({ job: job({}) }, 201), documents);
    render(<AdminPage />);
    fireEvent.click(await screen.findByRole("button", { name: "Subcutane injectie vervangen" }));
    const file = new File(["%PDF-1.7"], "injectie-2027.pdf", { type: "application/pdf" });
    fireEvent.change(screen.getByLabelText("Nieuwe versie van Subcutane injectie"), { target: { files: [file] } });
    await vi.waitFor(() => expect(fetch.mock.calls.some(([url]) => url === "/api/admin/documents/abc/version")).toBe(true));
    const [, init] = fetch.mock.calls.find(([url]) => url === "/api/admin/documents/abc/version") as [string, RequestInit];
    expect(((init.body as FormData).get("file") as File).name).toBe("injectie-2027.pdf");
    expect(screen.getByRole("link", { name: "origineel" }).getAttribute("href")).toBe("/api/documents/abc/original");
  });

  it("shows the API's reason when an upload is refused", async () => {
    const fetch = serveApi([], () => json({ detail: "kapot.txt is geen PDF-bestand." }, 415));
    render(<AdminPage />);
    const file = new File(["hallo"], "kapot.txt", { type: "text/plain" });
    fireEvent.change(screen.getByLabelText(DROP_LABEL), { target: { files: [file] } });
    expect((await screen.findByRole("alert")).textContent).toBe("kapot.txt is geen PDF-bestand.");
    const [, init] = fetch.mock.calls.find(([url]) => url === "/api/admin/uploads") as [string, RequestInit];
    expect((init.body as FormData).getAll("files")).toHaveLength(1);
  });
});
