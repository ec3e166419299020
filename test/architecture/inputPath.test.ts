/** The figures bench/inputPath.ts prints of one input's path, on a path written out by hand. */
import { expect, test } from 'vitest';
import { figures } from '../../bench/inputPath.js';

const file = (name: string) => `dist/engine/transaction/${name}.js`;
const call = (...stack: string[]) => ({ file: file(stack.at(-1) ?? ''), fn: 'f', stack: stack.map(file) });

test('calls, files, moves, returns to a file left, with returns, and calls back into a file on the stack', () => {
  const hits = [
    call('handlers'),
    call('handlers', 'queueTx'),
    call('handlers', 'queueTx', 'prMoves'),
    call('handlers', 'queueTx', 'prMoves', 'queueTx'),
    call('handlers', 'moves'),
    call('handlers', 'moves', 'moves'),
  ];
  const path = figures({ name: 'by hand', hits, covered: { functions: 0, agreeing: 0 } });
  expect(path.calls).toBe(6);
  expect(path.files).toBe(4);
  // handlers, queueTx, prMoves, queueTx, moves: the second queueTx visit comes back to a file left.
  expect(path.moves).toBe(4);
  expect(path.returnsToLeftFile).toBe(1);
  // With returns, handlers is visited again between queueTx and moves.
  expect(path.withReturns).toEqual({ moves: 5, returnsToLeftFile: 2 });
  expect(path.visits[0]).toEqual([file('queueTx'), 2]);
  expect(path.callBacks).toEqual([['engine/transaction/prMoves.ts → engine/transaction/queueTx.ts', 1]]);
  // Only the decision side's files: the path leaves out the others, stacks too.
  const transactionOnly = figures({ name: 'by hand', hits, covered: { functions: 0, agreeing: 0 } }, (name) =>
    name.endsWith('queueTx.js'),
  );
  expect([transactionOnly.calls, transactionOnly.moves, transactionOnly.callBacks]).toEqual([2, 0, []]);
});
