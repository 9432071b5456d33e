/** Which words of a prompt are image paths: as typed, pasted, or dragged into a terminal. */
import { describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { imageWords, promptContent, promptImages } from "../../src/live/prompt-images.js";
import { tempDir } from "../support/gitdir.js";
import { randomPng } from "../support/png.js";

describe("imageWords", () => {
  it("finds plain, @, quoted, backslash-escaped and file:// paths, without trailing punctuation", () => {
    const words = imageWords(
      `see shot.png, @ui/a.JPG and '/tmp/My Shot.png' or /tmp/Other\\ One.webp (file:///tmp/x%20y.gif) but not notes.txt`,
    );
    expect(words.map((w) => w.file)).toEqual([
      "shot.png",
      "ui/a.JPG",
      "/tmp/My Shot.png",
      "/tmp/Other One.webp",
      "/tmp/x y.gif",
    ]);
  });

  it("sends the images first and the text after, an @ before an attached path dropped", () => {
    const content = promptContent("what is @a.png", [
      { word: "@a.png", name: "a.png", mediaType: "image/png", data: Buffer.from("x") },
    ]);
    expect(content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "eA==" } },
      { type: "text", text: "what is a.png" },
    ]);
  });
});

describe("promptImages", () => {
  it("names an image by a file name whose escape sequences are shown, not obeyed (from QA: SGR passed through)", async () => {
    const dir = tempDir();
    const file = "x\u001b[2J\u001b[8my.png";
    writeFileSync(path.join(dir, file), randomPng(200));
    const [image] = (await promptImages(`see ${file}`, dir)).images;
    expect(image!.name).toBe("x\\x1b[2J\\x1b[8my.png");
    writeFileSync(path.join(dir, "b\u001b[8m.png"), "not an image");
    expect((await promptImages("see b\u001b[8m.png", dir)).notAttached).toEqual([
      "b\\x1b[8m.png not attached: not an image (its first bytes are text)",
    ]);
  });

  it("goes by a file's first bytes before its size: a large file that is not an image is text, a large image is refused", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, "log.png"), "a line of a log\n".repeat(400_000)); // 6.4 MB of text
    expect(await promptImages("why is log.png so big?", dir)).toEqual({
      images: [],
      notAttached: ["log.png not attached: not an image (its first bytes are text)"],
    });
    writeFileSync(path.join(dir, "huge.png"), Buffer.concat([randomPng(200), Buffer.alloc(6 * 1024 * 1024)]));
    await expect(promptImages("see huge.png", dir)).rejects.toThrow(/the image huge\.png is 6\.\d MB/);
  });
});
