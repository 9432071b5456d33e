import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { loadSession } from "../store/store.js";
import { resolveNudgeId } from "../live/session-id.js";
import { chooseSession } from "../live/open-session.js";
import { formatBytes } from "../sharing/limits.js";
import { publishSession, type PublishResult } from "../sync/publish-session.js";
import { resolveRemote } from "../sync/sync-remote.js";
import { visible } from "../base/inert-text.js";
import { printJson, writeOut, writeErr } from "../terminal/output.js";
import { parseOptions, parseTurnArg } from "./parse-options.js";

const Options = z.object({
  remote: z.optional(z.string().check(z.minLength(1))),
  upto: z.optional(z.string()),
  fork: z.optional(z.boolean()),
  dryRun: z.optional(z.boolean()),
  allowSecretsInCode: z.optional(z.boolean()),
  json: z.optional(z.boolean()),
});

export const sessionPushCommand = new Command("push")
  .description("publish sessions to a git remote (what `session export` writes, under refs/nudge/published/)")
  .argument("[ids...]", "session ids or unique prefixes (default: the session used last in this work tree)")
  .option(
    "--remote <name|url>",
    "where to (default: git config nudge.remote, else the branch's upstream remote, else origin)",
  )
  .option("--upto <turn>", "publish turns 0..N only")
  .option("--fork", "publish under a fresh id, beside what is published under this session's id")
  .option("--allow-secrets-in-code", "publish even if the code changes hold a secret (code is never masked)")
  .option("--dry-run", "export and show what would be pushed; push nothing")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
What is published is exactly what \`nudge session export\` writes: secrets masked in the
conversation and transcripts, code holding a secret refused, --upto honoured. It goes under
refs/nudge/published/<id>/ on the remote, never under refs/heads or refs/tags, so no clone,
fetch or pull of the repository downloads it. Pushing again after more turns sends only what is
new. A session someone else published is never replaced: a session you pulled and continued is
published as a fork under a fresh id.

Examples:
  $ nudge session push                    # the session used last here, to origin
  $ nudge session push 3f2a --upto 4
  $ nudge session push 3f2a --remote sessions --dry-run
  $ git config nudge.remote git@example.com:team/sessions.git   # sessions in a repository of their own`,
  )
  .action(async (ids: string[], raw: unknown) => {
    const o = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    const remote = await resolveRemote(store, o.remote);
    const sessions = ids.length
      ? await Promise.all(ids.map(async (id) => loadSession(store, await resolveNudgeId(store, id, "push"))))
      : [(await chooseSession(store, { kind: "continue" }))!];
    const results: PublishResult[] = [];
    for (const session of sessions) {
      const result = await publishSession(store, session, {
        remote,
        upto: o.upto === undefined ? null : parseTurnArg(o.upto, "--upto"),
        fork: o.fork ?? false,
        dryRun: o.dryRun ?? false,
        allowSecretsInCode: o.allowSecretsInCode ?? false,
        progress: (line) => writeErr(`● ${line}\n`),
      });
      results.push(result);
      if (!o.json) describePublished(result).forEach((line) => writeOut(line + "\n"));
    }
    if (o.json) printJson(results);
  });

export function describePublished(r: PublishResult): string[] {
  const where = visible(r.remote);
  if (r.plan.kind === "unchanged")
    return [`session ${r.session} is published on ${where} as ${r.plan.id} as it is now; nothing to push`];
  const turns = `${r.turns} turn${r.turns === 1 ? "" : "s"}`;
  const what = {
    new: `published session ${r.session} to ${where}${r.plan.forkOf ? `, a fork of ${r.plan.forkOf.id}@${r.plan.forkOf.turn}` : ""}`,
    update: `updated published session ${r.plan.id}${r.plan.id === r.session ? "" : ` (session ${r.session} here)`} on ${where}`,
    fork: `published session ${r.session} to ${where} as ${r.plan.id}, a fork of ${r.plan.forkOf ? `${r.plan.forkOf.id}@${r.plan.forkOf.turn}` : r.session}`,
  }[r.plan.kind];
  const lines = [
    r.dryRun
      ? `would ${r.plan.kind === "update" ? `update published session ${r.plan.id} with session ${r.session} on ${where}` : r.plan.kind === "fork" ? `publish session ${r.session} to ${where} under a fresh id, a fork of ${r.plan.forkOf ? `${r.plan.forkOf.id}@${r.plan.forkOf.turn}` : r.session}` : `publish session ${r.session} to ${where}`} (${turns}, export ${formatBytes(r.exportBytes)}); nothing was pushed`
      : `${what} (${turns}): sent ${formatBytes(r.sentBytes)} for an export of ${formatBytes(r.exportBytes)}`,
  ];
  lines.push(`  refs: ${r.refs.join(", ")}`);
  // One count per kind, over every file of the export it was masked in.
  const kinds = new Map<string, number>();
  for (const m of r.masked) kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + m.count);
  lines.push(
    `  masked: ${kinds.size ? [...kinds].map(([kind, count]) => `${kind} ×${count}`).join(", ") : "no secrets found"}`,
  );
  if (r.codeSecrets.length)
    lines.push(
      `  ! the code holds ${r.codeSecrets.length} secret${r.codeSecrets.length === 1 ? "" : "s"}, published as they are (--allow-secrets-in-code)`,
    );
  if (r.pins.unpinned.length) {
    const list = r.pins.unpinned.map((c) => c.slice(0, 10)).join(", ");
    lines.push(
      `  ! it builds on ${list}, which no branch of ${where} holds as far as this clone knows: not pinned there, so a teammate must fetch it from where it is (the code's own remote; a force-push there can take it away)`,
    );
  }
  if (!r.dryRun) lines.push(`a teammate gets it with: nudge session fetch && nudge session pull ${r.plan.id}`);
  return lines;
}
