/**
 * A turn an API error ended is not called a success.
 * Found by black-box QA of the built CLI (real claude binary, scripted Messages API, real temp
 * git repositories).
 */
import net from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLAUDE_BIN, claudeEnv } from "../support/claude-env.js";
import { gitdir, tempDir } from "../support/gitdir.js";
import { runNudge } from "../support/run-nudge.js";
import { startScriptedApi, type ScriptedApi } from "../support/scripted-api.js";

let api: ScriptedApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

describe("a turn ended by an API error", () => {
  it("a turn that ended in an API error is not reported as a success (end line, session show)", async () => {
    const repo = await gitdir();
    api = await startScriptedApi([{ httpError: { status: 500, type: "api_error", message: "boom" } }]);
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: { ...claudeEnv(api, path.join(tempDir(), "cfg")), CLAUDE_CODE_MAX_RETRIES: "0" },
      input: "hello\n",
    });
    expect(run.stdout).toContain("API Error: 500 boom");
    const id = /recording session (\w+)/.exec(run.stderr)![1]!;
    expect(run.stderr).toMatch(/● turn 1 · /);
    expect(run.stderr).not.toMatch(/● turn 1 · success/);
    const show = await runNudge(["session", "show", id], { cwd: repo });
    const row = show.stdout.split("\n").find((l) => l.startsWith("1 "));
    expect(row, show.stdout).toBeDefined();
    expect(row).not.toMatch(/\bsuccess\b/);
  });

  it("unattended, the API unreachable: the cause is said at the first retry, once, and the run exits 1 (issue 15, item 9)", async () => {
    const repo = await gitdir();
    // A port nothing listens on: claude's requests are refused, as with the API down or a wrong address.
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const run = await runNudge(["claude", "run", "--claude-bin", CLAUDE_BIN], {
      cwd: repo,
      env: {
        ...claudeEnv({ url: `http://127.0.0.1:${port}` }, path.join(tempDir(), "cfg")),
        CLAUDE_CODE_MAX_RETRIES: "2",
      },
      input: "hello\n",
    });
    const cause = `! the API cannot be reached: cannot connect to 127.0.0.1:${port} (ANTHROPIC_BASE_URL): ECONNREFUSED; claude retries`;
    expect(run.stderr.split(cause)).toHaveLength(2); // once, though claude retries twice
    expect(run.stderr).toMatch(/↻ API error, retry 1\/2/);
    expect(run.stderr).toMatch(/● turn 1 · error · /);
    expect(run.stderr).toContain("error: turn 1 ended in an error (shown above)");
    expect(run.stderr).toMatch(/hint: once the cause is fixed, continue with: nudge claude run -r \w+/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.exitCode).toBe(1);
  });
});
