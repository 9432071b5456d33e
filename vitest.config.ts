import { readdirSync, readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

/**
 * The unit tier: tests that start no processes (test/support/no-processes.ts fails any that does).
 * It runs in seconds and needs no native module, so CI also runs it on the oldest Node nudge supports.
 */
const UNIT = [
  "test/architecture.test.ts",
  "test/store/transcript-copy.test.ts",
  "test/store/zod-accept.test.ts",
  "test/claude/ndjson.test.ts",
  "test/claude/task-notification.test.ts",
  "test/docs/command-pages.test.ts",
  "test/json-schemas.test.ts",
  "test/operation.test.ts",
  "test/loop/best-turn.test.ts",
  "test/loop/guards.test.ts",
  "test/loop/iteration-verdict.test.ts",
  "test/loop/loop-report.test.ts",
  "test/loop/model-plan.test.ts",
  "test/loop/prompt-template.test.ts",
  "test/loop/sigils.test.ts",
  "test/recorder/conversation-pieces.test.ts",
  "test/recorder/image-lines.test.ts",
  "test/recorder/turn-follower.test.ts",
  "test/rules/evaluate.test.ts",
  "test/rules/hook-answers.test.ts",
  "test/rules/load-rules.test.ts",
  "test/rules/parse-rules.test.ts",
  "test/search/tokens.test.ts",
  "test/search/snippet.test.ts",
  "test/search/stored-text.test.ts",
  "test/live/conversation-order.test.ts",
  "test/live/turn-end.test.ts",
  "test/live/prompt-images.test.ts",
  "test/live/claude-session-scan.test.ts",
  "test/sharing/byte-reader.test.ts",
  "test/sharing/export-plan.test.ts",
  "test/sharing/export-transcript-end.test.ts",
  "test/claude/json-bytes.test.ts",
  "test/sharing/json-strings.test.ts",
  "test/sharing/publish-plan.test.ts",
  "test/sharing/secret-corpus.test.ts",
  "test/sharing/secrets.test.ts",
  "test/sharing/secrets-windows.test.ts",
  "test/terminal/context-use.test.ts",
  "test/terminal/durations.test.ts",
  "test/terminal/event-renderer.test.ts",
  "test/terminal/line-editor.test.ts",
  "test/terminal/markdown-stream.test.ts",
  "test/terminal/partial-messages.test.ts",
  "test/terminal/prompt-keys-readme.test.ts",
  "test/terminal/question-views.test.ts",
  "test/terminal/replay-player.test.ts",
  "test/terminal/status-line.test.ts",
  "test/time-travel/plan-paths.test.ts",
  "test/view/diff-view.test.ts",
  "test/view/entry-builder.test.ts",
];

/** The browser tier: the tests that drive a real headless Chromium (every one of them takes test/support/browser.ts). */
const BROWSER = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => `test/${file}`)
  .filter((file) => /from "\.\.?\/(?:\.\.\/)*support\/browser\.js"/.test(readFileSync(file, "utf8")));

export default defineConfig({
  test: {
    setupFiles: ["test/support/setup.ts"],
    // End-to-end tests drive the real claude binary and real git repos; give them room.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // The machine has 2 cores; the e2e tests each spawn claude + git, so keep parallelism modest.
    maxWorkers: 2,
    // `vitest run` runs all three; `--project unit` (npm run test:unit) the unit tier alone, in seconds;
    // `--project e2e` the real claude, git and pty; `--project browser` the page in Chromium.
    projects: [
      { extends: true, test: { name: "unit", include: UNIT, setupFiles: ["test/support/no-processes.ts"] } },
      {
        extends: true,
        test: { name: "e2e", include: ["test/**/*.test.ts"], exclude: [...UNIT, ...BROWSER, "**/node_modules/**"] },
      },
      { extends: true, test: { name: "browser", include: BROWSER } },
    ],
  },
});
