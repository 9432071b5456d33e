/**
 * Inside the sandbox the home folder and claude's config dir are private copies, thrown away
 * afterwards: what claude (or a command it runs) writes there (settings.json hooks, MCP servers in
 * .claude.json, commands) never reaches a claude that runs outside later. Only its transcripts go
 * to the real config dir, where nudge and `--resume` read them: projects/<this work tree's folder>.
 */
import { promises as fs, readdirSync, rmSync, type Dirent } from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeProjectDir } from "../transcript.js";

export interface PrivateState {
  /** The private folder outside (mode 0700), removed by `remove`. */
  dir: string;
  /** Host folder → the path it is shown at inside, writable (the private home, the private config dir). */
  binds: Array<{ host: string; inside: string }>;
  /** The real config dir's folders of things claude reads (its commands, agents, skills, plugins): read-only. */
  readOnly: string[];
  /** The real folder of this work tree's transcripts: writable. */
  transcripts: string;
  /** Inside it, read-only: claude's auto-memory, which a later claude outside reads as instructions. */
  transcriptsReadOnly: string[];
  /** Remove what is neither a file nor a folder (a link a later claude outside would follow) from the transcripts' folder. */
  scrub(): void;
  remove(): void;
}

/** Config folders claude only reads, shown read-only from the real config dir; others start empty. */
const READ_ONLY_DIRS = ["commands", "agents", "skills", "plugins", "output-styles", "hooks"];
/** A config file larger than this is left out of the copy (settings, credentials and .claude.json are far smaller). */
const COPY_LIMIT = 16 * 1024 * 1024;

export async function makePrivateState(o: {
  configDir: string;
  home: string;
  cwd: string;
  defaultConfig: boolean;
}): Promise<PrivateState> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "nudge-sandbox-"));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  // A copy of credentials must not outlive nudge: removed on every exit nudge sees (not a kill -9).
  process.once("exit", remove);
  const home = path.join(dir, "home");
  const binds = [{ host: home, inside: o.home }];
  const rel = path.relative(o.home, o.configDir);
  const inHome = rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
  const config = inHome ? path.join(home, rel) : path.join(dir, "config");
  if (!inHome) binds.push({ host: config, inside: o.configDir });
  await fs.mkdir(home);
  await fs.mkdir(config, { recursive: true });
  await copyFiles(o.configDir, config);
  // Without CLAUDE_CONFIG_DIR claude keeps .claude.json in the home folder, beside ~/.claude.
  if (o.defaultConfig) await copyFile(path.join(o.home, ".claude.json"), path.join(home, ".claude.json"));
  const readOnly: string[] = [];
  for (const name of READ_ONLY_DIRS) {
    const real = path.join(o.configDir, name);
    if ((await fs.stat(real).catch(() => null))?.isDirectory()) readOnly.push(real);
  }
  const transcripts = path.join(o.configDir, "projects", encodeProjectDir(o.cwd));
  await fs.mkdir(path.join(transcripts, "memory"), { recursive: true });
  const scrub = () => scrubLinks(transcripts);
  scrub();
  return { dir, binds, readOnly, transcripts, transcriptsReadOnly: [path.join(transcripts, "memory")], scrub, remove };
}

/** Links, fifos, sockets and devices under `dir` removed (not followed); files and folders kept. */
function scrubLinks(dir: string, depth = 0): void {
  if (depth > 8) return;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) scrubLinks(full, depth + 1);
    else if (!e.isFile()) rmSync(full, { force: true });
  }
}

/** The folder's own regular files (settings, credentials, .claude.json), not its folders. */
async function copyFiles(from: string, to: string): Promise<void> {
  const entries = await fs.readdir(from, { withFileTypes: true }).catch(() => []);
  for (const e of entries) if (e.isFile()) await copyFile(path.join(from, e.name), path.join(to, e.name));
}

async function copyFile(from: string, to: string): Promise<void> {
  const stat = await fs.lstat(from).catch(() => null);
  if (!stat?.isFile() || stat.size > COPY_LIMIT) return;
  await fs.copyFile(from, to);
  await fs.chmod(to, 0o600);
}
