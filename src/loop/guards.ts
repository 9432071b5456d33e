/**
 * The loop's guards: signs that it is going nowhere, each with its own threshold (null: off).
 * - no-change: K iterations in a row in which no file changed (neither claude's turn nor edits
 *   made between turns);
 * - repeat: the same tool call (name and input) K times with no file edited in between, within a
 *   turn or across turns — tripped the moment it happens, so a turn spinning on one call is cut;
 * - same-output: the check printed the same thing as the time before, K times in a row (timings
 *   and clock times are ignored: they differ on every run).
 */
import type { Turn } from "../store/manifest-schema.js";
import { stableJson } from "../base/stable-json.js";
import { oneLine } from "../base/format.js";

export interface GuardSettings {
  noChange: number | null;
  repeat: number | null;
  sameOutput: number | null;
}

export const DEFAULT_GUARDS: GuardSettings = { noChange: 3, repeat: 5, sameOutput: 3 };

export type GuardName = "no-change" | "repeat" | "same-output";

export interface Trip {
  guard: GuardName;
  /** The flag that sets it, as the summary names it ("--guard-no-change 3"). */
  flag: string;
  message: string;
}

/** Tools whose call changes files: after one, reading or testing the same thing again is progress. */
const EDITING_TOOLS = new Set(["Write", "Edit", "MultiEdit", "NotebookEdit"]);

export class Guards {
  private unchanged = 0;
  private sameOutputs = 0;
  private lastOutput: string | null = null;
  private readonly calls = new Map<string, number>();
  private readonly seen = new Set<string>();

  constructor(private readonly settings: GuardSettings) {}

  /** The check run before the first turn: the first iteration's output is compared with it. */
  baseline(check: { exitCode: number | null; output: string }): void {
    this.lastOutput = outputKey(check);
  }

  /** One tool call seen in claude's stream (each tool_use id counts once). */
  toolCall(id: string, name: string, input: unknown): Trip | null {
    if (this.seen.has(id)) return null;
    this.seen.add(id);
    const key = `${name}\u0000${stableJson(input)}`;
    if (EDITING_TOOLS.has(name))
      for (const other of [...this.calls.keys()]) if (other !== key) this.calls.delete(other);
    const count = (this.calls.get(key) ?? 0) + 1;
    this.calls.set(key, count);
    const k = this.settings.repeat;
    if (k === null || count < k) return null;
    this.calls.delete(key);
    return {
      guard: "repeat",
      flag: `--guard-repeat ${k}`,
      message: `${describeCall(name, input)} was called ${count} times with the same input and no edit in between`,
    };
  }

  /** A turn and its check: a trip when the loop has stopped moving. */
  iteration(turn: Turn, check: { exitCode: number | null; output: string } | null): Trip | null {
    const changed = turn.patch.filesChanged > 0 || (turn.edits?.patch.filesChanged ?? 0) > 0;
    if (changed) {
      this.unchanged = 0;
      this.calls.clear();
    } else this.unchanged++;
    // No check (a promise alone ends the loop), or a verifier's turn: no output to compare.
    if (check) {
      const key = outputKey(check);
      this.sameOutputs = this.lastOutput !== null && key === this.lastOutput ? this.sameOutputs + 1 : 0;
      this.lastOutput = key;
    }
    const { noChange, sameOutput } = this.settings;
    if (noChange !== null && this.unchanged >= noChange) {
      return {
        guard: "no-change",
        flag: `--guard-no-change ${noChange}`,
        message: `no file changed in ${this.unchanged} iteration${this.unchanged === 1 ? "" : "s"} in a row`,
      };
    }
    if (sameOutput !== null && this.sameOutputs >= sameOutput) {
      return {
        guard: "same-output",
        flag: `--guard-same-output ${sameOutput}`,
        message: `the check's output has not changed in ${this.sameOutputs} iteration${this.sameOutputs === 1 ? "" : "s"}`,
      };
    }
    return null;
  }

  /** The user chose to go on: that guard counts afresh. */
  reset(guard: GuardName): void {
    if (guard === "no-change") this.unchanged = 0;
    else if (guard === "same-output") this.sameOutputs = 0;
    else this.calls.clear();
  }
}

function describeCall(name: string, input: unknown): string {
  const i = (input ?? {}) as Record<string, unknown>;
  const main = [i.command, i.file_path, i.path, i.pattern, i.url].find((v) => typeof v === "string");
  return `${name}(${oneLine(typeof main === "string" ? main : stableJson(input), 60)})`;
}

/** The output with what changes on every run anyway (durations, clock times, addresses) blanked. */
export function normalizeOutput(output: string): string {
  return output
    .replace(/\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?/g, "<time>")
    .replace(/\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b/g, "<time>")
    .replace(/\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|secs|seconds?|m|min|mins|minutes?)\b/g, "<duration>")
    .replace(/\b0x[0-9a-f]{6,}\b/gi, "<addr>")
    .replace(/[ \t]+$/gm, "");
}

function outputKey(check: { exitCode: number | null; output: string }): string {
  return `${check.exitCode}\u0000${normalizeOutput(check.output)}`;
}
