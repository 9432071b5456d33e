/**
 * Secrets and exports: a key typed in a prompt is masked in the exported copy (the logs, claude's
 * transcript, the journal, and the snapshot commit messages inside the git bundle), never in the
 * local recording; --no-redact keeps it; a secret in a file Claude wrote refuses the export,
 * naming the file and the turn, unless --allow-secrets-in-code.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { readManifestFile, recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { bundleObjects, configDir, unpack } from "./share-support.js";
import { readStreamOf } from "../support/stream.js";

// Shaped like a real Anthropic key (made up): what secretlint's preset finds.
const KEY =
  "sk-ant-api03-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7dEf0hIj3kLm6nOp9qRs2tUv5wXy8zAb1dEf4hIj7kLm0nOp3qRs-AAAAAAAA";

describe("secrets in an export", () => {
  let rec: Recorded;
  let a: string;
  beforeAll(async () => {
    a = await gitdir({ "README.md": "# app\n" });
    rec = await recordSession(
      a,
      [
        { text: "Noted, I will not repeat it." },
        {
          tool: "Write",
          input: { file_path: path.join(a, "config.env"), content: "API_TOKEN=f3a9c1d27b8e4f60a1b2c3d4\n" },
        },
        { text: "Wrote config.env." },
      ],
      [`my key is ${KEY} keep it safe`, "write the config"],
    );
  }, 60_000);
  afterAll(() => rec?.api.close());

  it("refuses when the code changes hold a secret, naming the file and the turn; nothing is written", async () => {
    const out = await runNudge(["session", "export", rec.id], { cwd: a, env: rec.env });
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe(
      "error: a secret (secret-assignment) is in the code changes: config.env in turn 2; code cannot be masked\n" +
        "hint: export the turns before it (--upto 1), or pass --allow-secrets-in-code to export the code as it is",
    );
    expect(existsSync(path.join(a, `nudge-${rec.id}.tar.gz`))).toBe(false);
    // The same refusal of a push speaks of publishing, the flags being the push's own (QA: it said "export").
    const server = path.join(tempDir(), "sessions.git");
    await git(path.dirname(server), "init", "-q", "--bare", server);
    const push = await runNudge(["session", "push", rec.id, "--remote", server], { cwd: a, env: rec.env });
    expect(push.exitCode).toBe(1);
    expect(push.stderr).toContain(
      "hint: publish the turns before it (--upto 1), or pass --allow-secrets-in-code to publish the code as it is",
    );
    expect(await git(server, "for-each-ref")).toBe("");

    const allowed = await runNudge(["session", "export", rec.id, "--allow-secrets-in-code", "-o", "code.tar.gz"], {
      cwd: a,
      env: rec.env,
    });
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    expect(allowed.stdout).toContain(
      "secret in the code, exported as it is (--allow-secrets-in-code): secret-assignment in config.env, turn 2",
    );
    const files = await unpack(path.join(a, "code.tar.gz"));
    expect(files.get("session/changes/turn-002.patch")!.toString()).toContain("API_TOKEN=f3a9c1d27b8e4f60a1b2c3d4");
    expect(files.get("session/conversation.jsonl")!.toString()).not.toContain(KEY);
  });

  it("masks a key typed in a prompt everywhere in the export, the git bundle's commit messages included; the local recording keeps it", async () => {
    const out = await runNudge(["session", "export", rec.id, "--upto", "1", "--json"], { cwd: a, env: rec.env });
    expect(out.exitCode, out.stderr).toBe(0);
    const masked = JSON.parse(out.stdout).masked as Array<{ kind: string; file: string; turns: number[] }>;
    const sid = rec.manifest.turns[1]!.claudeSessionId!;
    expect(masked.map((m) => m.file).sort()).toEqual([
      "git/session.bundle",
      `session/claude/${sid}.jsonl`,
      "session/conversation.jsonl",
      "session/input.jsonl",
      "session/turns.jsonl",
    ]);
    expect(masked.every((m) => m.kind === "anthropic-api-key" && m.turns.join() === "1")).toBe(true);

    const files = await unpack(path.join(a, `nudge-${rec.id}.tar.gz`));
    for (const [name, bytes] of files) expect(bytes.includes(KEY), name).toBe(false);
    expect(files.get("session/conversation.jsonl")!.toString()).toContain(
      "my key is [REDACTED:anthropic-api-key] keep it safe",
    );
    const objects = await bundleObjects(files.get("git/session.bundle")!);
    expect(objects.all).not.toContain(KEY);
    expect(objects.messages).toContain("my key is [REDACTED:anthropic-api-key] keep it safe");

    // The local recording is as it was.
    for (const text of [
      readStreamOf(rec.dir).toString("utf8"),
      ...["turns.jsonl", "input.jsonl"].map((name) => readFileSync(path.join(rec.dir, name), "utf8")),
    ])
      expect(text).toContain(KEY);
    expect(await git(a, "log", "-1", "--format=%B", rec.manifest.turns[1]!.snapshot.commit)).toContain(KEY);

    // The masked copy imports: its snapshot commits are copies with the same trees.
    const b = tempDir("nudge-clone-");
    await git(path.dirname(b), "clone", "-q", a, b);
    const imported = await runNudge(["session", "import", path.join(a, `nudge-${rec.id}.tar.gz`)], {
      cwd: b,
      env: { CLAUDE_CONFIG_DIR: configDir() },
    });
    expect(imported.exitCode, imported.stderr).toBe(0);
    const m = readManifestFile(path.join(b, ".git", "nudge", "sessions", rec.id));
    expect(m.turns[1]!.prompt).toBe("my key is [REDACTED:anthropic-api-key] keep it safe");
    expect(m.turns[1]!.snapshot.tree).toBe(rec.manifest.turns[1]!.snapshot.tree);
    expect(m.turns[1]!.snapshot.commit).not.toBe(rec.manifest.turns[1]!.snapshot.commit);
  });

  it("--no-redact keeps it verbatim and says so", async () => {
    const out = await runNudge(["session", "export", rec.id, "--upto", "1", "--no-redact", "-o", "raw.tar.gz"], {
      cwd: a,
      env: rec.env,
    });
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toContain("masked: no secrets found");
    expect(out.stdout).toMatch(/kept verbatim \(--no-redact\): anthropic-api-key ×\d+ from turn 1/);
    const files = await unpack(path.join(a, "raw.tar.gz"));
    expect(files.get("session/conversation.jsonl")!.toString()).toContain(KEY);
    expect((await bundleObjects(files.get("git/session.bundle")!)).messages).toContain(KEY);
    // Everywhere it was kept is named, the snapshot commits' messages in the git bundle too.
    const json = await runNudge(
      ["session", "export", rec.id, "--upto", "1", "--no-redact", "--json", "-o", "raw2.tar.gz"],
      { cwd: a, env: rec.env },
    );
    const kept = JSON.parse(json.stdout).keptSecrets as Array<{ file: string }>;
    const sid = rec.manifest.turns[1]!.claudeSessionId!;
    // manifest.json: the summary's first prompt.
    expect(kept.map((k) => k.file).sort()).toEqual([
      "git/session.bundle",
      `session/claude/${sid}.jsonl`,
      "session/conversation.jsonl",
      "session/input.jsonl",
      "session/manifest.json",
      "session/turns.jsonl",
    ]);
  });
});
