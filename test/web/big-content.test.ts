/**
 * A turn whose Write carries an 8 MB file (the real claude, the scripted API): the server sends
 * its view and its "Show all" in bounded bytes, and the whole input as a download, byte for byte
 * the line claude wrote; the page shows the file's start and the download link, and stays
 * responsive after "Show all".
 */
import { execFileSync } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserForFile, watchedPage } from "../support/browser.js";
import { gitdir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { expectCleanStop, startWeb, type WebServerRun } from "../support/web-server.js";
import type { TurnView } from "../../src/view/view-types.js";

const browser = browserForFile();
const LINE = "0123456789 the quick brown fox jumps over the lazy dog, a line of a big generated file\n";
/** A token near the end: the page never shows it, and the download masks it as the page would. */
const TOKEN = "ghp_R8xk2Lq9Vw3Zt7Yb5Nc1Md4Pf6Hg0Js2Ka9E";
const content = LINE.repeat(Math.ceil((8 << 20) / LINE.length)) + `GITHUB_TOKEN=${TOKEN}\nthe last line\n`;
let r: Recorded;
let web: WebServerRun;

beforeAll(async () => {
  const repo = await gitdir();
  r = await recordSession(
    repo,
    [{ tool: "Write", input: { file_path: path.join(repo, "big.txt"), content } }, { text: "Wrote it." }],
    ["write the big file"],
  );
  web = await startWeb(repo);
}, 120_000);
afterAll(async () => {
  await r?.api.close();
  await expectCleanStop(web);
});

/** The answer's bytes as sent (the helper's answers are decoded text). */
function getBytes(
  p: string,
  headers: Record<string, string> = { cookie: web.cookie },
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: "127.0.0.1", port: web.port, path: p, headers: { host: `127.0.0.1:${web.port}`, ...headers } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        },
      )
      .on("error", reject);
  });
}

/** claude's whole stream as recorded (the finished pieces inflated, then the piece being written). */
function recordedStream(): Buffer {
  return execFileSync(
    "sh",
    ["-c", "zcat conversation.d/*.gz 2>/dev/null; cat conversation.d/*.jsonl conversation.jsonl 2>/dev/null; true"],
    { cwd: r.dir, maxBuffer: 1 << 30 },
  );
}

const writeOf = (view: TurnView) =>
  view.entries.find((e) => e.kind === "tool" && e.name === "Write") as Extract<
    TurnView["entries"][number],
    { kind: "tool" }
  >;

describe("a turn with an 8 MB tool input, served", () => {
  it("sends the turn's view and its Show all bounded, and the whole input as a download, byte for byte", async () => {
    const view = await getBytes(`/api/sessions/${r.id}/turns/1`);
    expect(view.status).toBe(200);
    expect(view.body.length).toBeLessThan(512 << 10);
    const full = await getBytes(`/api/sessions/${r.id}/turns/1?full=1`);
    expect(full.status).toBe(200);
    // The 8 MB input (and its echoes, and the 8 MB patch) are not sent whole.
    expect(full.body.length).toBeLessThan(4 << 20);

    const write = writeOf(JSON.parse(view.body.toString()) as TurnView);
    expect(write.input.text).toContain("0123456789 the quick brown fox");
    const whole = write.input.whole!;
    expect(whole.bytes).toBeGreaterThan(8 << 20);
    const download = await getBytes(`/api/sessions/${r.id}/raw?at=${whole.byte}&bytes=${whole.bytes}`);
    expect(download.status).toBe(200);
    expect(download.headers["content-disposition"]).toBe(`attachment; filename="nudge-${r.id}-${whole.byte}.json"`);
    const stream = recordedStream();
    // A whole line of the recording: a line starts at it, and ends where it ends.
    expect(stream[whole.byte - 1]).toBe(0x0a);
    expect(stream[whole.byte + whole.bytes]).toBe(0x0a);
    // Byte for byte the recorded line, but for the token, masked.
    const text = download.body.toString();
    expect(text).not.toContain(TOKEN);
    expect(text.match(/\[REDACTED:[a-z0-9_-]+\]/g)).toHaveLength(1);
    expect(
      Buffer.from(text.replace(/\[REDACTED:[a-z0-9_-]+\]/, TOKEN)).equals(
        stream.subarray(whole.byte, whole.byte + whole.bytes),
      ),
    ).toBe(true);
    const masked = (JSON.parse(text) as { message: { content: Array<{ input: { content: string } }> } }).message
      .content[0]!.input.content;
    expect(masked.replace(/\[REDACTED:[a-z0-9_-]+\]/, TOKEN)).toBe(content);
  }, 60_000);

  it("the download is behind the same checks as every route, and only within the recording", async () => {
    const at = `/api/sessions/${r.id}/raw?at=0&bytes=10`;
    expect((await getBytes(at, {})).status).toBe(403);
    expect((await getBytes(at, { cookie: web.cookie, host: "evil.example:80" })).status).toBe(403);
    expect((await getBytes(at, { cookie: web.cookie, origin: "http://evil.example" })).status).toBe(403);
    expect((await getBytes(`/api/sessions/${r.id}/raw?at=0&bytes=99999999999`)).status).toBe(400);
    expect((await getBytes(`/api/sessions/${r.id}/raw?at=-1&bytes=10`)).status).toBe(400);
    const ok = await getBytes(at);
    expect(ok.status).toBe(200);
    expect(ok.body.equals(recordedStream().subarray(0, 10))).toBe(true);
  });
});

describe("a turn with an 8 MB tool input, in the page", () => {
  it("shows the file's start and a download link, and stays responsive after Show all", async () => {
    const { page, watch } = await watchedPage(browser(), (url) => url.startsWith(web.origin));
    await page.goto(`${web.origin}/s/${r.id}?token=${web.token}`);
    await page.getByText("Write", { exact: true }).click({ timeout: 20_000 });
    const link = page.getByRole("link", { name: /^Download whole \(8\.\d MB\)$/ });
    await link.waitFor();
    expect(await link.getAttribute("href")).toMatch(new RegExp(`^/api/sessions/${r.id}/raw\\?at=\\d+&bytes=\\d+$`));
    expect(await link.getAttribute("download")).not.toBeNull();
    await page.getByText("0123456789 the quick brown fox").first().waitFor();
    expect(await page.getByText("the last line").count()).toBe(0);

    await page.getByRole("button", { name: "Show all" }).first().click();
    await page
      .getByText(/cut here: the whole is 8\.\d MB/)
      .first()
      .waitFor({ timeout: 20_000 });
    // Responsive: a script in the page answers at once, the link is still there, nothing drew the whole.
    const t0 = Date.now();
    expect(await page.evaluate(() => 1 + 1)).toBe(2);
    expect(Date.now() - t0).toBeLessThan(2_000);
    await link.waitFor();
    expect(await page.getByText("the last line").count()).toBe(0);
    expect(watch.errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe("a turn with an 8 MB tool input, replayed", () => {
  it("replay -v shows the input's start, read in pieces, never the 8 MB", async () => {
    const run = await runNudge(["session", "replay", r.id, "-v"], {
      cwd: path.dirname(path.dirname(path.dirname(path.dirname(r.dir)))),
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Write(big.txt)");
    expect(run.stdout).toContain("0123456789 the quick brown fox");
    expect(run.stdout.length).toBeLessThan(64 << 10);
  });
});
