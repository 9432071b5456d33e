// How tests launch the real `claude` binary against a ScriptedApi.
import { fileURLToPath } from "node:url";
import path from "node:path";

/** Absolute path of the pinned real CLI (node_modules/.bin/claude of this repo). */
export const CLAUDE_BIN: string = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../node_modules/.bin/claude",
);

/**
 * Environment for one offline, isolated claude run. Merge it over process.env
 * (execa does that by default) so PATH etc. still reach Bash tool calls.
 */
export function claudeEnv(api: { url: string }, configDir: string): Record<string, string> {
  return {
    // Send every Messages API call to the scripted loopback server.
    ANTHROPIC_BASE_URL: api.url,
    // Any non-empty key makes claude use API-key auth (no login / OAuth flow).
    ANTHROPIC_API_KEY: "sk-ant-test-scripted",
    // Blank out other credentials a developer's shell may carry, which would
    // otherwise take precedence over the API key.
    ANTHROPIC_AUTH_TOKEN: "",
    CLAUDE_CODE_OAUTH_TOKEN: "",
    // No telemetry, error reporting, update checks or feature-flag fetches:
    // keeps runs offline and deterministic.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    // Belt and braces for the individual switches the flag above covers.
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    // Transcripts, settings and .claude.json go here instead of ~/.claude.
    CLAUDE_CONFIG_DIR: configDir,
    // Deliberately NOT set: CLAUDE_CODE_MAX_RETRIES. Default 10 retries with
    // backoff take ~3 min on a persistent 401/429; tests scripting httpError
    // steps should add CLAUDE_CODE_MAX_RETRIES: '0' (or '1') themselves.
  };
}

/**
 * Base arguments: one long-lived process, one JSON line per user message on
 * stdin, JSON events on stdout. --replay-user-messages echoes our own prompts
 * back so stdout alone holds the whole dialogue. We run as root, where
 * --dangerously-skip-permissions is refused, so allow edits and Bash instead.
 */
export const CLAUDE_ARGS: string[] = [
  "-p",
  "--verbose",
  "--input-format",
  "stream-json",
  "--output-format",
  "stream-json",
  "--replay-user-messages",
  "--permission-mode",
  "acceptEdits",
  "--allowedTools",
  "Bash",
];
