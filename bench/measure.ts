/** Timing helpers for benchmarks: figures and ratios against a baseline measured in the same run. */
import { initialTransition, transition, type AnyMachineSnapshot } from 'xstate';
import { pullRequestMachine } from '../machines/pullRequest.js';
import { Random } from '../sim/random.js';
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
      `${figure.name.padEnd(66)} ${rate(figure).toFixed(0).padStart(10)} ${((figure.seconds / figure.operations) * 1e6).toFixed(1).padStart(10)} ${ratio.padStart(12)}`,
    );
  }
}

/** A deterministic generator of numbers in [0, 1) (the simulator's seeded pure-rand stream), so every run draws the same. */
export function random(seed: number): () => number {
  const stream = new Random(seed, 'bench');
  return () => stream.next();
}

/** Raw XState, the baseline of the engine's benchmarks: PENDING → TESTING → TESTS_PASSED → PENDING, over and over. */
export async function rawXState(operations = 300_000): Promise<Figure> {
  const next: Record<string, object> = {
    PENDING: { type: 'START_TEST', runId: 'tr_1' },
    TESTING: { type: 'PASS' },
    TESTS_PASSED: { type: 'REQUEUE', reason: 'bench' },
  };
  let [snapshot] = initialTransition(pullRequestMachine, { number: 1 }) as [AnyMachineSnapshot, unknown];
  [snapshot] = transition(pullRequestMachine, snapshot as never, { type: 'READY' }) as [AnyMachineSnapshot, unknown];
  return measure('raw XState transition(pullRequestMachine, …)', operations, () => {
    [snapshot] = transition(pullRequestMachine, snapshot as never, next[String(snapshot.value)] as never) as [
      AnyMachineSnapshot,
      unknown,
    ];
  });
}
