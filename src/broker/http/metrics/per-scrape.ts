/**
 * One computation shared by the collect callbacks of one scrape. A registry asks every metric for
 * its values in one synchronous pass (each collect runs before the first await), so a result kept
 * until the next microtask serves every metric of that scrape and none of the next.
 */
export function perScrape<T>(compute: () => T): () => T {
  let cached: { value: T } | undefined;
  return () => {
    if (cached === undefined) {
      cached = { value: compute() };
      queueMicrotask(() => {
        cached = undefined;
      });
    }
    return cached.value;
  };
}
