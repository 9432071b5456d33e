/**
 * Claude's question on the page, answered as in the terminal: a tool's permission (a Write or
 * Edit shown as the diff it would make; Allow, Always
 * for this session, Don't ask again when claude offers a rule, Deny with a reason claude receives),
 * AskUserQuestion (a choice per question, or your own words), or a plan to approve or send back;
 * and nudge's own: a typed /rewind's plan to confirm, files changed since the session last ran.
 */
import { useState } from "preact/hooks";
import type { PendingQuestion, QuestionReply } from "../live-session.js";
import { Markdown } from "./entries.js";

export function QuestionCard({
  question,
  onReply,
}: {
  question: PendingQuestion;
  onReply: (reply: QuestionReply) => void;
}) {
  return (
    // nudge's own questions (a plan to confirm, files changed) are nudge's, not claude's (QA).
    <div
      class="question-card"
      role="group"
      aria-label={question.kind === "confirm" || question.kind === "mismatch" ? "nudge asks" : "Claude asks"}
    >
      {question.kind === "permission" ? (
        <Permission q={question} onReply={onReply} />
      ) : question.kind === "questions" ? (
        <Questions q={question} onReply={onReply} />
      ) : question.kind === "plan" ? (
        <Plan q={question} onReply={onReply} />
      ) : question.kind === "confirm" ? (
        <Confirm q={question} onReply={onReply} />
      ) : (
        <Mismatch q={question} onReply={onReply} />
      )}
    </div>
  );
}

function Permission({
  q,
  onReply,
}: {
  q: Extract<PendingQuestion, { kind: "permission" }>;
  onReply: (reply: QuestionReply) => void;
}) {
  const [reason, setReason] = useState("");
  const reply = (answer: Extract<QuestionReply, { kind: "permission" }>["answer"]) =>
    onReply({ kind: "permission", answer });
  return (
    <>
      <h3>
        Allow <code>{q.detail ? `${q.tool}(${q.detail})` : q.tool}</code>?
      </h3>
      {q.description ? <p>{q.description}</p> : null}
      {q.diff ? (
        <pre class="tool-diff" aria-label="What it would change">
          {q.diff.map((line, i) => (
            <span
              key={i}
              class={line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : ""}
            >
              {line}
              {"\n"}
            </span>
          ))}
        </pre>
      ) : (
        <pre class="tool-input">{JSON.stringify(q.input, null, 2)}</pre>
      )}
      <div class="row">
        <button type="button" onClick={() => reply({ kind: "yes" })}>
          Allow
        </button>
        <button type="button" onClick={() => reply({ kind: "always" })}>
          Always for this session
        </button>
        {q.canSave ? (
          <button type="button" onClick={() => reply({ kind: "save" })}>
            Don't ask again
          </button>
        ) : null}
      </div>
      <div class="row">
        <label>
          Reason{" "}
          <input
            type="text"
            value={reason}
            maxLength={2000}
            placeholder="what claude should do instead (optional)"
            onInput={(e) => setReason(e.currentTarget.value)}
          />
        </label>
        <button
          type="button"
          class="danger"
          onClick={() => reply(reason.trim() ? { kind: "no", reason: reason.trim() } : { kind: "no" })}
        >
          Deny
        </button>
      </div>
    </>
  );
}

function Questions({
  q,
  onReply,
}: {
  q: Extract<PendingQuestion, { kind: "questions" }>;
  onReply: (reply: QuestionReply) => void;
}) {
  const [picked, setPicked] = useState<Record<string, string[]>>({});
  const [other, setOther] = useState<Record<string, string>>({});
  const toggle = (question: string, label: string, multi: boolean) =>
    setPicked((p) => {
      const now = p[question] ?? [];
      return {
        ...p,
        [question]: multi ? (now.includes(label) ? now.filter((l) => l !== label) : [...now, label]) : [label],
      };
    });
  // Options picked and words of one's own together (a multi-select may have both; for a single
  // choice, typing your own words unpicks the option).
  const answers = () =>
    Object.fromEntries(
      q.questions.map((x) => [
        x.question,
        [...(picked[x.question] ?? []), other[x.question]?.trim() ?? ""].filter(Boolean).join(", "),
      ]),
    );
  const complete = q.questions.every(
    (x) => (other[x.question]?.trim() ?? "") !== "" || (picked[x.question]?.length ?? 0) > 0,
  );
  return (
    <>
      {q.questions.map((x, i) => (
        <fieldset key={i}>
          <legend>{x.header ? `${x.header}: ${x.question}` : x.question}</legend>
          {x.options.map((o) => (
            <label key={o.label} class="option">
              <input
                type={x.multiSelect ? "checkbox" : "radio"}
                name={`q${i}`}
                checked={(picked[x.question] ?? []).includes(o.label)}
                onChange={() => toggle(x.question, o.label, x.multiSelect === true)}
              />{" "}
              {o.label}
              {o.description ? <span class="muted"> — {o.description}</span> : null}
            </label>
          ))}
          <label class="option">
            Other{" "}
            <input
              type="text"
              value={other[x.question] ?? ""}
              maxLength={2000}
              onInput={(e) => {
                const text = e.currentTarget.value;
                setOther((o) => ({ ...o, [x.question]: text }));
                if (!x.multiSelect && text.trim()) setPicked((p) => ({ ...p, [x.question]: [] }));
              }}
            />
          </label>
        </fieldset>
      ))}
      <div class="row">
        <button type="button" disabled={!complete} onClick={() => onReply({ kind: "questions", answers: answers() })}>
          Answer
        </button>
        <button type="button" onClick={() => onReply({ kind: "questions", answers: null })}>
          Decline
        </button>
      </div>
    </>
  );
}

function Plan({
  q,
  onReply,
}: {
  q: Extract<PendingQuestion, { kind: "plan" }>;
  onReply: (reply: QuestionReply) => void;
}) {
  const [feedback, setFeedback] = useState("");
  return (
    <>
      <h3>Claude's plan</h3>
      <Markdown source={q.plan} subagent={false} />
      <div class="row">
        <button type="button" onClick={() => onReply({ kind: "plan", answer: { approve: true } })}>
          Approve
        </button>
        <label>
          Feedback{" "}
          <input type="text" value={feedback} maxLength={4000} onInput={(e) => setFeedback(e.currentTarget.value)} />
        </label>
        <button
          type="button"
          disabled={feedback.trim() === ""}
          onClick={() => onReply({ kind: "plan", answer: { approve: false, feedback: feedback.trim() } })}
        >
          Keep planning
        </button>
      </div>
    </>
  );
}

function Confirm({
  q,
  onReply,
}: {
  q: Extract<PendingQuestion, { kind: "confirm" }>;
  onReply: (reply: QuestionReply) => void;
}) {
  return (
    <>
      <h3>{q.question}</h3>
      <pre class="plan">{q.plan.join("\n")}</pre>
      <div class="row">
        <button type="button" class="danger" onClick={() => onReply({ kind: "confirm", yes: true })}>
          Confirm
        </button>
        <button type="button" onClick={() => onReply({ kind: "confirm", yes: false })}>
          Cancel
        </button>
      </div>
    </>
  );
}

function Mismatch({
  q,
  onReply,
}: {
  q: Extract<PendingQuestion, { kind: "mismatch" }>;
  onReply: (reply: QuestionReply) => void;
}) {
  const shown = q.changed.slice(0, 20);
  return (
    <>
      <h3>The files changed since this conversation last ran</h3>
      <ul>
        {shown.map((f) => (
          <li key={f}>
            <code>{f}</code>
          </li>
        ))}
        {q.changed.length > shown.length ? <li class="muted">and {q.changed.length - shown.length} more</li> : null}
      </ul>
      <div class="row">
        <button type="button" onClick={() => onReply({ kind: "mismatch", choice: "tell" })}>
          Continue and tell claude
        </button>
        <button type="button" class="danger" onClick={() => onReply({ kind: "mismatch", choice: "rewind" })}>
          Rewind the files to match
        </button>
      </div>
    </>
  );
}
