/**
 * A stand-in for `nudge claude run` for the pty tests: the terminal frontend (openTerminalUi)
 * wired to a scripted session instead of claude. It runs the steps of a JSON scenario and logs
 * what the frontend returned, one JSON line each, to a file (the terminal may be gone by the end).
 *
 *   node --import tsx test/terminal/tty-harness.ts <scenario.json> <log.jsonl>
 *
 * Steps: {"do":"prompt"} one next(); {"do":"prompts"} next() until null; {"do":"start"} /
 * {"do":"stop"} the status line; {"do":"write","text"} claude's words; {"do":"wait","ms"} a turn
 * running until Ctrl-C (logged as interrupted) or ms; {"do":"queued"} hasQueued();
 * {"do":"rawWrite","text"} stdout directly; {"do":"permission","request","cwd"}, {"do":"questions","questions"}, {"do":"plan","plan"} the asker.
 * Ends with {"end":{"hungUp"}}, and after a hang-up dies of SIGHUP as nudge does (status 129).
 */
import { appendFileSync, readFileSync } from "node:fs";
import { CanUseToolRequest } from "../../src/claude/control-protocol.js";
import type { Question } from "../../src/live/ask.js";
import { makeStyle, colorEnabled } from "../../src/terminal/style.js";
import { exitAsHangUp } from "../../src/terminal/hang-up.js";
import { openTerminalUi } from "../../src/terminal/terminal-ui.js";

type Step =
  | { do: "prompt" | "prompts" | "start" | "stop" | "queued" }
  | { do: "write"; text: string }
  | { do: "rawWrite"; text: string }
  | { do: "wait"; ms: number }
  | { do: "permission"; request: unknown; cwd: string }
  | { do: "questions"; questions: Question[] }
  | { do: "plan"; plan: string };

const [scenarioFile, logFile] = process.argv.slice(2);
const steps = (JSON.parse(readFileSync(scenarioFile!, "utf8")) as { steps: Step[] }).steps;
const log = (entry: object) => appendFileSync(logFile!, `${JSON.stringify(entry)}\n`);

// HARNESS_IGNORE_SIGHUP=1: the hang-up must then be noticed by the read error (EIO) alone.
const ignoreSighup = process.env.HARNESS_IGNORE_SIGHUP === "1";
if (ignoreSighup) process.on("SIGHUP", () => undefined);
let interrupted: (() => void) | null = null;
const ui = openTerminalUi({
  input: process.stdin,
  output: process.stdout,
  style: makeStyle(colorEnabled(process.stdout)),
  cwd: process.cwd(),
  onInterrupt: () => {
    log({ interrupt: true });
    interrupted?.();
  },
  onHangUp: () => {
    log({ hangUp: true });
    interrupted?.(); // as nudge ends the turn in flight
  },
  watchSighup: !ignoreSighup,
});

for (const step of steps) {
  switch (step.do) {
    case "prompt":
      log({ prompt: await ui.prompts.next() });
      break;
    case "prompts":
      for (;;) {
        const prompt = await ui.prompts.next();
        log({ prompt });
        if (prompt === null) break;
      }
      break;
    case "start":
      ui.status.start("requesting");
      break;
    case "stop":
      ui.status.stop();
      break;
    case "write":
      ui.write(step.text);
      break;
    case "rawWrite": // straight to stdout, past the screen, as a careless caller would
      process.stdout.write(step.text);
      await new Promise((r) => setTimeout(r, 200)); // a write error comes later, as an event
      break;
    case "wait":
      log({
        waited: await new Promise<string>((resolve) => {
          const timer = setTimeout(() => resolve("timeout"), step.ms);
          interrupted = () => {
            clearTimeout(timer);
            resolve("interrupted");
          };
        }),
      });
      interrupted = null;
      break;
    case "queued":
      log({ queued: ui.prompts.hasQueued() });
      break;
    case "permission":
      log({ permission: await ui.asker.permission(CanUseToolRequest.parse(step.request), { cwd: step.cwd }) });
      break;
    case "questions":
      log({ questions: await ui.asker.questions(step.questions) });
      break;
    case "plan":
      log({ plan: await ui.asker.plan(step.plan) });
      break;
  }
}
const hungUp = ui.hungUp;
ui.close();
log({ end: { hungUp } });
if (hungUp) exitAsHangUp();
