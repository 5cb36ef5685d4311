import { fireEvent, render, screen, within } from "@testing-library/react";
import type { EvaluationSet, Report } from "../api/types";
import { EvaluatorPage } from "./EvaluatorPage";

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });

function report(change: Partial<Report>): Report {
  return { id: 2, set_id: 1, kind: "retrieval", status: "finished", progress: 1, created_at: "2026-11-25T21:40:00Z", finished_at: "2026-11-25T21:41:00Z", error: null, metrics: {}, files: [], ...change };
}

function serveApi(reports: Report[], sets: EvaluationSet[] = []) {
  vi.stubGlobal("fetch", vi.fn(async (url: string) => json(url === "/api/evaluator/reports" ? reports : sets)));
}

afterEach(() => vi.unstubAllGlobals());

describe("EvaluatorPage", () => {
  it("shows a finished report's Hit@k/MRR table, its rank plots and its downloads", async () => {
    serveApi([
      report({
        metrics: { document: { questions: 12, "Hit@1": 0.5, "Hit@3": 0.75, MRR: 0.6111 } },
        files: ["summary.csv", "rank-density-document.png", "cumulative-hits-document.png"],
      }),
    ]);
    render(<EvaluatorPage />);
    const card = within(await screen.findByRole("article", { name: "Rapport 2" }));
    expect(card.getByText(/klaar/)).toBeTruthy();
    expect(card.queryByRole("progressbar")).toBeNull();
    const row = within(card.getByRole("row", { name: /document/ }));
    expect(row.getAllByRole("cell").map((cell) => cell.textContent)).toEqual(["12", "0,500", "0,750", "0,611"]);
    expect(card.getAllByRole("columnheader").map((cell) => cell.textContent)).toEqual(["Niveau", "Vragen", "Hit@1", "Hit@3", "MRR"]);
    expect(card.getByText(/Hit@3 = 0,800 betekent/)).toBeTruthy();
    expect(card.getAllByRole("img").map((img) => img.getAttribute("src"))).toEqual([
      "/api/evaluator/reports/2/files/rank-density-document.png",
      "/api/evaluator/reports/2/files/cumulative-hits-document.png",
    ]);
    expect(card.getAllByRole("img").map((img) => img.getAttribute("alt"))).toEqual([
      "Verdeling van de rang van het eerste juiste resultaat (op documentniveau)",
      "Cumulatief: een juist resultaat bij de eerste k (op documentniveau)",
    ]);
    expect(card.getByRole("link", { name: "Samenvatting voor Excel (summary.csv)" }).getAttribute("href")).toBe("/api/evaluator/reports/2/files/summary.csv");
  });

  it("names each report's question set and date", async () => {
    serveApi([report({})], [{ id: 1, name: "vragen-november.csv", questions: 3, unresolved: [] }]);
    render(<EvaluatorPage />);
    const card = within(await screen.findByRole("article", { name: "Rapport 2" }));
    await card.findByText("vragen-november.csv");
    expect(card.getByText(/gemaakt op/).textContent).toMatch(/Vragenset vragen-november\.csv · gemaakt op 25 nov\.? 2026/);
  });

  it("counts questions and unknown documents with the right plural and lists the unknown documents", async () => {
    serveApi([], [
      { id: 1, name: "een.csv", questions: 1, unresolved: ["weg.pdf"] },
      { id: 2, name: "twee.csv", questions: 2, unresolved: ["a.pdf", "b.pdf"] },
      { id: 3, name: "goed.csv", questions: 5, unresolved: [] },
    ]);
    render(<EvaluatorPage />);
    const first = (await screen.findByText(/^een\.csv/)).closest("li") as HTMLElement;
    expect(first.textContent).toContain("een.csv (1 vraag, 1 onbekend document)");
    expect(first.textContent).toContain("Niet gevonden in de index (deze vragen tellen niet mee): weg.pdf");
    const second = screen.getByText(/^twee\.csv/).closest("li") as HTMLElement;
    expect(second.textContent).toContain("twee.csv (2 vragen, 2 onbekende documenten)");
    expect(second.textContent).toContain("a.pdf, b.pdf");
    expect((screen.getByText(/^goed\.csv/).closest("li") as HTMLElement).textContent).toMatch(/^goed\.csv \(5 vragen\) Rapport maken Antwoordkwaliteit meten$/);
  });

  it("shows the progress of a running report", async () => {
    serveApi([report({ status: "running", progress: 0.25 })]);
    render(<EvaluatorPage />);
    const card = within(await screen.findByRole("article", { name: "Rapport 2" }));
    expect((card.getByRole("progressbar") as HTMLProgressElement).value).toBe(0.25);
    expect(card.getByText(/bezig/)).toBeTruthy();
  });

  it("shows a finished answer report's figures in Dutch, with shares as percentages, and its downloads", async () => {
    serveApi([
      report({
        kind: "answers",
        metrics: {
          answers: {
            questions: 84,
            answerable_with_key: 72,
            document_hit_rate: 0.9722,
            passage_key_fact_rate: 0.6944,
            quote_key_fact_rate: 0.5694,
            median_seconds_to_quote: 0.4213,
            looping: 3,
          },
        },
        files: ["answers.csv", "answers.json", "answers.html"],
      }),
    ]);
    render(<EvaluatorPage />);
    const card = within(await screen.findByRole("article", { name: "Rapport 2" }));
    expect(card.getByRole("heading").textContent).toBe("Antwoordrapport 2: klaar");
    const figure = (label: string) => within(card.getByRole("row", { name: new RegExp(`^${label}`) })).getByRole("cell").textContent;
    expect(figure("Juist document bij de getoonde passages")).toBe("97%");
    expect(figure("Kernfeit in een van de getoonde passages")).toBe("69%");
    expect(figure("Citaat bevat het kernfeit")).toBe("57%");
    expect(figure("Beantwoordbare vragen met kernzin")).toBe("72");
    expect(figure("Mediaan tijd tot citaat")).toBe("0,42");
    expect(figure("Antwoorden afgebroken wegens herhaling")).toBe("3");
    expect(figure("Gegenereerd antwoord geeft het kernfeit, ook in eigen woorden")).toBe("–");
    expect(card.queryByText(/Hit@3 = 0,800/)).toBeNull();
    expect(card.getByText(/Hoe lees je deze tabel\?/).closest("div")?.textContent).toContain("kernzin");
    expect(card.getByRole("link", { name: "Volledig antwoordrapport (webpagina) (answers.html)" }).getAttribute("href")).toBe(
      "/api/evaluator/reports/2/files/answers.html",
    );
    expect(card.getByRole("link", { name: "Antwoorden per vraag voor Excel (answers.csv)" })).toBeTruthy();
  });

  it("starts an answer report for a set and shows the API's Dutch refusal", async () => {
    const refusal = "Een antwoordrapport heeft kernzinnen nodig: een kolom answer …";
    const fetched = vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === "POST") return new Response(JSON.stringify({ detail: refusal }), { status: 422, headers: { "Content-Type": "application/json" } });
      return json(url === "/api/evaluator/reports" ? [] : [{ id: 7, name: "zonder-kernzin.csv", questions: 2, unresolved: [] }]);
    });
    vi.stubGlobal("fetch", fetched);
    render(<EvaluatorPage />);
    fireEvent.click(await screen.findByRole("button", { name: "Antwoordkwaliteit meten" }));
    expect((await screen.findByRole("alert")).textContent).toBe(refusal);
    const post = fetched.mock.calls.find(([, init]) => init?.method === "POST");
    expect(post?.[0]).toBe("/api/evaluator/reports");
    expect(JSON.parse(String(post?.[1]?.body))).toEqual({ set_id: 7, kind: "answers" });
  });

  it("shows the progress of a running answer report", async () => {
    serveApi([report({ kind: "answers", status: "running", progress: 0.4, metrics: { answers: {} } })]);
    render(<EvaluatorPage />);
    const card = within(await screen.findByRole("article", { name: "Rapport 2" }));
    expect(card.getByRole("heading").textContent).toBe("Antwoordrapport 2: bezig");
    expect((card.getByRole("progressbar") as HTMLProgressElement).value).toBe(0.4);
    expect(card.queryByRole("table")).toBeNull();
  });
});
