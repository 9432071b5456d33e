/** Where a push goes, decided from what the remote holds and what this clone published or pulled (planPublish: pure). */
import { describe, expect, it } from "vitest";
import { planPublish, type PublishFacts } from "../../src/sync/publish-session.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const facts = (f: Partial<PublishFacts>): PublishFacts => ({
  sessionId: "1111111111",
  remoteData: new Map(),
  mine: null,
  pulled: null,
  turns: 3,
  fork: false,
  ...f,
});
const fresh = () => "ffffffffff";

describe("planPublish", () => {
  it("a session never published: under its own id, with no parent", () => {
    expect(planPublish(facts({}), fresh)).toEqual({
      kind: "new",
      id: "1111111111",
      parent: null,
      forkOf: null,
      replacing: null,
    });
  });

  it("published from here and unchanged there: a fast-forward on the last publication", () => {
    const plan = planPublish(
      facts({ mine: { id: "1111111111", commit: A }, remoteData: new Map([["1111111111", A]]) }),
      fresh,
    );
    expect(plan).toEqual({ kind: "update", id: "1111111111", parent: A, forkOf: null, replacing: A });
  });

  it("published from here, since removed there: published again, building on the last one", () => {
    expect(planPublish(facts({ mine: { id: "1111111111", commit: A } }), fresh)).toMatchObject({
      kind: "new",
      parent: A,
      replacing: null,
    });
  });

  it("published from here, but changed there since: refused, with the --fork hint", () => {
    expect(() =>
      planPublish(facts({ mine: { id: "1111111111", commit: A }, remoteData: new Map([["1111111111", B]]) }), fresh),
    ).toThrow(
      "the remote's published session 1111111111 changed since you last pushed it from here (it is at bbbbbbbbbb, you pushed aaaaaaaaaa): pushing would replace someone's work",
    );
  });

  it("someone else's under the same id: refused", () => {
    expect(() => planPublish(facts({ remoteData: new Map([["1111111111", B]]) }), fresh)).toThrow(
      "the remote already has a published session 1111111111 that was not pushed from here",
    );
  });

  it("pulled and continued here: a fork under a fresh id that builds on theirs; not continued: nothing to push", () => {
    const pulled = { id: "1111111111", commit: A, turns: 2 };
    expect(planPublish(facts({ pulled, remoteData: new Map([["1111111111", A]]) }), fresh)).toEqual({
      kind: "fork",
      id: "ffffffffff",
      parent: A,
      forkOf: { id: "1111111111", turn: 2 },
      replacing: null,
    });
    expect(planPublish(facts({ pulled, turns: 2 }), fresh)).toEqual({ kind: "unchanged", id: "1111111111" });
  });

  it("from QA: a fork published from here stays a fork of what it was pulled from through its updates", () => {
    const pulled = { id: "1111111111", commit: A, turns: 2 };
    const plan = planPublish(
      facts({ pulled, mine: { id: "2222222222", commit: B }, remoteData: new Map([["2222222222", B]]) }),
      fresh,
    );
    expect(plan).toEqual({
      kind: "update",
      id: "2222222222",
      parent: B,
      forkOf: { id: "1111111111", turn: 2 },
      replacing: B,
    });
  });

  it("from QA: a session imported from a file, pushed --fork beside its published source: a fork of it, at the turns the file had", () => {
    const imported = { id: "1111111111", turns: 2 };
    const plan = planPublish(facts({ fork: true, imported, remoteData: new Map([["1111111111", A]]) }), fresh);
    expect(plan).toEqual({
      kind: "fork",
      id: "ffffffffff",
      parent: null,
      forkOf: { id: "1111111111", turn: 2 },
      replacing: null,
    });
    // Its source not published there: a fork of nothing the remote has.
    expect(planPublish(facts({ fork: true, imported }), fresh)).toMatchObject({ kind: "fork", forkOf: null });
  });

  it("from QA: --fork again on a session published as a fork from here updates that fork, not another copy", () => {
    const imported = { id: "1111111111", turns: 2 };
    const plan = planPublish(
      facts({
        fork: true,
        imported,
        mine: { id: "2222222222", commit: B },
        remoteData: new Map([
          ["1111111111", A],
          ["2222222222", B],
        ]),
      }),
      fresh,
    );
    expect(plan).toEqual({
      kind: "update",
      id: "2222222222",
      parent: B,
      forkOf: { id: "1111111111", turn: 2 },
      replacing: B,
    });
  });

  it("--fork: a fresh id no publication on the remote has", () => {
    const ids = ["2222222222", "3333333333"];
    const plan = planPublish(facts({ fork: true, remoteData: new Map([["2222222222", A]]) }), () => ids.shift()!);
    expect(plan).toMatchObject({ kind: "fork", id: "3333333333", parent: null });
  });

  it("a fork made here of a pulled or published session: published under its own id as a fork of that publication, and stays one through its updates", () => {
    const parent = { id: "2222222222", turn: 1 };
    expect(planPublish(facts({ parent, remoteData: new Map([["2222222222", A]]) }), fresh)).toEqual({
      kind: "new",
      id: "1111111111",
      parent: null,
      forkOf: parent,
      replacing: null,
    });
    expect(
      planPublish(
        facts({ parent, mine: { id: "1111111111", commit: B }, remoteData: new Map([["1111111111", B]]) }),
        fresh,
      ),
    ).toMatchObject({ kind: "update", forkOf: parent });
  });

  it("a copy imported from an export of what the remote holds, with no turn since: refused without suggesting a duplicate", () => {
    const f = facts({ imported: { id: "1111111111", turns: 3 }, remoteData: new Map([["1111111111", A]]) });
    expect(() => planPublish(f, fresh)).toThrow(
      expect.objectContaining({ hint: expect.not.stringContaining("--fork") }),
    );
    expect(() => planPublish({ ...f, turns: 4 }, fresh)).toThrow(
      expect.objectContaining({ hint: expect.stringContaining("--fork") }),
    );
  });
});
