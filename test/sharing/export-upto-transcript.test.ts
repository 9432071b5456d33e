/**
 * Issue 22, leak 3: `--upto N` let turn N+1 through when prompts were piped or typed ahead. The
 * transcript's length is read when turn N is saved; by then claude has often begun turn N+1
 * (queued its prompt, sent it, even answered), so the recorded length runs into it. That race
 * cannot be caused on purpose, so the recording is given the length it leaves (turn N+1's) by
 * hand; everything else is a real session, export and import.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { configDir, origin, unpack } from "./share-support.js";

describe("--upto N with the next turn already begun in the transcript", () => {
  it("exports turn N's transcript only; the importing claude never sees turn N+1", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    const rec = await recordSession(a, [{ text: "Reply one." }, { text: "Reply two (turn two only)." }, { text: "Reply three." }], ["prompt one", "prompt two, not to be shared", "prompt three"]);
    try {
      const [, one, two] = rec.manifest.turns;
      // What the race records: turn 1's transcript length taken after turn 2 had run.
      const journal = path.join(rec.dir, "turns.jsonl");
      const text = readFileSync(journal, "utf8");
      expect(text).toContain(`"transcriptBytes":${one!.transcriptBytes}`);
      writeFileSync(journal, text.replace(`"transcriptBytes":${one!.transcriptBytes}`, `"transcriptBytes":${two!.transcriptBytes}`));

      const out = await runNudge(["session", "export", rec.id, "--upto", "1", "-o", "one.tar.gz"], { cwd: a, env: rec.env });
      expect(out.exitCode, out.stderr).toBe(0);
      const transcript = (await unpack(path.join(a, "one.tar.gz"))).get(`session/${one!.transcript}`)!.toString();
      expect(transcript).toContain("Reply one.");
      expect(transcript).not.toContain("turn two");
      expect(transcript).not.toContain("not to be shared");

      const b = await clone("bob");
      const cfg = configDir();
      const imported = await runNudge(["session", "import", path.join(a, "one.tar.gz")], { cwd: b, env: { CLAUDE_CONFIG_DIR: cfg } });
      expect(imported.exitCode, imported.stderr).toBe(0);
      const api = await startScriptedApi([{ text: "Resumed." }]);
      try {
        const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", rec.id, "--permission-mode", "acceptEdits"], { cwd: b, env: claudeEnv(api, cfg), input: "and now?\n" });
        expect(run.exitCode, run.stderr).toBe(0);
        const sent = JSON.stringify(api.mainLoopRequests()[0]!.body.messages);
        expect(sent).toContain("Reply one.");
        expect(sent).not.toContain("not to be shared");
        expect(sent).not.toContain("turn two");
      } finally {
        await api.close();
      }
    } finally {
      await rec.api.close();
    }
  }, 120_000);
});
