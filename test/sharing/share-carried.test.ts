/**
 * Export/import end to end, the harder cases: a base commit (and a commit Claude made) that
 * exist only in the exporter's clone, never pushed; and a session that ran a subagent, whose
 * transcript must arrive in the importer's claude config dir too.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { encodeProjectDir } from "../../src/claude/transcript.js";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { git, writeFiles } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { nudgeRefs } from "../support/store-state.js";
import { treeListing, workTreeListing } from "../support/tree-listing.js";
import { configDir, origin, unpack } from "./share-support.js";

async function resumeMessages(clone: string, cfg: string, id: string): Promise<string> {
  const api = await startScriptedApi([{ text: "Resumed." }]);
  try {
    const run = await runNudge(
      ["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", id, "--permission-mode", "acceptEdits"],
      { cwd: clone, env: claudeEnv(api, cfg), input: "and now?\n" },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    return JSON.stringify(api.mainLoopRequests()[0]!.body.messages);
  } finally {
    await api.close();
  }
}

describe("export and import, harder cases", () => {
  it("carries a base commit and a commit Claude made that were never pushed; the clone imports, resumes and rewinds", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    writeFiles(a, { "local.txt": "committed here, never pushed\n" });
    await git(a, "add", "local.txt");
    await git(a, "commit", "-q", "-m", "local work");
    const base = await git(a, "rev-parse", "HEAD");
    const rec = await recordSession(
      a,
      [
        { tool: "Write", input: { file_path: path.join(a, "notes.txt"), content: "alpha\n" } },
        { text: "Wrote notes.txt." },
        {
          tool: "Bash",
          input: { command: "git add notes.txt && git commit -q -m 'notes, by claude'", description: "commit" },
        },
        { text: "Committed." },
      ],
      ["write notes", "commit them"],
    );
    try {
      const claudeCommit = rec.manifest.turns[2]!.head!;
      expect(claudeCommit).not.toBe(base);
      const exported = await runNudge(["session", "export", rec.id, "--json"], { cwd: a, env: rec.env });
      expect(exported.exitCode, exported.stderr).toBe(0);
      expect(JSON.parse(exported.stdout).carried).toEqual([
        { commit: base, what: `the base commit ${base.slice(0, 10)}` },
        { commit: claudeCommit, what: `the HEAD of turn 2 (${claudeCommit.slice(0, 10)})` },
      ]);
      const human = await runNudge(["session", "export", rec.id, "-o", "again.tar.gz"], { cwd: a, env: rec.env });
      const pushed = await git(a, "rev-parse", "origin/main");
      expect(human.stdout).toContain(
        `code: carries the base commit ${base.slice(0, 10)} and the HEAD of turn 2 (${claudeCommit.slice(0, 10)}), on no remote-tracking branch here; it builds on ${pushed.slice(0, 10)} (on origin/main), which the importing clone must have`,
      );

      const b = await clone("bob app");
      expect(await git(b, "cat-file", "-t", base).catch(() => "missing")).toBe("missing");
      const cfg = configDir();
      const imported = await runNudge(["session", "import", path.join(a, `nudge-${rec.id}.tar.gz`)], {
        cwd: b,
        env: { CLAUDE_CONFIG_DIR: cfg },
      });
      expect(imported.exitCode, imported.stderr).toBe(0);
      expect(imported.stdout).toContain(
        `the export carried 2 commits this clone may lack: ${base.slice(0, 10)}, ${claudeCommit.slice(0, 10)}`,
      );
      expect(await git(b, "cat-file", "-t", base)).toBe("commit");
      // Claude's commit is no snapshot's ancestor: a ref of the session keeps it (for --reset-head), removed with it.
      expect(await nudgeRefs(b)).toEqual([
        `refs/nudge/${rec.id}/2 ${claudeCommit}`,
        `refs/nudge/sessions/${rec.id} ${rec.manifest.turns[2]!.snapshot.commit}`,
      ]);
      expect(await git(b, "branch", "--list")).toBe("* main"); // no branch made or moved

      const messages = await resumeMessages(b, cfg, rec.id);
      for (const said of ["write notes", "Wrote notes.txt.", "commit them", "Committed.", "and now?"])
        expect(messages).toContain(said);
      const rewind = await runNudge(["session", "rewind", rec.id, "2", "--yes"], {
        cwd: b,
        env: { CLAUDE_CONFIG_DIR: cfg },
      });
      expect(rewind.exitCode, rewind.stderr).toBe(0);
      const listing = await workTreeListing(b);
      expect(listing).toEqual(await treeListing(a, rec.manifest.turns[2]!.snapshot.tree));
      expect(Object.keys(listing)).toContain("local.txt");
    } finally {
      await rec.api.close();
    }
  }, 90_000);

  it("a session that ran a subagent: the subagent's transcript arrives in the clone's claude config dir, moved there", async () => {
    const { clone } = await origin({ "a.txt": "a\n" });
    const a = await clone("ana");
    const rec = await recordSession(
      a,
      [
        { tool: "Write", input: { file_path: path.join(a, "b.txt"), content: "b\n" } },
        { text: "Wrote b.txt." },
        // claude 2.1.329 calls its subagent tool Agent; in the foreground, the turn waits for it.
        {
          tool: "Agent",
          input: {
            description: "Survey",
            prompt: "List the files here",
            subagent_type: "general-purpose",
            run_in_background: false,
          },
        },
        { tool: "Bash", input: { command: "ls", description: "list the files" } }, // the subagent's own step
        { text: "Files: a.txt, b.txt." }, // the subagent's answer
        { text: "The subagent found a.txt and b.txt." },
      ],
      ["write b", "survey the repository with a subagent"],
    );
    try {
      const sid = rec.manifest.turns[2]!.claudeSessionId!;
      // A temp claude writes a file through (renamed over it a moment later), as a copy taken in that moment kept it.
      const side = path.join(rec.dir, "claude", sid, "subagents");
      const meta = readdirSync(side).find((n) => n.endsWith(".meta.json"))!;
      writeFileSync(path.join(side, `${meta}.tmp.a8456c23`), "{}");
      const exported = await runNudge(["session", "export", rec.id], { cwd: a, env: rec.env });
      expect(exported.exitCode, exported.stderr).toBe(0);
      const entries = [...(await unpack(path.join(a, `nudge-${rec.id}.tar.gz`))).keys()];
      const subagentEntries = entries.filter((e) => e.startsWith(`session/claude/${sid}/subagents/`));
      expect(subagentEntries.map((e) => e.replace(/agent-\w+/, "agent-X")).sort()).toEqual([
        `session/claude/${sid}/subagents/agent-X.jsonl`,
        `session/claude/${sid}/subagents/agent-X.meta.json`,
      ]);
      // Cut before the subagent ran, the export leaves its files out.
      const upto = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", "upto.tar.gz"], {
        cwd: a,
        env: rec.env,
      });
      expect(upto.exitCode, upto.stderr).toBe(0);
      expect([...(await unpack(path.join(a, "upto.tar.gz"))).keys()].filter((e) => e.includes("subagents"))).toEqual(
        [],
      );

      const b = await clone("bob app");
      const cfg = configDir();
      const imported = await runNudge(["session", "import", path.join(a, `nudge-${rec.id}.tar.gz`)], {
        cwd: b,
        env: { CLAUDE_CONFIG_DIR: cfg },
      });
      expect(imported.exitCode, imported.stderr).toBe(0);
      const folder = path.join(cfg, "projects", encodeProjectDir(b), sid, "subagents");
      const files = readdirSync(folder).sort();
      expect(files.map((f) => f.replace(/agent-\w+/, "agent-X"))).toEqual(["agent-X.jsonl", "agent-X.meta.json"]);
      const subagent = readFileSync(path.join(folder, files[0]!), "utf8");
      expect(subagent).toContain(`"cwd":${JSON.stringify(b)}`);
      expect(subagent).not.toContain(a);

      const messages = await resumeMessages(b, cfg, rec.id);
      for (const said of [
        "write b",
        "survey the repository with a subagent",
        "The subagent found a.txt and b.txt.",
        "and now?",
      ])
        expect(messages).toContain(said);
      const rewind = await runNudge(["session", "rewind", rec.id, "2", "--yes"], {
        cwd: b,
        env: { CLAUDE_CONFIG_DIR: cfg },
      });
      expect(rewind.exitCode, rewind.stderr).toBe(0);
      expect(await workTreeListing(b)).toEqual(await treeListing(a, rec.manifest.turns[2]!.snapshot.tree));
    } finally {
      await rec.api.close();
    }
  }, 90_000);
});
