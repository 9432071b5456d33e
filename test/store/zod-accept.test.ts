/**
 * The journal's quick check (src/base/zod-accept.ts) may only ever answer for zod: whatever it accepts,
 * zod's parse accepts too and returns the same value, keys in the same order. Held to zod's own
 * answers over journal records damaged in every field, in every way JSON allows.
 */
import { describe, expect, it } from "vitest";
import * as z from "../../src/base/zod.js";
import { journalSchemas, ManifestHeaderSchema, MANIFEST_FORMAT } from "../../src/store/manifest-schema.js";
import { parseJournal } from "../../src/store/turn-journal.js";
import { acceptor, quickParse } from "../../src/base/zod-accept.js";

const SHA = "95a01f0e51d83673694d30a94fabfbba6b0ee503";
const SHA2 = "46e611b0df0cd105d182123872e807930c9851eb";
const AT = "2026-11-28T20:04:13.257Z";
const patch = (file: string) => ({
  file,
  sha256: "e".repeat(64),
  bytes: 120,
  filesChanged: 1,
  insertions: 2,
  deletions: 0,
  binaryFiles: 0,
});
const snapshot = { commit: SHA, tree: SHA2, ref: "refs/nudge/sessions/0afa1d7564" };

/** A turn record with every field a record can have, in the order nudge writes them. */
const fullTurn = {
  n: 3,
  prompt: "fix the flaky test",
  status: "complete",
  startedAt: AT,
  endedAt: "2026-11-28T20:04:14+01:00",
  lines: { from: 10, to: 22 },
  bytes: { from: 5610, to: 9001 },
  input: { from: 1, to: 2 },
  result: {
    subtype: "success",
    isError: false,
    costUsd: 0.0123,
    durationMs: 1000,
    numTurns: 2,
    usage: { input_tokens: 12, cache: { read: 1 }, tiers: [1, "x", null] },
  },
  claudeSessionId: "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f",
  lastAssistantUuid: "a1b2c3",
  head: SHA,
  snapshot,
  patch: { ...patch("changes/turn-003.patch"), nowIgnored: ["dist/out.js"] },
  edits: { snapshot, patch: patch("changes/edits-003.patch") },
  transcript: "claude/5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f.jsonl",
  transcriptBytes: 40_000,
  compaction: { preTokens: 1000, postTokens: null },
  check: { command: "npm test", exitCode: 1, tail: "1 failed", durationMs: 2500 },
  loop: {
    role: "verifier",
    iteration: 2,
    fresh: true,
    model: null,
    promise: "DONE",
    verdict: { pass: false, reason: "no test" },
    log: "iterations/turn-003.ndjson",
  },
  sharedWith: ["0afa1d7564"],
  repaired: { at: AT, unknown: ["status", "head"] },
  type: "turn",
};
/** The same turn with every optional field left out. */
const leanTurn = Object.fromEntries(
  Object.entries(fullTurn).filter(
    ([key]) =>
      !["bytes", "input", "edits", "transcriptBytes", "compaction", "check", "loop", "sharedWith", "repaired"].includes(
        key,
      ),
  ),
);
const RECORDS: Record<string, unknown>[] = [
  fullTurn,
  {
    ...leanTurn,
    prompt: null,
    result: null,
    claudeSessionId: null,
    lastAssistantUuid: null,
    head: null,
    transcript: null,
    patch: patch("changes/turn-000.patch"),
    n: 0,
  },
  {
    type: "begin",
    n: 1,
    prompt: "turn 1",
    startedAt: AT,
    fromLine: 0,
    fromByte: 0,
    fromInput: 0,
    editsTree: null,
    editsPending: true,
  },
  { type: "begin", n: 2, prompt: "", startedAt: AT, fromLine: 6 },
  { type: "edits", n: 1, tree: SHA },
  { type: "ended", n: 1, tree: null, toLine: 6, toByte: 5610, toInput: 1, endedAt: AT },
  { type: "ended", n: 1, tree: SHA2, toLine: 6, endedAt: AT },
];

/** Values JSON can carry, each wrong somewhere in a journal record (and some right somewhere else). */
const REPLACEMENTS: unknown[] = [
  null,
  "",
  "x",
  "turn",
  "begin",
  "complete",
  "verifier",
  -1,
  0,
  1.5,
  2 ** 53,
  1e308,
  true,
  {},
  [],
  ["x"],
  "2026-02-30T00:00:00Z",
  "2026-11-28T20:04:13",
  "2026-11-28 20:04:13Z",
  SHA.toUpperCase(),
  SHA.slice(1),
  `${SHA}\n`,
  "claude/../../etc/passwd.jsonl",
  "changes/turn-1.patch",
  "refs/heads/main",
  "ab cd",
];

/** Every way of damaging one record: each field replaced or removed, an unknown key added, keys out of order. */
function* mutants(value: unknown, path: string[] = []): Generator<{ where: string; value: unknown }> {
  if (typeof value !== "object" || value === null) return;
  const at = (key: string) => [...path, key].join(".");
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      for (const r of REPLACEMENTS) yield { where: at(String(i)), value: value.map((item, j) => (j === i ? r : item)) };
      for (const inner of mutants(value[i], [...path, String(i)]))
        yield { where: inner.where, value: value.map((item, j) => (j === i ? inner.value : item)) };
    }
    return;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  yield { where: at("+unknown"), value: { ...object, unknownField: 1 } };
  yield { where: at("+__proto__"), value: { ...object, ...JSON.parse('{"__proto__": {"polluted": true}}') } };
  if (keys.length > 1) yield { where: at("order"), value: Object.fromEntries([...Object.entries(object)].reverse()) };
  for (const key of keys) {
    yield { where: at(`-${key}`), value: Object.fromEntries(Object.entries(object).filter(([k]) => k !== key)) };
    for (const r of REPLACEMENTS) yield { where: at(key), value: { ...object, [key]: r } };
    for (const inner of mutants(object[key], [...path, key]))
      yield { where: inner.where, value: { ...object, [key]: inner.value } };
  }
}

describe("the journal's quick check", () => {
  const schema = journalSchemas().JournalRecordSchema;
  const accept = acceptor(schema);

  it("accepts every kind of record nudge writes, exactly as zod parses it", () => {
    for (const record of RECORDS) {
      const json = JSON.parse(JSON.stringify(record));
      expect(accept(json), JSON.stringify(record)).toBe(true);
      expect(JSON.stringify(schema.parse(json))).toBe(JSON.stringify(record));
    }
  });

  it("never accepts what zod refuses or would change, over every damaged field of every record", () => {
    let tried = 0;
    let refused = 0;
    for (const record of RECORDS) {
      for (const mutant of mutants(record)) {
        const json = JSON.parse(JSON.stringify(mutant.value));
        tried++;
        if (!accept(json)) {
          refused++;
          continue;
        }
        const parsed = schema.safeParse(json);
        expect(parsed.success, `accepted at ${mutant.where}, zod refuses: ${JSON.stringify(json)}`).toBe(true);
        expect(JSON.stringify(parsed.data), `accepted at ${mutant.where}, zod changes it`).toBe(JSON.stringify(json));
      }
    }
    // Most damage is refused; what is accepted (a prompt of "x", a count of 0) zod accepts as it is.
    expect(tried).toBeGreaterThan(3000);
    expect(refused / tried).toBeGreaterThan(0.8);
  });

  it("leaves to zod what it does not follow: it strips an unknown key, and reads other shapes of schema", () => {
    const lines = RECORDS.map((r) => JSON.stringify(r)).join("\n") + "\n";
    const withUnknown = lines.replace('"type":"edits"', '"type":"edits","later":1');
    expect(parseJournal(withUnknown, "s/turns.jsonl")).toEqual(parseJournal(lines, "s/turns.jsonl"));
    expect(acceptor(z.union([z.string(), z.number()]))("x")).toBe(false);
    expect(acceptor(z.strictObject({ a: z.string() }))({ a: "x" })).toBe(false);
    expect(acceptor(z._default(z.string(), "x"))("x")).toBe(false);
    expect(acceptor(z.string().check(z.minLength(2)))("xyz")).toBe(false);
    // Values JSON.parse never makes: fields inherited from a prototype, a Date where an object goes.
    expect(accept(Object.create({ type: "edits", n: 1, tree: null }))).toBe(false);
    expect(accept({ ...fullTurn, result: { ...fullTurn.result, usage: new Date() } })).toBe(false);
  });

  it("still names the damaged line and field, as zod says it", () => {
    const lines = RECORDS.map((r) => JSON.stringify(r));
    lines[4] = lines[4]!.replace(SHA, "not-a-sha");
    expect(() => parseJournal(lines.join("\n") + "\n", "/b/0afa1d7564/turns.jsonl")).toThrow(
      /turns\.jsonl line 5 is damaged \(tree: /,
    );
  });
});

/** A session's header with every field it can have (an imported fork, rewound, repaired), in the order nudge writes them. */
const fullHeader = {
  format: MANIFEST_FORMAT,
  id: "0afa1d7564",
  createdAt: AT,
  updatedAt: "2026-11-28T21:00:00+01:00",
  state: "complete",
  repo: { root: "/home/me/app", cwd: "/home/me/app/src", baseCommit: SHA, branch: "main", worktree: "feature" },
  claude: { version: "2.0.1", model: "claude-opus-4-1" },
  parent: { id: "1bfb2e8675", turn: 2 },
  resume: { claudeSessionId: "5f0c1d2e-3a4b-4c5d-8e6f-7a8b9c0d1e2f", atUuid: null },
  rewoundTo: 1,
  origin: {
    exportedBy: "Ann",
    exportedAt: AT,
    writtenAt: AT,
    root: "/home/ann/app",
    cwd: "/home/ann/app",
    importedAt: AT,
    sourceId: "2cac3f9786",
  },
  repairedAt: AT,
  summary: {
    turns: 3,
    costUsd: 0.5,
    durationMs: 1200,
    firstPrompt: "fix it",
    lastPrompt: null,
    unpriced: 1,
    sharedWith: ["0a1b2c3d4e"],
  },
};
const HEADERS: Record<string, unknown>[] = [
  fullHeader,
  {
    ...fullHeader,
    repo: { root: "/r", cwd: "/r", baseCommit: null, branch: null },
    claude: { version: null, model: null },
    parent: null,
    resume: null,
    rewoundTo: null,
    origin: null,
    repairedAt: null,
    state: "recording",
  },
  Object.fromEntries(Object.entries(fullHeader).filter(([key]) => key !== "origin" && key !== "repairedAt")),
];

describe("a session header's quick check (session list, the session index)", () => {
  it("takes every header nudge writes as zod parses it, and never one zod refuses or would change", () => {
    let tried = 0;
    for (const header of HEADERS) {
      const json = JSON.parse(JSON.stringify(header));
      expect(quickParse(ManifestHeaderSchema, json)).toEqual({ success: true, data: json });
      expect(acceptor(ManifestHeaderSchema)(json)).toBe(true);
      for (const mutant of mutants(header)) {
        const damaged = JSON.parse(JSON.stringify(mutant.value));
        tried++;
        const quick = quickParse(ManifestHeaderSchema, damaged);
        const zod = ManifestHeaderSchema.safeParse(damaged);
        expect(quick.success, mutant.where).toBe(zod.success);
        expect(JSON.stringify(quick.data), mutant.where).toBe(JSON.stringify(zod.data));
      }
    }
    expect(tried).toBeGreaterThan(1500);
  });
});
