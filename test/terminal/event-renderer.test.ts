/** The renderer on streams recorded from the real claude binary (fixtures/streams). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseLine, splitLines, lineText } from "../../src/claude/ndjson.js";
import { toStreamEvent } from "../../src/claude/stream-events.js";
import { EventRenderer } from "../../src/terminal/event-renderer.js";
import { makeStyle } from "../../src/terminal/style.js";

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/streams");

function render(lines: Buffer[], o: { color?: boolean; verbose?: boolean; showPrompts?: boolean } = {}): string {
  return renderBoth(lines, o).out;
}

/** What went to stdout (`write`) and, apart, nudge's own notices (stderr in the CLI). */
function renderBoth(
  lines: Buffer[],
  o: { color?: boolean; verbose?: boolean; showPrompts?: boolean } = {},
): { out: string; notices: string[] } {
  let out = "";
  const notices: string[] = [];
  // Paths are shown relative to the directory claude ran in, which the recording's init line names.
  const init = lines.map((l) => parseLine(l) as { cwd?: string } | null).find((j) => j?.cwd);
  const renderer = new EventRenderer({
    style: makeStyle(o.color ?? false),
    write: (t) => (out += t),
    verbose: o.verbose ?? false,
    showPrompts: o.showPrompts ?? false,
    cwd: init?.cwd ?? "/",
    notice: (text) => notices.push(text),
  });
  for (const line of lines) {
    const json = parseLine(line);
    renderer.render(toStreamEvent(json, json === null ? lineText(line) : ""));
  }
  return { out, notices };
}

const fixture = (name: string) => splitLines(readFileSync(path.join(fixtures, name)));

describe("EventRenderer on claude's local commands", () => {
  it("shows a /compact's echoed output as claude's line, not as a prompt; the summary claude resumes from is not shown", () => {
    const lines = [
      {
        type: "user",
        message: { role: "user", content: "This session is being continued from a previous conversation… Summary: …" },
        isReplay: false,
        isSynthetic: true,
      },
      {
        type: "user",
        message: { role: "user", content: "<local-command-stdout>Compacted </local-command-stdout>" },
        isReplay: true,
      },
    ].map((j) => Buffer.from(JSON.stringify(j)));
    expect(render(lines, { showPrompts: true })).toBe("  ⎿ Compacted\n");
    expect(render(lines, { showPrompts: false })).toBe("  ⎿ Compacted\n");
  });
});

describe("EventRenderer on real streams", () => {
  it("shows assistant text and one line per tool call; a repeated init is not shown", () => {
    const out = render(fixture("write-then-bash.jsonl"), { verbose: true });
    expect(out).toMatch(/^⏺ Write\(.*hello\.sh\)$/m);
    expect(out).toContain("Created hello.sh.");
    expect(out).toMatch(/^⏺ Bash\(.*\)$/m);
    expect(out).toContain("Done: hi.sh is executable.");
    expect(out.match(/^claude /gm)).toHaveLength(1); // init shown once (verbose), though claude sent two
  });

  it("names the file for Read and Edit, relative to the working directory", () => {
    expect(render(fixture("edit.jsonl"))).toMatch(
      /^⏺ Read\(greet\.txt\)\n⏺ Edit\(greet\.txt\)\nChanged world to nudge\.$/m,
    );
  });

  it("shows an API retry as a retry notice and an API error by its reason", () => {
    const out = render(fixture("auth-error.jsonl"));
    expect(out).toMatch(/^↻ API error \(HTTP 401\), retry 1\/\d+ in /m);
    expect(out).toMatch(/^✗ api_error: Invalid API key/m);
    expect(render(fixture("rate-limit.jsonl"))).toMatch(/^↻ API error \(HTTP 429\)/m);
  });

  it("shows an interrupted turn as interrupted, not as an error", () => {
    const out = render(fixture("interrupt.jsonl"));
    expect(out).toContain("⏸ turn interrupted");
    expect(out).not.toContain("error_during_execution");
    expect(out).toContain("Hello after the interrupt.");
  });

  it("prints prompts only when asked (replay), from the replayed user lines", () => {
    expect(render(fixture("text-only.jsonl"))).not.toContain("Say hello");
    expect(render(fixture("text-only.jsonl"), { showPrompts: true })).toMatch(/^› Say hello$/m);
  });

  it("shows a tool error's first lines in red, and no colour at all without it", () => {
    const error = Buffer.from(
      JSON.stringify({
        type: "user",
        message: {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "t1", is_error: true, content: "Exit code 1\nError: boom\n3\n4\n5\n6" },
          ],
        },
      }),
    );
    const colored = render([error], { color: true });
    expect(colored).toContain("\u001b[31m  ⎿ Exit code 1\u001b[39m");
    expect(colored).toContain("Error: boom");
    expect(colored).toContain("(2 more lines)");
    expect(render([error], { color: false })).not.toContain("\u001b[");
  });

  it("warns about a line that is not JSON as a notice (stderr), never among claude's words", () => {
    const { out, notices } = renderBoth([Buffer.from("Debugger listening"), ...fixture("text-only.jsonl")]);
    expect(notices).toEqual(["! not JSON: Debugger listening"]);
    expect(out).not.toContain("not JSON");
    expect(out).not.toBe("");
  });
});
