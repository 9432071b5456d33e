/**
 * nudge's CLI (bin.ts loads it): chains the commands and holds the one catch that turns errors
 * into a message and an exit code — 0 ok, 1 the user's problem (with a hint), 2 a bug in nudge.
 */
import { writeOut, writeErr } from "./terminal/output.js";
import { DISK_FULL_HINT, UserError, isDiskFull } from "./base/errors.js";
import { program } from "./commands/program.js";
import { colorEnabled, makeStyle } from "./terminal/style.js";
import { nudgeVersion } from "./base/version.js";
import { visible } from "./base/inert-text.js";
import { systemProblem } from "./base/system-problem.js";

/**
 * A reader that goes away (`nudge session list | head -1`) makes writes fail with EPIPE. That is
 * not an error: drop the rest of the output quietly — and a live recording carries on. Output
 * that cannot be written at all (`> file` on a full disk) is said once, and the exit status is 1.
 */
function watchOutput(): void {
  let lost = false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      // EIO: the terminal itself went away (SIGHUP), which the run loop handles.
      if (error.code === "EPIPE" || error.code === "EIO" || lost) return;
      lost = true;
      process.exitCode = 1;
      const hint = systemProblem(error)?.hint ?? "check where the output goes";
      if (stream === process.stdout) writeErr(`error: could not write the output: ${error.message}\nhint: ${hint}\n`);
    });
  }
}

async function main(argv: string[]): Promise<number> {
  watchOutput();
  // The one answer that needs no command at all: given before anything else is loaded.
  if (argv.length === 3 && (argv[2] === "--version" || argv[2] === "-V")) {
    writeOut(`${nudgeVersion()}\n`);
    return 0;
  }
  try {
    await (await program(argv)).parseAsync(argv);
    return 0;
  } catch (error) {
    return report(error);
  }
}

function report(error: unknown): number {
  const style = makeStyle(colorEnabled(process.stderr));
  // commander's own errors ("commander.unknownOption", "commander.helpDisplayed", …).
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && code.startsWith("commander.")) {
    // --help and --version come through here too, with exit code 0; commander already printed.
    return (error as { exitCode: number }).exitCode === 0 ? 0 : 1;
  }
  if (error instanceof UserError) {
    // A full disk found on the way (a remote's fetch, say) is said as one, whatever else was suspected.
    const hint = isDiskFull(error) && !/disk space/.test(error.hint ?? "") ? DISK_FULL_HINT : error.hint;
    // Shown, not obeyed: a message may quote what was typed (an id with an ESC in it; its line breaks, where it is quoted).
    writeErr(`${style.red("error:")} ${visible(error.message)}\n`);
    if (hint) writeErr(`${style.dim("hint:")} ${visible(hint)}\n`);
    return 1;
  }
  const system = systemProblem(error);
  if (system) {
    writeErr(`${style.red("error:")} ${visible(system.message)}\n${style.dim("hint:")} ${visible(system.hint)}\n`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  // git or SQLite finding the disk full is not nudge's bug, even where nudge did not expect it.
  if (isDiskFull(error)) {
    writeErr(`${style.red("error:")} ${visible(message)}\n${style.dim("hint:")} ${DISK_FULL_HINT}\n`);
    return 1;
  }
  writeErr(`${style.red("nudge bug:")} ${visible(message)}\n`);
  if (process.env.NUDGE_DEBUG && error instanceof Error) writeErr(`${error.stack}\n`);
  writeErr(`${style.dim("hint:")} rerun with NUDGE_DEBUG=1 for details and report it\n`);
  return 2;
}

let settled = false;
/**
 * Node exits with status 0 when nothing is left to wait for, even if the command never finished
 * (a promise nobody will resolve): that must never pass for success.
 */
process.on("beforeExit", () => {
  if (settled) return;
  settled = true;
  writeErr("nudge bug: the command stopped before it finished\nhint: rerun with NUDGE_DEBUG=1 and report it\n");
  process.exitCode = 2;
});
main(process.argv).then(
  (code) => {
    settled = true;
    // A command may have set its own status (a session ended by the terminal hanging up: 129).
    if (code !== 0 || process.exitCode === undefined) process.exitCode = code;
  },
  (error: unknown) => {
    // main() reports every error itself; one that escapes even that is nudge's bug.
    settled = true;
    process.exitCode = report(error);
  },
);
