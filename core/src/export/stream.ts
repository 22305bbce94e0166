/**
 * A web ReadableStream that pulls from an async generator one piece at a time: the generator only
 * runs when the reader (an HTTP response body) wants more, which is the backpressure that keeps
 * memory flat. Cancelling the stream returns the generator, so its `finally` blocks run.
 */
export function toReadableStream(
  source: AsyncIterable<Uint8Array>,
  hooks: { onDone?: () => void; onError?: (err: unknown) => void } = {},
): ReadableStream<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  let settled = false;
  const finish = () => {
    if (settled) return;
    settled = true;
    hooks.onDone?.();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await it.next();
        if (done) {
          controller.close();
          finish();
        } else controller.enqueue(value);
      } catch (err) {
        hooks.onError?.(err);
        controller.error(err);
        finish();
      }
    },
    async cancel() {
      try {
        await it.return?.();
      } finally {
        finish();
      }
    },
  });
}

/** Reads a whole stream of pieces into one array (tests and small payloads only). */
export async function collect(source: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const p of source) {
    parts.push(p);
    n += p.length;
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
