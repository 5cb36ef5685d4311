// The source PDF at the passage's page with the passage highlighted in pdf.js's text layer and scrolled into view.
import { useCallback, useEffect, useMemo, useState } from "react";
import { Document, Page, pdfjs } from "react-pdf";
import "react-pdf/dist/Page/AnnotationLayer.css";
import "react-pdf/dist/Page/TextLayer.css";
import type { Source } from "../api/types";
import { pagesText } from "../chat/SourceList";
import { locateHighlight, pageHoldingSentence, type Highlight } from "./locate";

pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();

interface TextItem {
  str: string;
}

interface PdfPage {
  getTextContent(): Promise<{ items: unknown[] }>;
}

interface LoadedPdf {
  getPage(page: number): Promise<PdfPage>;
}

async function textItems(pdfPage: PdfPage): Promise<string[]> {
  const content = await pdfPage.getTextContent();
  return content.items.map((item) => (item as TextItem).str ?? "");
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `sentence`, a verbatim part of the passage (the quote, a cited sentence), is highlighted alone where the page holds
 * it; otherwise the whole passage is. */
export function PassageViewer({ source, sentence, onClose }: { source: Source; sentence?: string; onClose(): void }) {
  const [page, setPage] = useState(source.page_start);
  const [pageCount, setPageCount] = useState<number | null>(null);
  const [highlighted, setHighlighted] = useState<Highlight>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [pdf, setPdf] = useState<{ documentId: string; document: LoadedPdf } | null>(null);
  const file = useMemo(() => ({ url: `/api/documents/${encodeURIComponent(source.document_id)}/file` }), [source.document_id]);
  const [shownFor, setShownFor] = useState({ source, sentence });
  if (shownFor.source !== source || shownFor.sentence !== sentence) {
    setShownFor({ source, sentence });
    setPage(source.page_start);
  }

  // A passage across a page break opens on its first page; its sentence may be on a later one.
  useEffect(() => {
    if (pdf?.documentId !== source.document_id || !sentence || source.page_end <= source.page_start) return;
    let current = true;
    const pages = Array.from({ length: source.page_end - source.page_start + 1 }, (_, i) => source.page_start + i);
    void pageHoldingSentence(pages, async (n) => textItems(await pdf.document.getPage(n)), sentence, source.passage).then((found) => {
      if (current && found !== null) setPage(found);
    });
    return () => {
      current = false;
    };
  }, [pdf, source, sentence]);

  const findPassage = useCallback(
    async (pdfPage: PdfPage) => {
      setHighlighted(locateHighlight(await textItems(pdfPage), source.passage, sentence));
    },
    [source.passage, sentence],
  );

  const renderText = useCallback(
    ({ str, itemIndex }: { str: string; itemIndex: number }) => {
      const [start, end] = highlighted.get(itemIndex) ?? [0, 0];
      if (start === end) return escapeHtml(str);
      const marked = `<mark class="passage">${escapeHtml(str.slice(start, end))}</mark>`;
      return escapeHtml(str.slice(0, start)) + marked + escapeHtml(str.slice(end));
    },
    [highlighted],
  );

  const scrollToPassage = useCallback(() => {
    document.querySelector(".viewer mark.passage")?.scrollIntoView({ block: "center" });
  }, []);

  return (
    <aside className="viewer" aria-label={`Document: ${source.title}`}>
      <header>
        <h2>{source.title}</h2>
        <span>{pagesText(source)}</span>
        <button type="button" onClick={onClose}>
          Sluiten
        </button>
      </header>
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
      {error && <p role="alert" className="error">{error}</p>}
      <Document
        file={file}
        onLoadSuccess={(loaded) => {
          setPageCount(loaded.numPages);
          setPdf({ documentId: source.document_id, document: loaded });
        }}
        onLoadError={() => setError("Het document kon niet worden geopend.")}
        loading={<p>Document laden…</p>}
      >
        <Page
          key={`${source.document_id}-${page}-${source.chunk_index}-${sentence ?? ""}`}
          pageNumber={page}
          width={560}
          onLoadSuccess={(pdfPage) => void findPassage(pdfPage)}
          customTextRenderer={renderText}
          onRenderTextLayerSuccess={scrollToPassage}
          renderAnnotationLayer={false}
        />
      </Document>
    </aside>
  );
}
