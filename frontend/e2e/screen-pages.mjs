// The pages on a phone (390 px wide) and by keyboard, in Debian's Chromium driven by playwright-core: sign-in by
// keyboard with the focus landing in the question box, the top bar and tables inside the screen, documents-only
// passages with the question's words marked, a mixed upload refused with what happened to every file, a
// semicolon-separated question set, the Dutch report page downloaded, and axe-core on the four pages.
// Usage: node e2e/screen-pages.mjs — settings from the environment (tests/e2e/test_browser.py starts the app):
//   E2E_BASE_URL, E2E_USER, E2E_PASSWORD, E2E_NEW_PDF, E2E_BAD_FILE, E2E_SEMICOLON_CSV, E2E_ARTIFACTS, CHROMIUM.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, join } from "node:path";
import { check, env, launchChromium } from "./common.mjs";

const require = createRequire(import.meta.url);
const base = env("E2E_BASE_URL");
const artifacts = env("E2E_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const STEP_TIMEOUT = 180_000;
const PHONE = { width: 390, height: 844 };

let stepNumber = 0;
async function step(page, name, body) {
  stepNumber += 1;
  const started = Date.now();
  await body();
  await page.screenshot({ path: join(artifacts, `${String(stepNumber).padStart(2, "0")}-${name}.png`), fullPage: true });
  console.log(`ok ${stepNumber} ${name} (${Date.now() - started} ms)`);
}

async function seriousA11yViolations(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function expectNoSeriousViolations(page, where) {
  const violations = await seriousA11yViolations(page);
  check(violations.length === 0, `axe on ${where}: ${violations.join("; ")}`);
}

/** The page itself never scrolls sideways on a phone: wide things scroll inside their own box. */
async function expectNoSidewaysScroll(page, where) {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  check(width <= PHONE.width, `${where} is ${width} px wide on a ${PHONE.width} px screen`);
}

/** The element is on screen and nothing (such as a sticky form) covers its middle. */
async function expectUncovered(locator, what) {
  await locator.scrollIntoViewIfNeeded();
  const covered = await locator.evaluate((element) => {
    const box = element.getBoundingClientRect();
    const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return !(top === element || element.contains(top));
  });
  check(!covered, `${what} is covered by another element`);
}

const browser = await launchChromium();
const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1, acceptDownloads: true, locale: "nl-NL", timezoneId: "Europe/Brussels" });
const page = await context.newPage();
page.setDefaultTimeout(STEP_TIMEOUT);
page.on("pageerror", (error) => console.log(`page error: ${error.message}`));

try {
  await step(page, "phone-login-by-keyboard", async () => {
    await page.goto(base);
    await page.getByLabel("Gebruikersnaam").waitFor();
    await expectNoSeriousViolations(page, "the login page");
    await expectNoSidewaysScroll(page, "the login page");
    await page.keyboard.press("Tab");
    check(await page.getByLabel("Gebruikersnaam").evaluate((e) => e === document.activeElement), "Tab reaches the user name first");
    await page.keyboard.type(env("E2E_USER"));
    await page.keyboard.press("Tab");
    await page.keyboard.type(env("E2E_PASSWORD"));
    await page.keyboard.press("Enter");
    const box = page.getByRole("textbox", { name: "Jouw vraag" });
    await box.waitFor();
    await page.waitForFunction(() => document.activeElement?.id === "question");
  });

  await step(page, "phone-chat-top-bar-and-question-box", async () => {
    const signOut = page.getByRole("button", { name: "Afmelden" });
    const bar = await signOut.boundingBox();
    check(bar && bar.x >= 0 && bar.x + bar.width <= PHONE.width, `Afmelden is inside the screen (${JSON.stringify(bar)})`);
    const box = await page.getByRole("textbox", { name: "Jouw vraag" }).boundingBox();
    check(box && box.y + box.height <= PHONE.height, `the question box is visible without scrolling (${JSON.stringify(box)})`);
    await expectNoSidewaysScroll(page, "the chat");
    await expectNoSeriousViolations(page, "the chat");
  });

  await step(page, "phone-documents-only-by-keyboard", async () => {
    // From the question box: Tab to the documents-only switch, Space ticks it, Shift+Tab back, type, Enter asks.
    await page.keyboard.press("Tab");
    const toggle = page.getByRole("checkbox", { name: /Alleen documenten tonen/ });
    check(await toggle.evaluate((e) => e === document.activeElement), "Tab from the question box reaches the documents-only switch");
    await page.keyboard.press("Space");
    check(await toggle.isChecked(), "Space ticks the documents-only switch");
    await page.keyboard.press("Shift+Tab");
    await page.keyboard.type("Hoe lang moet ik mijn handen wrijven met handalcohol?");
    await page.keyboard.press("Enter");
    const message = page.locator("article.message").last();
    await page.waitForFunction(() => document.querySelector("article.message:last-of-type")?.getAttribute("aria-busy") === "false");
    await message.getByText("Alleen documenten: er werd geen antwoord gegenereerd.").waitFor();
    const passages = message.locator("blockquote.passage-text");
    check((await passages.count()) > 0, "documents-only mode shows the passages' text");
    const marked = (await message.locator("blockquote.passage-text mark").allInnerTexts()).map((t) => t.toLowerCase());
    check(marked.some((word) => /hand|alcohol|wrijven/.test(word)), `the question's words are marked (${marked.join(", ")})`);
    // one "Document bekijken" per document and page(s): never identical rows
    const rows = await message.locator(".sources .passages > li").evaluateAll((items) =>
      items.map((item) => `${item.closest(".sources > ol > li")?.querySelector(".source-title")?.textContent}|${item.querySelector(".pages")?.textContent}`),
    );
    check(new Set(rows).size === rows.length, `no two rows for the same page of one document (${rows.join("; ")})`);
    await expectUncovered(page.getByRole("group", { name: "Antwoord gevonden?" }), "“Antwoord gevonden?”");
    await expectNoSidewaysScroll(page, "the chat with passages");
    await expectNoSeriousViolations(page, "the chat with passages");
  });

  await step(page, "phone-history-grouped-by-day", async () => {
    const history = page.getByRole("complementary", { name: "Gesprekken" });
    await history.getByRole("region", { name: "Vandaag" }).waitFor();
    const title = await history.getByRole("region", { name: "Vandaag" }).getByRole("button").first().innerText();
    check(title.startsWith("Hoe lang moet ik mijn handen"), `today's conversation is listed (${title})`);
  });

  await step(page, "phone-admin-mixed-upload", async () => {
    await page.getByRole("link", { name: "Beheer" }).click();
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Bestanden kiezen" }).click()]);
    check(chooser.isMultiple(), "the Dutch button opens a picker for several files");
    await chooser.setFiles([env("E2E_NEW_PDF"), env("E2E_BAD_FILE")]);
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const said = await alert.innerText();
    const good = basename(env("E2E_NEW_PDF"));
    const bad = basename(env("E2E_BAD_FILE"));
    check(said.includes("Niets opgeslagen") && said.includes(bad) && said.includes(good), `the refusal names both files and says nothing was stored: ${said}`);
  });

  await step(page, "phone-admin-job-and-table", async () => {
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Bestanden kiezen" }).click()]);
    await chooser.setFiles([env("E2E_NEW_PDF")]);
    const good = basename(env("E2E_NEW_PDF"));
    const job = page.locator('article.job[data-status="finished"]', { hasText: good }).first();
    await job.waitFor();
    const times = await job.locator(".times").innerText();
    check(/^gestart .* · klaar .*\(\d+( min)?( \d+)? s\)$|^gestart .* · klaar .*\(\d+ min\)$/.test(times), `the job says when it started and ended: ${times}`);
    const text = await page.locator("main").innerText();
    check(!/\/(tmp|srv|home|data|\.data)\//.test(text) && !text.includes("/uploads/"), "no server path on the admin page");
    await page.locator("table.documents").scrollIntoViewIfNeeded();
    await expectNoSidewaysScroll(page, "the admin page");
    await expectNoSeriousViolations(page, "the admin page");
  });

  let reportHtml = "";
  await step(page, "phone-evaluator-semicolon-set-and-dutch-report", async () => {
    await page.getByRole("link", { name: "Evaluatie" }).click();
    const [chooser] = await Promise.all([page.waitForEvent("filechooser"), page.getByRole("button", { name: "Bestand kiezen" }).click()]);
    await chooser.setFiles(env("E2E_SEMICOLON_CSV"));
    const setName = basename(env("E2E_SEMICOLON_CSV"));
    const set = page.locator("ul.sets > li", { hasText: setName });
    await set.waitFor();
    const listed = await set.innerText();
    check(/\(\d+ vragen, 1 onbekend document\)/.test(listed), `the set counts with the right plural: ${listed}`);
    check(listed.includes("onbekend-protocol.pdf"), `the unknown document is listed: ${listed}`);
    await set.getByRole("button", { name: "Rapport maken" }).click();
    const report = page.locator("article.report").first();
    await report.locator("img.plot").first().waitFor({ state: "visible", timeout: 600_000 });
    check((await report.innerText()).includes(`Vragenset ${setName}`), "the report names its question set");
    await report.getByText("Hoe lees je deze tabel?").waitFor();
    const alt = await report.locator("img.plot").first().getAttribute("alt");
    check(alt.startsWith("Verdeling van de rang"), `the plot is described in Dutch: ${alt}`);
    const [download] = await Promise.all([page.waitForEvent("download"), report.getByRole("link", { name: /report\.html/ }).click()]);
    reportHtml = readFileSync(await download.path(), "utf8");
    await expectNoSidewaysScroll(page, "the evaluator page");
    await expectNoSeriousViolations(page, "the evaluator page");
  });

  await step(page, "phone-report-page-in-dutch", async () => {
    for (const dutch of ['<html lang="nl">', "Evaluatierapport:", "Hoe lees je dit rapport?", "Configuraties", "Op documentniveau", "Onbekende documenten", "gemaakt op"]) {
      check(reportHtml.includes(dutch), `report.html holds "${dutch}"`);
    }
    for (const english of ["Configurations", "Per question", "Relevance floor", "Winners"]) {
      check(!reportHtml.includes(english), `report.html holds no English "${english}"`);
    }
    await page.setContent(reportHtml);
    await expectNoSeriousViolations(page, "report.html");
  });

  await step(page, "desktop-chat-answer-found-visible", async () => {
    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto(base);
    const history = page.getByRole("complementary", { name: "Gesprekken" });
    await history.getByRole("region", { name: "Vandaag" }).getByRole("button").first().click();
    await page.locator("article.message").first().waitFor();
    const form = await page.locator("form.ask").boundingBox();
    check(form && form.y + form.height <= 900, `the question form is on screen at 1366 × 900 (${JSON.stringify(form)})`);
    await expectUncovered(page.getByRole("group", { name: "Antwoord gevonden?" }), "“Antwoord gevonden?” at 1366 px");
    await expectNoSeriousViolations(page, "the chat at 1366 px");
  });
} catch (error) {
  await page.screenshot({ path: join(artifacts, "failure.png"), fullPage: true }).catch(() => undefined);
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await browser.close();
}
