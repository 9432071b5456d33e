/** Which words of a prompt are image paths: as typed, pasted, or dragged into a terminal. */
import { describe, expect, it } from "vitest";
import { imageWords, promptContent } from "../../src/session/prompt-images.js";

describe("imageWords", () => {
  it("finds plain, @, quoted, backslash-escaped and file:// paths, without trailing punctuation", () => {
    const words = imageWords(`see shot.png, @ui/a.JPG and '/tmp/My Shot.png' or /tmp/Other\\ One.webp (file:///tmp/x%20y.gif) but not notes.txt`);
    expect(words.map((w) => w.file)).toEqual(["shot.png", "ui/a.JPG", "/tmp/My Shot.png", "/tmp/Other One.webp", "/tmp/x y.gif"]);
  });

  it("sends the images first and the text after, an @ before an attached path dropped", () => {
    const content = promptContent("what is @a.png", [{ word: "@a.png", name: "a.png", mediaType: "image/png", data: Buffer.from("x") }]);
    expect(content).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: "eA==" } },
      { type: "text", text: "what is a.png" },
    ]);
  });
});
