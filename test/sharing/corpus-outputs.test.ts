/**
 * The secret corpus (fixtures/secrets/) through every output that may leave the machine or be
 * shown, from one real recorded session: the static HTML export, every object a push leaves on
 * the git server (the export tarball decompressed, its git bundle's objects), `session search
 * --json` snippets, and the web page (its search, the session list, the session page and a turn,
 * as served and as Chromium shows them). (The export archive itself: share-corpus.test.ts.)
 *
 * Each secret sits after a marker word of its own, so a search for the marker shows the snippet
 * around that secret. Goal: ≥ 98% of the secrets masked in each output, ≤ 2% of look-alikes.
 */
import { execa } from "execa";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { loadCorpus, type CorpusSecret } from "../support/secret-corpus.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";
import { bundleObjects, unpack } from "./share-support.js";
import { readStreamOf } from "../support/stream.js";
import { until } from "../support/until.js";
import { gzipSync } from "node:zlib";

const browser = browserForFile();
const { secrets, lookalikes } = loadCorpus(300);
const marker = (i: number) => `corpusmark${String(i).padStart(3, "0")}`;
/** What the page and the list show first: a GitHub token typed in the prompt. */
const TOKEN = loadCorpus(301).secrets.find((s) => s.kind === "github-token" && s.needles[0]!.startsWith("ghp_"))!
  .needles[0]!;
const PROMPT = `deploy with ${TOKEN} please`;

/** The notes, in files of at most ~12 KB (claude cuts a longer tool output). */
function noteFiles(dir: string): string[] {
  const items = [...secrets.map((s, i) => `${marker(i)} ${s.text}`), ...lookalikes.map((l) => l.text)];
  const files: string[] = [];
  let chunk: string[] = [];
  const flush = () => {
    const file = path.join(dir, `notes-${files.length}.txt`);
    writeFileSync(file, chunk.join("\n\n") + "\n");
    files.push(file);
    chunk = [];
  };
  for (const item of items) {
    if (chunk.join("\n\n").length + item.length > 12_000) flush();
    chunk.push(item);
  }
  flush();
  return files;
}

/** How often a text occurs in `haystack`, as written or JSON-escaped. */
function occurs(haystack: string, text: string): boolean {
  return haystack.includes(text) || haystack.includes(JSON.stringify(text).slice(1, -1));
}

/** The secrets of the corpus some of whose bytes are in `out`. */
function leaked(out: string): CorpusSecret[] {
  return secrets.filter((s) => s.needles.some((n) => occurs(out, n)));
}

function rate(missed: number): number {
  return (secrets.length - missed) / secrets.length;
}

describe("the secret corpus in every output", () => {
  let rec: Recorded;
  let repo: string;
  let web: WebServerRun;
  const rates: string[] = [];
  beforeAll(async () => {
    repo = await gitdir({ "README.md": "# app\n" });
    const files = noteFiles(tempDir("nudge-notes-"));
    rec = await recordSession(
      repo,
      [
        { text: "Noted." },
        ...files.flatMap((f) => [{ tool: "Bash", input: { command: `cat ${f}`, description: "show the notes" } }]),
        { text: "Shown." },
      ],
      [PROMPT, "show the notes"],
    );
    web = await startWeb(repo);
  }, 180_000);
  afterAll(async () => {
    console.log(
      `corpus: ${secrets.length} secrets of ${new Set(secrets.map((s) => s.kind)).size} kinds, ${lookalikes.length} look-alikes\n${rates.join("\n")}`,
    );
    await rec?.api.close();
    await web?.stop();
  });

  it("the recording holds every secret and look-alike (else the rates below would mislead)", () => {
    const local = readStreamOf(rec.dir).toString("latin1");
    expect(secrets.filter((s) => !s.needles.every((n) => occurs(local, n))).map((s) => s.kind)).toEqual([]);
    expect(lookalikes.filter((l) => !occurs(local, l.text)).map((l) => l.text)).toEqual([]);
  });

  it("the static HTML export", async () => {
    const file = path.join(tempDir("nudge-html-"), "page.html");
    const run = await runNudge(["session", "export", rec.id, "--html", "-o", file], { cwd: repo, env: rec.env });
    expect(run.exitCode, run.stderr).toBe(0);
    const html = readFileSync(file, "utf8");
    // The page's data as the page reads it (in the file, `<`, `>` and `&` are \u escapes).
    const data = JSON.stringify(
      JSON.parse(/<script type="application\/json" id="nudge-data">(.*?)<\/script>/s.exec(html)![1]!),
    );
    const missed = leaked(html + "\n" + data);
    const masked = lookalikes.filter((l) => !occurs(data, l.text));
    if (masked.length)
      console.log(
        `look-alikes masked in the HTML:\n${masked.map((l) => `  ${l.kind}: ${l.text.slice(0, 70)}`).join("\n")}`,
      );
    rates.push(
      `html: ${secrets.length - missed.length}/${secrets.length} masked; look-alikes masked ${masked.length}/${lookalikes.length}`,
    );
    expect(missed.map((s) => s.kind)).toEqual([]);
    expect(masked.length / lookalikes.length).toBeLessThanOrEqual(0.02);
  });

  it("every object a push leaves on the git server", async () => {
    const server = path.join(tempDir(), "sessions.git");
    await git(path.dirname(server), "init", "-q", "--bare", server);
    const push = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: repo, env: rec.env });
    expect(push.exitCode, push.stderr).toBe(0);
    const ids = (await git(server, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)"))
      .split("\n")
      .filter((l) => l.endsWith(" blob"))
      .map((l) => l.split(" ")[0]!);
    let out = "";
    let archives = 0;
    for (const id of ids) {
      const blob = (await execa("git", ["cat-file", "blob", id], { cwd: server, encoding: "buffer" })).stdout;
      const bytes = Buffer.from(blob);
      out += bytes.toString("latin1") + "\n";
      // The export, published as an uncompressed tar (git compresses and deltas it).
      if (bytes.toString("latin1", 257, 262) !== "ustar") continue;
      archives++;
      const archive = path.join(tempDir(), "published.tar.gz");
      writeFileSync(archive, gzipSync(bytes));
      const entries = await unpack(archive);
      for (const [name, data] of entries)
        out += (name.endsWith(".bundle") ? (await bundleObjects(data)).all : data.toString("latin1")) + "\n";
    }
    expect(archives).toBe(1);
    const missed = leaked(out);
    rates.push(`push: ${secrets.length - missed.length}/${secrets.length} masked`);
    expect(missed.map((s) => s.kind)).toEqual([]);
  });

  it("`session search --json` snippets and the web page's search", async () => {
    const missedCli: string[] = [];
    const missedWeb: string[] = [];
    let shown = 0;
    // The recording's turns reach the index off its path (an indexer may still run under load):
    // searched for once they are there, which is not what this test is about.
    await until("the session in the search index", async () => {
      const first = JSON.parse((await web.get(`/api/search?q=${marker(0)}`)).body) as { hits: unknown[] };
      return first.hits.length > 0 ? true : undefined;
    });
    for (const [i, s] of secrets.entries()) {
      const found = JSON.parse((await web.get(`/api/search?q=${marker(i)}`)).body) as {
        hits: Array<{ snippet: string }>;
      };
      const text = found.hits.map((h) => h.snippet).join("\n");
      if (text.includes(marker(i))) shown++;
      if (s.needles.some((n) => text.includes(n.slice(0, 16)))) missedWeb.push(s.kind);
    }
    // The command itself, a process per search: every ninth secret (the code path is the web's: hitViews).
    for (const [i, s] of secrets.entries()) {
      if (i % 9 !== 0) continue;
      const run = await runNudge(["session", "search", marker(i), "--json"], { cwd: repo, env: rec.env });
      expect(run.exitCode, run.stderr).toBe(0);
      if (s.needles.some((n) => run.stdout.includes(n.slice(0, 16)))) missedCli.push(s.kind);
    }
    rates.push(
      `web search: ${secrets.length - missedWeb.length}/${secrets.length} masked; session search --json: ${Math.ceil(secrets.length / 9) - missedCli.length}/${Math.ceil(secrets.length / 9)}`,
    );
    expect(shown).toBe(secrets.length);
    expect(rate(missedWeb.length)).toBeGreaterThanOrEqual(0.98);
    expect(missedWeb).toEqual([]);
    expect(missedCli).toEqual([]);
  }, 300_000);

  it("the web page's session list, session page and turns: masked as the export is", async () => {
    const list = (await web.get("/api/sessions")).body;
    const session = (await web.get(`/api/sessions/${rec.id}`)).body;
    const turns = [
      (await web.get(`/api/sessions/${rec.id}/turns/1?full=1`)).body,
      (await web.get(`/api/sessions/${rec.id}/turns/2?full=1`)).body,
    ];
    for (const body of [list, session, ...turns]) {
      expect(body).not.toContain(TOKEN);
      expect(body).toContain("[REDACTED:github-token]");
    }
    const missed = leaked(turns.join("\n"));
    rates.push(`web turn view: ${secrets.length - missed.length}/${secrets.length} masked`);
    expect(missed.map((s) => s.kind)).toEqual([]);

    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(web.url);
    const link = page.getByRole("link", { name: /deploy with/ });
    await expect.poll(() => link.textContent()).toContain("[REDACTED:github-token]");
    await link.click();
    await page.getByText("[REDACTED:github-token]").first().waitFor();
    expect(await page.content()).not.toContain(TOKEN);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 120_000);
});
