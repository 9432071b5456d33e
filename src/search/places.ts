/** Where in a turn a match is, and how a person calls it: for the CLI, --json and the page alike (no imports: the page bundles it). */
const PLACES = ["prompt", "text", "tool-input", "tool-output", "edits", "file", "decision", "check"] as const;
export type Place = (typeof PLACES)[number];

/** How a place is named to a person. */
export const PLACE_NAMES: Record<Place, string> = {
  prompt: "prompt",
  text: "Claude's text",
  "tool-input": "tool input",
  "tool-output": "tool output",
  edits: "your edits",
  file: "file name",
  decision: "decision",
  check: "check",
};
