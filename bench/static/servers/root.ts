/** The folder of files to serve, given by the harness. */
export function staticRoot(): string {
  const root = process.env.BENCH_STATIC_ROOT;
  if (root === undefined || root === '') throw new Error('BENCH_STATIC_ROOT is not set');
  return root;
}
