/** A tool call: its name and detail, its input and output (collapsed), a subagent's entries nested. */
import type { Entry } from "../../../../view/view-types.js";
import { ClippedBlock, ClippedNote, WholeNote } from "./clipped-block.js";
import { EntryView } from "./entries.js";
import { FileInputView, readFileInput } from "./file-input.js";
import { visibleJsonText } from "../../../../base/inert-text.js";
import { openByDefault } from "../disclosure.js";

type Tool = Extract<Entry, { kind: "tool" }>;

export function ToolCall({ tool, onShowAll }: { tool: Tool; onShowAll: (() => void) | null }) {
  const failed = tool.result?.isError === true;
  return (
    <details class={`tool${failed ? " failed" : ""}`} open={openByDefault()}>
      <summary>
        <span class="tool-name">{tool.name}</span>
        {tool.detail ? <span class="tool-detail">{tool.detail}</span> : null}
        {failed ? (
          <span class="badge error">error</span>
        ) : tool.result === null ? (
          <span class="badge">no result</span>
        ) : null}
        {tool.children.length ? <span class="badge">{tool.children.length} subagent entries</span> : null}
      </summary>
      <div class="tool-body">
        <h3 class="part">Input</h3>
        <ToolInput tool={tool} onShowAll={onShowAll} />
        {tool.result ? (
          <>
            <h3 class="part">{failed ? "Error" : "Output"}</h3>
            <ClippedBlock text={tool.result.content} onShowAll={onShowAll} />
          </>
        ) : null}
        {tool.children.length ? (
          <div class="subagent">
            <h3 class="part">Subagent</h3>
            {tool.children.map((e, i) => (
              <EntryView key={i} entry={e} onShowAll={onShowAll} />
            ))}
          </div>
        ) : null}
      </div>
    </details>
  );
}

function ToolInput({ tool, onShowAll }: { tool: Tool; onShowAll: (() => void) | null }) {
  const file = readFileInput(tool.name, tool.input);
  if (!file) {
    // JSON as claude sent it, its escapes of controls in the style every view uses (`\x1b`, not `\u001b`).
    const shown = visibleJsonText(tool.input.text);
    const input = { ...tool.input, text: shown, length: tool.input.length - (tool.input.text.length - shown.length) };
    return <ClippedBlock text={input} onShowAll={onShowAll} />;
  }
  const cut = tool.input.length > tool.input.text.length;
  return (
    <>
      <FileInputView input={file} />
      {tool.input.whole ? (
        <WholeNote whole={tool.input.whole} />
      ) : cut ? (
        <ClippedNote
          text={`… the input is cut here (${tool.input.length - tool.input.text.length} more characters)`}
          onShowAll={onShowAll}
        />
      ) : null}
    </>
  );
}
