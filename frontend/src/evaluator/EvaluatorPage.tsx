// Evaluators: upload a labelled question set, run a report, read Hit@k / MRR, see the rank plots, download exports.
import { useCallback, useEffect, useState } from "react";
import { ApiError, getJson, request, sendJson } from "../api/client";
import type { EvaluationSet, Report } from "../api/types";
import { usePolling } from "../api/usePolling";

// A report's states as docs/api.md names them (Report), in Dutch.
const REPORT_STATUS: Record<string, string> = { queued: "in de wachtrij", running: "bezig", finished: "klaar", failed: "mislukt" };
const FINAL = new Set(["finished", "failed"]);

const fileUrl = (report: Report, name: string) => `/api/evaluator/reports/${report.id}/files/${encodeURIComponent(name)}`;

export function EvaluatorPage() {
  const [sets, setSets] = useState<EvaluationSet[]>([]);
  const [reports, setReports] = useState<Report[]>([]);
  const [message, setMessage] = useState<string | null>(null);

  const refresh = useCallback(() => {
    getJson<EvaluationSet[]>("/api/evaluator/sets").then(setSets).catch(() => undefined);
    getJson<Report[]>("/api/evaluator/reports").then(setReports).catch(() => undefined);
  }, []);
  useEffect(refresh, [refresh]);
  usePolling(refresh, reports.some((r) => r.status === "queued" || r.status === "running"));

  async function uploadSet(file: File) {
    const form = new FormData();
    form.append("file", file);
    try {
      await request("/api/evaluator/sets", { method: "POST", body: form });
      setMessage(null);
      refresh();
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : "Uploaden mislukt.");
    }
  }

  async function run(setId: number) {
    try {
      await sendJson("POST", "/api/evaluator/reports", { set_id: setId });
      refresh();
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : "Het rapport kon niet starten.");
    }
  }

  return (
    <main className="evaluator">
      <h1>Evaluatie</h1>
      <section>
        <label htmlFor="set-upload">Vragenset (CSV: question,relevant_documents)</label>
        <input id="set-upload" type="file" accept=".csv,text/csv" onChange={(e) => e.target.files?.[0] && void uploadSet(e.target.files[0])} />
        {message && <p role="alert" className="error">{message}</p>}
      </section>
      <h2>Vragensets</h2>
      <ul>
        {sets.map((set) => (
          <li key={set.id}>
            {set.name} ({set.questions} vragen{set.unresolved.length ? `, ${set.unresolved.length} onbekende documenten` : ""}){" "}
            <button type="button" onClick={() => void run(set.id)}>
              Rapport maken
            </button>
          </li>
        ))}
      </ul>
      <p>
        Feedback van gebruikers: <a href="/api/evaluator/feedback.csv">feedback.csv</a> ·{" "}
        <a href="/api/evaluator/feedback-set.csv">als vragenset (CSV)</a>
      </p>
      <h2>Rapporten</h2>
      {reports.map((report) => (
        <ReportView key={report.id} report={report} />
      ))}
    </main>
  );
}

function ReportView({ report }: { report: Report }) {
  const columns = [...new Set(Object.values(report.metrics).flatMap((row) => Object.keys(row)))];
  const plots = report.files.filter((name) => name.endsWith(".png"));
  return (
    <article className="report" aria-label={`Rapport ${report.id}`}>
      <h3>
        Rapport {report.id}: {REPORT_STATUS[report.status] ?? report.status}
      </h3>
      {!FINAL.has(report.status) && <progress value={report.progress} max={1} aria-label={`Voortgang rapport ${report.id}`} />}
      {report.error && <p role="alert" className="error">{report.error}</p>}
      {columns.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Configuratie</th>
              {columns.map((c) => (
                <th key={c} scope="col">{c}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {Object.entries(report.metrics).map(([name, row]) => (
              <tr key={name}>
                <th scope="row">{name}</th>
                {columns.map((c) => (
                  <td key={c}>{c === "questions" ? row[c] : (row[c]?.toFixed(3) ?? "")}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {plots.map((name) => (
        <img key={name} src={fileUrl(report, name)} alt={`Grafiek ${name}`} className="plot" />
      ))}
      <p>
        {report.files.map((name) => (
          <a key={name} href={fileUrl(report, name)} download>
            {name}{" "}
          </a>
        ))}
      </p>
    </article>
  );
}
