/**
 * The exported copy of a session's logs and claude's files, made in a private staging folder:
 * each cut where the plan says (--upto), then scanned for secrets and, by default, masked. The
 * turns come back with their byte positions carried over to the copy (masking changes lengths,
 * never lines). The local recording is only ever read.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { bundleFiles } from "../store/store.js";
import { notAFile } from "../store/bundle-links.js";
import { claudeTempFile } from "../claude/transcript.js";
import type { Turn } from "../store/manifest-schema.js";
import { damaged, findCopy, writePlain } from "../store/transcript-copy.js";
import { LIVE_NAME } from "../store/conversation-pieces.js";
import { writeStreamLines } from "../store/stream-range.js";
import { SESSION_DIR, isEntryPath } from "./archive-path.js";
import type { ExportFile } from "./export-writer.js";
import type { ExportPlan, TranscriptCut } from "./export-plan.js";
import { turnOfLine } from "./export-plan.js";
import { copyPrefix, lineStarts, linesBefore, namesIn, remapOffsets } from "./line-offsets.js";
import { maskNdjsonFile, scanAndMaskText, scanNdjsonFile, type SecretFinding } from "../secrets/secrets.js";
import { listFiles } from "./list-files.js";
import { turnEnd } from "./export-transcript-end.js";
import { emptyQueuedPrompts } from "./queued-prompts.js";
import { exportedImages } from "./export-images.js";

export interface StagedLogs {
  /** The exported turns, positions in the copies; a transcript missing from the bundle is dropped from its turns. */
  turns: Turn[];
  /** Secrets found: masked in the copy, or (redact off) kept and only reported. */
  findings: SecretFinding[];
  /** Everything staged, by its path in the archive (session/…). */
  files: ExportFile[];
  /** Side files whose names an export cannot carry (not plain ASCII): left out. */
  skipped: string[];
}

export async function stageLogs(
  bundleDir: string,
  plan: ExportPlan,
  stage: string,
  redact: boolean,
): Promise<StagedLogs> {
  const from = bundleFiles(bundleDir);
  const raw = path.join(stage, "raw");
  const out = path.join(stage, SESSION_DIR);
  await fs.mkdir(raw, { recursive: true });
  await fs.mkdir(out, { recursive: true });
  const findings: SecretFinding[] = [];
  const files: ExportFile[] = [];
  const skipped: string[] = [];
  const entry = (name: string) => `${SESSION_DIR}/${name}`;

  /** Cut a log after `lines` lines into raw/, then mask (or scan) it into session/. */
  const log = async (name: string, lines: number, ndjson: ((line: number) => number | undefined) | null) => {
    const src = path.join(bundleDir, name);
    const cut = path.join(raw, name);
    const dest = path.join(out, name);
    if (name === LIVE_NAME) {
      // The stream may lie in compressed pieces: the export carries it plain, as claude wrote it.
      await writeStreamLines(bundleDir, cut, lines);
    } else {
      const stat = await fs.lstat(src).catch(() => null);
      if (stat && !stat.isFile()) throw notAFile(src);
      const bytes = stat ? (await lineStarts(src, [lines])).get(lines)! : 0;
      await (bytes > 0 ? copyPrefix(src, cut, bytes) : fs.writeFile(cut, ""));
    }
    if (ndjson) findings.push(...(await secretsOf(cut, dest, { file: entry(name), turnOfLine: ndjson }, redact)));
    else await fs.rename(cut, dest);
    files.push({ path: entry(name), source: { file: dest } });
  };
  await log(
    "conversation.jsonl",
    plan.conversationLines,
    turnOfLine(plan.turns, (t) => t.lines),
  );
  await log("timing.txt", plan.conversationLines, null);
  await log(
    "input.jsonl",
    plan.inputLines,
    turnOfLine(plan.turns, (t) => t.input),
  );
  await log("input-timing.txt", plan.inputLines, null);

  files.push(
    ...(await exportedImages(
      bundleDir,
      [path.join(out, "conversation.jsonl"), path.join(out, "input.jsonl")],
      SESSION_DIR,
    )),
  );

  // Byte ranges of each turn in the (possibly masked) conversation copy.
  const conversation = path.join(out, "conversation.jsonl");
  const starts = await lineStarts(
    conversation,
    plan.turns.flatMap((t) => [t.lines.from, t.lines.to]),
  );
  let turns = plan.turns.map((t) => ({
    ...t,
    bytes: { from: starts.get(t.lines.from)!, to: starts.get(t.lines.to)! },
  }));

  await fs.mkdir(path.join(raw, "claude"), { recursive: true });
  await fs.mkdir(path.join(out, "claude"), { recursive: true });
  await fs.mkdir(path.join(raw, "whole"), { recursive: true });
  for (const cut of plan.transcripts) {
    const kept = await findCopy(from.dir, cut.name);
    if (!kept) {
      turns = turns.map((t) => (t.transcript === cut.name ? { ...t, transcript: null, transcriptBytes: null } : t));
      continue;
    }
    // The export carries the transcript plain, as claude wrote it: a compressed copy is inflated into the staging first.
    const src = kept.compressed ? path.join(raw, "whole", path.basename(cut.name)) : kept.file;
    if (kept.compressed) await writePlain(kept, src);
    // Never a transcript shorter than the exported turns recorded (its end cut off on disk): the
    // import would take it, and the conversation would lose those turns without a word.
    const holds = (await fs.stat(src)).size;
    if (cut.bytes != null && holds < cut.bytes)
      throw damaged(
        kept.file,
        `it holds ${holds} bytes of claude's transcript, and the exported turns need ${cut.bytes}`,
      );
    const copy = await stageTranscript(
      src,
      path.join(from.dir, cut.name).replace(/\.jsonl$/, ""),
      cut,
      raw,
      out,
      entry,
      redact,
    );
    findings.push(...copy.findings);
    files.push(...copy.files);
    skipped.push(...copy.skipped);
    turns = turns.map((t) =>
      t.transcript === cut.name && t.transcriptBytes != null
        ? { ...t, transcriptBytes: copy.lengths.get(Math.min(t.transcriptBytes, copy.bytes))! }
        : t,
    );
  }
  return { turns, findings, files, skipped };
}

async function stageTranscript(
  src: string,
  side: string,
  cut: TranscriptCut,
  raw: string,
  out: string,
  entry: (name: string) => string,
  redact: boolean,
) {
  const rawCopy = path.join(raw, cut.name);
  const outCopy = path.join(out, cut.name);
  const size = (await fs.stat(src)).size;
  const recorded = Math.min(cut.bytes ?? size, size);
  // Cut short (--upto), the copy ends where the last exported turn ends, not where its recorded length says.
  const bytes = cut.cutShort ? await turnEnd(src, cut.lastAssistantUuid, recorded) : recorded;
  await copyPrefix(src, rawCopy, bytes);
  const offsets = cut.turns.flatMap((t) => (t.bytes === null ? [] : [Math.min(t.bytes, bytes)]));
  // Which turn a transcript line belongs to: the first exported turn whose length covers it.
  const ends = await linesBefore(rawCopy, offsets);
  const turnOf = (line: number) =>
    cut.turns.find((t) => t.bytes !== null && line <= ends.get(Math.min(t.bytes, bytes))!)?.n;
  // Queued prompts' text goes in every export alike (queued-prompts.ts): what a cut would carry of the next turn.
  const unqueued = `${rawCopy}.unqueued`;
  await emptyQueuedPrompts(rawCopy, unqueued);
  const findings = await secretsOf(unqueued, outCopy, { file: entry(cut.name), turnOfLine: turnOf }, redact);
  const lengths = await remapOffsets(rawCopy, outCopy, offsets);
  const files: ExportFile[] = [{ path: entry(cut.name), source: { file: outCopy } }];
  const skipped: string[] = [];

  // The side folder (subagents, large tool results). Cut short (--upto), a file is kept only if
  // the kept transcript names it: a later turn's subagent must not travel with an earlier cut.
  // A temp of claude's an older nudge copied mid-write is no file of the session's.
  const sideFiles = (await listFiles(side)).filter((rel) => !claudeTempFile(path.basename(rel)));
  const keys = sideFiles.map(sideKey);
  const named = bytes < size ? await namesIn(rawCopy, keys) : null;
  // A subagent's large tool results are named in its own transcript, which is kept when the main one names the agent.
  if (named) {
    const agents = sideFiles.filter((rel) => /^agent-.+\.jsonl$/.test(path.basename(rel)) && named.has(sideKey(rel)));
    for (const rel of agents) for (const key of await namesIn(path.join(side, rel), keys)) named.add(key);
  }
  for (const rel of sideFiles) {
    const name = `claude/${cut.claudeSessionId}/${rel}`;
    if (!isEntryPath(entry(name))) {
      skipped.push(name);
      continue;
    }
    if (named && !named.has(sideKey(rel))) continue;
    const from = path.join(side, rel);
    const dest = path.join(out, name);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    if (rel.endsWith(".jsonl")) findings.push(...(await secretsOf(from, dest, { file: entry(name) }, redact)));
    else {
      const scanned = await scanAndMaskText(await fs.readFile(from), { file: entry(name) }, redact);
      await fs.writeFile(dest, scanned.data, { flag: "wx" });
      findings.push(...scanned.findings);
    }
    files.push({ path: entry(name), source: { file: dest } });
  }
  return { findings, files, skipped, lengths, bytes };
}

/** What a transcript calls a side file: `agent-<id>.jsonl` and `.meta.json` by the agent's id, tool results by file name. */
function sideKey(rel: string): string {
  const base = path.basename(rel);
  return /^agent-(.+?)(?:\.meta)?\.jsonl?$/.exec(base)?.[1] ?? base;
}

/** NDJSON `src` into `dest`: masked, or copied as it is and only scanned. */
export async function secretsOf(
  src: string,
  dest: string,
  options: { file: string; turnOfLine?: (line: number) => number | undefined },
  redact: boolean,
): Promise<SecretFinding[]> {
  if (redact) return maskNdjsonFile(src, dest, options);
  await fs.copyFile(src, dest, fs.constants.COPYFILE_EXCL);
  return scanNdjsonFile(dest, options);
}
