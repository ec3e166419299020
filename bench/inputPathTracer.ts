/**
 * The tracer of bench/inputPath.ts: a worker thread whose inspector session is connected to the main thread
 * (node:inspector `connectToMainThread`). It sets a breakpoint at the first statement of every function of the traced
 * files (found by TypeScript's parser in the compiled JavaScript), each with a condition that is false unless the main
 * thread has `globalThis.__inputPath` set, so that only the measured calls pause. At each pause it records the function
 * and the stack of traced frames, then resumes. Precise coverage with call counts (Profiler) runs beside it: its count
 * of calls into the traced files, taken over the same window, checks the breakpoints' count.
 */
import { Session } from 'node:inspector';
import { parentPort, workerData } from 'node:worker_threads';
import ts from 'typescript';

/** One traced call: its file and function, and the traced frames below it (outermost first), by file. */
export interface Hit {
  file: string;
  fn: string;
  stack: string[];
}

/** A frame of a pause (its `url` is empty in today's V8: the script is named by its location's id). */
interface CallFrame {
  functionName: string;
  location: { scriptId: string };
}

const { prefixes, root } = workerData as { prefixes: string[]; root: string };
const port = parentPort;
if (port === null) throw new Error('inputPathTracer runs as a worker');
const session = new Session();
session.connectToMainThread();
const post = <T>(method: string, params: object = {}): Promise<T> =>
  new Promise((resolve, reject) =>
    session.post(method, params, (error, result) => (error ? reject(error) : resolve(result as T))),
  );

const scripts = new Map<string, string>(); // scriptId → url
session.on('Debugger.scriptParsed', ({ params }) => {
  if (prefixes.some((prefix) => params.url.startsWith(prefix))) scripts.set(params.scriptId, params.url);
});
const fileOf = (url: string) => url.slice(`file://${root}/`.length);
const traced = (url: string) => prefixes.some((prefix) => url.startsWith(prefix));

let hits: Hit[] = [];
session.on('Debugger.paused', ({ params }) => {
  const frames = (params.callFrames as CallFrame[]).flatMap((frame) => {
    const url = scripts.get(frame.location.scriptId);
    return url === undefined ? [] : [{ file: fileOf(url), fn: frame.functionName || '(anonymous)' }];
  });
  const top = frames[0];
  if (top !== undefined) hits.push({ ...top, stack: frames.map((frame) => frame.file).reverse() });
  session.post('Debugger.resume');
});

/**
 * Where each function is counted: at its first statement (from the `{` of its body, or the `=>` of an expression-bodied
 * arrow); or, when that statement is a `while` or `do` loop (whose condition would stop each round), at its returns.
 */
interface Place {
  at: number;
  /** Where the function ends, when it is counted at its returns. */
  returnsUntil?: number;
}

function functionStarts(source: string): Place[] {
  const file = ts.createSourceFile('traced.js', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const starts: Place[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const body = node.body as ts.Node;
      // A derived class's constructor: after its super() call (a condition evaluated before it throws in V8).
      const first = ts.isBlock(body) ? body.statements[0] : undefined;
      const callsSuper =
        ts.isConstructorDeclaration(node) &&
        first !== undefined &&
        ts.isExpressionStatement(first) &&
        ts.isCallExpression(first.expression) &&
        first.expression.expression.kind === ts.SyntaxKind.SuperKeyword;
      const loops = first !== undefined && (ts.isWhileStatement(first) || ts.isDoStatement(first));
      if (callsSuper) starts.push({ at: first.end });
      else if (loops) starts.push({ at: body.getStart(file), returnsUntil: body.end });
      else if (ts.isBlock(body)) starts.push({ at: body.getStart(file) });
      else if (ts.isArrowFunction(node)) starts.push({ at: node.equalsGreaterThanToken.getStart(file) });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return starts;
}

function lineAndColumn(source: string, offset: number): { lineNumber: number; columnNumber: number } {
  const before = source.slice(0, offset);
  const lineNumber = before.split('\n').length - 1;
  return { lineNumber, columnNumber: offset - (before.lastIndexOf('\n') + 1) };
}

async function arm(): Promise<number> {
  await post('Debugger.enable');
  await post('Profiler.enable');
  await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  let set = 0;
  for (const [scriptId] of scripts) {
    const { scriptSource } = await post<{ scriptSource: string }>('Debugger.getScriptSource', { scriptId });
    for (const { at, returnsUntil } of functionStarts(scriptSource)) {
      const start = { scriptId, ...lineAndColumn(scriptSource, at) };
      const end = returnsUntil === undefined ? undefined : { scriptId, ...lineAndColumn(scriptSource, returnsUntil) };
      const { locations } =
        end === undefined
          ? { locations: [start] }
          : await post<{ locations: (typeof start & { type?: string })[] }>('Debugger.getPossibleBreakpoints', {
              start,
              end,
              restrictToFunction: true,
            });
      for (const { type, ...location } of locations as (typeof start & { type?: string })[]) {
        if (end !== undefined && type !== 'return') continue;
        await post('Debugger.setBreakpoint', { location, condition: 'globalThis.__inputPath === true' });
      }
      set++;
    }
  }
  return set;
}

/** Calls into each traced function since the last take, by precise coverage (function granularity, call counts). */
async function coveredCalls(): Promise<Map<string, number>> {
  const { result } = await post<{
    result: { url: string; functions: { functionName: string; ranges: { count: number }[] }[] }[];
  }>('Profiler.takePreciseCoverage');
  const calls = new Map<string, number>();
  for (const script of result) {
    if (!traced(script.url)) continue;
    // The first function is the module's top level, run once at import.
    for (const fn of script.functions.slice(1)) {
      const key = `${fileOf(script.url)} ${fn.functionName || '(anonymous)'}`;
      calls.set(key, (calls.get(key) ?? 0) + (fn.ranges[0]?.count ?? 0));
    }
  }
  return calls;
}

/**
 * How the breakpoints' counts agree with coverage's, over the functions (by file and name) coverage saw called: V8's
 * coverage leaves out some functions it did count (seen here: a few small hot ones), so only those it reports compare.
 */
function agreement(covered: Map<string, number>): { functions: number; agreeing: number } {
  const counted = new Map<string, number>();
  for (const hit of hits) counted.set(`${hit.file} ${hit.fn}`, (counted.get(`${hit.file} ${hit.fn}`) ?? 0) + 1);
  const called = [...covered].filter(([, count]) => count > 0);
  return { functions: called.length, agreeing: called.filter(([key, count]) => counted.get(key) === count).length };
}

port.on('message', async (message: { kind: 'arm' | 'begin' | 'end' }) => {
  if (message.kind === 'arm') port.postMessage({ kind: 'armed', breakpoints: await arm(), scripts: scripts.size });
  if (message.kind === 'begin') {
    hits = [];
    await coveredCalls();
    port.postMessage({ kind: 'begun' });
  }
  if (message.kind === 'end') port.postMessage({ kind: 'ended', hits, covered: agreement(await coveredCalls()) });
});
port.postMessage({ kind: 'ready' });
