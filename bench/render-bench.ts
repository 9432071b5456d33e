/**
 * Rendering claude's markdown on the terminal (issue 21):
 *
 * - Cost per streamed chunk, in-process: a realistic answer (paragraphs with inline markdown, a
 *   list, a table, a 60-line TypeScript block) fed to the live run's renderer as claude streams it,
 *   `text_delta`s of 8 characters, with markdown on (colour) and off (NO_COLOR: the text as
 *   written), each render() call timed. The difference is what rendering adds per chunk.
 * - Latency per line through `nudge claude run` with rendering on (FORCE_COLOR=1, so stdout,
 *   a pipe here, is rendered as on a terminal), against the same lines straight from the stand-in
 *   claude: the recorder's goal (≤ 0.5 ms median added per line) must still hold.
 */
import { EventRenderer } from "../src/terminal/event-renderer.js";
import { makeStyle } from "../src/terminal/style.js";
import type { StreamEvent } from "../src/claude/stream-events.js";
import { IDLE, PING, directLatencies, figures, type LatencyFigures } from "./recorder.js";
import { prompts, runSession } from "./session.js";
import { median, percentile, progress } from "./stats.js";

export interface RenderResult {
  answerChars: number;
  chunks: number;
  markdown: { median: number; p99: number };
  raw: { median: number; p99: number };
  /** Through nudge with rendering on, and straight from the stand-in. */
  latency: { nudge: LatencyFigures; direct: LatencyFigures };
  /** Through nudge with rendering off (NO_COLOR), in the same run, alternating with the runs above. */
  plainLatency: LatencyFigures;
}

const CODE = Array.from({ length: 20 }, (_, i) => [
  `/** Step ${i}: keeps the \`cache\` warm. */`,
  `export async function step${i}(input: Record<string, number>): Promise<string> {`,
  `  return JSON.stringify({ ...input, at: ${i} * 2 }); // "done"`,
]).flat();

export const ANSWER = [
  "## What changed",
  "",
  "I looked at **the failing test** and found that `parseOptions` drops the *last* flag when the",
  "input ends without a newline. See [the docs](https://example.com/docs) for the format.",
  "",
  "- the parser now keeps the flag",
  "- a test covers it: `npm test -- options`",
  "  1. nested detail with **bold** words",
  "",
  "| File | Change | Lines |",
  "|------|--------|------:|",
  "| src/options.ts | fixed | 12 |",
  "| test/options.test.ts | added | 40 |",
  "",
  "```ts",
  ...CODE,
  "```",
  "",
  "> Note: nothing else changed, and the build passes.",
  "That is all for this turn; the rest of the work is unchanged and every test passes now.",
].join("\n");

function events(answer: string, chunk: number): StreamEvent[] {
  const out: StreamEvent[] = [];
  const e = (event: object) =>
    out.push({
      type: "stream_event",
      event,
      parent_tool_use_id: null,
      session_id: "s",
      uuid: "u",
    } as unknown as StreamEvent);
  e({ type: "message_start", message: { id: `msg_${Math.random()}` } });
  e({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  for (let i = 0; i < answer.length; i += chunk)
    e({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: answer.slice(i, i + chunk) } });
  e({ type: "content_block_stop", index: 0 });
  return out;
}

/** Each render() of a text delta timed (ms), `answers` times over, after warm-up. */
function perChunk(markdown: boolean, answers: number): number[] {
  const renderer = new EventRenderer({
    style: makeStyle(true),
    write: () => undefined,
    verbose: false,
    showPrompts: false,
    cwd: "/",
    notice: () => undefined,
    markdown: markdown ? { columns: () => 100 } : undefined,
  });
  const times: number[] = [];
  for (let a = 0; a < answers + 5; a++) {
    for (const event of events(ANSWER, 8)) {
      const start = process.hrtime.bigint();
      renderer.render(event);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const isDelta = (event as { event?: { type?: string } }).event?.type === "content_block_delta";
      if (a >= 5 && isDelta) times.push(ms);
    }
  }
  return times;
}

export async function renderBench(repo: string, answers: number): Promise<RenderResult> {
  progress(`render: ${answers} answers of ${ANSWER.length} characters in 8-character deltas, markdown on and off`);
  const raw = perChunk(false, answers);
  const markdown = perChunk(true, answers);
  progress(
    "render: latency per line through nudge with rendering on (FORCE_COLOR=1) and off (NO_COLOR), alternating, and straight from the stand-in",
  );
  const rendered: number[] = [];
  const plain: number[] = [];
  const session = (into: number[], env: NodeJS.ProcessEnv) =>
    runSession(repo, prompts(repo, 1, IDLE), {
      env,
      onStdoutLine: (line, at) => {
        const m = PING.exec(line);
        if (m) into.push(Number(at - BigInt(m[2]!)) / 1e6);
      },
    });
  for (let round = 0; round < 2; round++) {
    await session(rendered, { FORCE_COLOR: "1", NO_COLOR: "" });
    await session(plain, { NO_COLOR: "1" });
  }
  const [direct] = await directLatencies([IDLE]);
  const stat = (xs: number[]) => ({ median: median(xs), p99: percentile(xs, 99) });
  return {
    answerChars: ANSWER.length,
    chunks: markdown.length,
    markdown: stat(markdown),
    raw: stat(raw),
    latency: { nudge: figures(rendered), direct: figures(direct!) },
    plainLatency: figures(plain),
  };
}
