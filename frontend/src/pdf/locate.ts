// Finds the stored passage in a PDF page's text layer, so the viewer can highlight it.
//
// The text layer and the stored chunk differ in ways that do not change the words: ligatures (ﬁ), soft and line-end
// hyphens, whitespace and line breaks, punctuation spacing. Both sides are reduced to their letters and digits,
// lower-cased, and the longest run they share is the passage's part on this page (a chunk may start on the
// previous page or end on the next). Only ever the stored chunk text is searched, never model output.

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
 * page does not hold it.
 */
export function locatePassage(items: readonly string[], passage: string): number[] {
  const itemOfChar: number[] = [];
  let page = "";
  items.forEach((item, index) => {
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

/** What to mark on a page: text item index -> [start, end) character range in that item's string. */
export type Highlight = Map<number, [number, number]>;

/** Normalised sentences shorter than this are only trusted inside the passage's part (elsewhere: chance). */
const SHORTEST_FREE_SENTENCE = 12;
const CLOSING = /[.!?…;:,)\]"'”’»]/;

/**
 * Where `sentence` (a verbatim part of `passage`, e.g. the quote) lies on the page, to the character: the whole
 * sentence, found exactly after normalising; of several places, one inside the passage's part. Empty when the page
 * does not hold it whole (wrong page, cut by a page break).
 */
export function locateSentence(items: readonly string[], sentence: string, passage: string): Highlight {
  const place: { item: number; offset: number }[] = [];
  let page = "";
  items.forEach((item, index) => {
    const { chars, origin } = normalise(item);
    page += chars;
    origin.forEach((offset) => place.push({ item: index, offset }));
  });
  const wanted = normalise(sentence).chars;
  const found: number[] = [];
  for (let at = wanted ? page.indexOf(wanted) : -1; at >= 0; at = page.indexOf(wanted, at + 1)) found.push(at);
  if (found.length === 0) return new Map();
  let start: number | undefined = found[0];
  if (found.length > 1 || wanted.length < SHORTEST_FREE_SENTENCE) {
    const passageItems = new Set(locatePassage(items, passage));
    start = found.find((at) => passageItems.has(place[at].item)) ?? (wanted.length < SHORTEST_FREE_SENTENCE ? undefined : start);
  }
  const highlight: Highlight = new Map();
  if (start === undefined) return highlight;
  for (let k = start; k < start + wanted.length; k++) {
    const { item, offset } = place[k];
    const range = highlight.get(item);
    highlight.set(item, range ? [range[0], offset + 1] : [offset, offset + 1]);
  }
  // Normalising dropped the sentence's closing punctuation: mark it too.
  const { item, offset } = place[start + wanted.length - 1];
  let end = offset + 1;
  while (end < items[item].length && CLOSING.test(items[item][end])) end++;
  highlight.set(item, [(highlight.get(item) as [number, number])[0], end]);
  return highlight;
}

/**
 * The viewer's highlight: `sentence` alone where the page holds it, else the passage's part on this page (whole
 * text items), else nothing.
 */
export function locateHighlight(items: readonly string[], passage: string, sentence?: string): Highlight {
  const narrow = sentence ? locateSentence(items, sentence, passage) : new Map<number, [number, number]>();
  if (narrow.size > 0) return narrow;
  return new Map(locatePassage(items, passage).map((index) => [index, [0, items[index].length]]));
}

/**
 * The first of `pages` whose text items hold `sentence` whole (a passage across a page break: its sentence may be on
 * the later page), or null when none does. `itemsOf` reads a page's text items.
 */
export async function pageHoldingSentence(
  pages: readonly number[],
  itemsOf: (page: number) => Promise<string[]>,
  sentence: string,
  passage: string,
): Promise<number | null> {
  for (const page of pages) if (locateSentence(await itemsOf(page), sentence, passage).size > 0) return page;
  return null;
}
