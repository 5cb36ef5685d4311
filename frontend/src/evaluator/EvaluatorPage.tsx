// Evaluators: upload a labelled question set, run a report, read Hit@k / MRR, see the rank plots, download exports;
// or run an answer report (each question asked through the chat) and read how often the quote and the answer hold
// the key fact.
// Everything in Dutch for someone who is not a programmer: what the numbers mean is explained next to them.
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiError, getJson, request, sendJson } from "../api/client";
import type { EvaluationSet, Report } from "../api/types";
import { usePolling } from "../api/usePolling";
import { count, dateTime } from "../text/dutch";
import { ScrollBox } from "../ui/ScrollBox";

// A report's states as docs/api.md names them (Report), in Dutch.
const REPORT_STATUS: Record<string, string> = { queued: "in de wachtrij", running: "bezig", finished: "klaar", failed: "mislukt" };
const FINAL = new Set(["finished", "failed"]);
const LEVELS: Record<string, string> = { document: "Op documentniveau", chunk: "Op fragmentniveau" };
const COLUMNS: Record<string, string> = { questions: "Vragen" };
// What each file of a report is, for the download links (the file's own name follows in brackets).
const FILE_LABELS: Record<string, string> = {
  "report.html": "Volledig rapport (webpagina)",
  "summary.csv": "Samenvatting voor Excel",
  "queries.csv": "Resultaat per vraag voor Excel",
  "report.json": "Alle gegevens (JSON)",
  "summary.md": "Samenvatting (Markdown)",
  "answers.html": "Volledig antwoordrapport (webpagina)",
  "answers.csv": "Antwoorden per vraag voor Excel",
  "answers.json": "Alle gegevens van de antwoorden (JSON)",
};
// The answer report's figures (api/evaluator/answer_report.py LABELS), in its order; shares show as percentages.
const ANSWER_FIGURES: [string, string][] = [
  ["questions", "Vragen"],
  ["answerable_with_key", "Beantwoordbare vragen met kernzin"],
  ["document_hit_rate", "Juist document bij de getoonde passages (document-Hit@k)"],
  ["passage_key_fact_rate", "Kernfeit in een van de getoonde passages (fragment-recall)"],
  ["quote_key_fact_rate", "Citaat bevat het kernfeit"],
  ["quote_key_fact_when_passages", "Kernfeit in citaat, als een passage het bevat"],
  ["answer_key_fact_rate", "Gegenereerd antwoord geeft het kernfeit, ook in eigen woorden"],
  ["sentences", "Gegenereerde zinnen"],
  ["supported_share", "Zinnen gevonden in de bronnen"],
  ["flagged_share", "Zinnen gemarkeerd als niet gevonden in de bronnen"],
  ["cited_not_answer", "Zinnen met bron in antwoorden zonder het kernfeit"],
  ["warnings", "Antwoorden met waarschuwing"],
  ["numbers_unchecked", "Getallen zonder bron en zonder markering"],
  ["unanswerable", "Onbeantwoordbare vragen"],
  ["not_found_on_unanswerable", "'Niet gevonden' op onbeantwoordbare vragen"],
  ["not_found_on_answerable", "'Niet gevonden' op beantwoordbare vragen"],
  ["looping", "Antwoorden afgebroken wegens herhaling"],
  ["median_seconds_to_sources", "Mediaan tijd tot bronnen (s)"],
  ["median_seconds_to_quote", "Mediaan tijd tot citaat (s)"],
  ["median_quote_after_sources_ms", "Mediaan citaat na bronnen (ms)"],
  ["max_quote_after_sources_ms", "Maximum citaat na bronnen (ms)"],
  ["median_seconds_to_text", "Mediaan tijd tot eerste tekst (s)"],
];
const SHARES = new Set([
  "document_hit_rate",
  "passage_key_fact_rate",
  "quote_key_fact_rate",
  "quote_key_fact_when_passages",
  "answer_key_fact_rate",
  "supported_share",
  "flagged_share",
  "not_found_on_unanswerable",
  "not_found_on_answerable",
]);
const PLOTS: Record<string, string> = {
  "rank-density": "Verdeling van de rang van het eerste juiste resultaat",
  "cumulative-hits": "Cumulatief: een juist resultaat bij de eerste k",
};

const fileUrl = (report: Report, name: string) => `/api/evaluator/reports/${report.id}/files/${encodeURIComponent(name)}`;
const decimal = (value: number) => value.toLocaleString("nl-NL", { minimumFractionDigits: 3, maximumFractionDigits: 3 });

/** An answer-report figure as the report writes it: "85%" for a share, "0,42" for a time, "12" for a count. */
export function answerFigure(name: string, value: number | undefined): string {
  if (value === undefined) return "–";
  if (SHARES.has(name)) return `${Math.round(value * 100)}%`;
  if (Number.isInteger(value)) return String(value);
  return value.toLocaleString("nl-NL", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

/** "Verdeling van de rang … (op documentniveau)" for "rank-density-document.png". */
export function plotTitle(name: string): string {
  const match = /^(rank-density|cumulative-hits)-(\w+)\.png$/.exec(name);
  if (!match) return `Grafiek ${name}`;
  return `${PLOTS[match[1]]} (${(LEVELS[match[2]] ?? match[2]).toLowerCase()})`;
}

export function EvaluatorPage() {
  const [sets, setSets] = useState<EvaluationSet[]>([]);
  const [reports, setReports] = useState<Report[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const picker = useRef<HTMLInputElement>(null);

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

  async function run(setId: number, kind: Report["kind"]) {
    try {
      await sendJson("POST", "/api/evaluator/reports", { set_id: setId, kind });
      refresh();
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : "Het rapport kon niet starten.");
    }
  }

  const setName = (id: number) => sets.find((set) => set.id === id)?.name ?? `vragenset ${id}`;

  return (
    <main className="evaluator">
      <h1>Evaluatie</h1>
      <section className="dropzone">
        <label htmlFor="set-upload">Vragenset (CSV: question,relevant_documents)</label>
        <input
          id="set-upload"
          ref={picker}
          className="visually-hidden"
          tabIndex={-1}
          type="file"
          accept=".csv,text/csv"
          onChange={(e) => {
            if (e.target.files?.[0]) void uploadSet(e.target.files[0]);
            e.target.value = "";
          }}
        />
        <div className="picker">
          <button type="button" onClick={() => picker.current?.click()}>
            Bestand kiezen
          </button>
          <span>
            Een CSV-bestand met de kolommen <code>question</code> en <code>relevant_documents</code>, gescheiden door komma&apos;s of
            puntkomma&apos;s (zoals Excel het bewaart). Meerdere documenten bij één vraag: scheid ze met een puntkomma.
            Voor <em>Antwoordkwaliteit meten</em> ook een kolom <code>answer</code>: een kernzin die het juiste antwoord moet bevatten
            (bijvoorbeeld &quot;20 tot 30 seconden&quot;). Elke vraag wordt dan via de chat gesteld; dat duurt per vraag zo lang als een
            antwoord in de chat.
          </span>
        </div>
        {message && <p role="alert" className="error">{message}</p>}
      </section>
      <h2>Vragensets</h2>
      {sets.length === 0 && <p>Nog geen vragensets.</p>}
      <ul className="sets">
        {sets.map((set) => (
          <li key={set.id}>
            {set.name} ({count(set.questions, "vraag", "vragen")}
            {set.unresolved.length > 0 && `, ${count(set.unresolved.length, "onbekend document", "onbekende documenten")}`}){" "}
            <button type="button" onClick={() => void run(set.id, "retrieval")}>
              Rapport maken
            </button>{" "}
            <button type="button" onClick={() => void run(set.id, "answers")}>
              Antwoordkwaliteit meten
            </button>
            {set.unresolved.length > 0 && (
              <p className="unknown">
                Niet gevonden in de index (deze vragen tellen niet mee): {set.unresolved.join(", ")}
              </p>
            )}
          </li>
        ))}
      </ul>
      <p>
        Feedback van gebruikers: <a href="/api/evaluator/feedback.csv">feedback.csv</a> ·{" "}
        <a href="/api/evaluator/feedback-set.csv">als vragenset (CSV)</a>
      </p>
      <h2>Rapporten</h2>
      {reports.length === 0 && <p>Nog geen rapporten.</p>}
      {reports.map((report) => (
        <ReportView key={report.id} report={report} setName={setName(report.set_id)} />
      ))}
    </main>
  );
}

function ReportView({ report, setName }: { report: Report; setName: string }) {
  const answers = report.kind === "answers";
  const columns = answers ? [] : [...new Set(Object.values(report.metrics).flatMap((row) => Object.keys(row)))];
  const plots = report.files.filter((name) => name.endsWith(".png"));
  return (
    <article className="report" aria-label={`Rapport ${report.id}`}>
      <h3>
        {answers ? "Antwoordrapport" : "Rapport"} {report.id}: {REPORT_STATUS[report.status] ?? report.status}
      </h3>
      <p className="times">
        Vragenset <strong>{setName}</strong> · gemaakt op {dateTime(report.created_at)}
      </p>
      {!FINAL.has(report.status) && <progress value={report.progress} max={1} aria-label={`Voortgang rapport ${report.id}`} />}
      {report.error && <p role="alert" className="error">{report.error}</p>}
      {columns.length > 0 && (
        <>
          <ScrollBox label={`Hit@k en MRR van rapport ${report.id}`}>
            <table>
              <thead>
                <tr>
                  <th scope="col">Niveau</th>
                  {columns.map((c) => (
                    <th key={c} scope="col">
                      {COLUMNS[c] ?? c}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {Object.entries(report.metrics).map(([name, row]) => (
                  <tr key={name}>
                    <th scope="row">{LEVELS[name] ?? name}</th>
                    {columns.map((c) => (
                      <td key={c}>{c === "questions" ? row[c] : row[c] === undefined ? "" : decimal(row[c])}</td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
          <MetricsExplained />
        </>
      )}
      {answers && report.status === "finished" && <AnswerFigures report={report} />}
      {plots.map((name) => (
        <img key={name} src={fileUrl(report, name)} alt={plotTitle(name)} className="plot" />
      ))}
      {report.files.length > 0 && (
        <ul className="downloads">
          {report.files
            .filter((name) => !name.endsWith(".png"))
            .map((name) => (
              <li key={name}>
                <a href={fileUrl(report, name)} download>
                  {FILE_LABELS[name] ?? name} ({name})
                </a>
              </li>
            ))}
        </ul>
      )}
    </article>
  );
}

/** The answer report's figures, each with its Dutch label, and what the two key-fact rates mean. */
function AnswerFigures({ report }: { report: Report }) {
  const figures = report.metrics.answers ?? {};
  return (
    <>
      <ScrollBox label={`Antwoordkwaliteit van rapport ${report.id}`}>
        <table>
          <tbody>
            {ANSWER_FIGURES.map(([name, label]) => (
              <tr key={name}>
                <th scope="row">{label}</th>
                <td>{answerFigure(name, figures[name])}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
      <div className="explain">
        <p>
          <strong>Hoe lees je deze tabel?</strong> Elke vraag is gesteld zoals een gebruiker haar in de chat stelt. De{" "}
          <strong>fragment-recall</strong> zegt hoe vaak de kernzin in een van de getoonde passages stond (het juiste document vinden is niet
          genoeg: het juiste stuk moet erbij zijn). Het{" "}
          <strong>citaat</strong> is de zin die Vraagbaak letterlijk uit het document haalt; het <strong>gegenereerde antwoord</strong> schrijft
          het taalmodel. Beide tellen als juist als ze de kernzin uit de kolom <code>answer</code> bevatten (hoofdletters, spaties en de
          schrijfwijze van getallen tellen niet). Zinnen van het antwoord die niet in de bronnen staan, ziet de gebruiker gemarkeerd.
        </p>
      </div>
    </>
  );
}

/** Hit@k and MRR in plain Dutch, next to the table that shows them. */
export function MetricsExplained() {
  return (
    <div className="explain">
      <p>
        <strong>Hoe lees je deze tabel?</strong> Voor elke vraag zoekt Vraagbaak de best passende stukken tekst, zoals de chat dat doet.
      </p>
      <ul>
        <li>
          <strong>Hit@k</strong>: bij welk deel van de vragen een juist document bij de eerste k resultaten stond. Hit@3 = 0,800 betekent: bij 8
          van de 10 vragen stond een juist document in de top 3 (de chat toont er 3).
        </li>
        <li>
          <strong>MRR</strong>: hoe hoog het eerste juiste document gemiddeld stond. Bovenaan telt als 1, op plaats 2 als 0,5, op plaats 3 als
          0,33, niet gevonden als 0.
        </li>
      </ul>
      <p>Hoger is beter (1 is het maximum). Vragen waarvan geen enkel document in de index staat, tellen niet mee.</p>
    </div>
  );
}
