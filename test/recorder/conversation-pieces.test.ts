/**
 * The stream kept in pieces (src/store/conversation-pieces.ts): the recorder's log finishes
 * conversation.jsonl as a piece at a turn's end and compresses it; every position recorded is a
 * position in the whole stream, which reads back byte for byte (nudge's readers, and by hand:
 * `zcat` of the pieces then conversation.jsonl), across a reopen, a crash's leftovers, a reader
 * racing the writer, a fork's copy and an import's packing.
 */
import { existsSync, readFileSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { readConversation, readLineSpan } from "../../src/store/conversation-reader.js";
import { readStream, streamSize } from "../../src/store/conversation-pieces.js";
import { streamOffsetOfLine, writeStreamLines } from "../../src/store/stream-range.js";
import { copyStreamPrefix, packLive } from "../../src/store/piece-writing.js";
import { bundleFiles } from "../../src/store/store.js";
import { ConversationLog, PIECE_BYTES } from "../../src/recorder/conversation-log.js";
import { tempDir } from "../support/gitdir.js";
import { pieceNames, readStreamOf } from "../support/stream.js";

/** A partial-message line of claude's (the kind that makes the stream large), numbered. */
const delta = (i: number) =>
  `{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"piece ${i} of the answer"}},"session_id":"s","uuid":"u-${i}"}\n`;
const turnOf = (from: number, count: number) =>
  Buffer.from(Array.from({ length: count }, (_, i) => delta(from + i)).join(""));

function openLog(dir = tempDir("nudge-bundle-")) {
  return { dir, log: ConversationLog.open(bundleFiles(dir)) };
}

function append(log: ConversationLog, bytes: Buffer, size = 4096): void {
  for (let i = 0; i < bytes.length; i += size) log.appendStdout(bytes.subarray(i, i + size), () => undefined);
}

const name = (fromLine: number, toLine: number, fromByte: number, toByte: number, gz = true) =>
  `${[fromLine, toLine].map(pad).join("-")}.${[fromByte, toByte].map(pad).join("-")}.jsonl${gz ? ".gz" : ""}`;
const pad = (n: number) => String(n).padStart(12, "0");
const gzNames = (dir: string) => pieceNames(dir).filter((n) => n.endsWith(".gz"));

describe("the recorder's log in pieces", () => {
  it("a turn's end with PIECE_BYTES written finishes a piece; compressed, it reads back byte for byte by nudge and by zcat", async () => {
    const { dir, log } = openLog();
    const one = turnOf(0, 600); // ~100 KB
    append(log, one);
    const end1 = log.position;
    log.finishPiece({ always: false });
    const two = turnOf(600, 50);
    append(log, two);
    log.finishPiece({ always: false }); // under PIECE_BYTES since the last piece: stays in conversation.jsonl
    await log.piecesSettled();
    log.close();

    expect(one.length).toBeGreaterThan(PIECE_BYTES);
    expect(gzNames(dir)).toEqual([name(0, 600, 0, one.length)]);
    expect(readdirSync(path.join(dir, "conversation.d"))).toEqual(gzNames(dir)); // the plain piece removed
    expect(end1).toEqual({ line: 600, byte: one.length });
    expect(readFileSync(path.join(dir, "conversation.jsonl")).equals(two)).toBe(true);
    const whole = Buffer.concat([one, two]);
    expect(readStreamOf(dir).equals(whole)).toBe(true);
    expect((await readStream(dir, 0)).equals(whole)).toBe(true);
    // A range across the piece's end, and one inside it.
    expect(
      (await readStream(dir, end1.byte - 100, end1.byte + 100)).equals(
        whole.subarray(end1.byte - 100, end1.byte + 100),
      ),
    ).toBe(true);
    expect((await readStream(dir, 10, 20)).equals(whole.subarray(10, 20))).toBe(true);
    const lines = await readConversation(dir);
    expect(lines).toHaveLength(650);
    expect(lines[600]!.bytes.toString()).toBe(delta(600).trimEnd());
    const span = await readLineSpan(
      dir,
      { line: 599, byte: end1.byte - delta(599).length },
      { line: 601, byte: end1.byte + delta(600).length },
      { writing: false },
    );
    expect(span.map((l) => l.bytes.toString())).toEqual([delta(599).trimEnd(), delta(600).trimEnd()]);
    expect(await streamSize(dir)).toBe(whole.length);
    expect(await streamOffsetOfLine(dir, 601)).toBe(end1.byte + delta(600).length);
    // What the bench measures: the stream compressed well below its plain size.
    expect(statSync(path.join(dir, "conversation.d", gzNames(dir)[0]!)).size).toBeLessThan(one.length / 5);
  });

  it("at the session's end the rest becomes a piece too: conversation.jsonl is left empty", async () => {
    const { dir, log } = openLog();
    append(log, turnOf(0, 30));
    log.finishPiece({ always: true });
    await log.piecesSettled();
    log.close();
    expect(statSync(path.join(dir, "conversation.jsonl")).size).toBe(0);
    expect(gzNames(dir)).toHaveLength(1);
    expect(readStreamOf(dir).equals(turnOf(0, 30))).toBe(true);
  });

  it("never cuts a line: asked mid-line, the piece is finished where that line ends", async () => {
    const { dir, log } = openLog();
    const line = Buffer.from(delta(0));
    log.appendStdout(line.subarray(0, 40), () => undefined);
    log.finishPiece({ always: true });
    expect(pieceNames(dir)).toEqual([]);
    log.appendStdout(Buffer.concat([line.subarray(40), Buffer.from(delta(1)).subarray(0, 10)]), () => undefined);
    // The first line ended in that chunk and the second began: still a line half received.
    expect(pieceNames(dir)).toEqual([]);
    log.appendStdout(Buffer.from(delta(1)).subarray(10), () => undefined);
    expect(pieceNames(dir)).toEqual([name(0, 2, 0, delta(0).length + delta(1).length, false)]);
    expect(log.position).toEqual({ line: 2, byte: delta(0).length + delta(1).length });
    await log.piecesSettled();
    log.close();
    expect(readStreamOf(dir).toString()).toBe(delta(0) + delta(1));
  });

  it("reopened, the log goes on where the stream ends: line numbers and byte positions count the pieces", async () => {
    const { dir, log } = openLog();
    append(log, turnOf(0, 10));
    log.finishPiece({ always: true });
    await log.piecesSettled();
    log.close();
    const again = ConversationLog.open(bundleFiles(dir));
    expect(again.position).toEqual({ line: 10, byte: turnOf(0, 10).length });
    append(again, turnOf(10, 5));
    expect(again.position).toEqual({ line: 15, byte: turnOf(0, 15).length });
    again.finishPiece({ always: true });
    await again.piecesSettled();
    again.close();
    expect(gzNames(dir)).toHaveLength(2);
    expect((await readStream(dir, 0)).equals(turnOf(0, 15))).toBe(true);
    expect(readFileSync(path.join(dir, "timing.txt"), "utf8").split("\n")).toHaveLength(16);
  });
});

/** A session's stream of 20 lines, finished as one compressed piece. */
async function onePiece(): Promise<{ dir: string; gz: string }> {
  const { dir, log } = openLog();
  append(log, turnOf(0, 20));
  log.finishPiece({ always: true });
  await log.piecesSettled();
  log.close();
  return { dir, gz: path.join(dir, "conversation.d", gzNames(dir)[0]!) };
}

describe("what a crash leaves", () => {
  async function finishedPlain(): Promise<{ dir: string; plain: string }> {
    const { dir, gz } = await onePiece();
    // Back to the moment before compressing: the piece plain.
    const plain = gz.replace(/\.gz$/, "");
    writeFileSync(plain, turnOf(0, 20));
    return { dir, plain };
  }

  it("a plain piece with its .gz already in place: read from the .gz, the plain one removed at the next open", async () => {
    const { dir, plain } = await finishedPlain();
    writeFileSync(plain, "x".repeat(turnOf(0, 20).length)); // not what the .gz holds: proves which one is read
    expect((await readStream(dir, 0)).equals(turnOf(0, 20))).toBe(true);
    const log = ConversationLog.open(bundleFiles(dir));
    await log.piecesSettled();
    log.close();
    expect(existsSync(plain)).toBe(false);
  });

  it("a piece never compressed: read plain, compressed at the next open", async () => {
    const { dir, plain } = await finishedPlain();
    renameSync(`${plain}.gz`, path.join(tempDir(), "aside.gz"));
    expect((await readStream(dir, 0)).equals(turnOf(0, 20))).toBe(true);
    const log = ConversationLog.open(bundleFiles(dir));
    await log.piecesSettled();
    log.close();
    expect(existsSync(plain)).toBe(false);
    expect(existsSync(`${plain}.gz`)).toBe(true);
    expect(readStreamOf(dir).equals(turnOf(0, 20))).toBe(true);
  });

  it("a damaged piece is one clear error naming it, never wrong bytes", async () => {
    const { dir, plain } = await finishedPlain();
    writeFileSync(`${plain}.gz`, gzipSync(turnOf(0, 19)));
    await expect(readStream(dir, 0)).rejects.toThrow(
      /conversation of the session .* is damaged: .*jsonl\.gz holds \d+ bytes, and its name says \d+/,
    );
    writeFileSync(path.join(dir, "conversation.d", name(40, 41, 999, 1000)), gzipSync("x"));
    await expect(readStream(dir, 0)).rejects.toThrow(
      /0+40-0+41\.0+999-0+1000\.jsonl\.gz does not start where the piece before it ends/,
    );
  });
});

describe("damage found, not read past (QA)", () => {
  it("a piece with its bytes but other lines (newlines gone) is damage: a turn would read another's lines", async () => {
    const { dir, gz } = await onePiece();
    writeFileSync(gz, gzipSync(Buffer.from(turnOf(0, 20).toString("latin1").replace(/\n/g, " "), "latin1")));
    await expect(readStream(dir, 0)).rejects.toThrow(/jsonl\.gz holds 0 lines, and its name says 20/);
  });

  it("a piece that inflates far past its name is refused at its name's length, not inflated whole", async () => {
    const { dir, gz } = await onePiece();
    writeFileSync(gz, gzipSync(Buffer.alloc(64 << 20)));
    await expect(readStream(dir, 0)).rejects.toThrow(/jsonl\.gz inflates to more than the \d+ bytes its name says/);
  });

  it("a fork refuses a cut-short piece before its cut, and a stream that ends before it", async () => {
    const { dir, gz } = await onePiece();
    const whole = readFileSync(gz);
    writeFileSync(gz, whole.subarray(0, whole.length - 10));
    await expect(copyStreamPrefix(dir, tempDir("nudge-fork-"), turnOf(0, 20).length)).rejects.toThrow(
      /does not end as a gzip file of \d+ bytes does/,
    );
    writeFileSync(gz, whole);
    await expect(copyStreamPrefix(dir, tempDir("nudge-fork-"), turnOf(0, 25).length)).rejects.toThrow(
      /it ends at byte \d+, and the fork's turns were recorded up to byte \d+/,
    );
    await expect(writeStreamLines(dir, path.join(tempDir(), "c.jsonl"), 21)).rejects.toThrow(
      /holds 20 whole lines, and the turns were recorded up to line 21/,
    );
  });
});

describe("a reader beside the writer", () => {
  it("reads every prefix whole while pieces are finished and compressed under it", async () => {
    const { dir, log } = openLog();
    const all = turnOf(0, 4000);
    const offsets: number[] = [];
    let written = 0;
    let stop = false;
    const writer = (async () => {
      for (let i = 0; i < 4000; i += 20) {
        const chunk = turnOf(i, 20);
        log.appendStdout(chunk, () => undefined);
        written += chunk.length;
        offsets.push(written);
        if (i % 100 === 80) log.finishPiece({ always: true });
        await new Promise((r) => setTimeout(r, 3));
      }
      stop = true;
    })();
    let reads = 0;
    while (!stop) {
      const upTo = offsets.at(-1) ?? 0;
      const from = Math.floor(upTo / 3);
      const got = await readStream(dir, from, upTo);
      expect(got.equals(all.subarray(from, upTo))).toBe(true);
      reads++;
    }
    await writer;
    await log.piecesSettled();
    log.close();
    expect(reads).toBeGreaterThan(5);
    expect(gzNames(dir).length).toBeGreaterThan(10);
    expect(readStreamOf(dir).equals(all)).toBe(true);
  });
});

describe("copies", () => {
  async function recorded(): Promise<string> {
    const { dir, log } = openLog();
    for (let t = 0; t < 4; t++) {
      append(log, turnOf(t * 500, 500));
      log.finishPiece({ always: false });
    }
    append(log, turnOf(2000, 10));
    await log.piecesSettled();
    log.close();
    return dir;
  }

  it("a fork's stream: the finished pieces before the cut linked, the rest one new piece", async () => {
    const from = await recorded();
    const to = tempDir("nudge-fork-");
    const cut = turnOf(0, 1250).length; // inside the third piece
    await copyStreamPrefix(from, to, cut);
    expect((await readStream(to, 0)).equals(turnOf(0, 1250))).toBe(true);
    expect(readStreamOf(to).equals(turnOf(0, 1250))).toBe(true);
    const linked = pieceNames(to).slice(0, 2);
    for (const name of linked)
      expect(statSync(path.join(to, "conversation.d", name)).ino).toBe(
        statSync(path.join(from, "conversation.d", name)).ino,
      );
    expect(pieceNames(to)[2]).toBe(name(1000, 1250, turnOf(0, 1000).length, cut));
    expect(statSync(path.join(to, "conversation.jsonl")).size).toBe(0);
    // The fork records on from there.
    const log = ConversationLog.open(bundleFiles(to));
    expect(log.position).toEqual({ line: 1250, byte: cut });
    log.close();
  });

  it("an export's copy is plain, cut after a number of lines", async () => {
    const from = await recorded();
    const file = path.join(tempDir(), "conversation.jsonl");
    await writeStreamLines(from, file, 1501);
    expect(readFileSync(file).equals(turnOf(0, 1501))).toBe(true);
  });

  it("an import's stream is packed into compressed pieces of about 4 MB of whole lines", async () => {
    const dir = tempDir("nudge-import-");
    const big = turnOf(0, 60_000); // ~9 MB
    writeFileSync(path.join(dir, "conversation.jsonl"), Buffer.concat([big, Buffer.from('{"type":"assist')]));
    await packLive(dir);
    expect(pieceNames(dir).length).toBe(3);
    for (const name of pieceNames(dir)) expect(name).toMatch(/\.jsonl\.gz$/);
    expect(readFileSync(path.join(dir, "conversation.jsonl"), "utf8")).toBe('{"type":"assist');
    expect(readStreamOf(dir).equals(Buffer.concat([big, Buffer.from('{"type":"assist')]))).toBe(true);
    expect((await readConversation(dir)).length).toBe(60_001);
  });

  it("packs a line longer than a piece whole into one, streamed from the file", async () => {
    const dir = tempDir("nudge-import-");
    const long = Buffer.from(`{"type":"user","content":"${"x".repeat(9 << 20)}"}\n`);
    const stream = Buffer.concat([turnOf(0, 100), long, turnOf(100, 200), long, Buffer.from('{"type":"a')]);
    writeFileSync(path.join(dir, "conversation.jsonl"), stream);
    await packLive(dir);
    expect(pieceNames(dir).length).toBe(3); // the lines before the first long one, each long one with what follows it
    expect(readFileSync(path.join(dir, "conversation.jsonl"), "utf8")).toBe('{"type":"a');
    expect(readStreamOf(dir).equals(stream)).toBe(true);
    expect((await readConversation(dir)).length).toBe(stream.toString().split("\n").length);
  });
});
