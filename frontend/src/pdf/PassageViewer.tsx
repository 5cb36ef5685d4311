// The source PDF at the passage's page with the passage (or one sentence of it) highlighted in pdf.js's text layer and
// scrolled into view.
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Document, Page, pdfjs } from "react-pdf";
import "react-pdf/dist/Page/AnnotationLayer.css";
import "react-pdf/dist/Page/TextLayer.css";
import type { Source } from "../api/types";
import { pagesText } from "../chat/SourceList";
import { locateAcrossPages, type Highlight, type PassageLocation } from "./locate";

pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();

interface TextItem {
  str?: string;
}

interface PdfDocument {
  numPages: number;
  getPage(number: number): Promise<{ getTextContent(): Promise<{ items: unknown[] }> }>;
}

/** Zoom steps relative to the panel's width (1 = the page fits the panel). */
const ZOOMS = [0.75, 1, 1.25, 1.5, 2, 2.5, 3];
const FIT = ZOOMS.indexOf(1);
const NARROWEST_PAGE = 240;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The passage's pages and their neighbours (to tell running headers and footers), located in the PDF. */
async function locate(pdf: PdfDocument, source: Source, sentence: string | undefined): Promise<PassageLocation> {
  const first = Math.max(1, source.page_start - 1);
  const last = Math.min(pdf.numPages, source.page_end + 1);
  const pages = new Map<number, string[]>();
  for (let number = first; number <= last; number++) {
    const content = await (await pdf.getPage(number)).getTextContent();
    pages.set(number, content.items.map((item) => (item as TextItem).str ?? ""));
  }
  return locateAcrossPages(pages, source.page_start, Math.min(source.page_end, pdf.numPages), source.passage, sentence);
}

/** The width of `element`'s content box, following it as the panel resizes. */
function useWidth(element: HTMLElement | null): number | null {
  const [width, setWidth] = useState<number | null>(null);
  useEffect(() => {
    if (!element || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.floor(entry.contentRect.width)));
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

/** `sentence`, a verbatim part of the passage (the quote, a cited sentence), is highlighted alone where the pages hold
 * it; otherwise the whole passage is. */
export function PassageViewer({ source, sentence, onClose }: { source: Source; sentence?: string; onClose(): void }) {
  const [pdf, setPdf] = useState<{ documentId: string; document: PdfDocument } | null>(null);
  const [located, setLocated] = useState<{ source: Source; sentence?: string; location: PassageLocation } | null>(null);
  const [page, setPage] = useState(source.page_start);
  const [zoom, setZoom] = useState(FIT);
  const [error, setError] = useState<string | null>(null);
  const [pagesBox, setPagesBox] = useState<HTMLDivElement | null>(null);
  const viewer = useRef<HTMLElement>(null);
  const panelWidth = useWidth(pagesBox);
  const file = useMemo(() => ({ url: `/api/documents/${encodeURIComponent(source.document_id)}/file` }), [source.document_id]);

  // Each passage is located anew, also on a page already shown: the highlight always belongs to `source` and `sentence`.
  useEffect(() => {
    if (!pdf || pdf.documentId !== source.document_id) return;
    let current = true;
    locate(pdf.document, source, sentence).then(
      (location) => {
        if (!current) return;
        setLocated({ source, sentence, location });
        setPage(location.page);
      },
      () => {
        if (!current) return;
        setLocated({ source, sentence, location: { page: source.page_start, items: new Map() } });
        setPage(source.page_start);
      },
    );
    return () => {
      current = false;
    };
  }, [pdf, source, sentence]);

  // The viewer takes the focus when it opens (so Escape and Ctrl +/− reach it); Escape closes it from anywhere.
  useEffect(() => viewer.current?.focus(), []);
  const zoomBy = useCallback((step: number) => setZoom((z) => Math.min(ZOOMS.length - 1, Math.max(0, z + step))), []);
  useEffect(() => {
    function onKey(event: KeyboardEvent) {
      if (event.key === "Escape") {
        onClose();
        return;
      }
      if (!(event.ctrlKey || event.metaKey) || !viewer.current?.contains(document.activeElement)) return;
      const step = event.key === "+" || event.key === "=" ? 1 : event.key === "-" ? -1 : event.key === "0" ? 0 : null;
      if (step === null) return;
      event.preventDefault();
      if (step === 0) setZoom(FIT);
      else zoomBy(step);
    }
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose, zoomBy]);

  const ready = located?.source === source && located.sentence === sentence;
  const highlighted = useMemo<Highlight>(() => (ready ? located.location.items.get(page) : undefined) ?? new Map(), [ready, located, page]);
  const renderText = useCallback(
    ({ str, itemIndex }: { str: string; itemIndex: number }) => {
      const [start, end] = highlighted.get(itemIndex) ?? [0, 0];
      if (start === end) return escapeHtml(str);
      return `${escapeHtml(str.slice(0, start))}<mark class="passage">${escapeHtml(str.slice(start, end))}</mark>${escapeHtml(str.slice(end))}`;
    },
    [highlighted],
  );
  const scrollToPassage = useCallback(() => {
    viewer.current?.querySelector("mark.passage")?.scrollIntoView({ block: "center" });
  }, []);

  const pageCount = pdf?.documentId === source.document_id ? pdf.document.numPages : null;
  const width = Math.max(NARROWEST_PAGE, panelWidth ?? 560) * ZOOMS[zoom];
  return (
    <aside className="viewer" aria-label={`Document: ${source.title}`} ref={viewer} tabIndex={-1}>
      <header>
        <div className="viewer-title">
          <h2>{source.title}</h2>
          <span>{pagesText(source)}</span>
          <button type="button" onClick={onClose}>
            Sluiten
          </button>
        </div>
        <div className="viewer-tools">
          <nav className="pager" aria-label="Pagina's">
            <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Vorige pagina
            </button>
            <span>
              Pagina {page}
              {pageCount ? ` van ${pageCount}` : ""}
            </span>
            <button type="button" disabled={pageCount !== null && page >= pageCount} onClick={() => setPage(page + 1)}>
              Volgende pagina
            </button>
          </nav>
          <div className="zoom" role="group" aria-label="Zoom">
            <button type="button" aria-label="Uitzoomen" disabled={zoom === 0} onClick={() => zoomBy(-1)}>
              −
            </button>
            <span aria-live="polite">{Math.round(ZOOMS[zoom] * 100)}%</span>
            <button type="button" aria-label="Inzoomen" disabled={zoom === ZOOMS.length - 1} onClick={() => zoomBy(1)}>
              +
            </button>
            <button type="button" aria-pressed={zoom === FIT} onClick={() => setZoom(FIT)}>
              Paginabreedte
            </button>
          </div>
        </div>
      </header>
      {error && <p role="alert" className="error">{error}</p>}
      <div className="viewer-pages" ref={setPagesBox}>
        <Document
          file={file}
          onLoadSuccess={(document) => setPdf({ documentId: source.document_id, document })}
          onLoadError={() => setError("Het document kon niet worden geopend.")}
          loading={<p>Document laden…</p>}
        >
          {ready ? (
            <Page
              key={`${source.document_id}-${source.chunk_index}-${sentence ?? ""}-${page}`}
              pageNumber={page}
              width={width}
              customTextRenderer={renderText}
              onRenderTextLayerSuccess={scrollToPassage}
              renderAnnotationLayer={false}
            />
          ) : (
            <p>Passage zoeken…</p>
          )}
        </Document>
      </div>
    </aside>
  );
}
