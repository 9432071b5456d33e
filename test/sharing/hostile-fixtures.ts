/**
 * One hostile export tarball per way an import must refuse, and the exact line it must refuse with.
 * The files under fixtures/sharing/hostile/ are made by this script, deterministically:
 *
 *     npx tsx test/sharing/hostile-fixtures.ts
 *
 * (test/sharing/hostile.test.ts fails when a committed file differs from what this makes.)
 * They are built by hand, header by header, because nudge's own writer cannot make them.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { Header, Pax } from "tar";

export const TOP = "nudge-hostile01";
export const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../fixtures/sharing/hostile");
/**
 * Hostile exports whose archive is sound, which only the import's own checks (journal, refs,
 * snapshots) must refuse. These hold a real recording, so they cannot be made here byte for byte;
 * each is stored as made, and fixtures/sharing/hostile-import/README.md says how.
 */
export const HOSTILE_IMPORTS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../fixtures/sharing/hostile-import",
);
/** Where the link cases point: the test checks nothing appears there. */
export const OUTSIDE = "/tmp/nudge-hostile-outside";

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

export interface HostileCase {
  name: string;
  /** What it tries, in a few words. */
  what: string;
  bytes: () => Buffer;
  /** The refusal after "refusing <name>.tar.gz: ". */
  refusal: string;
}

type EntryType =
  "File" | "Directory" | "SymbolicLink" | "Link" | "CharacterDevice" | "BlockDevice" | "FIFO" | "SparseFile";

/** One ustar header block, fields fixed as nudge writes them unless given. */
export function header(name: string, size: number, type: EntryType = "File", linkpath = ""): Buffer {
  const block = Buffer.alloc(512);
  new Header({
    path: name,
    mode: type === "Directory" ? 0o755 : 0o644,
    uid: 0,
    gid: 0,
    size,
    mtime: new Date("2000-01-01T00:00:00Z"),
    type,
    linkpath,
    uname: "",
    gname: "",
  }).encode(block);
  return block;
}

function body(data: Buffer): Buffer {
  return Buffer.concat([data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}

export function file(name: string, data: Buffer | string): Buffer {
  const bytes = Buffer.from(data);
  return Buffer.concat([header(name, bytes.length), body(bytes)]);
}

const END = Buffer.alloc(1024);

export function tar(...parts: Buffer[]): Buffer {
  return Buffer.concat([...parts, END]);
}

export function gz(data: Buffer): Buffer {
  const out = gzipSync(data, { level: 9 });
  out[9] = 255;
  return out;
}

function sha256(data: Buffer | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A valid index listing `entries` (path inside the top folder → content or declared size). */
function index(
  entries: Record<string, string | { bytes: number; sha256?: string }>,
  change: (index: Record<string, unknown>) => void = () => undefined,
): Buffer {
  const value: Record<string, unknown> = {
    kind: "nudge-export",
    format: 1,
    nudgeVersion: "0.1.0",
    exported: {
      at: "2026-11-21T00:00:00.000Z",
      by: { name: "Mallory", email: null },
      repoRoot: "/home/mallory/app",
      cwd: "/home/mallory/app",
      claudeProjectDir: null,
    },
    session: { id: "hostile01", turns: 0, upto: null, claudeSessionIds: [] },
    git: null,
    masked: [],
    entries: Object.entries(entries).map(([p, c]) =>
      typeof c === "string"
        ? { path: p, bytes: Buffer.byteLength(c), sha256: sha256(c) }
        : { path: p, bytes: c.bytes, sha256: c.sha256 ?? sha256("") },
    ),
  };
  change(value);
  return Buffer.from(JSON.stringify(value, null, 2) + "\n");
}

export function indexEntry(...args: Parameters<typeof index>): Buffer {
  return file(`${TOP}/nudge-export.json`, index(...args));
}

const NOTES = "some notes\n";
const valid = () => tar(indexEntry({ "notes.txt": NOTES }), file(`${TOP}/notes.txt`, NOTES));

export const hostileCases: HostileCase[] = [
  {
    name: "garbage",
    what: "not gzip at all",
    bytes: () => Buffer.from("this is not a tarball\n".repeat(20)),
    refusal: "it is not a gzip file",
  },
  {
    name: "truncated-gzip",
    what: "a gzip cut short",
    bytes: () => gz(valid()).subarray(0, 60),
    refusal: "it is truncated (the gzip stream ends early)",
  },
  {
    name: "not-tar",
    what: "gzip of text",
    bytes: () => gz(Buffer.from("hello ".repeat(200))),
    refusal: "it has a damaged tar header (checksum mismatch)",
  },
  {
    name: "nested-gzip",
    what: "a gzip inside the gzip (never inflated again)",
    bytes: () => gz(gz(valid())),
    refusal: "it is not a tar archive (too short)",
  },
  { name: "empty", what: "an archive without entries", bytes: () => gz(END), refusal: "it holds no entries" },
  {
    name: "missing-index",
    what: "no nudge-export.json",
    bytes: () => gz(tar(file(`${TOP}/notes.txt`, NOTES))),
    refusal: `its first entry is "${TOP}/notes.txt", not the index nudge-export.json`,
  },
  {
    name: "index-not-first",
    what: "the index after another entry",
    bytes: () => gz(tar(file(`${TOP}/notes.txt`, NOTES), indexEntry({ "notes.txt": NOTES }))),
    refusal: `its first entry is "${TOP}/notes.txt", not the index nudge-export.json`,
  },
  {
    name: "index-not-json",
    what: "an index that is not JSON",
    bytes: () => gz(tar(file(`${TOP}/nudge-export.json`, "{ nope"))),
    refusal: "its index nudge-export.json is not valid JSON",
  },
  {
    name: "index-bad-schema",
    what: "an index failing its schema",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "notes.txt": NOTES }, (i) => delete i.exported),
          file(`${TOP}/notes.txt`, NOTES),
        ),
      ),
    refusal:
      "its index does not match the export schema (exported: Invalid input: expected object, received undefined)",
  },
  {
    name: "index-newer-format",
    what: "an index from a newer nudge",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "notes.txt": NOTES }, (i) => (i.format = 2)),
          file(`${TOP}/notes.txt`, NOTES),
        ),
      ),
    refusal: "it was made by a newer nudge (export format 2; this nudge reads format 1)",
  },
  {
    name: "index-too-large",
    what: "an index bigger than nudge reads",
    bytes: () => gz(Buffer.concat([header(`${TOP}/nudge-export.json`, 17 * MiB), Buffer.alloc(1024)])),
    refusal: "its index is 17 MiB, more than the 16 MiB nudge reads",
  },
  {
    name: "dotdot",
    what: "a path climbing out with ..",
    bytes: () => gz(tar(indexEntry({}), file(`${TOP}/../evil.txt`, "pwned\n"))),
    refusal: `entry "${TOP}/../evil.txt" climbs out of the archive (..)`,
  },
  {
    name: "absolute",
    what: "an absolute path",
    bytes: () => gz(tar(indexEntry({}), file(`${OUTSIDE}/evil.txt`, "pwned\n"))),
    refusal: `entry "${OUTSIDE}/evil.txt" has an absolute path`,
  },
  {
    name: "backslash",
    what: "a Windows-style path climbing out",
    bytes: () => gz(tar(indexEntry({}), file(`${TOP}/..\\..\\evil.txt`, "pwned\n"))),
    refusal: `entry "${TOP}/..\\\\..\\\\evil.txt" climbs out of the archive (..)`,
  },
  {
    name: "control-bytes",
    what: "a name with a terminal escape sequence",
    bytes: () => gz(tar(indexEntry({}), file(`${TOP}/notes\u001b[31m.txt`, "x"))),
    refusal: `entry "${TOP}/notes\\u001b[31m.txt" has a name nudge never writes`,
  },
  {
    name: "outside-top",
    what: "an entry beside the top folder",
    bytes: () => gz(tar(indexEntry({}), file("elsewhere/evil.txt", "pwned\n"))),
    refusal: `entry "elsewhere/evil.txt" is outside the archive's top folder ${TOP}`,
  },
  {
    name: "symlink",
    what: "a symbolic link",
    bytes: () => gz(tar(indexEntry({}), header(`${TOP}/link`, 0, "SymbolicLink", "/etc/passwd"))),
    refusal: `entry "${TOP}/link" is a symbolic link`,
  },
  {
    name: "symlink-then-file",
    what: "a link to a folder outside, then a file through it",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "dir/evil.txt": "pwned\n" }),
          header(`${TOP}/dir`, 0, "SymbolicLink", OUTSIDE),
          file(`${TOP}/dir/evil.txt`, "pwned\n"),
        ),
      ),
    refusal: `entry "${TOP}/dir" is a symbolic link`,
  },
  {
    name: "hardlink",
    what: "a hard link",
    bytes: () => gz(tar(indexEntry({}), header(`${TOP}/hard`, 0, "Link", `${TOP}/nudge-export.json`))),
    refusal: `entry "${TOP}/hard" is a hard link`,
  },
  {
    name: "chardev",
    what: "a character device",
    bytes: () => gz(tar(indexEntry({}), header(`${TOP}/tty`, 0, "CharacterDevice"))),
    refusal: `entry "${TOP}/tty" is a device`,
  },
  {
    name: "blockdev",
    what: "a block device",
    bytes: () => gz(tar(indexEntry({}), header(`${TOP}/sda`, 0, "BlockDevice"))),
    refusal: `entry "${TOP}/sda" is a device`,
  },
  {
    name: "fifo",
    what: "a FIFO",
    bytes: () => gz(tar(indexEntry({}), header(`${TOP}/pipe`, 0, "FIFO"))),
    refusal: `entry "${TOP}/pipe" is a FIFO`,
  },
  {
    name: "sparse",
    what: "another tar type (GNU sparse)",
    bytes: () => gz(tar(indexEntry({}), header(`${TOP}/sparse`, 0, "SparseFile"))),
    refusal: `entry "${TOP}/sparse" is of tar type "S", not a regular file`,
  },
  {
    name: "pax-header",
    what: "a pax header renaming the next entry",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "notes.txt": NOTES }),
          new Pax({ path: `${TOP}/../evil.txt` }).encode(),
          file(`${TOP}/notes.txt`, NOTES),
        ),
      ),
    refusal: "it has an extended (pax or GNU) header, which nudge never writes",
  },
  {
    name: "unlisted",
    what: "an entry the index does not list",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "notes.txt": NOTES }),
          file(`${TOP}/notes.txt`, NOTES),
          file(`${TOP}/extra.txt`, "surprise\n"),
        ),
      ),
    refusal: `entry "${TOP}/extra.txt" is not listed in the index`,
  },
  {
    name: "unlisted-folder",
    what: "a folder entry the index does not imply",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "notes.txt": NOTES }),
          file(`${TOP}/notes.txt`, NOTES),
          header(`${TOP}/hidden/`, 0, "Directory"),
        ),
      ),
    refusal: `entry "${TOP}/hidden/" is not listed in the index`,
  },
  {
    name: "duplicate",
    what: "the same entry twice",
    bytes: () =>
      gz(tar(indexEntry({ "notes.txt": NOTES }), file(`${TOP}/notes.txt`, NOTES), file(`${TOP}/notes.txt`, NOTES))),
    refusal: `entry "${TOP}/notes.txt" appears twice`,
  },
  {
    name: "case-collision",
    what: "two names that are one file on macOS or Windows",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "Notes.txt": NOTES, "notes.txt": NOTES }),
          file(`${TOP}/Notes.txt`, NOTES),
          file(`${TOP}/notes.txt`, NOTES),
        ),
      ),
    refusal:
      'its index does not match the export schema (entries: "notes.txt" and "Notes.txt" name the same file on a case-insensitive disk)',
  },
  {
    name: "case-collision-folder",
    what: "two folders that are one on macOS or Windows",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "Claude/a.txt": NOTES, "claude/b.txt": NOTES }),
          file(`${TOP}/Claude/a.txt`, NOTES),
          file(`${TOP}/claude/b.txt`, NOTES),
        ),
      ),
    refusal:
      'its index does not match the export schema (entries: "claude" and "Claude" name the same file on a case-insensitive disk)',
  },
  {
    name: "file-and-folder",
    what: "a name that is both a file and a folder",
    bytes: () =>
      gz(tar(indexEntry({ a: NOTES, "a/b.txt": NOTES }), file(`${TOP}/a`, NOTES), file(`${TOP}/a/b.txt`, NOTES))),
    refusal: 'its index does not match the export schema (entries: "a" is both a file and the folder of "a/b.txt")',
  },
  {
    name: "checksum-mismatch",
    what: "content that does not match its sha256",
    bytes: () => gz(tar(indexEntry({ "notes.txt": NOTES }), file(`${TOP}/notes.txt`, NOTES.toUpperCase()))),
    refusal: `entry "${TOP}/notes.txt" does not match its sha256 in the index`,
  },
  {
    name: "size-mismatch",
    what: "an entry larger than the index says",
    bytes: () => gz(tar(indexEntry({ "notes.txt": NOTES }), file(`${TOP}/notes.txt`, NOTES + NOTES))),
    refusal: `entry "${TOP}/notes.txt" is ${2 * NOTES.length} bytes, but the index says ${NOTES.length}`,
  },
  {
    name: "oversized-entry",
    what: "an entry bigger than nudge accepts",
    bytes: () => gz(tar(indexEntry({ "huge.bin": { bytes: 1.5 * GiB } }), header(`${TOP}/huge.bin`, 1.5 * GiB))),
    refusal: `entry "${TOP}/huge.bin" is 1.5 GiB, more than the 256 MiB nudge accepts for one entry`,
  },
  {
    name: "oversized-total",
    what: "entries adding up to more than nudge accepts",
    bytes: () =>
      gz(
        tar(
          indexEntry({ "a.bin": { bytes: 200 * MiB }, "b.bin": { bytes: 200 * MiB }, "c.bin": { bytes: 200 * MiB } }),
        ),
      ),
    refusal: "its entries add up to 600 MiB, more than the 512 MiB nudge accepts",
  },
  {
    name: "zeros-side-file",
    what: "a tool-results side file of 100 MiB of zeros, with its true sha256, in a 100 KiB archive (issue 23.1)",
    bytes: () => {
      const zeros = Buffer.alloc(100 * MiB);
      const side = "session/claude/abc/tool-results/big.txt";
      return gz(
        tar(indexEntry({ [side]: { bytes: zeros.length, sha256: sha256(zeros) } }), file(`${TOP}/${side}`, zeros)),
      );
    },
    refusal:
      "its entries add up to 100 MiB, more than 50 times the archive's size (nudge unpacks that much, or 64 MiB from a smaller one)",
  },
  {
    name: "long-line",
    what: "a transcript with a 40 MiB line, which no reader can hold as one string when it is far longer (issue 23.2)",
    bytes: () => {
      const lines = `{"type":"user"}\n{"type":"assistant","text":"${"a".repeat(40 * MiB)}"}\n`;
      return gz(tar(indexEntry({ "session/claude/abc.jsonl": lines }), file(`${TOP}/session/claude/abc.jsonl`, lines)));
    },
    refusal: `entry "${TOP}/session/claude/abc.jsonl" has a line longer than the 32 MiB nudge reads (line 2)`,
  },
  {
    name: "too-many-entries",
    what: "more entries than nudge accepts",
    bytes: () =>
      gz(tar(indexEntry(Object.fromEntries(Array.from({ length: 20_001 }, (_, i) => [`e/${i}`, { bytes: 0 }]))))),
    refusal: "its index lists 20001 entries, more than the 20000 nudge accepts",
  },
  {
    name: "missing-entry",
    what: "an entry the index lists but the archive lacks",
    bytes: () => gz(tar(indexEntry({ "notes.txt": NOTES, "gone.txt": "x" }), file(`${TOP}/notes.txt`, NOTES))),
    refusal: `entry "${TOP}/gone.txt" is listed in the index but missing`,
  },
  {
    name: "truncated-entry",
    what: "a tar that ends inside an entry",
    bytes: () =>
      gz(
        Buffer.concat([
          indexEntry({ "notes.txt": NOTES.repeat(100) }),
          header(`${TOP}/notes.txt`, NOTES.length * 100),
          Buffer.from(NOTES),
        ]),
      ),
    refusal: `it is truncated (inside entry "${TOP}/notes.txt")`,
  },
  {
    name: "no-end-marker",
    what: "a tar without its end blocks",
    bytes: () => gz(valid().subarray(0, -1024)),
    refusal: "it is truncated (no end-of-archive marker)",
  },
  {
    name: "data-after-end",
    what: "data hidden after the end of the archive",
    bytes: () => gz(Buffer.concat([valid(), file(`${TOP}/hidden.txt`, "after the end\n")])),
    refusal: "it has data after the end of the archive",
  },
  {
    name: "bomb",
    what: "a valid archive followed by 64 MiB of zeros (64 KiB compressed)",
    bytes: () => gz(Buffer.concat([valid(), Buffer.alloc(64 * MiB)])),
    refusal: "it inflates to more than 13.0 KiB, more than its index accounts for (a decompression bomb?)",
  },
];

/** Write every fixture (run this file with tsx). */
function writeFixtures(): void {
  mkdirSync(FIXTURES, { recursive: true });
  for (const c of hostileCases) writeFileSync(path.join(FIXTURES, `${c.name}.tar.gz`), c.bytes());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFixtures();
  process.stdout.write(`wrote ${hostileCases.length} fixtures to ${path.relative(process.cwd(), FIXTURES)}\n`);
}
