/**
 * `session export --html`: the session's web page as one self-contained file, masked exactly as
 * the tarball is. The same plan (turns 0..N, unsaved turns left out), the same refusal when the
 * code changes hold a secret (code is never masked), and the same masking of everything else:
 * the view's texts are written as NDJSON lines and copied through maskNdjsonFile, which masks the
 * decoded JSON strings of the tarball's conversation and journal (secrets.ts). Diffs are code,
 * and pass as they are, as the tarball's patches do.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { beginWork } from "../store/cut-off-work.js";
import type { Store, StoredSession } from "../store/store.js";
import { refuseLinksWithin } from "../store/bundle-links.js";
import { pageDocument } from "./page/document.js";
import { readPageAssets } from "./page/assets.js";
import { summaryOf } from "../store/summary.js";
import { sessionView, turnView } from "../view/session-views.js";
import type { SessionView, TurnView } from "../view/view-types.js";
import { scanCode, type CodeSecret } from "../sharing/code-secrets.js";
import { planExport } from "../sharing/export-plan.js";
import { codeSecretError } from "../sharing/code-secret-error.js";
import { maskNdjsonFile, scanNdjsonFile, summarizeFindings } from "../secrets/secrets.js";

export interface HtmlExportOptions {
  upto: number | null;
  redact: boolean;
  allowSecretsInCode: boolean;
}

export interface HtmlExportResult {
  html: string;
  turns: number;
  upto: number | null;
  masked: ReturnType<typeof summarizeFindings>;
  kept: ReturnType<typeof summarizeFindings>;
  codeSecrets: CodeSecret[];
  leftOut: number;
}

/** What the page's data is called in the findings (its one "file"). */
const DATA_NAME = "session.html";

export async function exportHtml(
  store: Store,
  session: StoredSession,
  o: HtmlExportOptions,
): Promise<HtmlExportResult> {
  const manifest = session.manifest;
  await refuseLinksWithin(session.dir);
  const plan = planExport(manifest, o.upto);
  // The page carries the turns' diffs, not the history under them: their content, names and link targets are what is scanned.
  const codeSecrets = (await scanCode(store.repoRoot, plan.tip, manifest.repo.baseCommit, plan.turns)).secrets;
  if (codeSecrets.length && !o.allowSecretsInCode) throw codeSecretError(codeSecrets, []);

  const numbers = new Set(plan.turns.map((t) => t.n));
  const whole = await sessionView(store, manifest.id);
  // The header as the tarball's manifest has it: counted over the exported turns only, so a page cut
  // at --upto N names no later prompt, cost or time.
  const { turns: asked, costUsd, durationMs, firstPrompt, lastPrompt } = summaryOf(plan.turns);
  const view: SessionView = {
    ...whole,
    session: {
      ...whole.session,
      updatedAt: plan.exportedAt,
      turns: asked,
      costUsd,
      durationMs,
      firstPrompt,
      lastPrompt,
    },
    turns: whole.turns.filter((t) => numbers.has(t.n)),
    pending: null,
  };
  const turns: TurnView[] = [];
  for (const t of plan.turns) turns.push(await turnView(store, manifest.id, t.n, { full: true }));

  const masked = await maskTexts(store, manifest.id, view, turns, o.redact);
  const { script, css } = await readPageAssets();
  // From the masked header: the title is text of the page like any other.
  const title = `${masked.view.session.firstPrompt?.replace(/\s+/g, " ").slice(0, 80) ?? "(no prompt)"} · nudge session ${manifest.id}`;
  const html = pageDocument({
    mode: "static",
    data: { session: masked.view, turns: masked.turns },
    title,
    script,
    css,
  });
  const summary = summarizeFindings(masked.findings);
  return {
    html,
    turns: plan.turns.filter((t) => t.n > 0).length,
    upto: plan.upto,
    masked: o.redact ? summary : [],
    kept: o.redact ? [] : summary,
    codeSecrets,
    leftOut: plan.leftOut,
  };
}

/**
 * Line 1: the session view; line n+2: turn n without its diffs. Masked (or, with --no-redact,
 * only scanned) by the tarball's own NDJSON masking, in the store's work folder.
 */
async function maskTexts(store: Store, id: string, view: SessionView, turns: TurnView[], redact: boolean) {
  const work = await beginWork(store, "export", `an HTML export of session ${id}`);
  try {
    const raw = path.join(work.dir, "page-data.jsonl");
    const lines = [view, ...turns.map(({ summary, entries }) => ({ summary, entries }))];
    await fs.writeFile(raw, lines.map((l) => JSON.stringify(l) + "\n").join(""), { flag: "wx" });
    const options = { file: DATA_NAME, turnOfLine: (line: number) => turns[line - 2]?.summary.n };
    if (!redact) return { view, turns, findings: await scanNdjsonFile(raw, options) };
    const dest = path.join(work.dir, "page-data.masked.jsonl");
    const findings = await maskNdjsonFile(raw, dest, options);
    const [first, ...rest] = (await fs.readFile(dest, "utf8"))
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    return {
      view: first as SessionView,
      turns: turns.map((t, i) => ({ ...t, ...(rest[i] as Pick<TurnView, "summary" | "entries">) })),
      findings,
    };
  } finally {
    await work.finish();
  }
}
