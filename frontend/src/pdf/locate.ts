// Finds the stored passage in a PDF page's text layer, so the viewer can highlight it.
//
// The text layer and the stored chunk differ in ways that do not change the words: ligatures (ﬁ), soft and line-end
// hyphens, whitespace and line breaks, punctuation spacing. Both sides are reduced to their letters and digits,
// lower-cased, and the longest run they share is the passage's part on this page (a chunk may start on the
// previous page or end on the next). A sentence of the passage (the quote, a cited sentence) is found exactly, to the
// character. Only ever the stored chunk text is searched, never model output.

/** Letters and digits only, lower-cased, ligatures unfolded; `origin[i]` is the index in `text` of output char i. */
export function normalise(text: string): { chars: string; origin: number[] } {
  let chars = "";
  const origin: number[] = [];
  for (let i = 0; i < text.length; i++) {
    for (const c of text[i].normalize("NFKC").toLowerCase()) {
      if (/[\p{L}\p{N}]/u.test(c)) {
        chars += c;
        origin.push(i);
      }
    }
  }
  return { chars, origin };
}

/** Start and length of the longest substring `a` and `b` share (dynamic programming over one rolling row). */
export function longestCommonRun(a: string, b: string): { startA: number; startB: number; length: number } {
  let best = { startA: 0, startB: 0, length: 0 };
  let previous = new Uint16Array(b.length + 1);
  let current = new Uint16Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      current[j] = a[i - 1] === b[j - 1] ? Math.min(previous[j - 1] + 1, 65535) : 0;
      if (current[j] > best.length) best = { startA: i - current[j], startB: j - current[j], length: current[j] };
    }
    [previous, current] = [current, previous];
    current.fill(0);
  }
  return best;
}

/** The shortest shared run that counts as "the passage is here" (shorter runs are common words by chance). */
export function minimumRun(passageLength: number): number {
  return Math.min(40, Math.max(8, Math.floor(passageLength / 2)));
}

const SHORTEST_PAGE_EDGE_RUN = 8;

/**
 * Whether a shared run is the passage's part on this page: long enough on its own, or a shorter run that is where
 * a page break cuts the passage (the passage's start at the page's end, or its end at the page's start).
 */
function isPassagePart(run: ReturnType<typeof longestCommonRun>, page: string, wanted: string): boolean {
  if (run.length >= minimumRun(wanted.length)) return true;
  if (run.length < SHORTEST_PAGE_EDGE_RUN) return false;
  const startsPassageAtPageEnd = run.startB === 0 && run.startA + run.length === page.length;
  const endsPassageAtPageStart = run.startA === 0 && run.startB + run.length === wanted.length;
  return startsPassageAtPageEnd || endsPassageAtPageStart;
}

/**
 * Indices of the text items (in page order) that hold the passage's part on this page, or an empty list when the
 * page does not hold it. Items in `skip` (running headers and footers) never count: a passage that ends with the
 * footer of the page before it is not "on" that page.
 */
export function locatePassage(items: readonly string[], passage: string, skip: ReadonlySet<number> = new Set()): number[] {
  const itemOfChar: number[] = [];
  let page = "";
  items.forEach((item, index) => {
    if (skip.has(index)) return;
    const { chars } = normalise(item);
    page += chars;
    for (let k = 0; k < chars.length; k++) itemOfChar.push(index);
  });
  const wanted = normalise(passage).chars;
  if (!wanted || !page) return [];
  const run = longestCommonRun(page, wanted);
  if (!isPassagePart(run, page, wanted)) return [];
  const found = new Set<number>();
  for (let k = run.startA; k < run.startA + run.length; k++) found.add(itemOfChar[k]);
  return [...found].sort((x, y) => x - y);
}

/** Letters of a running line: digits dropped, so "pagina 3" and "pagina 4" are the same line. */
function runningKey(item: string): string {
  return normalise(item).chars.replace(/\p{N}/gu, "");
}

const SHORTEST_RUNNING_LINE = 10;

/**
 * Per page, the items that repeat on another of the given pages: running headers and footers (page numbers
 * aside, a line of body text is not printed twice on neighbouring pages). Short items are never running.
 */
export function runningItems(pages: ReadonlyMap<number, readonly string[]>): Map<number, Set<number>> {
  const pagesOfKey = new Map<string, Set<number>>();
  for (const [number, items] of pages) {
    for (const item of items) {
      const key = runningKey(item);
      if (key.length >= SHORTEST_RUNNING_LINE) pagesOfKey.set(key, (pagesOfKey.get(key) ?? new Set()).add(number));
    }
  }
  const running = new Map<number, Set<number>>();
  for (const [number, items] of pages) {
    const found = new Set<number>();
    items.forEach((item, index) => {
      if ((pagesOfKey.get(runningKey(item))?.size ?? 0) > 1) found.add(index);
    });
    running.set(number, found);
  }
  return running;
}

/** What to mark on a page: text item index -> [start, end) character range in that item's string (a whole item is
 * [0, its length]). */
export type Highlight = Map<number, [number, number]>;

export interface PassageLocation {
  /** The page to open: the one holding most of what is highlighted (the first page of the range when none holds it). */
  page: number;
  /** Per page of the passage's range, what to highlight there (empty when that page holds none of it). */
  items: Map<number, Highlight>;
}

/**
 * The items at the start and end of a page that are running headers/footers or page numbers (no letters, only
 * digits or nothing): between the parts of a sentence cut by a page break, they are left out to find it whole.
 */
function pageFurniture(items: readonly string[], running: ReadonlySet<number> = new Set()): Set<number> {
  const isFurniture = (index: number) => running.has(index) || /^\p{N}*$/u.test(normalise(items[index]).chars);
  const furniture = new Set(running);
  for (let index = 0; index < items.length && isFurniture(index); index++) furniture.add(index);
  for (let index = items.length - 1; index >= 0 && isFurniture(index); index--) furniture.add(index);
  return furniture;
}

/** Normalised sentences shorter than this are only trusted inside the passage's part (elsewhere: chance). */
const SHORTEST_FREE_SENTENCE = 12;
const CLOSING = /[.!?…;:,)\]"'”’»]/;

/** The normalised text of pages `first..last` without their furniture, and where each of its characters comes from. */
function pagesText(
  pages: ReadonlyMap<number, readonly string[]>,
  first: number,
  last: number,
  running: ReadonlyMap<number, ReadonlySet<number>>,
): { text: string; places: { page: number; item: number; offset: number }[] } {
  const places: { page: number; item: number; offset: number }[] = [];
  let text = "";
  for (let number = first; number <= last; number++) {
    const items = pages.get(number) ?? [];
    const furniture = pageFurniture(items, running.get(number));
    items.forEach((item, index) => {
      if (furniture.has(index)) return;
      const { chars, origin } = normalise(item);
      text += chars;
      origin.forEach((offset) => places.push({ page: number, item: index, offset }));
    });
  }
  return { text, places };
}

/**
 * Where `sentence` (a verbatim part of the passage, e.g. the quote) lies on the pages `first..last`, to the
 * character: the whole sentence found exactly after normalising, also across a page break (running headers and
 * footers in `running`, and page numbers, left out); of several places, one inside the passage's part
 * (`passageItems`). A quote of several lines (a heading and its list items) that the text layer orders otherwise
 * (pdf.js reads a column or a bulleted list after the text beside it) is marked line by line, when every line is
 * found. Empty when not found.
 */
function locateSentence(
  pages: ReadonlyMap<number, readonly string[]>,
  first: number,
  last: number,
  sentence: string,
  passageItems: ReadonlyMap<number, readonly number[]>,
  running: ReadonlyMap<number, ReadonlySet<number>>,
): Map<number, Highlight> {
  const { text, places } = pagesText(pages, first, last, running);
  const whole = markRun(pages, text, places, sentence, passageItems);
  const lines = sentence.split("\n").filter((line) => normalise(line).chars);
  if (whole.size > 0 || lines.length < 2) return whole;
  const marks = new Map<number, Highlight>();
  for (const line of lines) {
    const lineMarks = markRun(pages, text, places, line, passageItems);
    if (lineMarks.size === 0) return new Map();
    for (const [page, highlight] of lineMarks) {
      const pageMarks = marks.get(page) ?? new Map<number, [number, number]>();
      for (const [item, [start, end]] of highlight) {
        const [known, knownEnd] = pageMarks.get(item) ?? [start, end];
        pageMarks.set(item, [Math.min(known, start), Math.max(knownEnd, end)]);
      }
      marks.set(page, pageMarks);
    }
  }
  return marks;
}

/** Where `wanted` lies in the pages' normalised `text`, as marks per page (empty when not found). */
function markRun(
  pages: ReadonlyMap<number, readonly string[]>,
  text: string,
  places: readonly { page: number; item: number; offset: number }[],
  sentence: string,
  passageItems: ReadonlyMap<number, readonly number[]>,
): Map<number, Highlight> {
  const wanted = normalise(sentence).chars;
  const found: number[] = [];
  for (let at = wanted ? text.indexOf(wanted) : -1; at >= 0; at = text.indexOf(wanted, at + 1)) found.push(at);
  const inPassage = (at: number) => passageItems.get(places[at].page)?.includes(places[at].item) ?? false;
  const start = found.find(inPassage) ?? (wanted.length >= SHORTEST_FREE_SENTENCE ? found[0] : undefined);
  const marks = new Map<number, Highlight>();
  if (start === undefined) return marks;
  for (let k = start; k < start + wanted.length; k++) {
    const { page, item, offset } = places[k];
    const highlight = marks.get(page) ?? new Map<number, [number, number]>();
    highlight.set(item, [highlight.get(item)?.[0] ?? offset, offset + 1]);
    marks.set(page, highlight);
  }
  // Normalising dropped the sentence's closing punctuation: mark it too.
  const end = places[start + wanted.length - 1];
  const itemText = (pages.get(end.page) ?? [])[end.item];
  const range = marks.get(end.page)?.get(end.item) as [number, number];
  while (range[1] < itemText.length && CLOSING.test(itemText[range[1]])) range[1]++;
  return marks;
}

/**
 * Where a passage lies on its pages `first..last`: what to highlight on each, and the page to open. With a
 * `sentence` (a verbatim part of the passage) found there, that sentence alone, to the character; otherwise the
 * passage's whole text items. `pages` holds the text items of those pages and, where there are any, of their
 * neighbours, which is how a running header or footer (never highlighted on its own) is told from the passage.
 */
export function locateAcrossPages(
  pages: ReadonlyMap<number, readonly string[]>,
  first: number,
  last: number,
  passage: string,
  sentence?: string,
): PassageLocation {
  const running = runningItems(pages);
  const passageItems = new Map<number, number[]>();
  for (let number = first; number <= last; number++) {
    passageItems.set(number, locatePassage(pages.get(number) ?? [], passage, running.get(number)));
  }
  const marks = sentence ? locateSentence(pages, first, last, sentence, passageItems, running) : new Map<number, Highlight>();
  const location: PassageLocation = { page: first, items: new Map() };
  let most = 0;
  for (let number = first; number <= last; number++) {
    const items = pages.get(number) ?? [];
    const whole = (passageItems.get(number) ?? []).map((index): [number, [number, number]] => [index, [0, items[index].length]]);
    const highlight = marks.size > 0 ? (marks.get(number) ?? new Map()) : new Map(whole);
    location.items.set(number, highlight);
    let letters = 0;
    for (const [index, [start, end]] of highlight) letters += normalise(items[index].slice(start, end)).chars.length;
    if (letters > most) [most, location.page] = [letters, number];
  }
  return location;
}
