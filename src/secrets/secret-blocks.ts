/**
 * Secrets no single-token pattern finds: a PuTTY key file, a key or token wrapped in base64 (a
 * kubeconfig's `client-key-data`, a Kubernetes secret, a base64'd `.env`), a password stated in
 * prose, a Discord bot token (its first part is a user id in base64, nothing literal), a Docker
 * config's `"auth"` (base64 of `user:password`).
 * Every pattern here has one unbounded character class at most and no nested repeat, so it runs
 * in linear time in V8's engine.
 */
import type { SecretSpan } from "./secret-detect.js";

export function blockFindings(text: string, inner: (decoded: string) => SecretSpan[]): SecretSpan[] {
  return [
    ...puttyKeys(text),
    ...base64Wrapped(text, inner),
    ...prosePasswords(text),
    ...discordTokens(text),
    ...dockerAuths(text),
  ];
}

const PUTTY = /PuTTY-User-Key-File-[0-9]+:/g;
/** The lines of a key file: `Name: value` headers and base64 body lines (escaped line ends too). */
const PUTTY_BODY = /(?:[ \t]*(?:\r?\n|\\r?\\n)(?:[A-Za-z-]{1,40}:[^\n\\]{0,400}|[A-Za-z0-9+/=]{1,200}))*/y;

/** A PuTTY `.ppk` file: from its first line to its last (`Private-MAC: …`), the public lines too. */
function puttyKeys(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(PUTTY)) {
    PUTTY_BODY.lastIndex = m.index + m[0].length;
    const lineEnd = text.slice(PUTTY_BODY.lastIndex, PUTTY_BODY.lastIndex + 400).search(/\r?\n|\\n/);
    PUTTY_BODY.lastIndex += lineEnd === -1 ? 0 : lineEnd;
    const body = PUTTY_BODY.exec(text)![0];
    if (!/Private-(?:Lines|MAC)/.test(body)) continue;
    // The MAC line is the file's last: what follows is other text, however base64 it looks.
    const mac = body.search(/Private-MAC:[^\n\\]*/);
    const end =
      mac === -1
        ? PUTTY_BODY.lastIndex
        : PUTTY_BODY.lastIndex - body.length + mac + /Private-MAC:[^\n\\]*/.exec(body.slice(mac))![0].length;
    found.push({ kind: "putty-private-key", start: m.index, end });
  }
  return found;
}

/** A base64 run shorter than this is no key and no wrapped text worth decoding. */
const MIN_RUN = 40;
/** An encoded key or key file is at most a few kilobytes; longer runs are images and archives. */
const MAX_RUN = 24 * 1024;
const DECODED_KEY = /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY|PuTTY-User-Key-File-|openssh-key-v1\0/;

/**
 * A base64 run whose decoded bytes are a private key, or text with a secret in it: the run is
 * masked whole (the secret cannot be cut out of its encoding).
 */
function base64Wrapped(text: string, inner: (decoded: string) => SecretSpan[]): SecretSpan[] {
  const found: SecretSpan[] = [];
  // One pass by char codes: a regex for "40 base64 characters" retries every start inside a shorter run.
  for (let i = 0; i < text.length; i++) {
    if (!isBase64Char(text.charCodeAt(i))) continue;
    const begin = i;
    while (i < text.length && isBase64Char(text.charCodeAt(i))) i++;
    if (i - begin < MIN_RUN) continue;
    let end = i;
    for (let pad = 0; pad < 2 && text[end] === "="; pad++) end++;
    i = end - 1; // the loop steps past the run
    const run = text.slice(begin, end);
    if (run.length > MAX_RUN || !/[0-9]/.test(run) || !/[A-Z]/.test(run) || !/[a-z]/.test(run)) continue;
    const decoded = Buffer.from(run, /[_-]/.test(run) ? "base64url" : "base64").toString("latin1");
    if (DECODED_KEY.test(decoded)) {
      found.push({ kind: "base64-private-key", start: begin, end });
      continue;
    }
    if (!isText(decoded)) continue;
    const spans = inner(decoded);
    if (spans.length > 0) found.push({ kind: `base64-${spans[0]!.kind}`, start: begin, end });
  }
  return found;
}

/** Base64 and base64url characters by char code (a table: this runs once per character of every text). */
const BASE64_CHAR = new Uint8Array(128);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-") BASE64_CHAR[c.charCodeAt(0)] = 1;

function isBase64Char(c: number): boolean {
  return c < 128 && BASE64_CHAR[c] === 1;
}

/** Mostly printable ASCII with line ends: text, not a hash or an image. */
function isText(decoded: string): boolean {
  let printable = 0;
  for (let i = 0; i < decoded.length; i++) {
    const c = decoded.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 0x0a || c === 0x0d || c === 0x09) printable++;
  }
  return printable >= decoded.length * 0.97;
}

/**
 * "the password is hunter2x!", "password for the db: Tr0ub4dor&3", "pw was s3cr3t-Pa55", "the
 * password is now kK5l…", "password changed to …": a password named in prose (a few filler words between), then one word with a digit or a symbol in it (so "the password is stored in the
 * vault" and "the password is required" are prose, not a secret). A `$NAME` or `<placeholder>` is not one.
 */
const PROSE_PASSWORD =
  /\b(?:password|passphrase|passcode|passwd|pwd|pw)(?:[ \t]+(?:for|of|to|on)(?:[ \t]+[\w.@/-]{1,40}){1,3})?(?:[ \t]+(?:is|was|=)(?:[ \t]+(?:now|still|currently|set[ \t]+to|changed[ \t]+to))?[ \t]*:?|[ \t]+(?:(?:is|was|has[ \t]+been)[ \t]+)?(?:set|changed|reset)[ \t]+to[ \t]*:?|[ \t]*[:=])[ \t]+["'`]?([^\s"'`$<{%][^\s"'`]{5,63})/gi;

function prosePasswords(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(PROSE_PASSWORD)) {
    // A sentence's last word keeps its full stop or comma out; a password's own symbols stay.
    const value = m[1]!.replace(/[.,;:)\]]+$/, "");
    if (
      value.length < 6 ||
      !/[0-9]/.test(value) ||
      !/[A-Za-z]/.test(value) ||
      /^[\w-]+\(|^https?:|^\/|^[\w.-]+\.[a-z]{2,4}$/.test(value)
    )
      continue;
    const start = m.index + m[0].length - m[1]!.length;
    found.push({ kind: "password", start, end: start + value.length });
  }
  return found;
}

const DISCORD = /\b[MNO][A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])/g;

/**
 * A Discord bot token: its first part decodes to a user id (17 to 20 digits), or has the shape of
 * one (`MT…`, as every id since 2017 encodes) with letters of both cases and digits across the token.
 */
function discordTokens(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(DISCORD)) {
    const id = Buffer.from(m[0].slice(0, m[0].indexOf(".")), "base64url").toString("latin1");
    const shaped =
      /^MT[A-Za-z0-9_-]{22,26}\./.test(m[0]) && /[A-Z]/.test(m[0].slice(2)) && /[a-z]/.test(m[0]) && /[0-9]/.test(m[0]);
    if (/^[0-9]{17,20}$/.test(id) || shaped)
      found.push({ kind: "discord-bot-token", start: m.index, end: m.index + m[0].length });
  }
  return found;
}

const DOCKER_AUTH = /"auth"[ \t]{0,4}:[ \t]{0,4}"([A-Za-z0-9+/]{8,400}={0,2})"/g;

/** A Docker config's `"auth": "<base64 of user:password>"` (`~/.docker/config.json`). */
function dockerAuths(text: string): SecretSpan[] {
  const found: SecretSpan[] = [];
  for (const m of text.matchAll(DOCKER_AUTH)) {
    if (!/^[\x21-\x39\x3b-\x7e]{1,200}:[\x20-\x7e]{1,400}$/.test(Buffer.from(m[1]!, "base64").toString("latin1")))
      continue;
    const start = m.index + m[0].length - m[1]!.length - 1;
    found.push({ kind: "docker-registry-auth", start, end: start + m[1]!.length });
  }
  return found;
}
