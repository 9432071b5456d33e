/**
 * The web view of a real session (real claude, scripted API): what `turnView` and `sessionView`
 * make of its bundle, and of the turn in flight while it is being recorded.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleFiles, openStore, type Store } from "../../src/store/store.js";
import { sessionLock } from "../../src/store/locks.js";
import { diffBetween, listSessionItems, sessionView, turnView } from "../../src/view/session-views.js";
import type { Entry } from "../../src/view/view-types.js";
import type { Recorded } from "../support/record.js";
import { MARKDOWN_REPLY, recordWebSession } from "../support/web-session.js";
import { readStreamOf, writeStreamOf } from "../support/stream.js";

let r: Recorded & { repo: string };
let store: Store;

beforeAll(async () => {
  r = await recordWebSession();
  store = await openStore(r.repo);
}, 90_000);
afterAll(async () => {
  await r?.api.close();
});

const kinds = (entries: Entry[]) => entries.map((e) => e.kind);

describe("a saved session", () => {
  it("lists it with its title and totals; the session view has every turn's summary with cost and tokens", async () => {
    const [item] = await listSessionItems(store);
    expect(item).toMatchObject({
      id: r.id,
      firstPrompt: "fix add in math.js",
      turns: 3,
      state: "complete",
      children: [],
    });
    const view = await sessionView(store, r.id.slice(0, 4));
    expect(view.turns.map((t) => [t.n, t.prompt])).toEqual([
      [0, null],
      [1, "fix add in math.js"],
      [2, "fetch the docs"],
      [3, "write the status"],
    ]);
    expect(view.turns[1]).toMatchObject({ status: "success", files: 1, added: 1, removed: 1 });
    expect(view.turns[1]!.costUsd).toBeGreaterThan(0);
    expect(view.turns[1]!.tokens!.input).toBeGreaterThan(0);
    expect(view.pending).toBeNull();
  });

  it("turn 1: the prompt once, the Write with its result, the thinking, the markdown as written, and the diff", async () => {
    const turn = await turnView(store, r.id, 1);
    expect(kinds(turn.entries)).toEqual(["prompt", "tool", "thinking", "text"]);
    const [prompt, tool, thinking, text] = turn.entries as [
      Entry & { kind: "prompt" },
      Entry & { kind: "tool" },
      Entry & { kind: "thinking" },
      Entry & { kind: "text" },
    ];
    expect(prompt.text).toBe("fix add in math.js");
    expect(tool).toMatchObject({ name: "Write", detail: "math.js", parent: null, children: [] });
    expect(JSON.parse(tool.input.text)).toMatchObject({ content: "export function add(a, b) {\n  return a + b;\n}\n" });
    expect(tool.result).toMatchObject({ isError: false });
    expect(tool.result!.content.text).toContain("updated successfully");
    expect(thinking.text).toBe("The sign is wrong; fix it and explain.");
    expect(text.markdown).toBe(MARKDOWN_REPLY.trimEnd());
    expect(turn.diff.files).toEqual([
      {
        path: "math.js",
        oldPath: null,
        status: "modified",
        binary: false,
        symlink: false,
        oldMode: "100644",
        newMode: "100644",
        added: 1,
        removed: 1,
      },
    ]);
    expect(turn.diff.patch).toContain("+  return a + b;");
  });

  it("turn 2: the permission question and its answer, denied by nudge with the reason claude was given", async () => {
    const turn = await turnView(store, r.id, 2);
    const permission = turn.entries.find((e) => e.kind === "permission");
    expect(permission).toEqual({
      kind: "permission",
      tool: "WebFetch",
      detail: "https://example.com/docs",
      answer: "deny",
      by: null,
      message: expect.stringContaining("nobody is at a terminal to allow it") as string,
    });
    const tool = turn.entries.find((e) => e.kind === "tool") as Entry & { kind: "tool" };
    expect(tool.result).toMatchObject({ isError: true });
    // One permission entry, though the answer is both in input.jsonl and in claude's echo of it.
    expect(kinds(turn.entries).filter((k) => k === "permission")).toHaveLength(1);
  });

  it("no entry is raw: every line of a real recording is understood", async () => {
    for (const n of [1, 2, 3]) expect(kinds((await turnView(store, r.id, n)).entries)).not.toContain("raw");
  });

  it("diffBetween: turn 0 to 3 is what session diff --from 0 --to 3 shows", async () => {
    const diff = await diffBetween(store, r.id, 0, 3);
    expect(diff.files.map((f) => [f.path, f.status])).toEqual([
      ["math.js", "modified"],
      ["status.txt", "added"],
    ]);
    expect(diff.truncated).toBe(false);
  });

  it("a turn that is not there is one clear error naming the turns", async () => {
    await expect(turnView(store, r.id, 9)).rejects.toThrow(`session ${r.id} has no turn 9`);
  });
});

describe("the turn in flight", () => {
  it("is served from its begin record: its lines so far, and the text streamed before its assistant line came", async () => {
    // Make turn 3 the one being recorded: its turn record not yet written, its last assistant line
    // not yet come (its streamed deltas have), the session locked by a live nudge (this process).
    const files = bundleFiles(r.dir);
    const journal = readFileSync(files.journal, "utf8").trimEnd().split("\n");
    const last = JSON.parse(journal.at(-1)!) as {
      n: number;
      lines: { from: number };
      bytes: { from: number };
      input: { from: number };
    };
    expect(last.n).toBe(3);
    const lines = readStreamOf(r.dir).toString("utf8").split("\n");
    const textLine = lines.findIndex(
      (l, i) => i >= last.lines.from && l.includes('"type":"assistant"') && l.includes("Wrote status.txt."),
    );
    writeStreamOf(
      r.dir,
      lines
        .slice(0, textLine)
        .map((l) => `${l}\n`)
        .join(""),
    );
    const begin = {
      type: "begin",
      n: 3,
      prompt: "write the status",
      startedAt: new Date().toISOString(),
      fromLine: last.lines.from,
      fromByte: last.bytes.from,
      fromInput: last.input.from,
    };
    const kept = journal.filter((l) => (JSON.parse(l) as { n: number }).n !== 3);
    writeFileSync(files.journal, [...kept, JSON.stringify(begin)].map((l) => `${l}\n`).join(""));
    const manifest = JSON.parse(readFileSync(files.manifest, "utf8")) as Record<string, unknown> & {
      summary: Record<string, unknown>;
    };
    writeFileSync(
      files.manifest,
      JSON.stringify({ ...manifest, state: "recording", summary: { ...manifest.summary, turns: 2 } }),
    );
    const lock = await sessionLock(files.lock, r.id);
    try {
      const view = await sessionView(store, r.id);
      expect(view.pending).toEqual({ n: 3, prompt: "write the status" });
      expect(view.session.state).toBe("recording");
      const turn = await turnView(store, r.id, 3);
      expect(turn.summary).toMatchObject({ n: 3, status: "running" });
      expect(kinds(turn.entries)).toEqual(["prompt", "tool", "text"]);
      expect(turn.entries.at(-1)).toEqual({ kind: "text", markdown: "Wrote status.txt.", parent: null });
    } finally {
      await lock.release();
    }
  });
});
