/**
 * A recorded-looking session made of hostile text (fixtures/hostile-session/payloads.json) in a
 * real git repository: the payloads in the prompts, Claude's markdown and thinking, a tool's input
 * (with a `__proto__` key) and output, a permission's answer, a line of a kind nudge does not know,
 * an imported session's origin, file names and a diff (real snapshot commits, so `export --html`
 * runs as on any session), plus a 10 MB line and a line of invalid UTF-8.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { git, gitdir, writeFiles } from "./gitdir.js";

const FIXTURE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/hostile-session/payloads.json",
);
export const PAYLOADS = (JSON.parse(readFileSync(FIXTURE, "utf8")) as { payloads: string[] }).payloads;
const HOSTILE_ID = "h0571e5e55";
/** A file name no page may obey: markup, and a bidi override. */
export const HOSTILE_FILE = "<img src=x onerror=alert(1)>\u202etxt.md";
/** A Write's file name and text with controls in them (a name whose extension a bidi override would disguise). */
const HOSTILE_WRITE = "bidi\u202etxt.exe";
const HOSTILE_WRITTEN = "abc \u202e olleh \u2066x\u2069 \u200b zero\n\u001b[2J\u001b]8;;http://evil\u0007link\n";

const T0 = Date.parse("2026-11-20T10:00:00.000Z");
const iso = (ms: number) => new Date(T0 + ms).toISOString();

export async function writeHostileSession(): Promise<{ repo: string; id: string; dir: string }> {
  const repo = await gitdir({ "README.md": "# hostile\n" });
  const base = await git(repo, "rev-parse", "HEAD");
  const baseTree = await git(repo, "rev-parse", "HEAD^{tree}");
  writeFiles(repo, { [HOSTILE_FILE]: PAYLOADS.join("\n") + "\n", "notes.md": `${PAYLOADS[12]}\n` });
  await git(repo, "add", "-A");
  const tree = await git(repo, "write-tree");
  const commit = await git(repo, "commit-tree", tree, "-p", base, "-m", `nudge turn 1: ${PAYLOADS[0]}`);
  await git(repo, "update-ref", `refs/nudge/sessions/${HOSTILE_ID}`, commit);
  await git(repo, "reset", "-q", "--hard", "HEAD");
  const patch = Buffer.from(
    (await git(repo, "diff-tree", "-r", "-p", "--full-index", "-M", "--no-color", base, commit)) + "\n",
  );

  const dir = path.join(repo, ".git", "nudge", "sessions", HOSTILE_ID);
  mkdirSync(path.join(dir, "changes"), { recursive: true });
  const all = PAYLOADS.join("\n\n");
  const proto = `{"command":${JSON.stringify(PAYLOADS[12])},"__proto__":{"pwned":1},"description":${JSON.stringify(PAYLOADS[1])},"ansi":${JSON.stringify(PAYLOADS[11])}}`;
  const turn1: Array<string | Buffer> = [
    JSON.stringify({ type: "user", isReplay: true, message: { role: "user", content: PAYLOADS[0] } }),
    JSON.stringify({ type: "assistant", message: { id: "m1", content: [{ type: "thinking", thinking: all }] } }),
    JSON.stringify({ type: "assistant", message: { id: "m1", content: [{ type: "text", text: all }] } }),
    `{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"tool1","name":${JSON.stringify(PAYLOADS[4])},"input":${proto}}]}}`,
    `{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Bash","input":${proto}}}`,
    JSON.stringify({
      type: "user",
      message: { content: [{ type: "tool_result", tool_use_id: "tool1", content: all, is_error: true }] },
    }),
    JSON.stringify({ type: "evil_future_kind", html: PAYLOADS[5], more: PAYLOADS[12] }),
    Buffer.concat([
      Buffer.from('{"type":"assistant","message":"'),
      Buffer.from([0xc3, 0x28, 0xff, 0xfe]),
      Buffer.from(`${PAYLOADS[0]}"}`),
    ]),
    JSON.stringify({
      type: "result",
      subtype: "success",
      is_error: true,
      result: PAYLOADS[2],
      duration_ms: 1200,
      usage: { input_tokens: 10, output_tokens: 5 },
    }),
  ];
  const turn2: Array<string | Buffer> = [
    JSON.stringify({
      type: "assistant",
      message: {
        id: "m3",
        content: [{ type: "tool_use", id: "tool2", name: "Read", input: { file_path: path.join(repo, HOSTILE_FILE) } }],
      },
    }),
    // A 10 MB tool output, with a payload at its end.
    JSON.stringify({
      type: "user",
      message: {
        content: [{ type: "tool_result", tool_use_id: "tool2", content: "A".repeat(10 * 1024 * 1024) + PAYLOADS[0] }],
      },
    }),
    // A Write of a file whose name and text hold controls: its input is shown as the file, still inert.
    JSON.stringify({
      type: "assistant",
      message: {
        id: "m3w",
        content: [
          {
            type: "tool_use",
            id: "tool3",
            name: "Write",
            input: { file_path: path.join(repo, HOSTILE_WRITE), content: HOSTILE_WRITTEN },
          },
        ],
      },
    }),
    JSON.stringify({
      type: "user",
      message: { content: [{ type: "tool_result", tool_use_id: "tool3", content: "File created" }] },
    }),
    JSON.stringify({
      type: "assistant",
      message: {
        id: "m4",
        content: [{ type: "text", text: `${PAYLOADS[9]}\n\n${PAYLOADS[10]}\n\n${PAYLOADS[2]}\n\n${PAYLOADS[16]}` }],
      },
    }),
    JSON.stringify({ type: "result", subtype: "success", is_error: false, duration_ms: 800 }),
  ];
  const lines = [...turn1, ...turn2].map((l) => Buffer.concat([Buffer.from(l), Buffer.from("\n")]));
  const offsets = lines.reduce<number[]>((acc, l) => [...acc, acc.at(-1)! + l.length], [0]);
  writeFileSync(path.join(dir, "conversation.jsonl"), Buffer.concat(lines));
  writeFileSync(path.join(dir, "timing.txt"), lines.map((_, i) => `${T0 + 1000 + i * 10}\n`).join(""));
  const answer = {
    type: "control_response",
    response: { subtype: "success", request_id: "r1", response: { behavior: "deny", message: PAYLOADS[1] } },
  };
  writeFileSync(path.join(dir, "input.jsonl"), JSON.stringify(answer) + "\n");
  writeFileSync(path.join(dir, "input-timing.txt"), `${T0 + 1000 + 4 * 10 + 5}\n`);
  writeFileSync(path.join(dir, "changes", "turn-001.patch"), patch);
  writeFileSync(path.join(dir, "changes", "turn-002.patch"), "");
  writeFileSync(path.join(dir, "changes", "turn-000.patch"), "");

  const patchInfo = (file: string, bytes: Buffer, files: number, added: number) => ({
    file,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    bytes: bytes.length,
    filesChanged: files,
    insertions: added,
    deletions: 0,
    binaryFiles: 0,
  });
  const snapshot = (c: string, t: string) => ({ commit: c, tree: t, ref: `refs/nudge/sessions/${HOSTILE_ID}` });
  const turn = (
    n: number,
    prompt: string | null,
    from: number,
    to: number,
    snap: ReturnType<typeof snapshot>,
    p: ReturnType<typeof patchInfo>,
    input: { from: number; to: number } | null,
  ) => ({
    type: "turn",
    n,
    prompt,
    status: "complete",
    startedAt: iso(n * 1000),
    endedAt: iso(n * 1000 + 900),
    lines: { from, to },
    bytes: { from: offsets[from]!, to: offsets[to]! },
    input,
    result:
      n === 0
        ? null
        : {
            subtype: "success",
            isError: n === 1,
            costUsd: 0.01 * n,
            durationMs: 1000 * n,
            numTurns: 1,
            usage: { input_tokens: 10, output_tokens: 5 },
          },
    claudeSessionId: null,
    lastAssistantUuid: null,
    head: base,
    snapshot: snap,
    patch: p,
    edits: null,
    transcript: null,
  });
  const records = [
    turn(0, null, 0, 0, snapshot(base, baseTree), patchInfo("changes/turn-000.patch", Buffer.alloc(0), 0, 0), null),
    turn(
      1,
      PAYLOADS[0]!,
      0,
      turn1.length,
      snapshot(commit, tree),
      patchInfo("changes/turn-001.patch", patch, 2, PAYLOADS.length + 1),
      { from: 0, to: 1 },
    ),
    turn(
      2,
      PAYLOADS[3]!,
      turn1.length,
      lines.length,
      snapshot(commit, tree),
      patchInfo("changes/turn-002.patch", Buffer.alloc(0), 0, 0),
      { from: 1, to: 1 },
    ),
  ];
  writeFileSync(path.join(dir, "turns.jsonl"), records.map((r) => JSON.stringify(r) + "\n").join(""));
  const manifest = {
    format: 2,
    id: HOSTILE_ID,
    createdAt: iso(0),
    updatedAt: iso(3000),
    state: "complete",
    repo: { root: repo, cwd: repo, baseCommit: base, branch: "main" },
    claude: { version: PAYLOADS[6], model: PAYLOADS[0] },
    parent: null,
    resume: null,
    rewoundTo: null,
    origin: {
      exportedBy: PAYLOADS[1],
      exportedAt: iso(0),
      root: PAYLOADS[5],
      cwd: "/x",
      importedAt: iso(10),
      sourceId: "abcdef0123",
    },
    summary: { turns: 2, costUsd: 0.03, durationMs: 3000, firstPrompt: PAYLOADS[0], lastPrompt: PAYLOADS[3] },
  };
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  return { repo, id: HOSTILE_ID, dir };
}
