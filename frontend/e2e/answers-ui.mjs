// Issue 21 in Debian's Chromium against the real API and worker: every answer starts with the passage's own sentence
// (or says none was found), the quote and a citation open the PDF with exactly their sentence highlighted, and a
// generated sentence the sources do not hold is visibly flagged. What the screen shows is compared with what the API
// stored. Usage: node e2e/answers-ui.mjs — settings from the environment (tests/e2e/test_browser.py):
//   E2E_BASE_URL, E2E_USER, E2E_PASSWORD, E2E_ARTIFACTS, CHROMIUM.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, env, launchChromium } from "./common.mjs";

const base = env("E2E_BASE_URL");
const artifacts = env("E2E_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const STEP_TIMEOUT = 180_000;
// Sample questions with an answer in the sample documents, asked until one answer has a citation and one sentence is
// flagged (the tiny model's answers differ in what they copy and what they make up).
const QUESTIONS = [
  "Hoe lang moet ik mijn handen wrijven met handalcohol?",
  "Hoe lang mag een stuwband maximaal blijven zitten bij een bloedafname?",
  "Hoe lang duurt handen wassen met water en zeep?",
  "Hoe vaak moet de infusieset van een insulinepomp bij een kind vervangen worden?",
  "Hoeveel ml handalcohol neem ik per keer?",
  "Hoe vaak moet een patiënt met risico op decubitus van houding wisselen?",
];
const UNSUPPORTED = "niet gevonden in de bronnen";
const NO_QUOTE = "Geen passage gevonden die de vraag letterlijk beantwoordt.";

/** Letters and digits only, lower-cased: how src/pdf/locate.ts compares the text layer with stored text. */
const letters = (text) => [...text.normalize("NFKC").toLowerCase()].filter((c) => /[\p{L}\p{N}]/u.test(c)).join("");

let stepNumber = 0;
async function step(page, name, body) {
  stepNumber += 1;
  const started = Date.now();
  await body();
  await page.screenshot({ path: join(artifacts, `${String(stepNumber).padStart(2, "0")}-${name}.png`) });
  console.log(`ok ${stepNumber} ${name} (${Date.now() - started} ms)`);
}

async function storedMessages(page) {
  const list = await (await page.request.get(`${base}/api/conversations`)).json();
  check(list.length > 0, "a conversation was stored");
  const response = await page.request.get(`${base}/api/conversations/${list[0].id}`);
  check(response.ok(), `GET conversation ${list[0].id}: ${response.status()}`);
  return (await response.json()).messages;
}

/** Asks `question`, waits until its answer is done, and returns its article on the page. */
async function ask(page, question) {
  const before = await page.locator("article.message").count();
  await page.getByRole("textbox", { name: "Jouw vraag" }).fill(question);
  await page.getByRole("button", { name: "Vraag stellen" }).click();
  const article = page.locator("article.message").nth(before);
  await article.waitFor();
  await page.waitForFunction((index) => document.querySelectorAll("article.message")[index]?.getAttribute("aria-busy") === "false", before, { timeout: STEP_TIMEOUT });
  return article;
}

/** What the viewer marked, joined, once it equals `expected` (compared as letters and digits) or the time is up. */
async function markedText(page, expected) {
  const deadline = Date.now() + 30_000;
  let marked = "";
  while (Date.now() < deadline) {
    marked = (await page.locator(".viewer mark.passage").allInnerTexts()).join(" ");
    if (letters(marked) === letters(expected)) break;
    await page.waitForTimeout(100);
  }
  return marked;
}

async function highlightInView(page) {
  const box = await page.locator(".viewer mark.passage").first().boundingBox();
  const viewport = page.viewportSize();
  return box !== null && box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x < viewport.width;
}

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(STEP_TIMEOUT);
page.on("pageerror", (error) => console.log(`page error: ${error.message}`));

try {
  await step(page, "login", async () => {
    await page.goto(base);
    await page.getByLabel("Gebruikersnaam").fill(env("E2E_USER"));
    await page.getByLabel("Wachtwoord").fill(env("E2E_PASSWORD"));
    await page.getByRole("button", { name: "Aanmelden" }).click();
    await page.getByRole("button", { name: "Nieuw gesprek" }).click();
  });

  // Each answer: the screen shows the stored quote (or says there is none), a citation per cited sentence, a flag
  // per unsupported one, and the warning exactly when it was stored.
  const answered = [];
  for (const question of QUESTIONS) {
    await step(page, `answer-${answered.length + 1}`, async () => {
      const article = await ask(page, question);
      const stored = (await storedMessages(page)).at(-1);
      check(stored.question === question, `the last stored message is "${question}"`);
      const quote = article.getByRole("region", { name: "Uit het document" });
      if (stored.quote) check((await quote.locator("q").innerText()) === stored.quote.text, `the quote shown is the stored one: ${stored.quote.text}`);
      else check(await quote.getByText(NO_QUOTE).isVisible(), `"${NO_QUOTE}" is shown for "${question}"`);
      const generated = article.getByRole("region", { name: "Gegenereerd antwoord" });
      const cited = stored.sentences.filter((s) => s.supported && s.citation !== null).length;
      const flagged = stored.sentences.filter((s) => !s.supported).length;
      check((await generated.getByRole("button", { name: /^Bron \[\d+\]/ }).count()) === cited, `${cited} citations shown for "${question}"`);
      check((await generated.getByText(UNSUPPORTED).count()) === flagged, `${flagged} flagged sentences shown for "${question}"`);
      check((await article.getByRole("note").filter({ hasText: "Let op: de meeste zinnen" }).count()) === (stored.support_warning ? 1 : 0), `the warning shown iff stored (${stored.support_warning})`);
      answered.push({ article, stored, cited, flagged });
    });
    if (answered.some((a) => a.stored.quote) && answered.some((a) => a.cited > 0) && answered.some((a) => a.flagged > 0)) break;
  }

  await step(page, "quote-opens-its-sentence", async () => {
    const withQuote = answered.find((a) => a.stored.quote);
    check(withQuote, `one of ${answered.length} answers has a quote`);
    const { quote } = withQuote.stored;
    await withQuote.article.getByRole("region", { name: "Uit het document" }).getByRole("button").click();
    const marked = await markedText(page, quote.text);
    check(letters(marked) === letters(quote.text), `exactly the quote is highlighted: "${marked}" vs "${quote.text}"`);
    const shownPage = Number((await page.locator(".viewer .pager span").innerText()).match(/Pagina (\d+)/)?.[1]);
    check(shownPage >= quote.page_start && shownPage <= quote.page_end, `the viewer opened on the quote's page (${shownPage})`);
    check(await highlightInView(page), "the quote's highlight is in view");
    await page.screenshot({ path: join(artifacts, "quote-highlighted.png") });
  });

  await step(page, "citation-opens-its-sentence", async () => {
    const withCitation = answered.find((a) => a.cited > 0);
    check(withCitation, `one of ${answered.length} answers has a cited sentence`);
    const { sentences, sources } = withCitation.stored;
    const shown = (await page.locator(".viewer mark.passage").allInnerTexts()).join(" ");
    const cited = sentences
      .filter((s) => s.supported && s.citation !== null)
      .map((sentence, index) => {
        const source = sources[sentence.citation - 1];
        return { index, source, expected: source.passage.slice(sentence.source_start, sentence.source_end) };
      });
    // The viewer opens a cited passage at its first page: prefer a passage on one page, and a sentence other than
    // the one highlighted now (so the highlight must move).
    const rank = (c) => (c.source.page_start === c.source.page_end ? 2 : 0) + (letters(c.expected) !== letters(shown) ? 1 : 0);
    const { index, source, expected } = cited.reduce((best, c) => (rank(c) > rank(best) ? c : best));
    await withCitation.article.getByRole("button", { name: /^Bron \[\d+\]/ }).nth(index).click();
    const marked = await markedText(page, expected);
    check(letters(marked) === letters(expected), `exactly the supporting sentence is highlighted: "${marked}" vs "${expected}"`);
    check(await page.locator(".viewer").getByRole("heading", { name: source.title }).isVisible(), `the viewer shows ${source.title}`);
    check(await highlightInView(page), "the supporting sentence's highlight is in view");
    await page.screenshot({ path: join(artifacts, "citation-highlighted.png") });
  });

  await step(page, "flagged-sentence-visible", async () => {
    const withFlag = answered.find((a) => a.flagged > 0);
    check(withFlag, `one of ${answered.length} answers has a sentence the sources do not hold`);
    const sentence = withFlag.stored.sentences.find((s) => !s.supported);
    const flagged = withFlag.article.locator(".sentence.unsupported").first();
    await flagged.scrollIntoViewIfNeeded();
    check(await flagged.getByText(UNSUPPORTED).isVisible(), "the flag is visible");
    const shown = await flagged.innerText();
    check(letters(shown).startsWith(letters(sentence.text)), `the flagged sentence is the stored one: "${shown}" vs "${sentence.text}"`);
    await page.screenshot({ path: join(artifacts, "flagged-sentence.png") });
  });
} catch (error) {
  await page.screenshot({ path: join(artifacts, "failure.png") }).catch(() => undefined);
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await browser.close();
}
