/**
 * Working with claude from the page, on a session this server drives: nudge's notices, claude's
 * question when it asks one, and the prompt box with Send, Stop and End. Claude's words are not
 * here: they come in the turn sections above, read from the recording as it grows.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { answerQuestion, endSession, sendPrompt, stopTurn, type LiveState } from "../live-session.js";
import { ErrorLine } from "./error-line.js";
import { QuestionCard } from "./question-card.js";
import { elapsed } from "../format.js";

/** nudge's commands, as the terminal has them: one that takes an argument is put in the box to finish, the others sent. */
const COMMANDS: Array<{ text: string; takes?: string; does: string }> = [
  { text: "/rewind", takes: "N", does: "put the code and the conversation back to turn N (shows its plan first)" },
  { text: "/fork", takes: "[N]", does: "go on in a new session from turn N (default: the last)" },
  { text: "/undo", does: "undo the last rewind (files and conversation), showing its plan first" },
  { text: "/compact", takes: "[focus]", does: "summarise the conversation so far, to free context" },
  { text: "/session", does: "this session's id, turns and cost" },
  { text: "/help", does: "what each command does" },
];

/** `prompts`: the session's prompts so far, newest first: Up recalls them too, after a reload as well. */
export function LivePanel({ id, state, prompts }: { id: string; state: LiveState; prompts: string[] }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<string[]>([]);
  const history = [...sent, ...prompts.filter((p) => !sent.includes(p))];
  const [back, setBack] = useState(-1);
  /** Notices from before the last prompt sent fold away behind "earlier" (they piled up in the footer). */
  const [since, setSince] = useState(0);
  const box = useRef<HTMLTextAreaElement>(null);
  const canSend = !state.busy && !state.question && !state.ended && !sending && text.trim() !== "";
  useEffect(() => {
    if (!state.busy && !state.question) box.current?.focus();
  }, [state.busy, state.question]);

  const act = (p: Promise<unknown>) => {
    setError(null);
    return p.then(
      () => undefined,
      (e: unknown) => setError(e),
    );
  };
  const sendText = (prompt: string) => {
    setSending(true);
    return act(
      sendPrompt(id, prompt).then(() => {
        setSince(Math.max(0, ...state.notices.map((n) => n.n + 1)));
        setSent((h) => [prompt, ...h].slice(0, 50));
        setBack(-1);
        setText("");
      }),
    ).finally(() => setSending(false));
  };
  const send = () => {
    if (canSend) void sendText(text);
  };
  const onKey = (e: KeyboardEvent) => {
    // Enter sends, Shift-Enter is a new line (as in Claude Code); Up/Down on an empty or recalled box walk the history.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    } else if ((e.key === "ArrowUp" || e.key === "ArrowDown") && (text === "" || text === history[back])) {
      const next = Math.max(-1, Math.min(history.length - 1, back + (e.key === "ArrowUp" ? 1 : -1)));
      if (next === back) return;
      e.preventDefault();
      setBack(next);
      setText(next === -1 ? "" : history[next]!);
    }
  };

  return (
    <section class="live-panel" aria-label="Work with claude">
      <Notices notices={state.notices} since={since} />
      {state.question ? (
        <QuestionCard
          question={state.question}
          onReply={(reply) => void act(answerQuestion(id, state.question!.id, reply))}
        />
      ) : null}
      <ErrorLine error={error} />
      {state.ended ? (
        <p class="muted">This session has ended.</p>
      ) : (
        <div class="prompt-row">
          <label class="prompt-box">
            <span class="visually-hidden">Prompt</span>
            <textarea
              ref={box}
              rows={3}
              value={text}
              placeholder={placeholder(state)}
              onInput={(e) => setText(e.currentTarget.value)}
              onKeyDown={onKey}
            />
          </label>
          <div class="prompt-buttons">
            <button type="button" onClick={send} disabled={!canSend}>
              Send
            </button>
            {state.busy ? (
              <button type="button" class="danger" onClick={() => void act(stopTurn(id))}>
                Stop
              </button>
            ) : null}
            <button type="button" onClick={() => void act(endSession(id))} disabled={state.busy}>
              End session
            </button>
          </div>
        </div>
      )}
      {state.busy ? <StatusLine activity={state.activity ?? "working"} since={state.since} /> : null}
      {state.ended ? null : (
        <div class="commands" role="group" aria-label="nudge's commands">
          {COMMANDS.map((c) => (
            <button
              key={c.text}
              type="button"
              class="command"
              title={c.does}
              disabled={state.busy || state.question !== null || sending}
              onClick={() => {
                if (c.takes) {
                  setText(c.text + " ");
                  box.current?.focus();
                } else void sendText(c.text);
              }}
            >
              {c.text}
              {c.takes ? <span class="muted"> {c.takes}</span> : null}
            </button>
          ))}
          <span class="muted small">typed in the box too; each asks before it discards anything</span>
        </div>
      )}
    </section>
  );
}

/** What the empty prompt box says: a question waiting comes first, even in a busy turn (QA: nudge's changed-files question said "claude is working"). */
function placeholder(state: LiveState): string {
  if (state.question)
    return state.question.kind === "confirm" || state.question.kind === "mismatch"
      ? "answer nudge's question above first"
      : "answer claude's question above first";
  if (state.busy) return "claude is working… (Stop interrupts it)";
  return "Ask claude (Enter sends, Shift-Enter for a new line)";
}

/** One of nudge's notices: its text, and its hint after it. */
export function NoticeLine({ notice }: { notice: LiveState["notices"][number] }) {
  return (
    <li class={`notice ${notice.level}`}>
      {notice.text}
      {notice.hint ? <span class="hint"> {notice.hint}</span> : null}
    </li>
  );
}

/** The notices since the last prompt sent, the last 10; earlier ones folded, to open. */
function Notices({ notices, since }: { notices: LiveState["notices"]; since: number }) {
  const recent = notices.filter((n) => n.n >= since).slice(-10);
  const earlier = notices.filter((n) => !recent.includes(n));
  if (!notices.length) return null;
  const item = (n: LiveState["notices"][number]) => <NoticeLine key={n.n} notice={n} />;
  return (
    <div class="notices">
      {earlier.length ? (
        <details>
          <summary>{`${earlier.length} earlier notice${earlier.length === 1 ? "" : "s"}`}</summary>
          <ul>{earlier.map(item)}</ul>
        </details>
      ) : null}
      {recent.length ? <ul>{recent.map(item)}</ul> : null}
    </div>
  );
}

/** What claude is doing, and for how long the turn has run (counted here, from the server's start time). */
function StatusLine({ activity, since }: { activity: string; since: number | null }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <p class="status-line" role="status">
      <span class="spinner" aria-hidden="true" /> {activity}
      {since !== null ? ` · ${elapsed(now - since)}` : ""}
    </p>
  );
}
