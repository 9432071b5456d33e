/**
 * For rules whose keyword is short or common (`s.`, `ey`, `sk`, `api-`, `password`, `://`), a V8
 * regex every match of the rule must contain: a window without it cannot match, so re2js (slower
 * than V8 on a literal) is not run there. Each is the rule's own start up to its first repeat, with
 * the rule's case and `\b` (ASCII in both engines), so it rejects nothing the rule would find.
 */
export const RULE_PREFILTERS: Record<string, RegExp> = {
  "1password-secret-key": /\bA3-/,
  "authress-service-client-access-key": /\b(?:sc|ext|scauth|authress)_/,
  "aws-access-token": /\b(?:A3T|AKIA|ASIA|ABIA|ACCA)/,
  "azure-ad-client-secret": /\dQ~/,
  "connection-string-password": /(?:^|;)[ \t]*(?:password|pwd)[ \t]*=/i,
  "dropbox-access-token": /\bsl\./,
  "flyio-access-token": /\b(?:fo1_|fm1[ar]_|fm2_)/,
  "huggingface-access-token": /\bhf_/,
  "huggingface-token": /\bhf_/,
  jwt: /\bey[a-zA-Z0-9]{17}/,
  // Both of the rule's orders hold `kind: secret`; its keyword alone (`secret`) is everywhere in code.
  // RE2's (?i) also folds the Kelvin sign (U+212A) into k; V8's /i does not.
  "kubernetes-secret-yaml": /\b[k\u212A]ind:[ \t]*["']?secret\b/i,
  "mailchimp-api-key": /-us[0-9]/i,
  "notion-integration-token": /\bsecret_[A-Za-z0-9]{43}/,
  "octopus-deploy-api-key": /\bAPI-[A-Z0-9]{26}/,
  "replicate-api-token": /\br8_/,
  "resend-api-key": /\bre_[A-Za-z0-9]{8}_/,
  "sendgrid-api-token": /\bSG\./,
  "sentry-dsn": /:\/\/[0-9a-f]{32}/,
  "twilio-api-key": /SK[0-9a-fA-F]{32}/,
  "vault-service-token": /\b(?:hvs|s)\./,
};
