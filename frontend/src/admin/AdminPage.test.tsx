import { fireEvent, render, screen, within } from "@testing-library/react";
import type { Job } from "../api/types";
import { AdminPage } from "./AdminPage";

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

function job(change: Partial<Job>): Job {
  return { id: 3, status: "running", created_at: "", finished_at: null, progress: 0.5, counts: {}, files: [], ...change } as Job;
}

function serveApi(jobs: Job[], upload: () => Response = () => json({ job: jobs[0] }, 201)) {
  const fetch = vi.fn(async (url: string, init: RequestInit = {}) => {
    if (url === "/api/admin/jobs") return json(jobs);
    if (url === "/api/documents") return json([]);
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
          { path: "a", name: "wondzorg.pdf", status: "indexed", message: null, chunks_total: 4, chunks_done: 4 },
          { path: "b", name: "kapot.pdf", status: "failed", message: "Het bestand is geen leesbare PDF.", chunks_total: 0, chunks_done: 0 },
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
    const files = ["parsing", "embedding", "withdrawn"].map((status) => ({ path: status, name: `${status}.pdf`, status, message: null, chunks_total: 0, chunks_done: 0 }));
    serveApi([job({ status: "running", files: files as Job["files"] }), job({ id: 4, status: "finished", progress: 1 })]);
    render(<AdminPage />);
    const running = within(await screen.findByRole("article", { name: "Taak 3" }));
    expect(running.getByText(/parsing\.pdf/).textContent).toBe("parsing.pdf: tekst lezen");
    expect(running.getByText(/embedding\.pdf/).textContent).toBe("embedding.pdf: indexeren");
    expect(running.getByText(/withdrawn\.pdf/).textContent).toBe("withdrawn.pdf: ingetrokken");
    expect(running.getByText("bezig")).toBeTruthy();
    expect(within(screen.getByRole("article", { name: "Taak 4" })).getByText("klaar")).toBeTruthy();
  });

  it("shows the API's reason when an upload is refused", async () => {
    const fetch = serveApi([], () => json({ detail: "kapot.txt is geen PDF-bestand." }, 415));
    render(<AdminPage />);
    const file = new File(["hallo"], "kapot.txt", { type: "text/plain" });
    fireEvent.change(screen.getByLabelText("Sleep PDF-bestanden hierheen of kies ze"), { target: { files: [file] } });
    expect((await screen.findByRole("alert")).textContent).toBe("kapot.txt is geen PDF-bestand.");
    const [, init] = fetch.mock.calls.find(([url]) => url === "/api/admin/uploads") as [string, RequestInit];
    expect((init.body as FormData).getAll("files")).toHaveLength(1);
  });
});
