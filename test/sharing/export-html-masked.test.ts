/**
 * QA of issue 22 on `session export --html`: the page's <title> was made from the first prompt
 * before masking (an AWS key id typed in the prompt went out whole, and the first characters of
 * its secret half), and a page cut with --upto N kept the whole session's header: the last
 * prompt (turn N+1's or later), the turn count, the cost and the time of the last update.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir, writeFiles } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { loadCorpus } from "../support/secret-corpus.js";

const corpus = loadCorpus().secrets;
const idLine = corpus.find((s) => s.kind === "aws-access-key-id" && s.text.startsWith("our key is"))!;
const secretLine = corpus.find((s) => s.kind === "aws-secret-access-key" && s.text.startsWith("with secret"))!;
const LATER = "zebra-crossing-later-prompt";

describe("export --html masks its title and cuts its header at --upto", () => {
  let rec: Recorded;
  let repo: string;
  beforeAll(async () => {
    repo = tempDir("nudge-html-mask-");
    await git(repo, "init", "-q");
    writeFiles(repo, { "README.md": "# app\n" });
    await git(repo, "add", ".");
    await git(repo, "commit", "-q", "-m", "init");
    rec = await recordSession(
      repo,
      [{ text: "Noted." }, { text: "Done." }],
      [`${idLine.text} ${secretLine.text}`, `now the ${LATER}`],
    );
  }, 90_000);
  afterAll(() => rec?.api.close());

  async function page(...args: string[]): Promise<string> {
    const file = path.join(tempDir("nudge-html-out-"), "page.html");
    const run = await runNudge(["session", "export", rec.id, "--html", "-o", file, ...args], {
      cwd: repo,
      env: rec.env,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    return readFileSync(file, "utf8");
  }

  it("holds no byte of a secret typed in the first prompt, its <title> included", async () => {
    const html = await page();
    for (const needle of [...idLine.needles, ...secretLine.needles, secretLine.needles[0]!.slice(0, 12)])
      expect(html).not.toContain(needle);
    expect(html).toMatch(/<title>our key is \[REDACTED:aws-access-key-id\]/);
  });

  it("cut at --upto 1, names nothing of turn 2: not its prompt, not the whole session's count", async () => {
    const html = await page("--upto", "1");
    expect(html).not.toContain(LATER);
    expect(html).toContain('"turns":1,');
    expect(html).not.toContain('"turns":2,');
  });
});
