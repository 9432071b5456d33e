/**
 * A hostile remote: its session refs hold what nudge never publishes — exports with traversal
 * paths or wrong checksums, a huge blob, a tree that is not one export, a session of another
 * project, cards that lie or carry terminal escapes. Each pull is refused with one line naming the
 * published session, and nothing is installed: no session, no ref in the user's repository, no
 * file in claude's config. The refs are made by hand here (git plumbing), as an attacker would.
 */
import { execa } from "execa";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { hostileCases } from "./hostile-fixtures.js";
import { configDir, filesUnder, origin } from "./share-support.js";

let server: string;
let victim: string;
const CARD = {
  kind: "nudge-published",
  format: 1,
  session: "0123456789",
  forkOf: null,
  author: "Mallory <m@example.com>",
  branch: "main",
  turns: 1,
  lastTurnAt: "2026-11-21T00:00:00.000Z",
  firstPrompt: "hello",
  lastPrompt: "hello",
  publishedAt: "2026-11-21T00:00:00.000Z",
  data: "0".repeat(40),
  bytes: 1,
  sha256: "0".repeat(64),
  nudgeVersion: "0.1.0",
};

async function plumb(repo: string, args: string[], input?: string | Buffer): Promise<string> {
  return (
    await execa("git", args, {
      cwd: repo,
      input,
      env: { GIT_AUTHOR_NAME: "M", GIT_AUTHOR_EMAIL: "m@x", GIT_COMMITTER_NAME: "M", GIT_COMMITTER_EMAIL: "m@x" },
    })
  ).stdout.trim();
}

/** A publication made by hand: a data commit whose tree holds `files`, and a card. */
async function publish(
  repo: string,
  id: string,
  files: Record<string, Buffer>,
  card: Record<string, unknown> = {},
): Promise<void> {
  const entries: string[] = [];
  for (const [name, bytes] of Object.entries(files))
    entries.push(`100644 blob ${await plumb(repo, ["hash-object", "-w", "--stdin"], bytes)}\t${name}`);
  const data = await plumb(repo, ["commit-tree", await plumb(repo, ["mktree"], entries.join("\n") + "\n"), "-m", "x"]);
  const cardBlob = await plumb(repo, ["hash-object", "-w", "--stdin"], JSON.stringify({ ...CARD, id, data, ...card }));
  const cardCommit = await plumb(repo, [
    "commit-tree",
    await plumb(repo, ["mktree"], `100644 blob ${cardBlob}\tcard.json\n`),
    "-m",
    "x",
  ]);
  await plumb(repo, ["update-ref", `refs/nudge/published/${id}/data`, data]);
  await plumb(repo, ["update-ref", `refs/nudge/published/${id}/card`, cardCommit]);
}

const bytesOf = (name: string) => hostileCases.find((c) => c.name === name)!.bytes();

beforeAll(async () => {
  victim = await gitdir({ "README.md": "# victim\n" });
  server = path.join(tempDir(), "hostile.git");
  await git(path.dirname(server), "clone", "-q", "--bare", victim, server);
  objectsBefore = await objectCount();
  await publish(server, "aaaaaaaaa1", { "export.tar": bytesOf("dotdot") });
  await publish(server, "aaaaaaaaa2", { "export.tar": bytesOf("checksum-mismatch") });
  // 40 MiB of zeros: a few KiB on the wire, huge once read.
  await publish(server, "aaaaaaaaa3", { "export.tar": Buffer.alloc(40 * 1024 * 1024) });
  await publish(server, "aaaaaaaaa4", { "export.tar": bytesOf("dotdot"), "run-me.sh": Buffer.from("rm -rf ~\n") });
  await publish(server, "aaaaaaaaa5", { "export.tar": bytesOf("dotdot") }, { id: "bbbbbbbbbb" });
  await publish(
    server,
    "aaaaaaaaa6",
    { "export.tar": bytesOf("dotdot") },
    { author: "\u001b]0;pwned\u0007Mallory \u202eevil" },
  );
  // Dated in the future, to sit first in every listing for good.
  await publish(server, "aaaaaaaaa7", { "export.tar": bytesOf("dotdot") }, { lastTurnAt: "2099-01-01T00:00:00.000Z" });
  // The server lets a fetch leave big blobs out (uploadpack.allowFilter), as GitHub's and GitLab's do.
  await plumb(server, ["config", "uploadpack.allowFilter", "true"]);
}, 60_000);

const syncRepo = () => path.join(victim, ".git", "nudge", "remote.git");
/** Whether nudge's sync repository holds the object: a left-out blob reads as missing there. */
async function held(object: string): Promise<boolean> {
  return (await execa("git", ["cat-file", "-e", object], { cwd: syncRepo(), reject: false })).exitCode === 0;
}

/** The objects of the victim's repository: a remote's objects stay in nudge's own repository until an import's checks pass. */
async function objectCount(): Promise<string> {
  return (await git(victim, "count-objects", "-v"))
    .split("\n")
    .filter((l) => /^(count|in-pack):/.test(l))
    .join(" ");
}
let objectsBefore: string;

async function nothingInstalled(cfg: string): Promise<void> {
  expect(await objectCount()).toBe(objectsBefore);
  expect(filesUnder(path.join(victim, ".git", "nudge", "sessions"))).toEqual([]);
  expect(await git(victim, "for-each-ref", "refs/nudge/")).toBe("");
  expect(filesUnder(cfg)).toEqual([]);
}

describe("a hostile remote", () => {
  it.each([
    [
      "aaaaaaaaa1",
      [],
      `refusing published session aaaaaaaaa1 from ${"SERVER"}: entry "nudge-hostile01/../evil.txt" climbs out of the archive (..)`,
    ],
    [
      "aaaaaaaaa2",
      [],
      `refusing published session aaaaaaaaa2 from SERVER: entry "nudge-hostile01/notes.txt" does not match its sha256 in the index`,
    ],
    [
      "aaaaaaaaa3",
      ["--max-size", "1MiB"],
      "refusing published session aaaaaaaaa3: its export is more than an import unpacks (33 MiB); it was not downloaded",
    ],
    [
      "aaaaaaaaa4",
      [],
      'refusing published session aaaaaaaaa4: it is not a nudge publication (its tree holds "export.tar", "run-me.sh", not one export.tar)',
    ],
  ])("pull %s is refused and installs nothing", async (id, flags, refusal) => {
    const cfg = configDir();
    const pulled = await runNudge(["session", "pull", id, "--remote", server, ...flags], {
      cwd: victim,
      env: { CLAUDE_CONFIG_DIR: cfg },
    });
    expect(pulled.exitCode, pulled.stderr).toBe(1);
    expect(pulled.stderr).toContain(`error: ${refusal.replace("SERVER", server)}`);
    expect(pulled.stderr).toMatch(/\nhint: /);
    expect(pulled.stderr).not.toMatch(/\n\s+at /); // no stack trace
    await nothingInstalled(cfg);
  });

  it("lists lying and escaping cards inert, and names what is wrong with them", async () => {
    const fetched = await runNudge(["session", "fetch", "--remote", server], { cwd: victim });
    expect(fetched.exitCode, fetched.stderr).toBe(0);
    expect(fetched.stderr).toContain(
      "! published session aaaaaaaaa5 is unreadable: its card names another session (bbbbbbbbbb)",
    );
    const table = await runNudge(["session", "list", "--remote", server], { cwd: victim });
    expect(table.exitCode, table.stderr).toBe(0);
    expect(table.stdout).toContain("\\x1b]0;pwned\\x07Mallory \\u202");
    expect(table.stdout).not.toContain("\u001b");
    expect(table.stdout).not.toContain("\u202e");
    // Why it is unreadable comes last on its row, so AUTHOR stays as wide as the authors (QA).
    expect(table.stdout).toMatch(
      /^aaaaaaaaa5\s+\(unreadable\)\s+\(unreadable: its card names another session \(bbbbbbbbbb\)\)$/m,
    );
    const header = table.stdout.split("\n")[0]!;
    expect(header.indexOf("BRANCH") - header.indexOf("AUTHOR")).toBeLessThan(40);
    const json = JSON.parse(
      (await runNudge(["session", "list", "--remote", server, "--json"], { cwd: victim })).stdout,
    ) as Array<{ id: string }>;
    expect(json.map((r) => r.id).sort()).toEqual([
      "aaaaaaaaa1",
      "aaaaaaaaa2",
      "aaaaaaaaa3",
      "aaaaaaaaa4",
      "aaaaaaaaa5",
      "aaaaaaaaa6",
      "aaaaaaaaa7",
    ]);
    // The card dated 2099 does not put itself first: it goes with the unreadable ones, at the end (QA).
    expect(json.map((r) => r.id).slice(0, 5)).toEqual([
      "aaaaaaaaa1",
      "aaaaaaaaa2",
      "aaaaaaaaa3",
      "aaaaaaaaa4",
      "aaaaaaaaa6",
    ]);
    expect(table.stdout.split("\n")[1]).toMatch(/^aaaaaaaaa1\s/);
    await nothingInstalled(configDir());
  });

  it("from QA: a publication the listing calls unreadable is not pulled either, for the same reason", async () => {
    expect((await runNudge(["session", "fetch", "--remote", server], { cwd: victim })).exitCode).toBe(0);
    const cfg = configDir();
    const pulled = await runNudge(["session", "pull", "aaaaaaaaa5", "--remote", server], {
      cwd: victim,
      env: { CLAUDE_CONFIG_DIR: cfg },
    });
    expect(pulled.exitCode, pulled.stderr).toBe(1);
    expect(pulled.stderr).toContain(
      `error: refusing published session aaaaaaaaa5 from ${server}: its card names another session (bbbbbbbbbb)`,
    );
    await nothingInstalled(cfg);
  });

  it("a big export is never downloaded: the fetch leaves it on the server, and a larger --max-size brings it", async () => {
    const blob = await plumb(server, ["rev-parse", "refs/nudge/published/aaaaaaaaa3/data:export.tar"]);
    const pulled = await runNudge(["session", "pull", "aaaaaaaaa3", "--remote", server, "--max-size", "1MiB"], {
      cwd: victim,
      env: { CLAUDE_CONFIG_DIR: configDir() },
    });
    expect(pulled.exitCode).toBe(1);
    expect(await held(blob)).toBe(false);
    // Asked for with a limit that takes it: fetched now, then refused by the import's own checks.
    const bigger = await runNudge(["session", "pull", "aaaaaaaaa3", "--remote", server, "--max-size", "100MiB"], {
      cwd: victim,
      env: { CLAUDE_CONFIG_DIR: configDir() },
    });
    expect(bigger.exitCode).toBe(1);
    expect(bigger.stderr).not.toContain("it was not downloaded");
    expect(await held(blob)).toBe(true);
    // nudge's repository does not fetch a left-out blob on its own when read (no promisor remote is kept).
    expect(
      await execa("git", ["config", "--get-regexp", "promisor"], { cwd: syncRepo(), reject: false }).then(
        (r) => r.stdout,
      ),
    ).toBe("");
  });

  it("from QA: a huge card, an id nudge never makes, and a card whose content is missing: bounded, ignored, and named", async () => {
    const { clone } = await origin({ "README.md": "# x\n" });
    const other = path.join(tempDir(), "odd.git");
    await git(path.dirname(other), "clone", "-q", "--bare", await clone("src"), other);
    await plumb(other, ["config", "uploadpack.allowFilter", "true"]);
    // 3 MiB that do not compress: a card 48 times over its limit.
    const huge = (await import("node:crypto")).randomBytes(3 * 1024 * 1024);
    const hugeBlob = await plumb(other, ["hash-object", "-w", "--stdin"], huge);
    const hugeCard = await plumb(other, [
      "commit-tree",
      await plumb(other, ["mktree"], `100644 blob ${hugeBlob}\tcard.json\n`),
      "-m",
      "x",
    ]);
    await plumb(other, ["update-ref", "refs/nudge/published/cccccccccc/card", hugeCard]);
    await plumb(other, ["update-ref", "refs/nudge/published/cccccccccc/data", hugeCard]);
    await publish(other, "a".repeat(200), { "export.tar": bytesOf("dotdot") });
    await publish(other, "dddddddddd", { "export.tar": bytesOf("dotdot") });
    await plumb(other, ["update-ref", "-d", "refs/nudge/published/dddddddddd/data"]);

    const fetched = await runNudge(["session", "fetch", "--remote", other], { cwd: victim });
    expect(fetched.exitCode, fetched.stderr).toBe(0);
    expect(fetched.stderr).toContain(
      "! 1 ref under refs/nudge/published/ is not named as nudge names a publication (10 hex characters): ignored",
    );
    expect(await held(hugeBlob)).toBe(false);
    const table = await runNudge(["session", "list", "--remote", other], { cwd: victim });
    expect(table.stdout).toMatch(
      /^cccccccccc\s+\(unreadable\)\s+\(unreadable: its card is missing or over 65536 bytes\)$/m,
    );
    expect(table.stdout).not.toContain("a".repeat(20));
    expect(Math.max(...table.stdout.split("\n").map((l) => l.length))).toBeLessThan(200);
    // git's gc in nudge's repository copes with the card it holds without its blob, and fetches nothing.
    const gc = await runNudge(["session", "gc", "--yes"], { cwd: victim });
    expect(gc.exitCode, gc.stderr).toBe(0);
    expect(await held(hugeBlob)).toBe(false);
    const missing = await runNudge(["session", "pull", "dddddddddd", "--remote", other], {
      cwd: victim,
      env: { CLAUDE_CONFIG_DIR: configDir() },
    });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(
      `error: ${other} lists published session dddddddddd (its card is there) but holds none of its content: the publication is incomplete or was damaged`,
    );
    expect(missing.stderr).toContain(
      "hint: nothing was pulled; its author can push it again (nudge session push), or remove it: nudge session unpublish dddddddddd --force",
    );
  });

  it("a remote that is not there: one line and a hint, exit 1", async () => {
    const none = await runNudge(["session", "fetch"], { cwd: victim });
    expect(none.exitCode).toBe(1);
    expect(none.stderr).toBe(
      'error: this repository has no remote "origin" to sync sessions with\nhint: name one with --remote <name|url>, or set one for nudge: git config nudge.remote <name|url>',
    );
    const gone = path.join(tempDir(), "gone.git");
    const unreachable = await runNudge(["session", "fetch", "--remote", `file://${gone}`], { cwd: victim });
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toMatch(
      new RegExp(
        `^error: fetching from file://${gone} failed: .+\nhint: check the remote's URL and that you can reach it`,
      ),
    );
  });

  it("refuses a session of another project that claims to belong here", async () => {
    // A real export, published onto this (unrelated) project's remote.
    const { clone } = await origin({ "README.md": "# another project\n" });
    const other = await clone("other");
    const rec = await recordSession(
      other,
      [{ tool: "Write", input: { file_path: path.join(other, "x.txt"), content: "x\n" } }, { text: "Done." }],
      ["write x"],
    );
    try {
      const pushed = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: other, env: rec.env });
      expect(pushed.exitCode, pushed.stderr).toBe(0);
    } finally {
      await rec.api.close();
    }
    const cfg = configDir();
    const pulled = await runNudge(["session", "pull", rec.id, "--remote", server], {
      cwd: victim,
      env: { CLAUDE_CONFIG_DIR: cfg },
    });
    expect(pulled.exitCode, pulled.stderr).toBe(1);
    expect(pulled.stderr).toContain(
      `error: published session ${rec.id} from ${server}: this repository is another project: the session was recorded in ${other}`,
    );
    await nothingInstalled(cfg);
  }, 60_000);
});
