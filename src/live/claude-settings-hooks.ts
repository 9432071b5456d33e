/**
 * nudge's hooks in a claude settings file (`nudge hooks install --claude`), and their removal.
 * The user's own bytes are kept: with no "hooks" key yet, nudge's is inserted as text after the
 * opening brace and nothing else moves; otherwise the file is written again as 2-space JSON. What
 * the file held before (its bytes, or that there was none) is kept in a backup, and `uninstall`
 * puts exactly that back when the file is as nudge left it. A file edited since is changed as
 * little as possible: nudge's inserted text taken out again when it is still there as written,
 * else nudge's entries (their command runs `hooks claude-event`) removed and the file rewritten.
 */
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../store/atomic-write.js";
import { UserError } from "../base/errors.js";
import { shellQuote } from "../base/shell-quote.js";
import * as z from "../base/zod.js";

/** What every nudge entry's command holds, and nothing of the user's would. */
const HOOK_MARK = "hooks claude-event";

/** The events recorded by, with the seconds claude gives each (nudge gives itself less: commands/hook-process.ts). */
const HOOK_TIMEOUTS_S = {
  SessionStart: 30,
  UserPromptSubmit: 30,
  PreToolUse: 60,
  Stop: 10,
  StopFailure: 10,
  SessionEnd: 10,
} as const;

const Backup = z.object({
  version: z.literal(1),
  file: z.string(),
  existed: z.boolean(),
  /** The file's bytes before nudge wrote it (base64). */
  original: z.nullable(z.string()),
  /** sha256 of the bytes nudge wrote. */
  installed: z.string(),
  /** The text nudge inserted (the file had no "hooks"): taken out again on its own if the file was edited since. */
  inserted: z.nullable(z.string()),
  /** The file's folder was made by install (no file before): removed with the file, when empty. */
  madeFolder: z.optional(z.boolean()),
});
type Backup = z.infer<typeof Backup>;

export interface SettingsPlan {
  file: string;
  action: "install" | "update" | "already" | "restore" | "remove-entries" | "absent";
  /** The file's new bytes; null: the file is removed (it did not exist before). */
  content: Buffer | null;
  backupFile: string;
  backup: Backup | null;
}

function hookEntries(command: string): Record<string, unknown[]> {
  return Object.fromEntries(
    Object.entries(HOOK_TIMEOUTS_S).map(([event, timeout]) => [
      event,
      [{ matcher: "", hooks: [{ type: "command", command, timeout }] }],
    ]),
  );
}

export function hookCommand(node: string, script: string): string {
  return `${shellQuote(node)} ${shellQuote(script)} ${HOOK_MARK}`;
}

export async function planInstall(file: string, backupFile: string, command: string): Promise<SettingsPlan> {
  const current = await readIf(file);
  if (current && current.includes(HOOK_MARK)) return replaceCommand(file, backupFile, current, command);
  const ours = hookEntries(command);
  const settings = current === null ? {} : parseSettings(file, current);
  let inserted: string | null = null;
  let content: Buffer;
  if (current === null) content = Buffer.from(`${JSON.stringify({ hooks: ours }, null, 2)}\n`);
  else if (!("hooks" in settings)) {
    const text = current.toString("utf8");
    const brace = text.indexOf("{");
    inserted = `\n  "hooks": ${JSON.stringify(ours, null, 2).replace(/\n/g, "\n  ")}${Object.keys(settings).length > 0 ? "," : "\n"}`;
    content = Buffer.from(text.slice(0, brace + 1) + inserted + text.slice(brace + 1));
  } else {
    const hooks = settings.hooks;
    if (typeof hooks !== "object" || hooks === null || Array.isArray(hooks))
      throw new UserError(`${file}: "hooks" is not an object`, "fix the file, then install again");
    const merged: Record<string, unknown> = { ...(hooks as Record<string, unknown>) };
    for (const [event, entries] of Object.entries(ours)) {
      const mine = merged[event];
      if (mine !== undefined && !Array.isArray(mine))
        throw new UserError(`${file}: hooks.${event} is not a list`, "fix the file, then install again");
      merged[event] = [...((mine as unknown[] | undefined) ?? []), ...entries];
    }
    content = Buffer.from(`${JSON.stringify({ ...settings, hooks: merged }, null, 2)}\n`);
  }
  const madeFolder = !(await fs.stat(path.dirname(file)).catch(() => null));
  const backup: Backup = {
    version: 1,
    file,
    existed: current !== null,
    original: current?.toString("base64") ?? null,
    installed: sha(content),
    inserted,
    madeFolder,
  };
  return { file, action: "install", content, backupFile, backup };
}

/** Installed already: the same entries, or (nudge moved, or another node) the same entries running this nudge. */
async function replaceCommand(
  file: string,
  backupFile: string,
  current: Buffer,
  command: string,
): Promise<SettingsPlan> {
  const text = current.toString("utf8");
  const installed = /"command":\s*("(?:[^"\\]|\\.)*hooks claude-event")/.exec(text)?.[1];
  const old = installed ? (JSON.parse(installed) as string) : command;
  if (old === command) return { file, action: "already", content: current, backupFile, backup: null };
  const content = Buffer.from(text.split(JSON.stringify(old).slice(1, -1)).join(JSON.stringify(command).slice(1, -1)));
  const backup = await readBackup(backupFile);
  // The backup still holds what the file held before nudge; only what nudge wrote changed.
  return {
    file,
    action: "update",
    content,
    backupFile,
    backup: backup ? { ...backup, installed: sha(content) } : null,
  };
}

export async function planUninstall(file: string, backupFile: string): Promise<SettingsPlan> {
  const current = await readIf(file);
  const backup = await readBackup(backupFile);
  const base = { file, backupFile, backup: null };
  if (current === null || !current.includes(HOOK_MARK)) return { ...base, action: "absent", content: current };
  if (backup && sha(current) === backup.installed) {
    return {
      ...base,
      backup,
      action: "restore",
      content: backup.existed ? Buffer.from(backup.original ?? "", "base64") : null,
    };
  }
  const text = current.toString("utf8");
  if (backup?.inserted && text.split(backup.inserted).length === 2) {
    const content = Buffer.from(text.replace(backup.inserted, ""));
    if (parsesAsObject(content)) return { ...base, action: "remove-entries", content };
  }
  return { ...base, action: "remove-entries", content: withoutOurEntries(file, current, backup) };
}

export async function applySettingsPlan(plan: SettingsPlan): Promise<void> {
  if (plan.action === "already" || plan.action === "absent") return;
  if (plan.action === "install" || plan.action === "update") {
    await fs.mkdir(path.dirname(plan.file), { recursive: true });
    await fs.mkdir(path.dirname(plan.backupFile), { recursive: true });
    // The backup first: a file nudge changed always has what it held before somewhere.
    if (plan.backup) await writeFileAtomic(plan.backupFile, `${JSON.stringify(plan.backup)}\n`, 0o600);
    await writeFileAtomic(plan.file, plan.content!, await modeOf(plan.file));
    return;
  }
  if (plan.content === null) {
    await fs.rm(plan.file, { force: true });
    if (plan.backup?.madeFolder) await fs.rmdir(path.dirname(plan.file)).catch(() => undefined); // only when empty
  } else await writeFileAtomic(plan.file, plan.content, await modeOf(plan.file));
  await fs.rm(plan.backupFile, { force: true });
}

/** The file edited since, "hooks" as nudge found it no longer there as text: nudge's entries out, the rest as it is (2-space JSON). */
function withoutOurEntries(file: string, current: Buffer, backup: Backup | null): Buffer {
  const settings = parseSettings(file, current);
  const hooks = settings.hooks as Record<string, unknown> | undefined;
  if (!hooks || typeof hooks !== "object") return current;
  const kept: Record<string, unknown> = {};
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      kept[event] = entries;
      continue;
    }
    const left = entries.filter((entry) => !JSON.stringify(entry).includes(HOOK_MARK));
    if (left.length > 0 || entries.length === 0) kept[event] = left;
  }
  const hadHooks = backup ? backup.inserted === null && backup.existed : true;
  const { hooks: _, ...rest } = settings;
  const out = Object.keys(kept).length > 0 || hadHooks ? { ...rest, hooks: kept } : rest;
  return Buffer.from(`${JSON.stringify(out, null, 2)}\n`);
}

function parseSettings(file: string, bytes: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new UserError(
      `${file} is not valid JSON (${(error as Error).message})`,
      "fix it (claude would not read it either), then run this again",
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new UserError(`${file} does not hold a JSON object`, "fix it, then run this again");
  return value as Record<string, unknown>;
}

function parsesAsObject(bytes: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, ""));
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function readBackup(file: string): Promise<Backup | null> {
  const bytes = await readIf(file);
  if (!bytes) return null;
  try {
    const parsed = Backup.safeParse(JSON.parse(bytes.toString("utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // a damaged backup: the file is then changed as if there were none
  }
}

/** The settings file's bytes, null when there is none. A link or a folder there is refused: writing would replace it with a file. */
async function readIf(file: string): Promise<Buffer | null> {
  const stat = await fs.lstat(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
  if (!stat) return null;
  if (stat.isSymbolicLink())
    throw new UserError(
      `${file} is a link: nudge would replace it with a file of its own`,
      `add the hooks where it points, or replace the link with that file, and run this again`,
    );
  if (!stat.isFile()) throw new UserError(`${file} is not a file`, "move it away, and run this again");
  return fs.readFile(file);
}

async function modeOf(file: string): Promise<number> {
  return ((await fs.stat(file).catch(() => null))?.mode ?? 0o644) & 0o777;
}

function sha(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
