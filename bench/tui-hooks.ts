/**
 * What `nudge claude run --tui` adds to a turn of claude's own UI: the round trip of each hook
 * claude waits on, through the real `nudge claude run --tui` process (in a pty), at 1k / 10k /
 * 100k files. A stand-in claude reads the hooks nudge gave it and calls them as claude does:
 * before every prompt but the first the user has edited a file (so UserPromptSubmit starts a
 * capture of the edits, and PreToolUse waits for it), then a tool's PreToolUse, a file written,
 * the turn's transcript lines, Stop. Plain claude, without hooks, spends none of this.
 *
 *   node --import tsx bench/tui-hooks.ts [turns]
 */
import { execa } from "execa";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateRepo, scratchDir } from "./repo.js";
import { median, progress } from "./stats.js";

const STAND_IN = `
const fs = require("node:fs"), path = require("node:path"), { randomUUID } = require("node:crypto");
const args = process.argv.slice(2);
const hooks = JSON.parse(fs.readFileSync(args[args.indexOf("--settings") + 1], "utf8")).hooks;
const url = (e) => hooks[e][0].hooks[0].url;
const gate = hooks.PreToolUse.find((h) => !h.matcher.startsWith("^Bash")).hooks[0].url;
const id = randomUUID(), cwd = process.cwd();
const dir = path.join(process.env.CLAUDE_CONFIG_DIR, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"));
fs.mkdirSync(dir, { recursive: true });
const transcript = path.join(dir, id + ".jsonl");
const post = async (u, body) => { const t = performance.now(); await (await fetch(u, { method: "POST", body: JSON.stringify({ session_id: id, transcript_path: transcript, cwd, ...body }) })).text(); return performance.now() - t; };
(async () => {
  const out = [];
  for (let i = 0; i < Number(process.env.TURNS); i++) {
    if (i > 0) fs.appendFileSync(path.join(cwd, "README.md"), "hand edit " + i + "\\n");
    const prompt = await post(url("UserPromptSubmit"), { hook_event_name: "UserPromptSubmit", prompt: "turn " + i });
    const preTool = await post(gate, { hook_event_name: "PreToolUse", tool_name: "Write", tool_input: {}, tool_use_id: "t" + i });
    fs.writeFileSync(path.join(cwd, "written-" + i + ".txt"), "x\\n");
    const uuid = randomUUID();
    fs.appendFileSync(transcript, JSON.stringify({ type: "user", message: { role: "user", content: "turn " + i }, uuid: randomUUID(), sessionId: id }) + "\\n" +
      JSON.stringify({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text: "done " + i }] }, uuid, sessionId: id }) + "\\n" +
      JSON.stringify({ type: "system", subtype: "turn_duration", uuid: randomUUID(), sessionId: id }) + "\\n");
    const stop = await post(url("Stop"), { hook_event_name: "Stop", stop_hook_active: false });
    out.push({ prompt, preTool, stop });
    await new Promise((r) => setTimeout(r, 1500)); // a person reads the answer; the turn is saved meanwhile
  }
  fs.writeFileSync(process.env.BENCH_OUT, JSON.stringify(out));
})();
`;

async function measure(files: number, turns: number) {
  progress(`--tui hooks, ${files.toLocaleString("en")} files: generating the repository`);
  const repo = await generateRepo({ files });
  const work = scratchDir("tui-hooks");
  const standIn = path.join(work, "claude.cjs");
  writeFileSync(standIn, `#!/usr/bin/env node\n${STAND_IN}`, { mode: 0o755 });
  const out = path.join(work, "out.json");
  mkdirSync(path.join(work, "cfg"), { recursive: true });
  progress(`--tui hooks, ${files.toLocaleString("en")} files: ${turns} turns`);
  const cli = path.resolve("dist/nudge.mjs");
  // nudge --tui wants a terminal: script(1) gives it one. A first session of one turn starts nudge's
  // untracked-cache check in the repository, as a user's first session does; the second is measured.
  for (const n of [1, turns]) {
    await execa("script", ["-qec", `node ${cli} claude run --tui --claude-bin ${standIn}`, "/dev/null"], {
      cwd: repo,
      env: { CLAUDE_CONFIG_DIR: path.join(work, "cfg"), TURNS: String(n), BENCH_OUT: out },
      stdin: "ignore",
    });
    if (n === 1) await new Promise((r) => setTimeout(r, 5000));
  }
  const runs = (
    JSON.parse(readFileSync(out, "utf8")) as Array<{ prompt: number; preTool: number; stop: number }>
  ).slice(1);
  return {
    files,
    prompt: median(runs.map((r) => r.prompt)),
    preTool: median(runs.map((r) => r.preTool)),
    stop: median(runs.map((r) => r.stop)),
  };
}

const turns = Number(process.argv[2] ?? 6);
const rows = [];
for (const files of [1_000, 10_000, 100_000]) rows.push(await measure(files, turns));
console.log("| files | UserPromptSubmit | PreToolUse (after your edit) | Stop |");
console.log("|---|---|---|---|");
for (const r of rows)
  console.log(
    `| ${r.files.toLocaleString("en")} | ${r.prompt.toFixed(0)} ms | ${r.preTool.toFixed(0)} ms | ${r.stop.toFixed(0)} ms |`,
  );
