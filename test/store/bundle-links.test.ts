/**
 * A symbolic link in a session's folder is never followed: each file of the recorded session is
 * replaced in turn by a link to a copy outside the bundle that differs only by a canary word (so
 * that everything reads as before if the link is followed), and every reader — `nudge web` over
 * real HTTP, `session show`, `session export` (tarball and HTML), `session push` to a real bare
 * repository, `session import` — refuses it, says which file, and nothing carries the canary.
 * Real claude, scripted API.
 */
import { execa } from "execa";
import {
  copyFileSync,
  existsSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { recordThreeTurns } from "../support/three-turns.js";
import type { Recorded } from "../support/record.js";
import { startWeb, type WebServerRun } from "../support/web-server.js";

let rec: Recorded & { repo: string };
let outside: string;
const CANARY = "QZXQZ";

beforeAll(async () => {
  rec = await recordThreeTurns();
  outside = tempDir("nudge-outside-");
}, 60_000);
afterAll(() => rec?.api.close());

/**
 * Run `body` with the bundle's `rel` replaced by a link to a copy outside the bundle in which
 * `word` (as long as the canary) reads CANARY; the file is put back after.
 */
async function withLink(rel: string, word: string, body: (target: string) => Promise<void>): Promise<void> {
  expect(word).toHaveLength(CANARY.length);
  const file = path.join(rec.dir, rel);
  // A finished piece of the conversation is gzipped: the copy is too, its name (bytes, lines) still true.
  const gz = rel.endsWith(".gz");
  const original = gz ? gunzipSync(readFileSync(file)).toString("utf8") : readFileSync(file, "utf8");
  expect(original).toContain(word);
  const target = path.join(outside, path.basename(rel));
  const changed = original.replaceAll(word, CANARY);
  writeFileSync(target, gz ? gzipSync(changed) : changed);
  renameSync(file, `${file}.away`);
  symlinkSync(target, file);
  try {
    await body(target);
  } finally {
    rmSync(file);
    renameSync(`${file}.away`, file);
  }
}

/** Where the conversation's first turns are: the live file, or (once the recorder finished it) a gzipped piece. */
function conversationFile(dir = rec.dir): string {
  if (readFileSync(path.join(dir, "conversation.jsonl"), "utf8").includes("notes")) return "conversation.jsonl";
  const piece = readdirSync(path.join(dir, "conversation.d")).find((n) => n.endsWith(".gz"));
  return `conversation.d/${piece}`;
}

const refusal = (rel: string) =>
  `${path.join(rec.dir, rel)} is a symbolic link: nudge reads no link in a session's folder`;

describe("a symbolic link in a session's folder", () => {
  it("nudge web answers with the refusal, never with the file the link leads to (the conversation, a turn's patch)", async () => {
    const web: WebServerRun = await startWeb(rec.repo, rec.env);
    try {
      // Read once before: the server keeps the manifest, and must still not follow a link made after.
      expect((await web.get(`/api/sessions/${rec.id}/turns/1`)).body).toContain("Wrote notes.txt.");
      await withLink(conversationFile(), "notes", async () => {
        const turn = await web.get(`/api/sessions/${rec.id}/turns/1`);
        expect(turn.body).not.toContain(CANARY);
        expect(turn.status).toBeGreaterThanOrEqual(400);
        expect(turn.body).toContain(refusal(conversationFile()));
      });
      await withLink("changes/turn-001.patch", "alpha", async () => {
        const turn = await web.get(`/api/sessions/${rec.id}/turns/1?full=1`);
        expect(turn.body).not.toContain(CANARY);
        expect(turn.body).toContain("is a symbolic link");
      });
      // A linked folder: the link is the folder itself, O_NOFOLLOW alone would not see it.
      const changes = path.join(rec.dir, "changes");
      const copy = path.join(outside, "changes-copy");
      await execa("cp", ["-r", changes, copy]);
      writeFileSync(
        path.join(copy, "turn-001.patch"),
        readFileSync(path.join(copy, "turn-001.patch"), "utf8").replaceAll("alpha", CANARY),
      );
      renameSync(changes, `${changes}.away`);
      symlinkSync(copy, changes);
      try {
        const turn = await web.get(`/api/sessions/${rec.id}/turns/1?full=1`);
        expect(turn.body).not.toContain(CANARY);
        expect(turn.body).toContain(`${changes} is a symbolic link`);
      } finally {
        rmSync(changes);
        renameSync(`${changes}.away`, changes);
      }
      expect((await web.get(`/api/sessions/${rec.id}/turns/1?full=1`)).body).toContain("alpha");
    } finally {
      await web.stop();
    }
  });

  it("session show refuses a linked turn journal (the prompts would be the link's)", async () => {
    await withLink("turns.jsonl", "notes", async () => {
      const show = await runNudge(["session", "show", rec.id], { cwd: rec.repo, env: rec.env });
      expect(show.stdout + show.stderr).not.toContain(CANARY);
      expect(show.exitCode).toBe(1);
      expect(show.stderr).toContain(refusal("turns.jsonl"));
    });
  });

  it("session export, as a tarball or as HTML, refuses a session holding a link, and writes nothing", async () => {
    const out = path.join(tempDir(), "s.tar.gz");
    const html = path.join(tempDir(), "s.html");
    await withLink(conversationFile(), "notes", async () => {
      const tarball = await runNudge(["session", "export", rec.id, "-o", out], { cwd: rec.repo, env: rec.env });
      expect(tarball.exitCode).toBe(1);
      expect(tarball.stderr).toContain(refusal(conversationFile()));
      expect(existsSync(out)).toBe(false);
      const page = await runNudge(["session", "export", rec.id, "--html", "-o", html], { cwd: rec.repo, env: rec.env });
      expect(page.exitCode).toBe(1);
      expect(page.stderr).toContain(refusal(conversationFile()));
      expect(existsSync(html)).toBe(false);
    });
    // A link deep in claude's files (a whole folder an export copies) is found too.
    const deep = path.join(rec.dir, "claude", "extra.txt");
    writeFileSync(path.join(outside, "secret.txt"), `${CANARY}\n`);
    symlinkSync(path.join(outside, "secret.txt"), deep);
    try {
      const tarball = await runNudge(["session", "export", rec.id, "-o", out], { cwd: rec.repo, env: rec.env });
      expect(tarball.exitCode).toBe(1);
      expect(tarball.stderr).toContain(`${deep} is a symbolic link`);
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(deep);
    }
    // Without links, the same export is made.
    const made = await runNudge(["session", "export", rec.id, "-o", out], { cwd: rec.repo, env: rec.env });
    expect(made.exitCode, made.stderr).toBe(0);
  });

  it("session push refuses it and the server gets nothing", async () => {
    const server = path.join(tempDir(), "team.git");
    await git(path.dirname(server), "init", "-q", "--bare", server);
    await withLink(conversationFile(), "notes", async () => {
      const push = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: rec.repo, env: rec.env });
      expect(push.exitCode).toBe(1);
      expect(push.stderr).toContain(refusal(conversationFile()));
      expect(await git(server, "for-each-ref")).toBe("");
    });
  });

  it("session rm removes a session holding a link: the link goes, the file it leads to stays", async () => {
    const other = await recordThreeTurns();
    try {
      const live = path.join(other.dir, "conversation.jsonl");
      const target = path.join(outside, "kept.txt");
      writeFileSync(target, `${CANARY}\n`);
      rmSync(live);
      symlinkSync(target, live);
      const rm = await runNudge(["session", "rm", other.id, "--yes"], { cwd: other.repo, env: other.env });
      expect(rm.exitCode, rm.stderr).toBe(0);
      expect(existsSync(other.dir)).toBe(false);
      expect(readFileSync(target, "utf8")).toBe(`${CANARY}\n`);
    } finally {
      await other.api.close();
    }
  }, 60_000);

  it("session import does not read a session here through a link to decide it is already imported", async () => {
    const out = path.join(tempDir(), "s.tar.gz");
    expect((await runNudge(["session", "export", rec.id, "-o", out], { cwd: rec.repo, env: rec.env })).exitCode).toBe(
      0,
    );
    const first = await runNudge(["session", "import", out, "--json"], { cwd: rec.repo, env: rec.env });
    expect(first.exitCode, first.stderr).toBe(0);
    const copy = JSON.parse(first.stdout) as { id: string; dir: string };
    // The imported copy's conversation replaced by a link to the same bytes: followed, it would read as "already here".
    const live = path.join(copy.dir, conversationFile(copy.dir));
    const target = path.join(outside, "same-conversation.jsonl");
    copyFileSync(live, target);
    rmSync(live);
    symlinkSync(target, live);
    const again = await runNudge(["session", "import", out], { cwd: rec.repo, env: rec.env });
    expect(again.stdout).not.toContain("already");
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain(`${live} is a symbolic link`);
  });
});
