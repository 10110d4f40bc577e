/**
 * How every benchmark server tells the harness it listens, and how it stops: SIGTERM exits
 * through process.exit so that `node --cpu-prof` writes its profile.
 */
export function announce(port: number): void {
  process.stdout.write(`READY ${port}\n`);
  process.on('SIGTERM', () => process.exit(0));
}
