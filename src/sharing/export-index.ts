/**
 * The index of an export tarball, `<top>/nudge-export.json`: always the archive's first entry, so
 * a reader knows what to expect (every other entry, its size and sha256) before it writes a byte.
 * The single source of truth for it; `schemas/export.schema.json` is generated from this.
 */
import * as z from "../base/zod.js";
import { ENTRY_PATH, MAX_PATH_LENGTH, collisionKey, parentFolders } from "./archive-path.js";

export const EXPORT_KIND = "nudge-export";
/** Bumped when a reader of the previous format could misread an archive of the new one. */
export const EXPORT_FORMAT = 1;
export const INDEX_NAME = "nudge-export.json";

const sha = z.string().check(z.regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, "a git object id"));
const sha256 = z.string().check(z.regex(/^[0-9a-f]{64}$/, "a sha256 in hex"));
const isoTime = z.iso.datetime({ offset: true });
const claudeId = z.string().check(z.regex(/^[A-Za-z0-9_-]{1,128}$/, "a claude session id"));
const entryPath = z
  .string()
  .check(
    z.maxLength(MAX_PATH_LENGTH),
    z.regex(ENTRY_PATH, "a path of segments of letters, digits, '.', '_', '-' (no '.' or '..')"),
  );
const absolutePath = z.string().check(z.startsWith("/"), z.maxLength(4096));

const ExportEntrySchema = z.object({
  path: entryPath.check(z.describe("inside the top folder, e.g. session/conversation.jsonl")),
  bytes: z.int().check(z.nonnegative()),
  sha256,
});

const MaskedSchema = z.object({
  kind: z
    .string()
    .check(z.regex(/^[a-z0-9-]{1,64}$/), z.describe("what was masked, as in its placeholder: [REDACTED:<kind>]")),
  file: entryPath,
  count: z.int().check(z.positive()),
  turns: z.array(z.int().check(z.nonnegative())).check(z.describe("the turns the masked lines belong to, where known")),
});

const ExportGitSchema = z.object({
  bundle: entryPath.check(z.describe("the git bundle holding the session's commits")),
  objectFormat: z.enum(["sha1", "sha256"]),
  prerequisites: z
    .array(
      z.object({
        commit: sha,
        remoteRef: z
          .nullable(z.string())
          .check(z.describe("a remote-tracking branch holding it, for the hint to fetch it")),
      }),
    )
    .check(z.describe("commits the bundle is thin against: the importing clone must have them")),
  carried: z
    .array(sha)
    .check(
      z.describe("the base commit and recorded HEADs that were on no remote-tracking branch, carried in the bundle"),
    ),
  rootCommits: z.optional(
    z
      .array(sha)
      .check(
        z.maxLength(16),
        z.describe(
          "the root commits of the base commit's history: a clone with none of them is another project, not one lacking recent commits (absent in exports of older nudges)",
        ),
      ),
  ),
});

export const ExportIndexSchema = z
  .object({
    kind: z.literal(EXPORT_KIND),
    format: z.literal(EXPORT_FORMAT),
    nudgeVersion: z.string().check(z.maxLength(64)),
    exported: z.object({
      at: isoTime.check(
        z.describe(
          "the session's time the export is as of (its last update, or turn N's end with --upto): with the session id, it tells an export imported twice",
        ),
      ),
      writtenAt: z.optional(
        isoTime.check(
          z.describe(
            "when the export was written, by the exporter's clock ($SOURCE_DATE_EPOCH when set); absent in exports of older nudges",
          ),
        ),
      ),
      by: z
        .object({
          name: z.nullable(z.string().check(z.maxLength(256))),
          email: z.nullable(z.string().check(z.maxLength(256))),
        })
        .check(z.describe("git config user.name / user.email of the exporter")),
      repoRoot: absolutePath.check(z.describe("the work tree the session was recorded in")),
      cwd: absolutePath.check(z.describe("the folder claude ran in (its transcripts name it in every record)")),
      claudeProjectDir: z
        .nullable(absolutePath)
        .check(z.describe("where claude kept the transcripts: paths under it are rewritten on import")),
    }),
    session: z.object({
      id: z.string().check(z.regex(/^[0-9a-z]{8,32}$/)),
      turns: z.int().check(z.nonnegative(), z.describe("how many turns the export holds")),
      upto: z.nullable(z.int().check(z.nonnegative())).check(z.describe("set by --upto: the last turn exported")),
      claudeSessionIds: z.array(claudeId),
    }),
    git: z.nullable(ExportGitSchema),
    masked: z
      .array(MaskedSchema)
      .check(z.describe("secrets replaced by placeholders in this copy (never in the local recording)")),
    entries: z.array(ExportEntrySchema).check(z.describe("every other entry of the archive, sorted by path")),
  })
  .check(
    z.superRefine((index, ctx) => {
      const files = new Set(index.entries.map((e) => e.path));
      const names = new Map<string, string>(); // collision key → the file or folder name that has it
      const issue = (message: string) => ctx.addIssue({ code: "custom", message, path: ["entries"] });
      for (const entry of index.entries) {
        const folder = parentFolders(entry.path).find((f) => files.has(f));
        if (folder) issue(`"${folder}" is both a file and the folder of "${entry.path}"`);
        for (const name of [...parentFolders(entry.path), entry.path]) {
          const other = names.get(collisionKey(name));
          if (other === undefined) names.set(collisionKey(name), name);
          else if (name === entry.path && other === name) issue(`"${name}" is listed twice`);
          else if (other !== name) issue(`"${name}" and "${other}" name the same file on a case-insensitive disk`);
        }
      }
    }),
  );

export type ExportIndex = z.infer<typeof ExportIndexSchema>;
export type ExportEntry = z.infer<typeof ExportEntrySchema>;

/** What a reader checks first, so an index from a newer nudge is told apart from a damaged one. */
export const IndexEnvelopeSchema = z.object({ kind: z.literal(EXPORT_KIND), format: z.int().check(z.positive()) });
