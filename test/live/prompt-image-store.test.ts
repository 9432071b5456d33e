/**
 * Issue 21: an image in a prompt is kept in the bundle once, by its sha256 (`images/<sha256>`),
 * however many prompts attach it; every line still reads back as claude was sent it and as claude
 * wrote it, byte for byte (witnessed by a `claude` that copies its stdin and stdout); `show` and
 * `replay` name it; an export carries it to a clean clone, and one altered on the way is refused;
 * a journal rebuilt by `session repair` places the turns in the stored file.
 */
import { createHash } from "node:crypto";
import { chmodSync, existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readConversation, readInput, type TimedLine } from "../../src/store/conversation-reader.js";
import { imageSize } from "../../src/live/prompt-images.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { randomPng } from "../support/png.js";
import { readManifestFile } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";
import { configDir, importTarget, origin, repack, unpack } from "../sharing/share-support.js";
import { readStreamOf } from "../support/stream.js";

const PNG = randomPng(200 * 1024);
const PNG_HASH = sha256(PNG);
const LABEL = `[image: shot.png ${imageSize(PNG.length)}]`;

let api: ScriptedApi;
let clone: (name: string) => Promise<string>;
let repo: string;
let env: Record<string, string>;
let id: string;
let dir: string;
let sent: Buffer;
let written: Buffer;
let archive: string;

beforeAll(async () => {
  ({ clone } = await origin({ "README.md": "# app\n" }));
  repo = await clone("ana");
  const shot = path.join(tempDir("nudge-shots-"), "shot.png");
  writeFileSync(shot, PNG);
  // The real claude, with everything nudge writes to it and everything it writes copied aside.
  const witness = tempDir("nudge-witness-");
  const bin = path.join(witness, "claude-tee.sh");
  writeFileSync(
    bin,
    `#!/usr/bin/env bash\ntee -a "${witness}/stdin.bin" | "${CLAUDE_BIN}" "$@" | tee -a "${witness}/stdout.bin"\nexit \${PIPESTATUS[1]}\n`,
  );
  chmodSync(bin, 0o755);
  api = await startScriptedApi([{ text: "A NOISY SQUARE" }, { text: "STILL NOISE" }]);
  env = claudeEnv(api, configDir());
  const run = await runNudge(["claude", "run", "--claude-bin", bin], {
    cwd: repo,
    env,
    input: `what is in ${shot}?\nand again: ${shot}\n`,
  });
  expect(run.exitCode, run.stderr).toBe(0);
  id = /session (\w+):/.exec(run.stderr)![1]!;
  dir = path.join(repo, ".git", "nudge", "sessions", id);
  sent = readFileSync(path.join(witness, "stdin.bin"));
  written = readFileSync(path.join(witness, "stdout.bin"));
  archive = path.join(tempDir("nudge-archive-"), "session.tar.gz");
}, 90_000);
afterAll(() => api?.close());

describe("images in the bundle", () => {
  it("keeps each image once, by sha256, for two prompts attaching the same file; no log holds its base64", () => {
    // Both prompts reached the API with the image.
    expect(api.mainLoopRequests()).toHaveLength(2);
    // What went to claude and what claude echoed (claude may send a re-encoded copy): each distinct image once.
    const images = imagesIn(sent, written);
    expect(images.get(PNG_HASH)).toBeGreaterThanOrEqual(2);
    expect(readdirSync(path.join(dir, "images")).sort()).toEqual([...images.keys()].sort());
    expect(readFileSync(path.join(dir, "images", PNG_HASH)).equals(PNG)).toBe(true);
    for (const stored of [
      readFileSync(path.join(dir, "input.jsonl"), "latin1"),
      readStreamOf(dir).toString("latin1"),
    ]) {
      expect(stored).toContain(`"data":"nudge-image:sha256:${PNG_HASH}"`);
      expect(stored).not.toContain(PNG.toString("base64").slice(0, 400));
    }
    expect(statSync(path.join(dir, "input.jsonl")).size).toBeLessThan(4096);
  });

  it("reads every line back byte for byte: input.jsonl as claude was sent it, conversation.jsonl as claude wrote it", async () => {
    expect(joined(await readInput(dir)).equals(sent)).toBe(true);
    expect(joined(await readConversation(dir)).equals(written)).toBe(true);
  });

  it("show and replay name the image with its size", async () => {
    const show = await runNudge(["session", "show", id], { cwd: repo });
    expect(show.exitCode, show.stderr).toBe(0);
    expect(show.stdout).toContain(`turn 1: ${LABEL}`);
    expect(show.stdout).toContain(`turn 2: ${LABEL}`);
    const replay = await runNudge(["session", "replay", id], { cwd: repo });
    expect(replay.exitCode, replay.stderr).toBe(0);
    // Replay names the image claude echoed, which claude may have re-encoded smaller (a JPEG here).
    expect(replay.stdout.split(`⎿ ${echoedLabel()}`), replay.stdout).toHaveLength(3);
  });

  it("a fork shares the image (a hard link, no second copy) and reads its lines back as the original does", async () => {
    const forked = await runNudge(["session", "fork", id, "1", "--worktree", path.join(tempDir(), "try-b"), "--json"], {
      cwd: repo,
      env,
    });
    expect(forked.exitCode, forked.stderr).toBe(0);
    const forkId = (JSON.parse(forked.stdout) as { id: string }).id;
    const forkDir = path.join(repo, ".git", "nudge", "sessions", forkId);
    expect(statSync(path.join(forkDir, "images", PNG_HASH)).ino).toBe(statSync(path.join(dir, "images", PNG_HASH)).ino);
    // The first prompt nudge sent (before it, the `initialize` that registers nudge's hooks).
    const prompt = (lines: Array<{ bytes: Buffer }>) => lines.find((l) => l.bytes.includes('"type":"user"'))!;
    const first = prompt(await readInput(forkDir));
    expect(first.bytes.equals(prompt(await readInput(dir)).bytes)).toBe(true);
    expect(first.bytes.toString("latin1")).toContain(PNG.toString("base64"));
  });

  it("an export carries the image once and says it is not scanned; an import into a clean clone reads it back byte for byte", async () => {
    const exported = await runNudge(["session", "export", id, "-o", archive], { cwd: repo, env });
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stderr).toContain(
      `2 images in the prompts (${LABEL} ${LABEL}) exported as they are: images are not scanned for secrets`,
    );
    const entries = await unpack(archive);
    expect(entries.get(`session/images/${PNG_HASH}`)?.equals(PNG)).toBe(true);
    // Only claude's own transcript (claude/<id>.jsonl, which claude resumes from) keeps it inline.
    expect(
      [...entries]
        .filter(([name, bytes]) => bytes.includes(PNG.toString("base64").slice(0, 400)))
        .map(([name]) => name.replace(/[0-9a-f-]{36}/, "ID")),
    ).toEqual(["session/claude/ID.jsonl"]);

    const t = await importTarget(clone);
    const imported = await runNudge(["session", "import", archive, "--json"], { cwd: t.b, env: t.env });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const [copy] = readdirSync(path.join(t.store, "sessions")).filter((n) => !n.startsWith("."));
    const copyDir = path.join(t.store, "sessions", copy!);
    expect(readFileSync(path.join(copyDir, "images", PNG_HASH)).equals(PNG)).toBe(true);
    expect(joined(await readInput(copyDir)).equals(sent)).toBe(true);
    const replay = await runNudge(["session", "replay", copy!], { cwd: t.b, env: t.env });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`⎿ ${echoedLabel()}`);
  });

  it("refuses an export whose image was altered (index and sizes made to match), and writes nothing", async () => {
    expect(existsSync(archive)).toBe(true);
    const altered = await repack(archive, (unpacked) => {
      const file = path.join(unpacked, "session", "images", PNG_HASH);
      const bytes = readFileSync(file);
      bytes.writeUInt8(bytes.readUInt8(bytes.length - 20) ^ 0xff, bytes.length - 20); // one pixel changed
      writeFileSync(file, bytes);
    });
    const t = await importTarget(clone);
    const imported = await runNudge(["session", "import", altered], { cwd: t.b, env: t.env });
    expect(imported.exitCode).toBe(1);
    expect(imported.stderr).toContain(`session/images/${PNG_HASH} is not the image its name says`);
    expect(imported.stderr.trim().split("\n").length).toBeLessThanOrEqual(2); // one line and its hint
    expect(existsSync(path.join(t.store, "sessions")) ? readdirSync(path.join(t.store, "sessions")) : []).toEqual([]);
  });

  it("refuses an export that lacks an image its lines name (the entry and its index line both gone), and writes nothing", async () => {
    const lacking = await repack(archive, (unpacked) => rmSync(path.join(unpacked, "session", "images", PNG_HASH)));
    expect((await unpack(lacking)).has(`session/images/${PNG_HASH}`)).toBe(false);
    const t = await importTarget(clone);
    const imported = await runNudge(["session", "import", lacking], { cwd: t.b, env: t.env });
    expect(imported.exitCode, imported.stderr).toBe(1);
    expect(imported.stderr).toMatch(new RegExp(`names the image session/images/${PNG_HASH}, which it lacks`));
    expect(imported.stderr.trim().split("\n").length).toBeLessThanOrEqual(2); // one line and its hint
    expect(existsSync(path.join(t.store, "sessions")) ? readdirSync(path.join(t.store, "sessions")) : []).toEqual([]);
  });

  it("show and replay of a bundle whose images are gone say each is missing, not the reference's size; export refuses it", async () => {
    const images = path.join(dir, "images");
    const aside = path.join(tempDir("nudge-aside-"), "images");
    renameSync(images, aside);
    try {
      const missing = "[image: shot.png, missing from the bundle]";
      const show = await runNudge(["session", "show", id], { cwd: repo });
      expect(show.exitCode, show.stderr).toBe(0);
      expect(show.stdout).toContain(`turn 1: ${missing}`);
      expect(show.stdout).toContain(`turn 2: ${missing}`);
      const replay = await runNudge(["session", "replay", id], { cwd: repo });
      expect(replay.exitCode, replay.stderr).toBe(0);
      expect(replay.stdout).toContain(`⎿ ${missing}`);
      expect(`${show.stdout}${replay.stdout}`).not.toMatch(/\[image: shot\.png \d+ bytes\]/);
      const out = path.join(tempDir("nudge-archive-"), "lacking.tar.gz");
      const exported = await runNudge(["session", "export", id, "-o", out], { cwd: repo, env });
      expect(exported.exitCode).toBe(1);
      expect(exported.stderr).toMatch(
        /the session's (input|conversation)\.jsonl names the image images\/[0-9a-f]{12}…, which is missing in its bundle/,
      );
      expect(exported.stderr.trim().split("\n").length).toBeLessThanOrEqual(2);
      expect(existsSync(out)).toBe(false);
    } finally {
      renameSync(aside, images);
    }
  });
});

/** The label of the image in claude's first echo of a prompt, as the witness saw it. */
function echoedLabel(): string {
  const data =
    /"isReplay":true[^\n]*?"media_type":"image\/[a-z]+","data":"([A-Za-z0-9+/=]+)"|"media_type":"image\/[a-z]+","data":"([A-Za-z0-9+/=]+)"/.exec(
      written.toString("latin1"),
    )!;
  return `[image: shot.png ${imageSize(Buffer.from(data[1] ?? data[2]!, "base64").length)}]`;
}

describe("a repaired journal", () => {
  it("places each turn where it is in the stored file (the images apart), so replay reads it whole again", async () => {
    const original = readManifestFile(dir);
    rmSync(path.join(dir, "turns.jsonl"));
    const repaired = await runNudge(["session", "repair", id, "--yes"], { cwd: repo });
    expect(repaired.exitCode, repaired.stderr).toBe(0);
    const rebuilt = readManifestFile(dir);
    expect(rebuilt.turns.map((t) => [t.lines, t.bytes])).toEqual(original.turns.map((t) => [t.lines, t.bytes]));
    const replay = await runNudge(["session", "replay", id, "--turn", "2"], { cwd: repo });
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`⎿ ${echoedLabel()}`);
    expect(replay.stdout).toContain("STILL NOISE");
  });
});

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function joined(lines: TimedLine[]): Buffer {
  return Buffer.concat(lines.flatMap((l) => [l.bytes, Buffer.from("\n")]));
}

/** Every image block's data in the witnessed streams: sha256 of the image → how many times it went by. */
function imagesIn(...streams: Buffer[]): Map<string, number> {
  const found = new Map<string, number>();
  for (const stream of streams) {
    for (const m of stream.toString("latin1").matchAll(/"media_type":"image\/[a-z]+","data":"([A-Za-z0-9+/=]+)"/g)) {
      const hash = sha256(Buffer.from(m[1]!, "base64"));
      found.set(hash, (found.get(hash) ?? 0) + 1);
    }
  }
  return found;
}
