/** Runs `work` on first call only; later calls get the same promise (a body is read once). */
export function once<T>(work: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= work());
}
