// A report page opened as an evaluator opens a downloaded file, at 1366 × 900 in Debian's Chromium: it must fit the
// width (no sideways scrolling) and have no serious accessibility violation (axe-core). Prints one JSON line.
// Usage: node e2e/report-page.mjs FILE.html SCREENSHOT.png
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { launchChromium } from "./common.mjs";

const [file, screenshot] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
  await page.goto(pathToFileURL(file).href);
  await page.addScriptTag({ content: readFileSync(require.resolve("axe-core/axe.min.js"), "utf8") });
  const result = await page.evaluate(async () => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    violations: (await window.axe.run(document, { resultTypes: ["violations"] })).violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => v.id),
  }));
  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
}
