import { render, screen, within } from "@testing-library/react";
import type { Report } from "../api/types";
import { EvaluatorPage } from "./EvaluatorPage";

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });

function report(change: Partial<Report>): Report {
  return { id: 2, set_id: 1, status: "finished", progress: 1, created_at: "", finished_at: "", error: null, metrics: {}, files: [], ...change };
}

function serveApi(reports: Report[]) {
  vi.stubGlobal("fetch", vi.fn(async (url: string) => json(url === "/api/evaluator/reports" ? reports : [])));
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
    expect(row.getAllByRole("cell").map((cell) => cell.textContent)).toEqual(["12", "0.500", "0.750", "0.611"]);
    expect(card.getAllByRole("img").map((img) => img.getAttribute("src"))).toEqual([
      "/api/evaluator/reports/2/files/rank-density-document.png",
      "/api/evaluator/reports/2/files/cumulative-hits-document.png",
    ]);
    expect(card.getByRole("link", { name: /summary\.csv/ }).getAttribute("href")).toBe("/api/evaluator/reports/2/files/summary.csv");
  });

  it("shows the progress of a running report", async () => {
    serveApi([report({ status: "running", progress: 0.25 })]);
    render(<EvaluatorPage />);
    const card = within(await screen.findByRole("article", { name: "Rapport 2" }));
    expect((card.getByRole("progressbar") as HTMLProgressElement).value).toBe(0.25);
    expect(card.getByText(/bezig/)).toBeTruthy();
  });
});
