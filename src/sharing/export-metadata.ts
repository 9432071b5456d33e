/**
 * The free text an export's own records hold besides the logs: the manifest's branch, worktree
 * name, folders, claude's model and version and the summary's prompts; the index's exporter
 * (git user.name and user.email) and folders. None of it is code, so a secret in it (a branch
 * named after a ticket and a token, a folder holding a key) is masked like the conversation,
 * one detection for all of it. Ids, hashes and times are not free text and are left alone.
 */
import type { ManifestHeader } from "../store/manifest-schema.js";
import type { ExportIndex } from "./export-index.js";
import { INDEX_NAME } from "./export-index.js";
import { maskText, type SecretFinding } from "../secrets/secrets.js";
import { SecretBatch } from "../secrets/secret-batch.js";

type Exported = ExportIndex["exported"];

/** Header and index fields with every secret masked (or, without `redact`, as they were), and what was found. */
export async function maskMetadata(
  header: ManifestHeader,
  exported: Exported,
  manifestEntry: string,
  redact: boolean,
): Promise<{ header: ManifestHeader; exported: Exported; findings: SecretFinding[] }> {
  const h = structuredClone(header);
  const e = structuredClone(exported);
  const fields: Array<{ file: string; get: () => string | null | undefined; set: (value: string) => void }> = [
    { file: manifestEntry, get: () => h.repo.root, set: (v) => (h.repo.root = v) },
    { file: manifestEntry, get: () => h.repo.cwd, set: (v) => (h.repo.cwd = v) },
    { file: manifestEntry, get: () => h.repo.branch, set: (v) => (h.repo.branch = v) },
    { file: manifestEntry, get: () => h.repo.worktree, set: (v) => (h.repo.worktree = v) },
    { file: manifestEntry, get: () => h.claude.version, set: (v) => (h.claude.version = v) },
    { file: manifestEntry, get: () => h.claude.model, set: (v) => (h.claude.model = v) },
    { file: manifestEntry, get: () => h.summary.firstPrompt, set: (v) => (h.summary.firstPrompt = v) },
    { file: manifestEntry, get: () => h.summary.lastPrompt, set: (v) => (h.summary.lastPrompt = v) },
    { file: INDEX_NAME, get: () => e.by.name, set: (v) => (e.by.name = v) },
    { file: INDEX_NAME, get: () => e.by.email, set: (v) => (e.by.email = v) },
    { file: INDEX_NAME, get: () => e.repoRoot, set: (v) => (e.repoRoot = v) },
    { file: INDEX_NAME, get: () => e.cwd, set: (v) => (e.cwd = v) },
    { file: INDEX_NAME, get: () => e.claudeProjectDir, set: (v) => (e.claudeProjectDir = v) },
  ];
  const findings: SecretFinding[] = [];
  const batch = new SecretBatch<(typeof fields)[number]>((field, spans, text) => {
    for (const s of [...spans].sort((a, b) => a.start - b.start))
      findings.push({ kind: s.kind, file: field.file, line: 1, start: s.start, end: s.end });
    if (redact) field.set(maskText(text, spans));
  });
  for (const field of fields) {
    const value = field.get();
    if (value) await batch.add(field, value);
  }
  await batch.flush();
  return { header: h, exported: e, findings };
}
