import { execa } from "execa";
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { encodeProjectDir } from "../../src/claude/transcript.js";
import { relocateLine, relocateText, relocateTranscript, transcriptMoves } from "../../src/sharing/relocate.js";
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
