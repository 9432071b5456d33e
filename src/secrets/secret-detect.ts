/**
 * Where the secrets are in a text, three detections combined: secretlint's recommended preset
 * (Anthropic, OpenAI, AWS, GitHub, GitLab, Slack, Stripe, npm, private keys, database connection
 * strings, …) plus the assignments it leaves alone on purpose (`*_KEY=`, `*_TOKEN=`, `*_SECRET=`,
 * `PASSWORD=` in env files and shells, `password:` in YAML, JSON or TOML); rules modelled on
 * gitleaks' defaults (secret-rules.ts); and a random value next to a key-like name
 * (secret-entropy.ts). Overlapping findings are one secret, masked as their union.
 *
 * Documentation's example keys are not secrets: a value spelled with `EXAMPLE` (as AWS's
 * `AKIAIOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY` are) or made of a few
 * repeated characters (`ghp_xxxx…`) is left alone. A real key never holds the word.
 *
 * secretlint 13 declares Node ≥ 22; it runs on Node 20 (it uses nothing newer, and the tests here
 * run it on 20). Its preset is one bundled file with no dependencies.
 */
import { lintSource } from "@secretlint/core";
import { creator as recommended } from "@secretlint/secretlint-rule-preset-recommend";
import type { SecretLintCoreConfig } from "@secretlint/types";
import { entropyFindings } from "./secret-entropy.js";
import { ruleFindings } from "./secret-rules.js";
import { isSecretName, nameAround } from "./secret-names.js";
import { GITLEAKS_RULES } from "./gitleaks-rules.js";
import { PortedRules } from "./ported-rules.js";
import { PROVIDER_RULES } from "./provider-rules.js";
import { blockFindings } from "./secret-blocks.js";
import { escapedFindings } from "./secret-escaped.js";

export interface SecretSpan {
  /** What it is, as in its placeholder `[REDACTED:<kind>]`: `anthropic-api-key`, `private-key`, `password`. */
  kind: string;
  start: number;
  end: number;
}

const FILTER_COMMENTS = "@secretlint/secretlint-rule-filter-comments";

/**
 * The preset's rules, registered one by one without its comment filter: a `secretlint-disable`
 * comment anywhere in a transcript (a file claude read, say) would otherwise switch detection off
 * for the rest of the text. (`disabled` on a rule inside a preset is ignored by secretlint 13.)
 */
const CONFIG: SecretLintCoreConfig = {
  rules: recommended.rules
    .filter((rule) => rule.meta.id !== FILTER_COMMENTS)
    .map((rule) => ({ id: rule.meta.id, rule })),
};

/** secretlint's message ids where the generic spelling reads badly. */
const KINDS: Record<string, string> = {
  OPENAI_TOKEN: "openai-api-key",
  MongoDBConnection: "mongodb-connection-string",
  MySQLConnection: "mysql-connection-string",
  PostgreSQLConnection: "postgresql-connection-string",
  PackageJSON_xOauthToken: "npm-oauth-token",
  Npmrc_authToken: "npm-auth-token",
};

/**
 * `NAME=value` with NAME an env-style name ending in KEY, TOKEN, SECRET, PASSWORD or PASSWD
 * (upper case: `apiKey = getKey()` in code is not a secret). The value may be quoted; a `$`
 * reference or a `<placeholder>` is not a value. The keyword comes first and the name is checked
 * behind it, so the regex engine can skip ahead to the keyword (10× faster on 12 MB than a
 * pattern that starts with the name).
 */
const ENV_ASSIGNMENT =
  /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)(?<=(?<![A-Za-z0-9_])(?:[A-Z][A-Z0-9_]*_)?(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD))[ \t]*=[ \t]*["']?(?<value>[^\s"'`$<>]{6,})/g;
/** `password: value` (YAML), `"password": "value"` (JSON), `password = "value"` (TOML), and the same for secrets, API keys and tokens. */
const FIELD =
  /(?:password|passwd|secret|api_?key|access_?token|auth_?token|client_?secret)["']?[ \t]*(?::|=(?=[ \t]*["']))[ \t]*["']?(?<value>[^\s"',{}[\]`$<>]{6,})/gi;
/** Values that are names or placeholders, not secrets. */
const NOT_A_SECRET =
  /^(?:[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+|x+|\*+|\.+|-+|changeme|password|secret|example|null|none|true|false|undefined|required|optional|string|redacted.*|\[REDACTED:.*)$/i;

/**
 * A text longer than this is scanned in windows of it, each overlapping the next by WINDOW_OVERLAP:
 * secretlint and the rules hold a few copies of what they scan, and a 50 MB tool input scanned whole
 * took the export's memory past 500 MB. The findings of all windows are merged as one scan's are.
 */
const WINDOW = 512 << 10;
/**
 * Any stretch of text up to half of this lies whole in one window: a secret with the name or
 * keyword before it that a rule needs (the longest rules span ~12 KB: a JWT; a private key a few KB).
 */
const WINDOW_OVERLAP = 64 << 10;

export async function detectSecrets(text: string): Promise<SecretSpan[]> {
  if (text.length <= WINDOW + WINDOW_OVERLAP) return detectWhole(text);
  const found: SecretSpan[] = [];
  for (const [from, to] of windows(text)) {
    for (const span of await detectWhole(text.slice(from, to)))
      found.push({ kind: span.kind, start: span.start + from, end: span.end + from });
  }
  return merged(found);
}

/** [from, to) of each window, cut after a line's end where one is near (a line's rules see it whole), never inside a surrogate pair. */
export function* windows(text: string, size = WINDOW, overlap = WINDOW_OVERLAP): Generator<[number, number]> {
  const cut = (at: number, earliest: number) => {
    if (at >= text.length) return text.length;
    const newline = text.lastIndexOf("\n", at - 1);
    if (newline >= earliest) return newline + 1;
    const code = text.charCodeAt(at - 1);
    return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
  };
  for (let from = 0; ;) {
    const to = cut(from + size, from + size - overlap / 2);
    yield [from, to];
    if (to >= text.length) return;
    // The next window starts at most `overlap` back, at least `overlap / 2`: what straddles `to` is whole in one of the two.
    from = cut(to - overlap / 2, to - overlap);
  }
}

async function detectWhole(text: string): Promise<SecretSpan[]> {
  const found = [
    ...(await secretlintFindings(text)),
    ...textFindings(text),
    ...blockFindings(text, textFindings),
    ...escapedFindings(text, decodedFindings),
  ];
  return merged(found.filter((s) => !isExample(text.slice(s.start, s.end))));
}

let ported: PortedRules | undefined;

/** Every detection but secretlint's and the blocks: what a base64-wrapped text is checked with too. */
function textFindings(text: string): SecretSpan[] {
  ported ??= new PortedRules([...GITLEAKS_RULES, ...PROVIDER_RULES]);
  return [...assignmentFindings(text), ...ruleFindings(text), ...ported.findings(text), ...entropyFindings(text)];
}

/** What a JSON string's decoded value is checked with: every detection but secretlint's. */
function decodedFindings(text: string): SecretSpan[] {
  return [...textFindings(text), ...blockFindings(text, textFindings)];
}

/** secretlint's recommended preset alone (the corpus test reports what each detection finds). */
export async function secretlintFindings(text: string): Promise<SecretSpan[]> {
  const result = await lintSource({
    source: { content: text, filePath: "text", contentType: "text" },
    options: { config: CONFIG, noPhysicFilePath: true },
  });
  return result.messages.map((m) => ({ kind: kindOf(m.messageId), ...anchored(text, m.range, m.data) }));
}

/** `NAME_KEY=value`, `password: value`: what secretlint leaves alone on purpose. */
export function assignmentFindings(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const pattern of [ENV_ASSIGNMENT, FIELD]) {
    for (const match of text.matchAll(pattern)) {
      const value = match.groups!.value!;
      if (NOT_A_SECRET.test(value)) continue;
      if (!isSecretName(nameAround(text, match.index, match.index + match[0].search(/[^\w.-]/)))) continue;
      const start = match.index + match[0].length - value.length;
      if (!found.some((s) => s.start === start))
        found.push({
          kind: /^passw/i.test(match[0]) ? "password" : "secret-assignment",
          start,
          end: start + value.length,
        });
    }
  }
  return found;
}

/** Generic names: a secret one of these and a token format both found is named by its format (ANTHROPIC_API_KEY=sk-ant-…). */
const GENERIC = new Set([
  "secret-assignment",
  "password",
  "high-entropy-secret",
  "authorization-header",
  "password-in-url",
  "connection-string-password",
]);

/**
 * One span per secret: overlapping findings become their union, named by the most specific
 * (a token format before a generic assignment or the entropy check), so nothing of either stays.
 */
function merged(spans: SecretSpan[]): SecretSpan[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretSpan[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (!last || s.start >= last.end) {
      out.push({ ...s });
      continue;
    }
    last.end = Math.max(last.end, s.end);
    if (GENERIC.has(last.kind) && !GENERIC.has(s.kind)) last.kind = s.kind;
  }
  return out;
}

/** Documentation's example keys: spelled with EXAMPLE, or a few characters repeated (`xxxx`). */
function isExample(value: string): boolean {
  return value.includes("EXAMPLE") || (value.length >= 12 && new Set(value.replace(/^[a-z]{2,4}[_-]/, "")).size <= 3);
}

/**
 * The secret's own span. A rule reports the secret in its message data; where that text sits
 * just after where the rule's range starts, it is the span: secretlint 13.0.7's AWS secret-key
 * rule reports [start of `aws_secret_access_key = …`, + the key's length), which would mask the
 * name and leave most of the key.
 */
function anchored(text: string, range: readonly [number, number], data: unknown): { start: number; end: number } {
  const values = Object.values((data ?? {}) as Record<string, unknown>).filter(
    (v): v is string => typeof v === "string" && v.length >= 8,
  );
  let best: { start: number; end: number } | undefined;
  for (const value of values) {
    const at = text.indexOf(value, range[0]);
    if (at !== -1 && at < range[0] + 256 && (!best || value.length > best.end - best.start))
      best = { start: at, end: at + value.length };
  }
  return best ?? { start: range[0], end: range[1] };
}

/** `ANTHROPIC_API_KEY` → `anthropic-api-key`, `AWSSecretAccessKey` → `aws-secret-access-key`. */
function kindOf(messageId: string): string {
  return (
    KINDS[messageId] ??
    messageId
      .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
      .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
      .replace(/_/g, "-")
      .toLowerCase()
  );
}
