// The screen never shows the wrong content (issue 23): the five wrong-content cases and the PDF viewer, in Debian's
// Chromium driven by playwright-core, against the real API and worker that tests/e2e/test_browser.py starts.
// Settings from the environment: E2E_BASE_URL, E2E_LOADING_URL (an API whose only worker is still loading),
// E2E_USER, E2E_PASSWORD, E2E_ACROSS_PDF (a 2-page PDF with a passage across the page break and a repeated footer),
// E2E_ARTIFACTS, CHROMIUM (and E2E_ONLY: some scenarios' names, comma-separated). Every scenario runs (one failing does not hide the next); each prints ok/FAIL with its
// reason, screenshots go to E2E_ARTIFACTS, and the script exits non-zero when any failed.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { check, env, launchChromium } from "./common.mjs";

const base = env("E2E_BASE_URL");
const artifacts = env("E2E_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const TIMEOUT = 120_000;
// A question the samples answer (the tiny model takes seconds to write it): long enough to act while it streams.
const ANSWERED = "Hoe lang mag een stuwband blijven zitten bij een bloedafname?";
const FOOTER = "Protocol zuurstoftoediening op de verpleegafdeling 2025";

/** Letters and digits only, lower-cased: how the stored passage and the PDF's text layer are compared. */
const letters = (text) => text.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
/** 40 letters from the middle of `text`: present in a highlight that covers it, whatever its line breaks. */
const middle = (text) => letters(text).slice(Math.floor(letters(text).length / 2) - 20, Math.floor(letters(text).length / 2) + 20);

const failures = [];
const only = process.env.E2E_ONLY?.split(","); // run only these scenarios (while working on one)
async function scenario(page, name, body) {
  if (only && !only.includes(name)) return;
  const started = Date.now();
  try {
    await body();
    console.log(`ok ${name} (${Date.now() - started} ms)`);
  } catch (error) {
    failures.push(name);
    console.log(`FAIL ${name}: ${error instanceof Error ? error.message.split("\n")[0] : error}`);
  }
  await page.screenshot({ path: join(artifacts, `screen-fixes-${name}.png`) }).catch(() => undefined);
}

async function signIn(page, url) {
  await page.goto(url);
  await page.getByLabel("Gebruikersnaam").fill(env("E2E_USER"));
  await page.getByLabel("Wachtwoord").fill(env("E2E_PASSWORD"));
  await page.getByRole("button", { name: "Aanmelden" }).click();
  await page.getByRole("button", { name: "Nieuw gesprek" }).waitFor();
}

async function api(page, url, path) {
  const response = await page.request.get(`${url}${path}`);
  check(response.ok(), `GET ${path}: ${response.status()}`);
  return response.json();
}

async function uploadAcrossPdf(page) {
  const { csrf_token: csrf } = await api(page, base, "/api/auth/me");
  const name = "zuurstof.pdf";
  const upload = await page.request.post(`${base}/api/admin/uploads`, {
    headers: { "X-CSRF-Token": csrf },
    multipart: { files: { name, mimeType: "application/pdf", buffer: (await import("node:fs")).readFileSync(env("E2E_ACROSS_PDF")) } },
  });
  check(upload.ok(), `upload of the 2-page PDF: ${upload.status()} ${await upload.text()}`);
  const { job } = await upload.json();
  for (let i = 0; i < 600; i++) {
    const polled = await api(page, base, `/api/admin/jobs/${job.id}`);
    if (polled.status !== "running" && polled.status !== "queued") {
      const indexed = polled.files.every((file) => file.status === "indexed" || file.message?.startsWith("ongewijzigd"));
      check(indexed, `the 2-page PDF was indexed: ${JSON.stringify(polled.files)}`);
      return;
    }
    await page.waitForTimeout(500);
  }
  throw new Error("the upload's job did not finish");
}

const setDocumentsOnly = (page, on) => page.getByLabel("Alleen documenten tonen (geen gegenereerd antwoord)").setChecked(on);

/** Asks `question` in the conversation on screen and waits for its answer to finish; the stored conversation. */
async function askAndWait(page, question) {
  const before = await page.locator("article.message").count();
  await page.getByRole("textbox", { name: "Jouw vraag" }).fill(question);
  await page.getByRole("button", { name: "Vraag stellen" }).click();
  await page.locator("article.message").nth(before).and(page.locator('[aria-busy="false"]')).waitFor();
  await page.getByRole("button", { name: "Vraag stellen" }).waitFor();
  const list = await api(page, base, "/api/conversations");
  return api(page, base, `/api/conversations/${list[0].id}`);
}

/** The "Document bekijken" button of `sources[index]`, in the order the page lists them (grouped by document). */
function viewButton(page, sources, index) {
  const order = [];
  for (const id of [...new Set(sources.map((s) => s.document_id))]) sources.forEach((s, i) => s.document_id === id && order.push(i));
  return page.locator("article.message").last().getByRole("button", { name: "Document bekijken" }).nth(order.indexOf(index));
}

async function markedText(page) {
  await page.locator(".viewer mark.passage").first().waitFor({ state: "visible" });
  return (await page.locator(".viewer mark.passage").allInnerTexts()).join(" ");
}

async function storedLast(page, conversationId) {
  return (await api(page, base, `/api/conversations/${conversationId}`)).messages.at(-1);
}

const browser = await launchChromium();
const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
const page = await context.newPage();
page.setDefaultTimeout(TIMEOUT);
page.on("pageerror", (error) => console.log(`page error: ${error.message}`));

try {
  await signIn(page, base);
  await uploadAcrossPdf(page);

  await scenario(page, "answer-stays-under-its-question", async () => {
    await setDocumentsOnly(page, true);
    const old = await askAndWait(page, "Hoe vaak desinfecteer ik mijn handen met handalcohol tijdens een zorgronde?");
    check(old.messages.at(-1).answer === "", "the documents-only answer has no text");
    await page.getByRole("button", { name: "Nieuw gesprek" }).click();
    await setDocumentsOnly(page, false);
    await page.getByRole("textbox", { name: "Jouw vraag" }).fill(ANSWERED);
    await page.getByRole("button", { name: "Vraag stellen" }).click();
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.waitForTimeout(500);
    await page.locator(`.history button[title=${JSON.stringify(old.title)}]`).first().click(); // shown cut at a word
    await page.locator("article.message .question", { hasText: old.messages.at(-1).question }).waitFor();
    check(await page.getByRole("button", { name: "Stop" }).isVisible(), "the new answer was still streaming when the old conversation opened");
    await page.getByRole("button", { name: "Vraag stellen" }).waitFor(); // the new answer finished meanwhile
    const list = await api(page, base, "/api/conversations");
    const fresh = await api(page, base, `/api/conversations/${list[0].id}`);
    check(fresh.messages.at(-1).state === "answered", `the new question was answered by the model (${fresh.messages.at(-1).state})`);
    const shown = page.locator("article.message");
    check((await shown.count()) === old.messages.length, `the old conversation shows its ${old.messages.length} message(s), not ${await shown.count()}`);
    check((await shown.last().locator(".answer").count()) === 0, `the old question got the new answer's text: "${(await shown.last().innerText()).slice(0, 200)}"`);
    await page.locator(`.history button[title=${JSON.stringify(fresh.title)}]`).first().click();
    await page.locator("article.message .answer").first().waitFor();
    check((await page.locator("article.message").count()) === 1, "the new conversation shows its one question");
  });

  await scenario(page, "stop-stored-as-the-users", async () => {
    await page.getByRole("textbox", { name: "Jouw vraag" }).fill(ANSWERED);
    await page.getByRole("button", { name: "Vraag stellen" }).click();
    await page.locator("article.message").last().locator(".answer").waitFor();
    await page.getByRole("button", { name: "Stop" }).click();
    await page.locator("article.message").last().getByText("Gestopt op jouw vraag.").waitFor();
    await page.getByRole("button", { name: "Vraag stellen" }).waitFor();
    const conversationId = (await api(page, base, "/api/conversations"))[0].id;
    let stored;
    for (let i = 0; i < 50; i++) {
      stored = await storedLast(page, conversationId);
      if (stored.state !== "generating" && stored.state !== "pending") break;
      await page.waitForTimeout(200);
    }
    check(stored.state === "stopped" && stored.stop_reason === "user_stopped", `stored as ${stored.state}/${stored.stop_reason}, not stopped/user_stopped`);
  });

  let zuurstof;
  await scenario(page, "highlight-follows-the-passage", async () => {
    await page.getByRole("button", { name: "Nieuw gesprek" }).click();
    await setDocumentsOnly(page, true);
    zuurstof = await askAndWait(page, "Wanneer gebruik ik een masker in plaats van een neusbril en wanneer bevochtig ik de zuurstof?");
    const sources = zuurstof.messages.at(-1).sources;
    const onOnePage = sources.map((s, i) => ({ ...s, i })).filter((s) => s.title.startsWith("Zuurstof") && s.page_start === s.page_end);
    const [first, second] = onOnePage.filter((s) => s.page_start === onOnePage[0]?.page_start);
    check(first && second, `two passages on one page of the 2-page PDF among the sources: ${JSON.stringify(sources.map((s) => [s.title, s.page_start, s.page_end]))}`);
    await viewButton(page, sources, first.i).click();
    const before = await markedText(page);
    check(letters(before).includes(middle(first.passage)), "the first passage is highlighted");
    await viewButton(page, sources, second.i).click();
    await page.waitForFunction((wanted) => {
      const marks = [...document.querySelectorAll(".viewer mark.passage")].map((m) => m.textContent).join("");
      return marks.normalize("NFKC").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "").includes(wanted);
    }, middle(second.passage), { timeout: 15_000 }).catch(() => undefined);
    const after = await markedText(page);
    check(letters(after).includes(middle(second.passage)), `the second passage is highlighted (marked: "${after.slice(0, 120)}")`);
    check(!letters(after).includes(middle(first.passage)), "the first passage's highlight is gone");
  });

  await scenario(page, "passage-across-pages", async () => {
    const zuurstof2 = await askAndWait(page, "Wat doe ik bij een lege wandaansluiting en hoe meld ik de storing bij de technische dienst?");
    const sources = zuurstof2.messages.at(-1).sources;
    const index = sources.findIndex((s) => s.title.startsWith("Zuurstof") && s.page_start === 1 && s.page_end === 2);
    check(index >= 0, `the passage across pages 1–2 is among the sources: ${JSON.stringify(sources.map((s) => [s.title, s.page_start, s.page_end]))}`);
    const opener = viewButton(page, sources, index);
    await opener.evaluate((button) => (button.dataset.e2eOpener = "yes"));
    await opener.click();
    const marked = await markedText(page);
    check(await page.locator(".viewer .pager").getByText("Pagina 2 van 2").isVisible(), "the viewer opened page 2, where the passage is");
    check(!letters(marked).includes(letters(FOOTER)), `the running footer is not highlighted (marked: "${marked.slice(0, 160)}")`);
    check(letters(marked).includes(letters("Het noodprotocol bij een lege wandaansluiting")), "the passage's text on page 2 is highlighted");
    await page.screenshot({ path: join(artifacts, "screen-fixes-viewer-page-2.png") });
    await page.locator(".viewer").getByRole("button", { name: "Vorige pagina" }).click();
    await page.locator(".viewer .react-pdf__Page__textContent").waitFor();
    await page.waitForTimeout(1000);
    check((await page.locator(".viewer mark.passage").count()) === 0, "page 1 holds only the running footer of the passage: nothing highlighted there");
    await page.locator(".viewer").getByRole("button", { name: "Volgende pagina" }).click();
    await page.locator(".viewer mark.passage").first().waitFor();
  });

  await scenario(page, "viewer-fit-zoom-sticky-escape", async () => {
    const viewer = page.locator(".viewer");
    const canvas = viewer.locator("canvas").first();
    await canvas.waitFor();
    const panel = await viewer.locator(".viewer-pages").boundingBox({ timeout: 10_000 }).catch(() => null);
    const fitted = await canvas.boundingBox();
    check(panel && fitted && Math.abs(fitted.width - panel.width) < 40, `the page fits the panel's width (page ${fitted?.width} px, panel ${panel?.width} px)`);
    const close = viewer.getByRole("button", { name: "Sluiten" });
    const closeBox = await close.boundingBox();
    const viewerBox = await viewer.boundingBox();
    check(closeBox && closeBox.y >= viewerBox.y && closeBox.y < viewerBox.y + 80, `"Sluiten" stays at the top of the viewer (${JSON.stringify(closeBox)})`);
    check(await viewer.getByRole("heading", { name: /Zuurstof/ }).isVisible(), "the title stays visible");
    await viewer.getByRole("button", { name: "Inzoomen" }).click({ timeout: 10_000 });
    await page.waitForFunction((width) => (document.querySelector(".viewer canvas")?.getBoundingClientRect().width ?? 0) > width * 1.2, fitted.width);
    await viewer.getByRole("button", { name: "Inzoomen" }).focus();
    await page.keyboard.press("Control+Minus");
    await page.waitForFunction((width) => Math.abs((document.querySelector(".viewer canvas")?.getBoundingClientRect().width ?? 0) - width) < 2, fitted.width);
    await page.keyboard.press("Control+Equal");
    await page.waitForFunction((width) => (document.querySelector(".viewer canvas")?.getBoundingClientRect().width ?? 0) > width * 1.2, fitted.width);
    // pdf.js redraws the page at the new zoom: wait until the drawn page is taller than the panel, then scroll.
    await page.waitForFunction(() => {
      const element = document.querySelector(".viewer");
      return element !== null && element.scrollHeight > element.clientHeight + 100;
    }, undefined, { timeout: 30_000 }).catch(() => undefined);
    await viewer.evaluate((element) => element.scrollTo(0, element.scrollHeight));
    await page.waitForTimeout(300);
    const scrolled = await close.boundingBox();
    check(await viewer.evaluate((element) => element.scrollTop > 100), "the zoomed page scrolls inside the viewer");
    check(scrolled && scrolled.y >= viewerBox.y && scrolled.y < viewerBox.y + 80, `"Sluiten" stays in view while the page scrolls (${JSON.stringify(scrolled)})`);
    await page.screenshot({ path: join(artifacts, "screen-fixes-viewer-zoomed.png") });
    await page.keyboard.press("Escape");
    await viewer.waitFor({ state: "detached" });
    check(await page.evaluate(() => document.activeElement?.dataset?.e2eOpener === "yes"), "the focus is back on the button that opened the viewer");
  });

  await scenario(page, "viewer-takes-a-phones-screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator("article.message").last().getByRole("button", { name: "Document bekijken" }).first().click();
    const viewer = page.locator(".viewer");
    await viewer.locator("canvas").first().waitFor();
    const box = await viewer.boundingBox();
    check(box && box.x === 0 && box.y === 0 && box.width === 390 && box.height === 844, `the viewer covers the phone's screen (${JSON.stringify(box)})`);
    const canvas = await viewer.locator("canvas").first().boundingBox();
    check(canvas && canvas.width <= 390, `the page fits the phone's width (${canvas?.width} px)`);
    await page.screenshot({ path: join(artifacts, "screen-fixes-phone-viewer.png") });
    await viewer.getByRole("button", { name: "Sluiten" }).click();
    await viewer.waitFor({ state: "detached" });
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  const loadingBase = env("E2E_LOADING_URL");
  const loading = await context.newPage();
  loading.setDefaultTimeout(TIMEOUT);
  await scenario(loading, "first-question-while-the-model-loads", async () => {
    await signIn(loading, loadingBase);
    await loading.getByText("Het taalmodel wordt geladen").first().waitFor({ timeout: 10_000 });
    const before = await api(loading, loadingBase, "/api/conversations");
    const question = "Wat doe ik bij een lege wandaansluiting voor zuurstof?";
    await loading.getByRole("textbox", { name: "Jouw vraag" }).fill(question);
    await loading.getByRole("button", { name: "Vraag stellen" }).click();
    const alert = loading.getByRole("alert");
    await alert.waitFor({ timeout: 30_000 });
    const said = await alert.innerText();
    check(said.includes("wordt geladen") && !said.includes("bezet") && !said.includes("geen taalmodel"), `one message that says the model is loading: "${said}"`);
    check((await loading.getByRole("textbox", { name: "Jouw vraag" }).inputValue()) === question, "the typed question is kept");
    const after = await api(loading, loadingBase, "/api/conversations");
    check(after.length === before.length, `no empty conversation was left (${before.length} before, ${after.length} after)`);
    await setDocumentsOnly(loading, true);
    await loading.getByRole("button", { name: "Vraag stellen" }).click();
    await loading.locator("article.message").first().getByRole("button", { name: "Document bekijken" }).first().waitFor();
    check((await loading.getByRole("textbox", { name: "Jouw vraag" }).inputValue()) === "", "the documents-only question was asked");
  });
} catch (error) {
  failures.push("setup");
  console.log(`FAIL setup: ${error instanceof Error ? error.message : error}`);
  await page.screenshot({ path: join(artifacts, "screen-fixes-failure.png") }).catch(() => undefined);
} finally {
  await browser.close();
}
if (failures.length > 0) {
  console.log(`failed: ${failures.join(", ")}`);
  process.exitCode = 1;
}
