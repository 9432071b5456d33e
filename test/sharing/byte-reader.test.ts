/** The import's reader of a tar stream: an empty entry is read as empty wherever the stream stands. */
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ByteReader } from "../../src/sharing/byte-reader.js";

describe("byte reader", () => {
  it("reads zero bytes before anything arrived, between pieces and at the end", async () => {
    const reader = new ByteReader(Readable.from([Buffer.from("abc"), Buffer.from("def")]));
    expect(await reader.read(0)).toEqual(Buffer.alloc(0));
    expect((await reader.read(3))?.toString()).toBe("abc");
    expect(await reader.read(0)).toEqual(Buffer.alloc(0));
    expect((await reader.read(3))?.toString()).toBe("def");
    expect(await reader.read(0)).toEqual(Buffer.alloc(0));
    expect(await reader.read(1)).toBeNull();
  });
});
