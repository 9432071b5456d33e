/**
 * One real session to look at in the web view, recorded with the real claude and the scripted API:
 * turn 1 writes math.js (thinking, then markdown with a heading, bold and a code fence), turn 2
 * asks for WebFetch, which nobody can allow without a terminal (a permission denied: stdin is
 * piped, so nudge answers the question itself), turn 3 runs Bash. Text is streamed in pieces.
 */
import path from "node:path";
import { gitdir } from "./gitdir.js";
import { recordSession, type Recorded } from "./record.js";

export const MARKDOWN_REPLY = [
  "# Fixed the sum",
  "",
  "The **add** function now adds. Call it like this:",
  "",
  "```js",
  "export function add(a, b) {",
  "  return a + b;",
  "}",
  "```",
  "",
].join("\n");

export async function recordWebSession(): Promise<Recorded & { repo: string }> {
  const repo = await gitdir({ "README.md": "# app\n", "math.js": "export function add(a, b) {\n  return a - b;\n}\n" });
  const recorded = await recordSession(
    repo,
    [
      {
        tool: "Write",
        input: { file_path: path.join(repo, "math.js"), content: "export function add(a, b) {\n  return a + b;\n}\n" },
      },
      { thinking: "The sign is wrong; fix it and explain.", text: MARKDOWN_REPLY },
      { tool: "WebFetch", input: { url: "https://example.com/docs", prompt: "summarize" } },
      { text: "I could not fetch the docs." },
      { tool: "Bash", input: { command: "printf 'done\\n' > status.txt", description: "write the status" } },
      { text: "Wrote status.txt." },
    ],
    ["fix add in math.js", "fetch the docs", "write the status"],
    { chunk: 8 },
  );
  return { ...recorded, repo };
}
