// End-to-end walk through the three roles in Debian's Chromium, driven by playwright-core (no browser download).
// Usage: node e2e/run.mjs — settings from the environment (tests/e2e/test_browser.py starts the real API and worker):
//   E2E_BASE_URL, E2E_USER, E2E_PASSWORD, E2E_NEW_PDF, E2E_BROKEN_PDF, E2E_QUESTIONS_CSV, E2E_ARTIFACTS, CHROMIUM.
// Each step prints one line and saves a screenshot; the first failed check exits non-zero with its reason.
import { readFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { check, env, launchChromium } from "./common.mjs";

const require = createRequire(import.meta.url);
const base = env("E2E_BASE_URL");
const artifacts = env("E2E_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const STEP_TIMEOUT = 180_000;

let stepNumber = 0;
async function step(page, name, body) {
  stepNumber += 1;
  const started = Date.now();
  await body();
  await page.screenshot({ path: join(artifacts, `${String(stepNumber).padStart(2, "0")}-${name}.png`) });
  console.log(`ok ${stepNumber} ${name} (${Date.now() - started} ms)`);
}

async function seriousA11yViolations(page) {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => await window.axe.run(document, { resultTypes: ["violations"] }));
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

async function storedConversation(page, id) {
  const response = await page.request.get(`${base}/api/conversations/${id}`);
  check(response.ok(), `GET conversation ${id}: ${response.status()}`);
  return response.json();
}

// The conversation once `settled` holds for it: each click saves on its own request, which a busy machine may
// answer after the next click, so the check reads until the saves have landed (at most `seconds`).
async function settledConversation(page, id, settled, seconds = 15) {
  const until = Date.now() + seconds * 1000;
  let stored = await storedConversation(page, id);
  while (!settled(stored) && Date.now() < until) {
    await page.waitForTimeout(250);
    stored = await storedConversation(page, id);
  }
  return stored;
}

async function latestConversationId(page) {
  const response = await page.request.get(`${base}/api/conversations`);
  const list = await response.json();
  check(list.length > 0, "a conversation was stored");
  return list[0].id;
}

/** Asks `question` and returns the distinct answer texts seen while it streamed (one per paint we caught). */
async function ask(page, question) {
  const before = await page.locator("article.message").count();
  await page.getByRole("textbox", { name: "Jouw vraag" }).fill(question);
  await page.getByRole("button", { name: "Vraag stellen" }).click();
  const message = page.locator("article.message").nth(before);
  await message.waitFor();
  const answer = message.locator(".answer");
  const seen = new Set();
  const deadline = Date.now() + STEP_TIMEOUT;
  while (Date.now() < deadline && (await message.getAttribute("aria-busy")) === "true") {
    if ((await answer.count()) > 0) seen.add(await answer.innerText());
    await page.waitForTimeout(20);
  }
  check((await message.getAttribute("aria-busy")) === "false", `the answer to "${question}" finished`);
  if ((await answer.count()) > 0) seen.add(await answer.innerText());
  return [...seen].filter((text) => text.length > 0);
}

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(STEP_TIMEOUT);
page.on("pageerror", (error) => console.log(`page error: ${error.message}`));

try {
  await step(page, "login", async () => {
    await page.goto(base);
    check((await seriousA11yViolations(page)).length === 0, `axe on the login page: ${await seriousA11yViolations(page)}`);
    await page.getByLabel("Gebruikersnaam").fill(env("E2E_USER"));
    await page.getByLabel("Wachtwoord").fill(env("E2E_PASSWORD"));
    await page.getByRole("button", { name: "Aanmelden" }).click();
    await page.getByRole("button", { name: "Nieuw gesprek" }).waitFor();
  });

  await step(page, "answer-streams", async () => {
    const texts = await ask(page, "Hoe lang mag een stuwband maximaal blijven zitten?");
    check(texts.length > 1, `the answer was painted more than once while it streamed (seen ${texts.length})`);
    await page.getByRole("button", { name: "Document bekijken" }).first().waitFor();
    const violations = await seriousA11yViolations(page);
    check(violations.length === 0, `axe on the chat: ${violations}`);
  });

  let conversationId;
  await step(page, "source-highlighted", async () => {
    conversationId = await latestConversationId(page);
    const stored = await storedConversation(page, conversationId);
    const source = stored.messages.at(-1).sources[0];
    await page.getByRole("button", { name: "Document bekijken" }).first().click();
    const mark = page.locator(".viewer mark.passage").first();
    await mark.waitFor({ state: "visible" });
    check(await page.locator(".viewer .pager").getByText(`Pagina ${source.page_start}`).isVisible(), `the viewer opened on page ${source.page_start}`);
    const box = await mark.boundingBox();
    const viewport = page.viewportSize();
    check(box && box.y >= 0 && box.y + box.height <= viewport.height && box.x >= 0 && box.x < viewport.width, `the highlight is inside the viewport (${JSON.stringify(box)})`);
    await page.screenshot({ path: join(artifacts, "chat-with-highlighted-source.png") });
  });

  await step(page, "feedback-stored", async () => {
    const first = page.locator(".sources li").first();
    await first.getByRole("group", { name: "Bevat dit document een antwoord op jouw vraag?" }).getByRole("button", { name: "Ja" }).click();
    await first.getByRole("group", { name: "Is de markering op het juiste deel van de tekst geplaatst?" }).getByRole("button", { name: "Nee" }).click();
    await page.getByRole("group", { name: "Antwoord gevonden?" }).getByRole("button", { name: "Ja" }).click();
    const stored = await settledConversation(page, conversationId, (conversation) => {
      const saved = conversation.messages.at(-1).feedback[0];
      return conversation.answer_found === true && saved?.highlight_correct === false;
    });
    const feedback = stored.messages.at(-1).feedback[0];
    check(feedback && feedback.contains_answer === true && feedback.highlight_correct === false, `document feedback stored: ${JSON.stringify(feedback)}`);
    check(stored.answer_found === true, "answer found stored");
  });

  await step(page, "generation-stopped", async () => {
    await page.getByRole("textbox", { name: "Jouw vraag" }).fill("Hoe lang mag een stuwband maximaal blijven zitten?");
    await page.getByRole("button", { name: "Vraag stellen" }).click();
    await page.locator("article.message").last().locator(".answer").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.getByText("Gestopt op jouw vraag.").waitFor();
    await page.getByRole("button", { name: "Vraag stellen" }).waitFor();
    let state;
    for (let i = 0; i < 50 && state !== "stopped"; i++) {
      state = (await storedConversation(page, conversationId)).messages.at(-1).state;
      await page.waitForTimeout(200);
    }
    check(state === "stopped", `the stopped message is stored as stopped (was ${state})`);
  });

  await step(page, "admin-upload", async () => {
    await page.getByRole("link", { name: "Beheer" }).click();
    await page.getByLabel("Sleep PDF-, Word- of OpenDocument-bestanden hierheen of kies ze").setInputFiles(env("E2E_NEW_PDF"));
    // The upload's own job (the samples' job is listed too), finished: the API's states are running | finished.
    const job = page.locator('article.job[data-status="finished"]', { hasText: "wondzorg.pdf" });
    await job.waitFor();
    check((await job.locator(".file-indexed").count()) === 1, "the uploaded PDF was indexed");
    const violations = await seriousA11yViolations(page);
    check(violations.length === 0, `axe on the admin page: ${violations}`);
  });

  await step(page, "admin-broken-upload", async () => {
    await page.getByLabel("Sleep PDF-, Word- of OpenDocument-bestanden hierheen of kies ze").setInputFiles(env("E2E_BROKEN_PDF"));
    const failed = page.locator("article.job", { hasText: "kapot.pdf" }).locator(".file-failed");
    await failed.waitFor();
    check((await failed.locator(".file-message").innerText()).length > 3, "the broken PDF's error is shown");
  });

  await step(page, "evaluator-report", async () => {
    await page.getByRole("link", { name: "Evaluatie" }).click();
    await page.getByLabel("Vragenset (CSV: question,relevant_documents)").setInputFiles(env("E2E_QUESTIONS_CSV"));
    await page.getByRole("button", { name: "Rapport maken" }).first().click();
    await page.locator("article.report img.plot").first().waitFor({ state: "visible", timeout: 600_000 });
    check((await page.locator("article.report table").count()) > 0, "the Hit@k/MRR table is shown");
    const violations = await seriousA11yViolations(page);
    check(violations.length === 0, `axe on the evaluator page: ${violations}`);
  });
} catch (error) {
  await page.screenshot({ path: join(artifacts, "failure.png") }).catch(() => undefined);
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
} finally {
  await browser.close();
}
