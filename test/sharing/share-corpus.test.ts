/**
 * The secret corpus through a real session (real claude, scripted API streaming 7 characters at
 * a time, so every reply and tool input is recorded as many small deltas: leak 5). Each place
 * gets its own copy of the corpus (its own seed), so a leak found anywhere in the export names
 * its place and kind: prompts, Claude's text, a tool input, a tool output (`cat`), a subagent's
 * transcript, and code (files copied into the repository by the last turn).
 *
 * Goals (issue 22): 100% masked outside code, 100% refused in code (multi-line included), at
 * most 2% of look-alikes masked; and the masked export holds no byte of a corpus secret in any
 * entry, decompressed, the git bundle's objects included. The table is printed (the security model's, docs/reference/security-model.md).
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, gitdir, tempDir } from "../support/gitdir.js";
import { recordSession, type Recorded } from "../support/record.js";
import { runNudge } from "../support/run-nudge.js";
import { loadCorpus, type CorpusLookalike, type CorpusSecret } from "../support/secret-corpus.js";
import { bundleObjects, unpack } from "./share-support.js";
import { readStreamOf } from "../support/stream.js";

const PLACES = ["prompt", "claude-text", "tool-input", "tool-output", "subagent", "code"] as const;
type Place = (typeof PLACES)[number];
/** Each place its own made-up values. A prompt is one line: only single-line secrets fit. */
const corpora = new Map(
  PLACES.map((place, i) => {
    const c = loadCorpus(100 + i);
    return [
      place,
      place === "prompt"
        ? {
            secrets: c.secrets.filter((s) => !s.text.includes("\n")),
            lookalikes: c.lookalikes.filter((l) => !l.text.includes("\n")),
          }
        : c,
    ];
  }),
);
const blob = (place: Place) =>
  [...corpora.get(place)!.secrets.map((s) => s.text), ...corpora.get(place)!.lookalikes.map((l) => l.text)].join(
    "\n\n",
  );

/** A transcript's queue-operation lines with their prompt text emptied (latin1 in and out). */
function withoutQueuedText(text: string): string {
  return text
    .split("\n")
    .map((line) =>
      line.startsWith('{"type":"queue-operation"') && line.includes('"content":')
        ? Buffer.from(
            JSON.stringify({ ...JSON.parse(Buffer.from(line, "latin1").toString("utf8")), content: "" }),
          ).toString("latin1")
        : line,
    )
    .join("\n");
}

/** How often a text occurs, as written or JSON-escaped. */
function occurrences(haystack: string, text: string): number {
  let n = 0;
  for (const form of new Set([text, JSON.stringify(text).slice(1, -1)]))
    for (let at = haystack.indexOf(form); at !== -1; at = haystack.indexOf(form, at + 1)) n++;
  return n;
}

/** What joining the streamed deltas of a conversation gives back, block by block (leak 5: no fragment alone holds a secret). */
function joinedDeltas(conversation: string): string {
  const blocks = new Map<string, string>();
  const joined: string[] = [];
  for (const line of conversation.split("\n")) {
    if (!line.includes('"stream_event"')) continue;
    const { event, parent_tool_use_id: parent } = JSON.parse(line);
    const key = `${parent}\0${event.index}`;
    if (event.type === "message_start" || event.type === "content_block_stop") {
      for (const [k, text] of blocks)
        if (event.type === "message_start" ? k.startsWith(`${parent}\0`) : k === key)
          (joined.push(text), blocks.delete(k));
    } else if (event.type === "content_block_delta")
      blocks.set(
        key,
        (blocks.get(key) ?? "") + (event.delta.text ?? event.delta.partial_json ?? event.delta.thinking ?? ""),
      );
  }
  return [...joined, ...blocks.values()].join("\n");
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

describe("the secret corpus in a recorded session", () => {
  let rec: Recorded;
  let a: string;
  beforeAll(async () => {
    a = await gitdir({ "README.md": "# app\n" });
    const outside = tempDir("nudge-corpus-");
    writeFileSync(path.join(outside, "tool-output.txt"), blob("tool-output") + "\n");
    writeFileSync(path.join(outside, "subagent.txt"), blob("subagent") + "\n");
    // The code: one file per secret and per look-alike, copied in by the last turn (never in a tool input).
    mkdirSync(path.join(outside, "code"));
    const code = corpora.get("code")!;
    code.secrets.forEach((s, i) =>
      writeFileSync(path.join(outside, "code", `secret-${String(i).padStart(2, "0")}.txt`), s.text + "\n"),
    );
    code.lookalikes.forEach((l, i) =>
      writeFileSync(path.join(outside, "code", `lookalike-${String(i).padStart(2, "0")}.txt`), l.text + "\n"),
    );
    rec = await recordSession(
      a,
      [
        { text: "Noted." },
        { text: blob("claude-text") },
        {
          tool: "Bash",
          input: {
            command: `cat > /dev/null <<'CORPUS_END'\n${blob("tool-input")}\nCORPUS_END`,
            description: "keep the notes",
          },
        },
        { text: "Kept." },
        {
          tool: "Bash",
          input: { command: `cat ${path.join(outside, "tool-output.txt")}`, description: "show the file" },
        },
        { text: "Shown." },
        {
          tool: "Agent",
          input: {
            description: "Read notes",
            prompt: "Read the notes file",
            subagent_type: "general-purpose",
            run_in_background: false,
          },
        },
        {
          tool: "Bash",
          input: { command: `cat ${path.join(outside, "subagent.txt")}`, description: "read the notes" },
        },
        { text: "Read them." },
        { text: "The subagent read the notes." },
        { tool: "Bash", input: { command: `cp -r ${path.join(outside, "code")} code`, description: "copy the files" } },
        { text: "Copied." },
      ],
      [
        corpora
          .get("prompt")!
          .secrets.map((s) => s.text)
          .concat(corpora.get("prompt")!.lookalikes.map((l) => l.text))
          .join(" ; "),
        "show me the config",
        "keep these notes",
        "show the file",
        "have a subagent read the notes",
        "copy the files in",
      ],
      { chunk: 7 },
    );
  }, 180_000);
  afterAll(() => rec?.api.close());

  it("masks every secret outside code, refuses every one in code, masks at most 2% of look-alikes; no byte of a secret in the export", async () => {
    const codeTurn = rec.manifest.turns.at(-1)!.n;
    // The script ran as planned: the last turn copied the code in (else the counts below would mislead).
    expect(
      await git(a, "ls-tree", "-r", "--name-only", rec.manifest.turns.at(-1)!.snapshot.commit),
      rec.stderr,
    ).toContain("code/secret-00.txt");
    // The code turn refuses the export; every file with a secret is named.
    const refused = await runNudge(["session", "export", rec.id], { cwd: a, env: rec.env });
    expect(refused.exitCode).toBe(1);
    const allowed = await runNudge(
      ["session", "export", rec.id, "--allow-secrets-in-code", "--json", "-o", "code.tar.gz"],
      { cwd: a, env: rec.env },
    );
    expect(allowed.exitCode, allowed.stderr).toBe(0);
    const inCode = new Set(
      (JSON.parse(allowed.stdout).codeSecrets as Array<{ path: string }>).map((s) => path.basename(s.path)),
    );

    // Everything else: the turns before the code, masked.
    const out = await runNudge(["session", "export", rec.id, "--upto", String(codeTurn - 1), "-o", "masked.tar.gz"], {
      cwd: a,
      env: rec.env,
    });
    expect(out.exitCode, out.stderr).toBe(0);
    const entries = await unpack(path.join(a, "masked.tar.gz"));
    const texts = [...entries].map(
      ([name, bytes]) => [name, name.endsWith(".bundle") ? "" : bytes.toString("latin1")] as const,
    );
    const objects = (await bundleObjects(entries.get("git/session.bundle")!)).all;
    const conversation = entries.get("session/conversation.jsonl")!.toString("utf8");
    const exported = texts.map(([, t]) => t).join("\n") + "\n" + objects + "\n" + joinedDeltas(conversation);
    // The local recording, for the look-alikes: each should occur in the export as often as there.
    // (claude's queued-prompt lines emptied, as every export empties them: the prompt is in its own user line)
    const local = [
      ...filesUnder(rec.dir)
        .filter(
          (f) => !/turns\.jsonl$|manifest\.json$|\.patch$|stderr|\.lock$|conversation\.jsonl$|conversation\.d/.test(f),
        )
        .map((f) => withoutQueuedText(readFileSync(f, "latin1"))),
      withoutQueuedText(readStreamOf(rec.dir).toString("latin1")),
    ].join("\n");
    const exportedSession = texts
      .filter(([name]) => name.startsWith("session/") && !/turns\.jsonl$|manifest\.json$|\.patch$/.test(name))
      .map(([, t]) => t)
      .join("\n");

    type Row = { masked: number; missed: number; total: number };
    const table = new Map<string, Map<Place, Row>>();
    const leaks: string[] = [];
    const count = (kind: string, place: Place, ok: boolean) => {
      const byPlace = table.get(kind) ?? new Map<Place, Row>();
      const row = byPlace.get(place) ?? { masked: 0, missed: 0, total: 0 };
      row.total++;
      if (ok) row.masked++;
      else row.missed++;
      byPlace.set(place, row);
      table.set(kind, byPlace);
    };
    const lookalikesMasked = new Map<Place, { masked: number; total: number }>();
    for (const place of PLACES) {
      const { secrets, lookalikes } = corpora.get(place)!;
      if (place === "code") {
        secrets.forEach((s: CorpusSecret, i) =>
          count(s.kind, place, inCode.has(`secret-${String(i).padStart(2, "0")}.txt`)),
        );
        const flagged = lookalikes.filter((_l: CorpusLookalike, i) =>
          inCode.has(`lookalike-${String(i).padStart(2, "0")}.txt`),
        ).length;
        lookalikesMasked.set(place, { masked: flagged, total: lookalikes.length });
        continue;
      }
      for (const s of secrets) {
        const leaked = s.needles.some((n) => occurrences(exported, n) > 0);
        if (leaked) leaks.push(`${place} ${s.kind}: ${s.needles[0]!.slice(0, 24)}…`);
        count(s.kind, place, !leaked);
      }
      // Each look-alike is in the recording, or this would count nothing.
      expect(lookalikes.filter((l) => occurrences(local, l.text) === 0).map((l) => l.text)).toEqual([]);
      const masked = lookalikes.filter((l) => occurrences(exportedSession, l.text) < occurrences(local, l.text));
      if (masked.length)
        console.log(
          `look-alikes masked in ${place}:\n${masked.map((l) => `  ${l.kind}: ${l.text.slice(0, 60)}`).join("\n")}`,
        );
      lookalikesMasked.set(place, { masked: masked.length, total: lookalikes.length });
    }

    const cell = (r: Row | undefined, place: Place) =>
      r ? (place === "code" ? `${r.masked}/${r.total} refused` : `${r.masked}/${r.total}`) : "–";
    const lines = [`| kind | ${PLACES.join(" | ")} |`, `|---|${PLACES.map(() => "---:").join("|")}|`];
    for (const [kind, byPlace] of [...table].sort(([x], [y]) => (x < y ? -1 : 1)))
      lines.push(`| ${kind} | ${PLACES.map((p) => cell(byPlace.get(p), p)).join(" | ")} |`);
    const totals = PLACES.map((p) => {
      const rows = [...table.values()].flatMap((m) => (m.get(p) ? [m.get(p)!] : []));
      return {
        masked: rows.reduce((n, r) => n + r.masked, 0),
        missed: rows.reduce((n, r) => n + r.missed, 0),
        total: rows.reduce((n, r) => n + r.total, 0),
      };
    });
    lines.push(
      `| **all (missed)** | ${totals.map((t, i) => `**${t.masked}/${t.total}** (${t.missed})${PLACES[i] === "code" ? " refused" : ""}`).join(" | ")} |`,
    );
    lines.push(
      `| look-alikes masked | ${PLACES.map((p) => `${lookalikesMasked.get(p)!.masked}/${lookalikesMasked.get(p)!.total}`).join(" | ")} |`,
    );
    console.log(lines.join("\n"));

    expect(leaks).toEqual([]);
    expect(totals.every((t) => t.missed === 0)).toBe(true);
    const la = [...lookalikesMasked.values()].reduce(
      (n, l) => ({ masked: n.masked + l.masked, total: n.total + l.total }),
      { masked: 0, total: 0 },
    );
    expect(la.masked / la.total).toBeLessThanOrEqual(0.02);
    // Each place really was there, streamed in pieces: the claude text's deltas are in the conversation.
    expect(conversation.split("\n").filter((l) => l.includes('"text_delta"')).length).toBeGreaterThan(100);
    expect([...entries.keys()].some((k) => k.includes("/subagents/"))).toBe(true);
  }, 240_000);
});
