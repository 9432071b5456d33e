/**
 * A commit and a ref written by this process, as git writes them, instead of by two git processes
 * (`commit-tree`, `update-ref`): node's spawn and git's start cost a rewind ~5 ms each, and a
 * rewind's backup needs both before any file changes. Only where the bytes are exactly git's and
 * nothing else would happen: a plain repository (sha1 objects, refs in files, no shared
 * permissions, no setting that adds a reflog or an encoding header, no variable that moves the
 * objects or the dates), the tree already there as a loose object, a ref under refs/nudge/. Any
 * doubt or error returns null, and the caller asks git, as before.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomHex } from "../base/random-hex.js";
import { updateRefs } from "./git.js";

/** Variables that change where objects and refs go, what config git reads, or a commit's dates. */
const STEERING = [
  "GIT_DIR",
  "GIT_COMMON_DIR",
  "GIT_OBJECT_DIRECTORY",
  "GIT_QUARANTINE_PATH",
  "GIT_AUTHOR_DATE",
  "GIT_COMMITTER_DATE",
  "GIT_CONFIG",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_CONFIG_NOSYSTEM",
];

/**
 * Config that makes git's writes differ from these: another object or ref format, shared
 * permissions, a reflog for every ref, a commit encoding, fsync asked for, or an include or a
 * worktree's own config that could bring any of them. Matched anywhere in the text, comments too: a false alarm costs a git process.
 */
const NOT_PLAIN =
  /\[\s*include|worktreeconfig|objectformat|refstorage|sharedrepository|logallrefupdates\s*=\s*"?always|commitencoding|fsync/i;

const plain = new Map<string, boolean>();

/** Whether git's own writes in this common dir would be exactly these (its config read once a process). */
function plainRepository(commonDir: string): boolean {
  if (STEERING.some((name) => process.env[name] !== undefined)) return false;
  let known = plain.get(commonDir);
  if (known === undefined) plain.set(commonDir, (known = configsArePlain(commonDir)));
  return known;
}

/**
 * Where git's system config is, by how git was built: Debian and most Linux, Homebrew (Intel and
 * Apple silicon), Apple's command line tools and Xcode. All are read: one that is not this git's
 * can only send the writes to git, never let a setting through.
 */
const SYSTEM_CONFIGS = [
  "/etc/gitconfig",
  "/usr/local/etc/gitconfig",
  "/opt/homebrew/etc/gitconfig",
  "/Library/Developer/CommandLineTools/usr/share/git-core/gitconfig",
  "/Applications/Xcode.app/Contents/Developer/usr/share/git-core/gitconfig",
];

function configsArePlain(commonDir: string): boolean {
  const home = os.homedir();
  const xdg = process.env.XDG_CONFIG_HOME;
  const files = [
    path.join(commonDir, "config"),
    path.join(home, ".gitconfig"),
    path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".config"), "git", "config"),
    ...SYSTEM_CONFIGS,
  ];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") continue;
      return false;
    }
    if (NOT_PLAIN.test(text)) return false;
  }
  return true;
}

/** `commit-tree`'s bytes for this tree, parents, message and time, by nudge (SNAPSHOT_IDENTITY). */
export function commitBody(tree: string, parents: string[], message: string, when: Date): Buffer {
  const seconds = Math.floor(when.getTime() / 1000);
  const offset = -when.getTimezoneOffset();
  const zone = `${offset < 0 ? "-" : "+"}${String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0")}${String(Math.abs(offset) % 60).padStart(2, "0")}`;
  const who = `nudge <nudge@localhost> ${seconds} ${zone}`;
  return Buffer.from(
    [`tree ${tree}`, ...parents.map((p) => `parent ${p}`), `author ${who}`, `committer ${who}`, "", message].join("\n"),
    "utf8",
  );
}

const SHA1 = /^[0-9a-f]{40}$/;

function looseObject(commonDir: string, id: string): string {
  return path.join(commonDir, "objects", id.slice(0, 2), id.slice(2));
}

/**
 * The commit `git commit-tree` would make of them now, written as a loose object; its id, or null
 * (git is to be asked). git checks the tree is there: so does this, as a loose object.
 */
export function writeCommitHere(
  commonDir: string,
  tree: string,
  parents: string[],
  message: string,
  when = new Date(),
): string | null {
  if (![tree, ...parents].every((id) => SHA1.test(id)) || !plainRepository(commonDir)) return null;
  if (!existsSync(looseObject(commonDir, tree))) return null;
  // As git.commitTree gives it to git, which refuses a NUL in a message.
  const body = commitBody(tree, parents, message.replaceAll("\0", "\\0"), when);
  const object = Buffer.concat([Buffer.from(`commit ${body.length}\0`), body]);
  const id = createHash("sha1").update(object).digest("hex");
  const file = looseObject(commonDir, id);
  if (existsSync(file)) return id;
  // As git: written whole under a temporary name in the object's folder, read-only, then renamed into place.
  return writeInPlace(path.join(path.dirname(file), `tmp_obj_${randomHex(6)}`), file, zlibStored(object), 0o444)
    ? id
    : null;
}

/**
 * A zlib stream of `data` in stored (uncompressed) deflate blocks, which git inflates as any other:
 * zlib's first deflate in a process costs ~1.7 ms (loading it, setting it up), more than the
 * couple of hundred bytes compressing a backup's commit would save.
 */
export function zlibStored(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x78, 0x01])];
  for (let at = 0; ; at += 0xffff) {
    const block = data.subarray(at, at + 0xffff);
    const last = at + 0xffff >= data.length;
    const head = Buffer.alloc(5);
    head[0] = last ? 1 : 0;
    head.writeUInt16LE(block.length, 1);
    head.writeUInt16LE(~block.length & 0xffff, 3);
    parts.push(head, block);
    if (last) break;
  }
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  const sum = Buffer.alloc(4);
  sum.writeUInt32BE(((b << 16) | a) >>> 0);
  parts.push(sum);
  return Buffer.concat(parts);
}

/** A ref nudge names (refs/nudge/…), checked as git would have it: anything unusual goes to git. */
const NUDGE_REF = /^refs\/nudge(\/[A-Za-z0-9_-][A-Za-z0-9_.-]*)+$/;

/**
 * `git update-ref <ref> <commit>` for one new ref of nudge's: a loose ref file, through its lock
 * file as git takes it. True when written; false: git is to be asked (and says what is wrong).
 */
export function writeRefHere(commonDir: string, ref: string, commit: string): boolean {
  if (!SHA1.test(commit) || !NUDGE_REF.test(ref) || /\.\.|\.lock(\/|$)|\.\/|\.$/.test(ref)) return false;
  if (!plainRepository(commonDir)) return false;
  const file = path.join(commonDir, ...ref.split("/"));
  return writeInPlace(`${file}.lock`, file, Buffer.from(`${commit}\n`), 0o666);
}

/**
 * `bytes` written whole to `temp`, made exclusively (git's lock file is itself the lock), then
 * renamed to `file`. False on any failure, with only what this made removed: a `temp` that was
 * there (another writer's lock) is theirs, and a file where a folder goes is for git to name.
 */
function writeInPlace(temp: string, file: string, bytes: Buffer, mode: number): boolean {
  let fd = -1;
  let made = false;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    fd = openSync(temp, "wx", mode);
    made = true;
    writeSync(fd, bytes);
    closeSync(fd);
    fd = -1;
    renameSync(temp, file);
    return true;
  } catch {
    if (fd !== -1) closeSync(fd);
    if (made) rmSync(temp, { force: true });
    return false;
  }
}

/** One ref of nudge's pointed at a commit: written here where it can be (`commonDir` given), else by git. */
export async function setNudgeRef(root: string, ref: string, commit: string, commonDir?: string): Promise<void> {
  if (commonDir && writeRefHere(commonDir, ref, commit)) return;
  await updateRefs(root, [{ ref, commit }]);
}
