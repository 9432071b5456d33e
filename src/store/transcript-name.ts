/** Where a bundle keeps its copy of claude's transcript: `claude/<claude session id>.jsonl`. */
export function transcriptName(claudeSessionId: string): string {
  return `claude/${claudeSessionId}.jsonl`;
}

/** The claude session id a bundle's transcript copy is named after. */
export function claudeSessionIdOf(transcript: string): string {
  return transcript.slice("claude/".length, -".jsonl".length);
}
