/** The sandbox's gate: a plain connection goes to the API, a CONNECT only to the API or a named host. */
import net from "node:net";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { apiEndpoint, startApiGate } from "../../src/claude/sandbox/api-gate.js";
import { tempDir } from "../support/gitdir.js";

/** A loopback server that answers every connection with its name, then echoes. */
async function echo(name: string): Promise<number> {
  const server = net.createServer((c) => {
    c.write(`${name}:`);
    c.pipe(c);
    c.on("error", () => c.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

/** Send `data` through the gate; what came back when the gate or the far end closed (or after 500 ms). */
function through(socket: string, data: string): Promise<string> {
  return new Promise((resolve) => {
    const c = net.connect(socket);
    let got = "";
    const done = () => {
      c.destroy();
      resolve(got);
    };
    c.on("data", (d) => {
      got += d.toString("latin1");
    });
    c.on("close", done);
    c.on("error", done);
    setTimeout(done, 500);
    c.write(data);
  });
}

describe("the sandbox's gate to the API", () => {
  it("passes plain bytes to the API, and a CONNECT to the API or a named host only", async () => {
    const api = await echo("api");
    const named = await echo("named");
    const other = await echo("other");
    const socket = path.join(tempDir(), "gate.sock");
    const gate = await startApiGate(socket, { host: "127.0.0.1", port: api }, [{ host: "127.0.0.1", port: named }]);
    onTestFinished(() => new Promise<void>((resolve) => gate.close(() => resolve())));
    expect(await through(socket, "POST /v1/messages HTTP/1.1\r\n\r\n")).toBe("api:POST /v1/messages HTTP/1.1\r\n\r\n");
    expect(await through(socket, `CONNECT 127.0.0.1:${api} HTTP/1.1\r\nHost: x\r\n\r\nhello`)).toBe(
      "HTTP/1.1 200 Connection established\r\n\r\napi:hello",
    );
    expect(await through(socket, `CONNECT 127.0.0.1:${named} HTTP/1.1\r\n\r\nhi`)).toBe(
      "HTTP/1.1 200 Connection established\r\n\r\nnamed:hi",
    );
    expect(await through(socket, `CONNECT 127.0.0.1:${other} HTTP/1.1\r\n\r\n`)).toMatch(
      /^HTTP\/1\.1 403 Forbidden\r\n/,
    );
    expect(await through(socket, `CONNECT localhost:${named} HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 /); // by name, as named
    expect(await through(socket, `CONNECT 127.0.0.1:${named}@evil:1 HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
    expect(await through(socket, `CONNECT 127.0.0.1:99999 HTTP/1.1\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403 /);
    // A head that never ends is cut off, not kept growing.
    expect(await through(socket, `CONNECT ${"a".repeat(9000)}`)).toBe("");
  });

  it("reads the API's host and port from ANTHROPIC_BASE_URL", () => {
    expect(apiEndpoint({})).toMatchObject({ host: "api.anthropic.com", port: 443 });
    expect(apiEndpoint({ ANTHROPIC_BASE_URL: "http://127.0.0.1:8080/x" })).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
    });
    expect(apiEndpoint({ ANTHROPIC_BASE_URL: "http://[::1]/" })).toMatchObject({ host: "::1", port: 80 });
    expect(() => apiEndpoint({ ANTHROPIC_BASE_URL: "not a url" })).toThrow(
      /^--sandbox: ANTHROPIC_BASE_URL is not an http or https URL: "not a url"$/,
    );
    expect(() => apiEndpoint({ ANTHROPIC_BASE_URL: "file:///etc/passwd" })).toThrow(/not an http or https URL/);
  });
});
