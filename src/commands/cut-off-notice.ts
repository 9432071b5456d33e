/**
 * Ctrl-C while a rewind, fork or undo changes files. Before its record says "started" nothing has
 * changed: it stops at once, as Ctrl-C does (exit 130). After, it finishes first: git runs out of
 * the terminal's reach meanwhile (git-process.ts), so no file is left cut short halfway through
 * its write, which neither `--continue` nor `--abort` could tell from an edit of the user's. A
 * second Ctrl-C stops it at once, saying what it cut off and how to settle it; the git writing
 * then still finishes its file.
 */
import { recordUnderWay } from "../time-travel/rewind-log.js";
import { cutOff } from "../time-travel/rewind.js";
import { shieldedFromCtrlC } from "../snapshot/git-process.js";
import { writeErr } from "../terminal/output.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";

export async function sayCutOffOnCtrlC<T>(work: () => Promise<T>): Promise<T> {
  let asked = false;
  const onSigint = () => {
    const record = recordUnderWay();
    const style = makeStyle(colorEnabled(process.stderr));
    if (record && !asked) {
      asked = true;
      writeErr(
        `\n${style.dim("Ctrl-C:")} files are being changed; finishing first (Ctrl-C again stops at once, leaving it to nudge session rewind --continue or --abort)\n`,
      );
      return;
    }
    if (record) {
      const { message, hint } = cutOff(record);
      writeErr(`${style.red("error:")} ${message} (Ctrl-C)\n${style.dim("hint:")} ${hint}\n`);
    }
    process.exit(130);
  };
  process.on("SIGINT", onSigint);
  try {
    return await shieldedFromCtrlC(work);
  } finally {
    process.off("SIGINT", onSigint);
  }
}
