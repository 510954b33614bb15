/** Prints one benchmark figure as an aligned line: `lib-common  <name>  <value> <unit>  (<detail>)`. */
export function report(name: string, value: number, unit: string, detail = ''): void {
  const shown = value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(3);
  process.stdout.write(
    `lib-common  ${name.padEnd(44)} ${shown.padStart(10)} ${unit}${detail ? `  (${detail})` : ''}\n`,
  );
}

/** Heap in use after a full collection (the bench project runs with --expose-gc). */
export function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
  return process.memoryUsage().heapUsed;
}
