// Admins: upload PDF, Word and OpenDocument files (drag and drop), follow ingestion jobs with per-file errors and
// notes, replace a chosen document with a new version, download a converted document's original, delete and reindex.
import { useCallback, useEffect, useRef, useState, type DragEvent } from "react";
import { ApiError, getJson, request, sendJson } from "../api/client";
import type { DocumentInfo, Job, JobFile } from "../api/types";
import { usePolling } from "../api/usePolling";
import { dateTime, duration } from "../text/dutch";
import { ScrollBox } from "../ui/ScrollBox";

const RUNNING = new Set(["queued", "running", "interrupted"]);
// What uploads take (the API decides by content; the picker offers these).
export const ACCEPTED_TYPES = [
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "application/msword",
  "application/vnd.oasis.opendocument.text",
  ".pdf",
  ".docx",
  ".doc",
  ".odt",
].join(",");
export const DROP_LABEL = "Sleep PDF-, Word- of OpenDocument-bestanden hierheen of kies ze";
// A job's and a file's states as docs/api.md names them (Job), in Dutch.
const JOB_STATUS: Record<string, string> = { queued: "in de wachtrij", running: "bezig", finished: "klaar", interrupted: "onderbroken" };
const FILE_STATUS: Record<string, string> = {
  queued: "in de wachtrij",
  running: "bezig",
  parsing: "tekst lezen",
  embedding: "indexeren",
  indexed: "geïndexeerd",
  skipped: "overgeslagen",
  failed: "mislukt",
  unchanged: "ongewijzigd",
  withdrawn: "ingetrokken",
};

export function AdminPage() {
  const [jobs, setJobs] = useState<Job[]>([]);
  const [documents, setDocuments] = useState<DocumentInfo[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const picker = useRef<HTMLInputElement>(null);
  const versionPicker = useRef<HTMLInputElement>(null);
  const [replacing, setReplacing] = useState<DocumentInfo | null>(null);

  const refresh = useCallback(() => {
    getJson<Job[]>("/api/admin/jobs").then(setJobs).catch(() => undefined);
    getJson<DocumentInfo[]>("/api/documents").then(setDocuments).catch(() => undefined);
  }, []);
  useEffect(refresh, [refresh]);
  usePolling(refresh, jobs.some((job) => RUNNING.has(job.status)));

  async function upload(files: FileList | File[]) {
    const form = new FormData();
    for (const file of files) form.append("files", file);
    try {
      await request("/api/admin/uploads", { method: "POST", body: form });
      setMessage(null);
      refresh();
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : "Uploaden mislukt.");
    }
  }

  async function replace(document: DocumentInfo, file: File) {
    const form = new FormData();
    form.append("file", file);
    try {
      await request(`/api/admin/documents/${encodeURIComponent(document.id)}/version`, { method: "POST", body: form });
      setMessage(null);
      refresh();
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : "Vervangen mislukt.");
    }
  }

  function drop(event: DragEvent) {
    event.preventDefault();
    setDragging(false);
    void upload(event.dataTransfer.files);
  }

  async function act(method: string, path: string) {
    try {
      await sendJson(method, path);
      refresh();
    } catch (error) {
      setMessage(error instanceof ApiError ? error.message : "De actie is mislukt.");
    }
  }

  return (
    <main className="admin">
      <h1>Beheer</h1>
      <section
        className={dragging ? "dropzone dragging" : "dropzone"}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={drop}
      >
        <label htmlFor="upload">{DROP_LABEL}</label>
        {/* The browser's own file button speaks the browser's language ("Choose Files"): a Dutch button opens the
            same picker, the input itself stays out of sight and out of the tab order. */}
        <input
          id="upload"
          ref={picker}
          className="visually-hidden"
          tabIndex={-1}
          type="file"
          accept={ACCEPTED_TYPES}
          multiple
          onChange={(e) => {
            if (e.target.files?.length) void upload([...e.target.files]);
            e.target.value = "";
          }}
        />
        <div className="picker">
          <button type="button" onClick={() => picker.current?.click()}>
            Bestanden kiezen
          </button>
          <span>
            PDF, Word (.docx, .doc) en OpenDocument (.odt); Word-bestanden worden naar PDF omgezet, gescande pagina's met
            OCR gelezen. Een bestand met precies dezelfde naam vervangt dat document; gebruik anders "Vervangen" bij het
            document. Bevat een keuze een ander soort bestand, dan wordt niets opgeslagen.
          </span>
        </div>
      </section>
      {message && <p role="alert" className="error">{message}</p>}
      <input
        aria-label={replacing ? `Nieuwe versie van ${replacing.title}` : "Nieuwe versie"}
        ref={versionPicker}
        className="visually-hidden"
        tabIndex={-1}
        type="file"
        accept={ACCEPTED_TYPES}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file && replacing) void replace(replacing, file);
          e.target.value = "";
        }}
      />

      <h2>Ingestietaken</h2>
      {jobs.length === 0 && <p>Nog geen taken.</p>}
      {jobs.map((job) => (
        <article key={job.id} className="job" data-status={job.status} aria-label={`Taak ${job.id}`}>
          <h3>
            Taak {job.id}: <span className="job-status">{JOB_STATUS[job.status] ?? job.status}</span>
          </h3>
          <p className="times">{jobTimes(job)}</p>
          <progress value={job.progress} max={1} aria-label={`Voortgang taak ${job.id}`} />
          <ul>
            {job.files.map((file, index) => (
              <li key={`${index}-${file.name}`} className={`file-${file.status}`}>
                {file.name}: {FILE_STATUS[file.status] ?? file.status}
                <FileProgress file={file} />
                {file.message && <span className="file-message"> — {file.message}</span>}
                {file.note && <span className="file-note"> — {file.note}</span>}
              </li>
            ))}
          </ul>
        </article>
      ))}

      <h2>Documenten</h2>
      <ScrollBox label="Documenten">
        <table className="documents">
          <thead>
            <tr>
              <th scope="col">Titel</th>
              <th scope="col">Bestand</th>
              <th scope="col">Pagina's</th>
              <th scope="col">Stukken</th>
              <th scope="col">Acties</th>
            </tr>
          </thead>
          <tbody>
            {documents.map((doc) => (
              <tr key={doc.id}>
                <td data-label="Titel">{doc.title}</td>
                <td data-label="Bestand">
                  {doc.file_name}
                  {doc.converted && (
                    <>
                      {" "}
                      <a href={`/api/documents/${encodeURIComponent(doc.id)}/original`} download>
                        origineel
                      </a>
                    </>
                  )}
                </td>
                <td data-label="Pagina's">{doc.page_count}</td>
                <td data-label="Stukken">{doc.chunk_count}</td>
                <td className="actions">
                  <button type="button" onClick={() => void act("POST", `/api/admin/documents/${encodeURIComponent(doc.id)}/reindex`)}>
                    Opnieuw indexeren
                  </button>
                  <button
                    type="button"
                    aria-label={`${doc.title} vervangen`}
                    onClick={() => {
                      setReplacing(doc);
                      versionPicker.current?.click();
                    }}
                  >
                    Vervangen
                  </button>
                  <button
                    type="button"
                    onClick={() => window.confirm(`"${doc.title}" verwijderen?`) && void act("DELETE", `/api/admin/documents/${encodeURIComponent(doc.id)}`)}
                  >
                    Verwijderen
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollBox>
    </main>
  );
}

/** "gestart 25 nov. 2026, 21:40:12 · klaar 21:40:30 (18 s)": when a job started and ended. */
export function jobTimes(job: Job): string {
  const started = `gestart ${dateTime(job.created_at, true)}`;
  if (!job.finished_at) return started;
  const ended = new Date(job.finished_at).toLocaleTimeString("nl-NL");
  return `${started} · klaar ${ended} (${duration(job.created_at, job.finished_at)})`;
}

/** A file being read gets a moving (indeterminate) bar: reading a PDF reports no share done, embedding does. */
function FileProgress({ file }: { file: JobFile }) {
  if (file.status === "parsing") return <progress className="file-progress" aria-label={`${file.name}: tekst lezen`} />;
  if (file.status === "embedding" && file.chunks_total > 0)
    return <progress className="file-progress" value={file.chunks_done} max={file.chunks_total} aria-label={`${file.name}: indexeren`} />;
  return null;
}
