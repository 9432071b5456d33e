/**
 * session export -o never replaces a pipe or a device with a file.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import { execa } from "execa";
import { lstatSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir, tempDir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("export -o onto a special file", () => {
  it("session export -o onto a named pipe writes into the pipe (or refuses); it never replaces the pipe with a file", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(repo, [{ text: "hi" }], ["hello"]);
    await recorded.api.close();
    const fifo = path.join(tempDir(), "to-teammate");
    await execa("mkfifo", [fifo]);
    const reader = execa("cat", [fifo], { reject: false, encoding: "buffer" });
    const run = await runNudge(["session", "export", recorded.id, "-o", fifo], { cwd: repo, timeout: 15_000 });
    const stillAPipe = lstatSync(fifo).isFIFO();
    // If nudge refused, or replaced the pipe, nobody will write to the reader: stop it.
    if (run.exitCode !== 0 || !stillAPipe) reader.kill("SIGKILL");
    await reader;
    expect(stillAPipe, run.stdout + run.stderr).toBe(true);
  });
});
