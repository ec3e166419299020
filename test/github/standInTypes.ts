/** What the stand-in keeps of pull requests, faults it is told to answer, and the exchanges it saw. */
export interface Pull {
  number: number;
  title: string;
  author: string;
  head: string;
  headRef: string;
  base: string;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  /** GitHub computes mergeability in the background: null until the first read after a change has "computed" it. */
  mergeableComputed: boolean;
}

export interface Fault {
  method: string;
  path: RegExp;
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  times: number;
}

export interface Exchange {
  method: string;
  path: string;
  operationId: string;
  status: number;
}
