/**
 * Issue 22, leak 2, end to end: an AWS key pair typed in plain words reached the teammate's
 * claude verbatim. Here the teammate imports the export and resumes it with the real claude; what
 * the scripted API receives (every request, side requests included) holds the placeholders and
 * no byte of either secret.
 */
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { tempDir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi } from "../support/scripted-api.js";
import { loadCorpus } from "../support/secret-corpus.js";
import { importTarget, origin } from "./share-support.js";

const corpus = loadCorpus().secrets;
const id = /AKIA[A-Z0-9]{16}/.exec(
  corpus.find((s) => s.kind === "aws-access-key-id" && s.text.startsWith("our key is"))!.text,
)![0];
const secret = corpus.find((s) => s.kind === "aws-secret-access-key" && s.text.startsWith("with secret"))!.needles[0]!;

describe("a key pair in a prompt, imported and resumed", () => {
  it("the teammate's claude gets the placeholders, never the key id or its secret", async () => {
    const { clone } = await origin({ "README.md": "# app\n" });
    const a = await clone("ana");
    const rec = await recordSession(a, [{ text: "Noted the key." }], [`our key is ${id} with secret ${secret}`]);
    try {
      const archive = path.join(tempDir(), "pair.tar.gz");
      const exported = await runNudge(["session", "export", rec.id, "-o", archive], { cwd: a, env: rec.env });
      expect(exported.exitCode, exported.stderr).toBe(0);
      const bob = await importTarget(clone);
      const imported = await runNudge(["session", "import", archive], { cwd: bob.b, env: bob.env });
      expect(imported.exitCode, imported.stderr).toBe(0);

      const api = await startScriptedApi([{ text: "Resumed." }]);
      try {
        const run = await runNudge(
          ["claude", "run", "--claude-bin", CLAUDE_BIN, "-r", rec.id, "--permission-mode", "acceptEdits"],
          { cwd: bob.b, env: claudeEnv(api, bob.cfg), input: "which key was it?\n" },
        );
        expect(run.exitCode, run.stderr).toBe(0);
        const sent = api.requests.map((r) => JSON.stringify(r.body) ?? "").join("\n");
        expect(JSON.stringify(api.mainLoopRequests()[0]!.body.messages)).toContain(
          "our key is [REDACTED:aws-access-key-id] with secret [REDACTED:",
        );
        expect(sent).toContain("Noted the key.");
        expect(sent).not.toContain(id);
        expect(sent).not.toContain(secret);
      } finally {
        await api.close();
      }
    } finally {
      await rec.api.close();
    }
  }, 120_000);
});
