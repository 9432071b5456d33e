import { statSync } from "node:fs";
import { commandStore } from "./command-store.js";
import { Command } from "commander";
import * as z from "../base/zod.js";
import { claudeConfigDir } from "../claude/transcript.js";
import { UserError } from "../base/errors.js";
import { visible } from "../base/inert-text.js";
import { adoptClaudeSession, mayBeLive } from "../live/adopt-session.js";
import { claudeOwnSessions, describeOtherProject, findClaudeSessionToAdopt } from "../live/claude-own-sessions.js";
import { printJson, writeErr, writeOut } from "../terminal/output.js";
import { parseOptions } from "./parse-options.js";

const Options = z.object({ json: z.optional(z.boolean()), fromOtherProject: z.optional(z.boolean()) });

export const sessionAdoptCommand = new Command("adopt")
  .description(
    "make one of claude's own sessions (run without nudge) a nudge session: its whole conversation, resumable, its code state the work tree now",
  )
  .argument("<claude-session-id>", "claude's session id or a unique prefix (nudge session list shows them)")
  .option("--from-other-project", "let a prefix name a session of another project (a full id always may)")
  .option("--json", "machine-readable output")
  .addHelpText(
    "after",
    `
Its turns come from claude's transcript; their code was never recorded, so turn 0 and every adopted
turn hold the work tree as it is now: no diff shows what they changed, and a rewind to one of them
restores the work tree of now. Turns recorded after it (nudge claude run -r <id>) are recorded as any.
Claude's own files are only read. A prefix names one of this repository's sessions; a session that ran
in another project is adopted (into this repository) only by its full id or with --from-other-project.

Examples:
  $ nudge session adopt 3d0c9a2e
  $ nudge claude run -r <the new id> "go on"`,
  )
  .action(async (id: string, raw: unknown) => {
    const options = parseOptions(Options, raw);
    const store = await commandStore(process.cwd());
    if (id.trim() === "") throw new UserError("no session id given", "list the sessions with: nudge session list");
    const found = await findClaudeSessionToAdopt(store, id, { fromOtherProject: options.fromOtherProject });
    if (!found) {
      const here = await claudeOwnSessions(store);
      throw new UserError(
        `no session of claude's own matches "${visible(id)}"`,
        here.length
          ? "list them with: nudge session list"
          : "claude has no sessions of this repository that nudge does not hold",
      );
    }
    const { session, other } = found;
    const live = mayBeLive(statSync(session.file).mtimeMs);
    const adopted = await adoptClaudeSession(store, session, { claudeConfigDir: claudeConfigDir() });
    if (live) writeErr(`nudge: ${live}\n`);
    if (options.json)
      return printJson({
        ...adopted,
        claudeSessionId: session.id,
        codeState: "the work tree at adoption (turn 0)",
        otherProject: other && { cwd: other.cwd, folderGone: other.gone },
      });
    if (other) writeOut(`${describeOtherProject(other)}; adopted into ${visible(store.repoRoot)}\n`);
    writeOut(
      `adopted claude's session ${visible(session.id)} as nudge session ${adopted.id}: ${adopted.turns} turn${adopted.turns === 1 ? "" : "s"} of its conversation\n`,
    );
    writeOut(
      `its code state is the work tree as it is now (turn 0): claude's changes in those turns were never recorded, so no diff shows them and a rewind to them restores the work tree of now\n`,
    );
    writeOut(`go on with it: nudge claude run -r ${adopted.id}  ·  look at it: nudge session show ${adopted.id}\n`);
  });
