/**
 * Ctrl-C while a rewind, fork or undo changes files: it stops there, as Ctrl-C does (exit 130),
 * and says what it cut off halfway and how to settle it, rather than leave the next command to
 * find out. Nothing more is written: the record already says "started", and `--continue` or
 * `--abort` take it from what is on disk.
 */
import { recordUnderWay } from "../time-travel/rewind-log.js";
import { cutOff } from "../time-travel/rewind.js";
import { writeErr } from "../terminal/output.js";
import { colorEnabled, makeStyle } from "../terminal/style.js";

export async function sayCutOffOnCtrlC<T>(work: () => Promise<T>): Promise<T> {
  const onSigint = () => {
    const record = recordUnderWay();
    if (record) {
      const style = makeStyle(colorEnabled(process.stderr));
      const { message, hint } = cutOff(record);
      writeErr(`\n${style.red("error:")} ${message} (Ctrl-C)\n${style.dim("hint:")} ${hint}\n`);
    }
    process.exit(130);
  };
  process.on("SIGINT", onSigint);
  try {
    return await work();
  } finally {
    process.off("SIGINT", onSigint);
  }
}
