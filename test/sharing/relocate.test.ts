import { execa } from "execa";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { encodeProjectDir } from "../../src/claude/transcript.js";
import { relocateLine, relocateText, relocateTranscript, transcriptMoves } from "../../src/sharing/relocate.js";
import { emptyQueuedPrompts } from "../../src/sharing/queued-prompts.js";
import { CLAUDE_ARGS, CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { startScriptedApi } from "../support/scripted-api.js";

const moves = [{ from: "/home/ana/app", to: "/srv/b/app" }];

describe("moving paths", () => {
  it.each([
    ["/home/ana/app", "/srv/b/app"],
    ["/home/ana/app/src/x.ts", "/srv/b/app/src/x.ts"],
    ["cd /home/ana/app && ls", "cd /srv/b/app && ls"],
    ["Primary working directory: /home/ana/app\n", "Primary working directory: /srv/b/app\n"],
    ["edited /home/ana/app.", "edited /srv/b/app."],
    ["(/home/ana/app:12)", "(/srv/b/app:12)"],
    ["file:///home/ana/app/x", "file:///srv/b/app/x"],
    ["/home/ana/app2/x", "/home/ana/app2/x"],
    ["/home/ana/app.bak", "/home/ana/app.bak"],
    ["/home/ana/app-old", "/home/ana/app-old"],
    ["/srv/home/ana/app", "/srv/home/ana/app"],
    ["~/home/ana/app", "~/home/ana/app"],
  ])("%j → %j", (from, to) => {
    expect(relocateText(from, moves)).toBe(to);
  });

  it("takes the longest folder where two match, and never rewrites what it wrote", () => {
    const nested = [
      { from: "/home/ana/app", to: "/home/ana/app/clone" },
      { from: "/home/ana/app/.claude/projects/-home-ana-app", to: "/cfg/projects/-x" },
    ];
    expect(
      relocateText("/home/ana/app/.claude/projects/-home-ana-app/s/tool-results/a.txt and /home/ana/app/x", nested),
    ).toBe("/cfg/projects/-x/s/tool-results/a.txt and /home/ana/app/clone/x");
  });

  it("rewrites inside JSON strings only, re-encoding only the strings that change", () => {
    const line =
      '{"cwd":"/home/ana/app","n":1,"path\\u0041":"/home/ana/app/a \\"b\\".ts","other":"/home/ana/app2","t":"\\u00e9"}';
    const moved = relocateLine(line, moves);
    expect(moved).toBe(
      '{"cwd":"/srv/b/app","n":1,"path\\u0041":"/srv/b/app/a \\"b\\".ts","other":"/home/ana/app2","t":"\\u00e9"}',
    );
    expect(relocateLine("not json /home/ana/app", moves)).toBe("not json /home/ana/app");
  });
});

describe("lines of many MB (a 50 MB tool input), copied through a window at a time", () => {
  // 6 MB, no two windows alike: over the 4 MB a line is held whole up to.
  const big = Array.from({ length: 250_000 }, (_, i) => `${i} the quick brown fox\n`).join("");
  const write = (dir: string, lines: object[]) => {
    const file = path.join(dir, "t.jsonl");
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n" + JSON.stringify(lines[0]));
    return file;
  };

  it("moves the paths of one that names the old place, and keeps the others byte for byte", async () => {
    const dir = tempDir();
    const lines = [
      { type: "assistant", input: { content: big } },
      { type: "assistant", input: { file_path: "/home/ana/app/big.txt", content: big } },
      { type: "user", cwd: "/home/ana/app" },
    ];
    const dest = path.join(dir, "moved.jsonl");
    const result = await relocateTranscript(write(dir, lines), dest, moves);
    const expected = lines.map((l) => JSON.stringify(l).replaceAll("/home/ana/app", "/srv/b/app"));
    expect(readFileSync(dest, "utf8") === expected.join("\n") + "\n" + expected[0]).toBe(true);
    expect(result).toEqual({ lines: 4, changed: 2 });
  });

  it("empties a queued prompt of many MB, and keeps the others byte for byte", async () => {
    const dir = tempDir();
    const lines = [
      { type: "assistant", input: { content: big } },
      { type: "queue-operation", operation: "enqueue", content: big },
    ];
    const dest = path.join(dir, "unqueued.jsonl");
    expect(await emptyQueuedPrompts(write(dir, lines), dest)).toBe(1);
    const expected = [JSON.stringify(lines[0]), JSON.stringify({ ...lines[1], content: "" }), JSON.stringify(lines[0])];
    expect(readFileSync(dest, "utf8") === expected.join("\n")).toBe(true);
  });
});

describe("a real transcript, moved to another clone and config dir", () => {
  it("resumes there: claude finds it, and sends no path of the old place", async () => {
    const base = tempDir("nudge-relocate-");
    const oldRoot = path.join(base, "ana", "my app");
    const newRoot = path.join(base, "bob", "work", "app copy");
    const oldConfig = path.join(base, "cfg-ana");
    const newConfig = path.join(base, "cfg-bob");
    for (const root of [oldRoot, newRoot]) {
      mkdirSync(root, { recursive: true });
      writeFileSync(path.join(root, "a.txt"), "hello\n");
    }

    const api = await startScriptedApi([
      { tool: "Write", input: { file_path: path.join(oldRoot, "notes.txt"), content: "alpha\n" } },
      {
        tool: "Bash",
        input: { command: "seq 1 40000", description: "a large output, which claude keeps in tool-results/" },
      },
      { tool: "Read", input: { file_path: path.join(oldRoot, "a.txt") } },
      { text: "Done." },
    ]);
    const first = await execa(CLAUDE_BIN, CLAUDE_ARGS, {
      cwd: oldRoot,
      env: claudeEnv(api, oldConfig),
      input: JSON.stringify({ type: "user", message: { role: "user", content: "go" } }) + "\n",
      reject: false,
    });
    await api.close();
    expect(first.exitCode, first.stderr).toBe(0);
    const sessionId = JSON.parse(first.stdout.trim().split("\n").at(-1)!).session_id as string;

    const oldProject = path.join(oldConfig, "projects", encodeProjectDir(oldRoot));
    const newProject = path.join(newConfig, "projects", encodeProjectDir(newRoot));
    const source = path.join(oldProject, `${sessionId}.jsonl`);
    expect(readdirSync(path.join(oldProject, sessionId, "tool-results"))).toHaveLength(1);
    mkdirSync(newProject, { recursive: true });
    cpSync(path.join(oldProject, sessionId), path.join(newProject, sessionId), { recursive: true });
    const target = path.join(newProject, `${sessionId}.jsonl`);
    const result = await relocateTranscript(
      source,
      target,
      transcriptMoves({ oldRoot, newRoot, oldProjectDir: oldProject, newProjectDir: newProject }),
    );

    const before = readFileSync(source, "utf8").split("\n");
    const after = readFileSync(target, "utf8").split("\n");
    expect(after).toHaveLength(before.length);
    expect(result.changed).toBeGreaterThan(5); // every record's cwd, the tool paths, the persisted output
    for (const [i, line] of after.entries()) {
      if (line) expect(() => JSON.parse(line)).not.toThrow();
      if (!before[i]!.includes(oldRoot) && !before[i]!.includes(oldConfig)) expect(line).toBe(before[i]);
    }
    const text = after.join("\n");
    expect(text).not.toContain(oldRoot);
    expect(text).not.toContain(oldConfig);
    expect(text).toContain(`"persistedOutputPath":"${newProject}/${sessionId}/tool-results/`);

    const api2 = await startScriptedApi([{ text: "Resumed." }]);
    const resumed = await execa(CLAUDE_BIN, [...CLAUDE_ARGS, "--resume", sessionId], {
      cwd: newRoot,
      env: claudeEnv(api2, newConfig),
      input: JSON.stringify({ type: "user", message: { role: "user", content: "and now?" } }) + "\n",
      reject: false,
    });
    await api2.close();
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const request = JSON.stringify(api2.mainLoopRequests()[0]!.body);
    expect(request).toContain(JSON.stringify(path.join(newRoot, "notes.txt")).slice(1, -1)); // the recorded Write, moved
    expect(request).toContain("and now?");
    expect(request).not.toContain(oldRoot);
    expect(request).not.toContain(oldConfig);
  });
});
