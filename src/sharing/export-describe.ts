/**
 * An export in words, the same from the CLI and from the web page: what it will hold (the web's
 * plan, from the manifest alone), and what was written — size, secrets masked or kept, the code's
 * commits and what the importing clone must have.
 */
import path from "node:path";
import type { ExportPlan } from "./export-plan.js";
import type { ExportResult } from "./export-session.js";
import { formatBytes } from "./limits.js";
import { describeCodeSecret } from "./code-secret-error.js";

/** Before exporting: which turns go, and what is done to them. */
export function describeExportPlan(plan: ExportPlan): string[] {
  const last = plan.turns.at(-1)!.n;
  const lines = [
    `export session ${plan.id}: turns 0 to ${last}${plan.upto === null ? "" : ` (up to turn ${plan.upto})`}, as one .tar.gz any clone of the repository can import`,
    "  secrets in the conversation, the transcripts and the turn records are masked in the copy (your recording is not changed)",
    "  refused if the code changes hold a secret (code is never masked)",
  ];
  if (plan.leftOut)
    lines.push(
      `  left out: ${plan.leftOut} turn${plan.leftOut === 1 ? "" : "s"} not saved yet (the session is being recorded or crashed)`,
    );
  return lines;
}

/** After: what was written, `to` where (as shown to the user), and how to import it. */
export function describeExported(
  result: ExportResult,
  carried: Array<{ what: string }>,
  o: { to: string; excludedIn: string | null; importName: string },
): string[] {
  const lines: string[] = [];
  const say = (line: string) => void lines.push(line);
  const upto = result.index.session.upto;
  say(
    `exported session ${result.index.session.id} → ${o.to} (${formatBytes(result.bytes)}, ${result.turns} turn${result.turns === 1 ? "" : "s"}${upto === null ? "" : `, up to turn ${upto}`})`,
  );
  say(`  masked: ${result.masked.length ? describeSecrets(result.masked) : "no secrets found"}`);
  if (result.kept.length) say(`  kept verbatim (--no-redact): ${describeSecrets(result.kept)}`);
  for (const s of result.codeSecrets)
    say(
      `  secret in the code, exported as it is (--allow-secrets-in-code): ${s.kind} in ${describeCodeSecret({ ...s, turn: null })}${s.turn === null ? " (in the history it carries)" : `, turn ${s.turn}`}`,
    );
  say(`  code: ${describeCode(carried, result.index.git?.prerequisites ?? [])}`);
  if (result.leftOut)
    say(
      `  left out: ${result.leftOut} turn${result.leftOut === 1 ? "" : "s"} not saved yet (the session is being recorded or crashed)`,
    );
  if (result.skipped.length)
    say(`  left out: ${result.skipped.length} of claude's side files whose names an export cannot carry`);
  if (o.excludedIn) say(`  kept out of your next turns: it is inside the work tree, so ${o.excludedIn} now names it`);
  say(`import it in any clone of the repository: nudge session import ${o.importName}`);
  return lines;
}

/** Which carried commits they are, for the user: the base, or a HEAD Claude's commits made. */
export function describeCarried(
  result: ExportResult,
  manifest: { repo: { baseCommit: string | null }; turns: Array<{ n: number; head: string | null }> },
) {
  return (result.index.git?.carried ?? []).map((commit) => {
    const turn = manifest.turns.find((t) => t.head === commit && commit !== manifest.repo.baseCommit);
    return {
      commit,
      what: turn ? `the HEAD of turn ${turn.n} (${commit.slice(0, 10)})` : `the base commit ${commit.slice(0, 10)}`,
    };
  });
}

/** What the git bundle carries, and what it builds on that the importing clone must have. */
function describeCode(
  carried: Array<{ what: string }>,
  prerequisites: Array<{ commit: string; remoteRef: string | null }>,
): string {
  const on = prerequisites
    .map((p) => `${p.commit.slice(0, 10)}${p.remoteRef ? ` (on ${p.remoteRef})` : ""}`)
    .join(", ");
  const builds = prerequisites.length ? `it builds on ${on}, which the importing clone must have` : "";
  if (carried.length)
    return `carries ${carried.map((c) => c.what).join(" and ")}, on no remote-tracking branch here${builds ? `; ${builds}` : ""}`;
  return builds ? `thin; ${builds}` : "self-contained (the bundle holds every commit it needs)";
}

/** By kind: how many, in which turns, in which files (by name). */
export function describeSecrets(found: ExportResult["masked"]): string {
  const kinds = new Map<string, { count: number; turns: Set<number>; files: Set<string> }>();
  for (const m of found) {
    const kind = kinds.get(m.kind) ?? { count: 0, turns: new Set<number>(), files: new Set<string>() };
    kind.count += m.count;
    m.turns.forEach((t) => kind.turns.add(t));
    kind.files.add(path.basename(m.file));
    kinds.set(m.kind, kind);
  }
  return [...kinds]
    .map(([kind, k]) => {
      const turns = [...k.turns].sort((a, b) => a - b);
      return `${kind} ×${k.count}${turns.length ? ` from turn${turns.length > 1 ? "s" : ""} ${turns.join(", ")}` : ""} (in ${[...k.files].join(", ")})`;
    })
    .join("; ");
}
