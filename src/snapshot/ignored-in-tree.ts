/**
 * Which paths a tree's ignore rules would ignore, asked of git without checking the tree out; and
 * the quick filter that spares asking when no rule could match a path.
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { run } from "./git-process.js";
import { indexPath, pathOnDisk } from "./git.js";

/**
 * Which of `paths` the ignore rules of `tree` would ignore: its .gitignore files along those
 * paths, plus the repository's info/exclude and the user's excludes file. The .gitignore files
 * are laid out in a scratch folder and `git check-ignore --no-index` is asked there, so a tree
 * that is not checked out can be asked (the work tree and every index stay untouched). With
 * `outside` (those two files, as `ignoreFiles` names them), a path no rule could match is
 * answered here (see `couldMatch`): a rewind that deletes a file nothing ignores starts no check-ignore.
 */
export async function ignoredInTree(
  root: string,
  tree: string,
  paths: string[],
  scratch: string,
  outside?: string[],
): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const folders = new Set<string>([""]);
  for (const p of paths)
    for (let at = p.lastIndexOf("/"); at > 0; at = p.lastIndexOf("/", at - 1)) folders.add(p.slice(0, at));
  const specs = [...folders].map((f) => (f ? `${f}/.gitignore` : ".gitignore"));
  const out = await run(root, ["cat-file", "--batch"], {
    input: Buffer.from(specs.map((s) => `${tree}:${s}`).join("\n") + "\n", "latin1"),
  });
  const found: Array<{ spec: string; content: Buffer }> = [];
  let at = 0;
  for (const spec of specs) {
    const header = out.toString("latin1", at, out.indexOf(0x0a, at));
    at += header.length + 1;
    const [, type, size] = /^\S+ (\w+) (\d+)$/.exec(header) ?? [];
    if (size === undefined) continue; // "<spec> missing"
    // A folder named .gitignore holds no rules: its content (a tree) is passed over.
    if (type === "blob") found.push({ spec, content: out.subarray(at, at + Number(size)) });
    at += Number(size) + 1;
  }
  const beyond = outside ? await readAll(outside) : null;
  const rules = beyond && rulesOf([...found.map((f) => f.content), ...beyond]);
  const asked = rules ? paths.filter((p) => couldMatch(rules, p)) : paths;
  if (asked.length === 0) return new Set();
  await fs.mkdir(scratch, { recursive: true });
  for (const { spec, content } of found) {
    await fs.mkdir(pathOnDisk(scratch, spec.slice(0, Math.max(0, spec.lastIndexOf("/")))), { recursive: true });
    await fs.writeFile(pathOnDisk(scratch, spec), content);
  }
  const gitDir = path.dirname(await indexPath(root));
  // The user's excludes file as the work tree's git reads it (a relative one is from the work tree's top, not the scratch folder).
  const excludes = outside?.[1] ? ["-c", `core.excludesFile=${outside[1]}`] : [];
  const result = await run(
    scratch,
    ["--git-dir", gitDir, "--work-tree", scratch, ...excludes, "check-ignore", "--no-index", "-z", "--stdin"],
    {
      input: Buffer.from(asked.join("\0") + "\0", "latin1"),
      tolerate: (code) => code === 1, // 1: none of them is ignored
    },
  );
  return new Set(result.toString("latin1").split("\0").filter(Boolean));
}

/** The files' contents; a missing one is empty. null: one could not be read (git is asked then). */
async function readAll(files: string[]): Promise<Buffer[] | null> {
  try {
    return await Promise.all(
      files.map((f) =>
        fs.readFile(f).catch((error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT" || error.code === "ENOTDIR") return Buffer.alloc(0);
          throw error;
        }),
      ),
    );
  } catch {
    return null;
  }
}

/**
 * Each rule that ignores (not a `!` one, which only takes a path back) as the runs of plain
 * characters between its wildcards and slashes, lower-cased; null: a rule this cannot read
 * (a bracket, an escape), or one with no plain character, which could match anything.
 */
function rulesOf(texts: Buffer[]): string[][] | null {
  const rules: string[][] = [];
  for (const text of texts) {
    // A UTF-8 byte order mark at the top, as git skips it.
    const start = text[0] === 0xef && text[1] === 0xbb && text[2] === 0xbf ? 3 : 0;
    for (const line of text.toString("latin1", start).split("\n")) {
      if (line.trim() === "" || line.startsWith("#") || line.startsWith("!")) continue;
      if (/[[\\]/.test(line)) return null;
      // Split at white space too (a CR, trailing spaces git trims): shorter runs, found in more paths.
      const runs = line
        .toLowerCase()
        .split(/[*?/\s]+/)
        .filter(Boolean);
      if (runs.length === 0) return null;
      rules.push(runs);
    }
  }
  return rules;
}

/**
 * Whether some rule could ignore the path: a rule matches the path's name, its whole path, or a
 * folder above it, each a part of the path, so every plain run of the rule is found in it (case
 * aside: core.ignoreCase may be on). When no rule passes this, none matches.
 */
function couldMatch(rules: string[][], file: string): boolean {
  const lower = file.toLowerCase();
  return rules.some((runs) => runs.every((run) => lower.includes(run)));
}
