/** Timing helpers for benchmarks: figures and ratios against a baseline measured in the same run. */
export interface Figure {
  name: string;
  operations: number;
  seconds: number;
}

export async function measure(name: string, operations: number, body: (i: number) => unknown): Promise<Figure> {
  for (let i = 0; i < Math.min(50, operations); i++) await body(i); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < operations; i++) await body(i);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { name, operations, seconds };
}

export function report(title: string, baseline: Figure, figures: Figure[]): void {
  console.log(`\n${title}`);
  console.log(`${'case'.padEnd(66)} ${'ops/s'.padStart(10)} ${'µs/op'.padStart(10)} ${'vs baseline'.padStart(12)}`);
  const rate = (figure: Figure) => figure.operations / figure.seconds;
  for (const figure of [baseline, ...figures]) {
    const ratio = figure === baseline ? 'baseline' : `${(rate(figure) / rate(baseline)).toFixed(3)}×`;
    console.log(
      `${figure.name.padEnd(66)} ${rate(figure).toFixed(0).padStart(10)} ${((figure.seconds / figure.operations) * 1e6)
        .toFixed(1)
        .padStart(10)} ${ratio.padStart(12)}`,
    );
  }
}
