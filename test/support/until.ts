/** Poll `probe` every 50 ms until it gives a value (at most 30 s), for what a test waits on over HTTP or in files. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never: ${what}`);
}
