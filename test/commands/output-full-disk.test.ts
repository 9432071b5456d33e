/**
 * Output that cannot be written (a full disk under stdout) is one error and a hint.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { recordSession } from "../support/record.js";
import { NUDGE_CLI } from "../support/run-nudge.js";
import { type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("stdout on a full disk", () => {
  it("a full disk under stdout (session list/show --json > file) is one error line and a hint, not a stack trace", async () => {
    const repo = await gitdir();
    const recorded = await recordSession(repo, [{ text: "hi" }], ["hello"]);
    await recorded.api.close();
    for (const args of [
      ["session", "list"],
      ["session", "show", recorded.id, "--json"],
    ]) {
      // /dev/full fails every write with ENOSPC, as a file on a full disk does.
      const run = await execa("sh", ["-c", `exec node "$0" "$@" > /dev/full`, NUDGE_CLI, ...args], {
        cwd: repo,
        env: { NO_COLOR: "1" },
        reject: false,
      });
      expect(run.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
      expect(run.stderr, args.join(" ")).toMatch(/^error: .*\nhint: /);
      expect(run.exitCode).toBe(1);
    }
  });
});
