/**
 * A second rule set beside secretlint's preset, modelled on gitleaks' default rules (the widest
 * public list): the token formats secretlint leaves out or finds only in a file of the right name
 * (AWS key ids, Google API keys, JWTs, SendGrid keys with `-`, `_authToken` outside `.npmrc`, …),
 * credentials inside URLs and headers, and private keys of every PEM and OpenSSH form, found by
 * their markers whatever the body looks like.
 *
 * Written here, not copied: each pattern anchors on a literal prefix at a word start and runs a
 * bounded or single character class after it, so no pattern backtracks more than its own bound
 * and a text is scanned in linear time (no nested quantifiers, no alternation under a repeat).
 */
import type { SecretSpan } from "./secret-detect.js";

interface Rule {
  kind: string;
  /** The secret is group 1 when the pattern has one (the name before it stays readable), else the whole match. */
  pattern: RegExp;
}

const RULES: Rule[] = [
  { kind: "aws-access-key-id", pattern: /\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b/g },
  { kind: "gcp-api-key", pattern: /\bAIza[\w-]{35}(?![\w-])/g },
  { kind: "jwt", pattern: /\beyJ[\w-]{8,2000}\.eyJ[\w-]{8,8000}\.[\w-]{8,2000}/g },
  { kind: "github-token", pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}\b/g },
  { kind: "github-token", pattern: /\bgithub_pat_\w{82}\b/g },
  { kind: "gitlab-token", pattern: /\bgl(?:pat|dt|ptt|rt)-[\w-]{20}(?![\w-])/g },
  { kind: "npm-access-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: "npm-auth-token", pattern: /_auth(?:Token)?["']?[ \t]{0,4}[=:][ \t]{0,4}["']?([^\s"'$<>]{8,400})/g },
  { kind: "pypi-token", pattern: /\bpypi-AgEIcHlwaS5vcmc[\w-]{50,400}/g },
  { kind: "slack-token", pattern: /\bxox[baprse]-[A-Za-z0-9-]{10,250}/g },
  { kind: "slack-webhook", pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/([A-Za-z0-9+/_-]{20,120})/g },
  { kind: "discord-webhook", pattern: /discord(?:app)?\.com\/api\/webhooks\/([0-9]{17,20}\/[\w-]{60,80})/g },
  { kind: "telegram-bot-token", pattern: /\b[0-9]{8,10}:AA[\w-]{33}(?![\w-])/g },
  { kind: "stripe-key", pattern: /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,99}\b/g },
  { kind: "stripe-webhook-secret", pattern: /\bwhsec_[A-Za-z0-9]{24,64}\b/g },
  { kind: "sendgrid-api-key", pattern: /\bSG\.[\w-]{20,24}\.[\w-]{39,50}/g },
  { kind: "mailgun-api-key", pattern: /\bkey-[0-9a-f]{32}\b/g },
  { kind: "twilio-api-key", pattern: /\bSK[0-9a-fA-F]{32}\b/g },
  { kind: "openai-api-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[\w-]{16,200}T3BlbkFJ[\w-]{16,200}/g },
  { kind: "anthropic-api-key", pattern: /\bsk-ant-(?:api|admin)0\d-[\w-]{80,100}AA(?![\w-])/g },
  { kind: "huggingface-token", pattern: /\bhf_[A-Za-z]{34}\b/g },
  { kind: "shopify-token", pattern: /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b/g },
  { kind: "digitalocean-token", pattern: /\bdo[por]_v1_[a-f0-9]{64}\b/g },
  { kind: "vault-token", pattern: /\bhv[sb]\.[\w-]{90,200}/g },
  { kind: "doppler-token", pattern: /\bdp\.pt\.[a-zA-Z0-9]{43}\b/g },
  { kind: "linear-api-key", pattern: /\blin_api_[a-zA-Z0-9]{40}\b/g },
  { kind: "age-secret-key", pattern: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g },
  { kind: "square-token", pattern: /\bEAAA[\w-]{60}(?![\w-])/g },
  // Mapbox's secret (`sk.`) and temporary (`tk.`) tokens; its public `pk.` tokens are meant to be published.
  { kind: "mapbox-secret-token", pattern: /\b[st]k\.eyJ[\w-]{10,400}\.[\w-]{20,30}(?![\w-])/g },
  // A service account key file's key id: the name says it is one (the name alone is no secret's elsewhere).
  { kind: "gcp-private-key-id", pattern: /"private_key_id"[ \t]{0,4}:[ \t]{0,4}"([a-f0-9]{40})"/g },
  { kind: "azure-storage-key", pattern: /\b(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{40,100}={0,2})/g },
  // A password inside a URL (postgres://app:pw@, redis://:pw@, https://deploy:pw@): the password only.
  // Anchored on `://` with the scheme checked behind it, so V8 skips ahead to the literal.
  {
    kind: "password-in-url",
    pattern: /:\/\/(?<=\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}:\/\/)[^\s:/@'"`]{0,100}:([^\s@/'"`]{3,200})@/g,
  },
  { kind: "authorization-header", pattern: /\b(?:Bearer|Basic|Token)[ \t]{1,4}([A-Za-z0-9._~+/-]{16,2000}=*)/g },
  // curl -u user:password / --user user:password (the password only).
  { kind: "password", pattern: /(?:^|\s)(?:-u|--user)[ \t=]{1,4}["']?[^\s:"']{1,100}:([^\s"']{4,200})/g },
];

/** Every rule's findings; patterns with a group report the group. */
export function ruleFindings(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const rule of RULES) {
    for (const m of text.matchAll(rule.pattern)) {
      const value = m[1] ?? m[0];
      const start = m.index + (m[1] === undefined ? 0 : m[0].lastIndexOf(value));
      found.push({ kind: rule.kind, start, end: start + value.length });
    }
  }
  return [...found, ...privateKeys(text)];
}

/** What a key cut short is made of after its BEGIN line: base64, line ends (escaped too), header lines. */
const KEY_BODY = /[A-Za-z0-9+/=\s\\:,-]*/y;
const BEGIN = /-----BEGIN ((?:[A-Z0-9]{1,12} ){0,4})PRIVATE KEY( BLOCK)?-----/g;

/**
 * Private keys of every form: PKCS#1 (`RSA`, `DSA`, `EC`), PKCS#8 (plain and `ENCRYPTED`),
 * OpenSSH, PuTTY-less PGP blocks. From the BEGIN marker to its END marker, found with indexOf
 * (one pass); cut short, as far as its body goes: a partial key is still a secret.
 * In a JSON string decoded, or still escaped (`\n` as two characters), the markers are the same.
 */
function privateKeys(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  let from = 0;
  for (const m of text.matchAll(BEGIN)) {
    if (m.index < from) continue;
    const endMarker = `-----END ${m[1]}PRIVATE KEY${m[2] ?? ""}-----`;
    const after = m.index + m[0].length;
    const end = text.indexOf(endMarker, after);
    KEY_BODY.lastIndex = after;
    const stop = end !== -1 ? end + endMarker.length : after + KEY_BODY.exec(text)![0].length;
    found.push({ kind: "private-key", start: m.index, end: stop });
    from = stop;
  }
  return found;
}
