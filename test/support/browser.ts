/**
 * Real headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core: one browser per
 * test file, closed when the file's tests are done. `.ci/run` installs chromium when it is missing.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";

const CHROMIUM = process.env.NUDGE_CHROMIUM ?? "/usr/bin/chromium";

/** The file's browser; each test opens its own page (a fresh context: no cookies or storage shared). */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`no chromium at ${CHROMIUM}: apt-get install -y chromium (or set NUDGE_CHROMIUM)`);
    // Chromium's sandbox needs user namespaces a root process in a container does not get.
    const asRoot = process.getuid?.() === 0;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: asRoot ? ["--no-sandbox"] : [] });
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** What a page did that a hostile session must not make it do: dialogs, requests, console errors. */
export interface Watch {
  dialogs: string[];
  requests: string[];
  /** Uncaught errors in the page's scripts. */
  errors: string[];
  /** What the page's console shows as errors (a failed request among them). */
  consoleErrors: string[];
}

/**
 * A page in a fresh context that records every dialog (dismissed), every request, and every
 * uncaught error. `allow` says which URLs may load; any other request is aborted (and recorded).
 */
export async function watchedPage(
  browser: Browser,
  allow: (url: string) => boolean,
): Promise<{ page: Page; watch: Watch }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const watch: Watch = { dialogs: [], requests: [], errors: [], consoleErrors: [] };
  page.on("dialog", (d) => {
    watch.dialogs.push(`${d.type()}: ${d.message()}`);
    // The page may be closing: a dialog it opened then has nobody to dismiss it.
    d.dismiss().catch(() => undefined);
  });
  page.on("pageerror", (e) => watch.errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") watch.consoleErrors.push(m.text());
  });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    watch.requests.push(url);
    // A request still in flight when its page closes cannot be continued or aborted any more.
    return (allow(url) ? route.continue() : route.abort()).catch(() => undefined);
  });
  page.on("close", () => void context.close().catch(() => undefined));
  return { page, watch };
}
