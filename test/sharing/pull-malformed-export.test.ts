/**
 * A hostile remote whose publication's export.tar is no tar at all (random bytes), or a real
 * export cut short: `session pull` refuses it with one line naming the published session, exit
 * 1, before anything reads it further (the pins it would build on are never asked for), and
 * leaves nothing in the user's repository; the fetched bytes stay in nudge's sync repository
 * only until `session gc`, like any refused publication's.
 */
import { execa } from "execa";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { HOSTILE_IMPORTS } from "./hostile-fixtures.js";
import { configDir, filesUnder } from "./share-support.js";

let server: string;
let victim: string;

async function plumb(repo: string, args: string[], input?: string | Buffer): Promise<string> {
  return (
    await execa("git", args, {
      cwd: repo,
      input,
      env: { GIT_AUTHOR_NAME: "M", GIT_AUTHOR_EMAIL: "m@x", GIT_COMMITTER_NAME: "M", GIT_COMMITTER_EMAIL: "m@x" },
    })
  ).stdout.trim();
}

/** A publication made by hand, as an attacker would: a data commit holding `export.tar`, and a card that reads well. */
async function publish(id: string, tar: Buffer): Promise<string> {
  const blob = await plumb(server, ["hash-object", "-w", "--stdin"], tar);
  const data = await plumb(server, [
    "commit-tree",
    await plumb(server, ["mktree"], `100644 blob ${blob}\texport.tar\n`),
    "-m",
    "x",
  ]);
  const card = {
    kind: "nudge-published",
    format: 1,
    id,
    session: id,
    forkOf: null,
    author: "Mallory <m@example.com>",
    branch: "main",
    turns: 1,
    lastTurnAt: "2026-11-21T00:00:00.000Z",
    firstPrompt: "hello",
    lastPrompt: "hello",
    publishedAt: "2026-11-21T00:00:00.000Z",
    data,
    bytes: tar.length,
    sha256: "0".repeat(64),
    nudgeVersion: "0.1.0",
  };
  const cardBlob = await plumb(server, ["hash-object", "-w", "--stdin"], JSON.stringify(card));
  const cardCommit = await plumb(server, [
    "commit-tree",
    await plumb(server, ["mktree"], `100644 blob ${cardBlob}\tcard.json\n`),
    "-m",
    "x",
  ]);
  await plumb(server, ["update-ref", `refs/nudge/published/${id}/data`, data]);
  await plumb(server, ["update-ref", `refs/nudge/published/${id}/card`, cardCommit]);
  return blob;
}

const syncRepo = () => path.join(victim, ".git", "nudge", "remote.git");
const held = async (object: string) =>
  (await execa("git", ["cat-file", "-e", object], { cwd: syncRepo(), reject: false })).exitCode === 0;
const objectCount = async () =>
  (await git(victim, "count-objects", "-v"))
    .split("\n")
    .filter((l) => /^(count|in-pack):/.test(l))
    .join(" ");

const random = randomBytes(4096);
// A numeric field of the first header (its size) in base-256 form with a lead byte tar does not know.
random[124] = 0xa5;
// A real export (its tar, as publications hold it) cut short inside its second entry.
const real = gunzipSync(readFileSync(path.join(HOSTILE_IMPORTS, "head-ref.tar.gz")));
const truncated = real.subarray(0, 512 * 5 + 100);
/** The real export with the size field of its header at `at` in a base-256 form tar cannot read, its checksum made right again. */
function damaged(at: number): Buffer {
  const tar = Buffer.from(real);
  tar[at + 124] = 0xa5;
  tar.fill(0x20, at + 148, at + 156);
  let sum = 0;
  for (let i = at; i < at + 512; i++) sum += tar[i]!;
  tar.write(`${sum.toString(8).padStart(6, "0")}\0 `, at + 148, "latin1");
  return tar;
}
/** Where the real export's second header is: after the first entry's content. */
const second = 512 + Math.ceil(parseInt(real.subarray(124, 136).toString("latin1"), 8) / 512) * 512;

beforeAll(async () => {
  victim = await gitdir({ "README.md": "# victim\n" });
  server = path.join(tempDir(), "hostile.git");
  await git(path.dirname(server), "clone", "-q", "--bare", victim, server);
}, 60_000);

describe("a published export that is not a valid archive", () => {
  it.each([
    [
      "bbbbbbbbb1",
      "random bytes",
      () => random,
      "the published export of bbbbbbbbb1 from SERVER is not a valid nudge export: it is not a tar archive (its first block has no ustar header)",
    ],
    [
      "bbbbbbbbb2",
      "a real export cut short",
      () => truncated,
      'refusing published session bbbbbbbbb2 from SERVER: it is truncated (inside entry "nudge-90cde8e2b7/nudge-export.json")',
    ],
    [
      "bbbbbbbbb3",
      "a first header tar cannot read",
      () => damaged(0),
      "the published export of bbbbbbbbb3 from SERVER is not a valid nudge export: its first tar header is damaged (invalid base256 encoding)",
    ],
    [
      "bbbbbbbbb4",
      "a later header tar cannot read",
      () => damaged(second),
      "refusing published session bbbbbbbbb4 from SERVER: it has a damaged tar header (invalid base256 encoding)",
    ],
  ])(
    "pull %s (%s) is refused with exit 1, naming it, and leaves nothing in the repository",
    async (id, _what, bytes, refusal) => {
      const blob = await publish(id, bytes());
      const before = await objectCount();
      const cfg = configDir();
      const pulled = await runNudge(["session", "pull", id, "--remote", server], {
        cwd: victim,
        env: { CLAUDE_CONFIG_DIR: cfg },
      });
      expect(pulled.exitCode, pulled.stderr).toBe(1);
      expect(pulled.stderr).toMatch(/^error: .+\nhint: .+\n?$/);
      expect(pulled.stderr).toContain(`error: ${refusal.replace("SERVER", server)}\n`);
      expect(pulled.stderr).not.toContain("nudge bug");
      expect(pulled.stderr).not.toMatch(/\n\s+at /);
      expect(await objectCount()).toBe(before);
      expect(await git(victim, "for-each-ref", "refs/nudge/")).toBe("");
      expect(filesUnder(path.join(victim, ".git", "nudge", "sessions"))).toEqual([]);
      expect(filesUnder(path.join(victim, ".git", "nudge", "work"))).toEqual([]);
      expect(filesUnder(cfg)).toEqual([]);
      // The fetched bytes are held by nudge's sync repository only until gc drops them.
      expect(await held(blob)).toBe(true);
      const gc = await runNudge(["session", "gc", "--yes"], { cwd: victim });
      expect(gc.exitCode, gc.stderr).toBe(0);
      expect(await held(blob)).toBe(false);
    },
    60_000,
  );
});
