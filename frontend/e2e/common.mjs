// What every browser walk shares: its settings from the environment, its checks, and Debian's Chromium launched
// the same way (headless, no sandbox, nothing fetched from the network).
import { chromium } from "playwright-core";

/** A setting the walk cannot do without (tests/e2e/test_browser.py sets them). */
export function env(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
