/**
 * The environment and config for claude's own UI offline against the scripted API (no vitest
 * here: the bench uses it too).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { claudeEnv, CLAUDE_BIN } from "./claude-env.js";

/** claude's config for its UI offline: onboarding done, the test key approved, the project trusted. */
function tuiConfig(configDir: string, env: Record<string, string>, projects: string[]): void {
  const trusted = Object.fromEntries(
    projects.map((p) => [p, { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true }]),
  );
  const approved = [env.ANTHROPIC_API_KEY!.slice(-20)];
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    path.join(configDir, ".claude.json"),
    JSON.stringify({
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved, rejected: [] },
      projects: trusted,
    }),
  );
}

export function tuiEnv(api: { url: string }, configDir: string, repo: string): Record<string, string> {
  const env = { ...claudeEnv(api, configDir), NUDGE_CLAUDE_BIN: CLAUDE_BIN, NO_COLOR: "1" };
  tuiConfig(configDir, env, [repo]);
  return env;
}
