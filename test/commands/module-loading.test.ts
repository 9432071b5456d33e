/**
 * A command's start-up is mostly loading modules, so each loads only what it uses: reading a
 * session (show, replay, diff), importing one or rewinding one never loads the secret scanner
 * (~250 KB of secretlint rules) that only an export or a push needs, and reading a local session
 * loads no archive reader either. The modules a real process of the built CLI loads are listed
 * by a module hook, as node loads them.
 */
import { execa } from "execa";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { gitdir } from "../support/gitdir.js";
import { NUDGE_CLI } from "../support/run-nudge.js";

const hooks = mkdtempSync(path.join(os.tmpdir(), "nudge-module-hooks-"));
writeFileSync(
  path.join(hooks, "hooks.mjs"),
  `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  if (process.env.LOADED_LIST) appendFileSync(process.env.LOADED_LIST, url + "\\n");
  return next(url, context);
}
`,
);
writeFileSync(
  path.join(hooks, "register.mjs"),
  `import { register } from "node:module"; register(${JSON.stringify(pathToFileURL(path.join(hooks, "hooks.mjs")).href)});\n`,
);

/** The files a run of `nudge <args>` loaded (it may fail: a command's modules load before it runs). */
async function loaded(args: string[], input = "", builtins = false): Promise<string[]> {
  const repo = await gitdir();
  const list = path.join(hooks, `loaded-${args.join("-").replace(/[^a-z-]/g, "")}-${Date.now()}.txt`);
  writeFileSync(list, "");
  await execa("node", ["--import", path.join(hooks, "register.mjs"), NUDGE_CLI, ...args], {
    cwd: repo,
    env: { NO_COLOR: "1", LOADED_LIST: list },
    input: input.replaceAll("<repo>", repo),
    reject: false,
    timeout: 30_000,
  });
  return readFileSync(list, "utf8")
    .split("\n")
    .filter((url) => url.startsWith("file:") || (builtins && url.startsWith("node:")));
}

const secretScanner = (urls: string[]) => urls.filter((url) => url.includes("/@secretlint/"));
const archiveReader = (urls: string[]) => urls.filter((url) => url.includes("/node_modules/tar/"));

describe("what a command loads", () => {
  it("an export loads the secret scanner (the hook sees the modules)", async () => {
    expect(secretScanner(await loaded(["session", "export", "0123456789"]))).not.toEqual([]);
  });

  it.each([["show"], ["replay"], ["diff"]])(
    "session %s of a local session loads neither the secret scanner nor an archive reader",
    async (command) => {
      const urls = await loaded(["session", command, "0123456789"]);
      expect(urls.some((url) => url.includes("/dist/chunks/"))).toBe(true);
      expect(secretScanner(urls)).toEqual([]);
      expect(archiveReader(urls)).toEqual([]);
    },
  );

  it.each([
    ["import", "/nowhere/nudge-0123456789.tar.gz"],
    ["rewind", "0123456789", "1"],
  ])("session %s does not load the secret scanner", async (command, ...rest) => {
    const urls = await loaded(["session", command, ...rest]);
    expect(urls.some((url) => url.includes("/dist/chunks/"))).toBe(true);
    expect(secretScanner(urls)).toEqual([]);
  });

  it("a search for words loads no glob matcher (re2js): only --file with a glob needs one", async () => {
    const urls = await loaded(["session", "search", "timeout"]);
    expect(urls.some((url) => /\/dist\/chunks\/session-search-/.test(url))).toBe(true);
    expect(urls.filter((url) => url.includes("/node_modules/re2js/"))).toEqual([]);
  });

  it("claude's PreToolUse hook loads its own code: not the command tree (commander), node:crypto or child_process", async () => {
    const input = JSON.stringify({
      hook_event_name: "PreToolUse",
      session_id: "0b3c2d1e-aaaa-bbbb-cccc-111122223333",
      cwd: "<repo>",
      tool_name: "Bash",
      tool_input: { command: "ls" },
    });
    const urls = await loaded(["hooks", "claude-event"], input, true);
    expect(urls.some((url) => /\/dist\/chunks\/hook-gate-/.test(url))).toBe(true);
    expect(urls.filter((url) => /\/dist\/chunks\/(cli|program|hooks-claude-event)-/.test(url))).toEqual([]);
    expect(urls.filter((url) => url === "node:crypto" || url === "node:child_process")).toEqual([]);
  });
});
