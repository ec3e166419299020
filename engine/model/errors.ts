/** Errors the engine raises for a request it cannot honour. The API maps each kind to a status code. */
export type EngineErrorKind = 'not_found' | 'conflict' | 'invalid' | 'not_implemented';

export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export const notFound = (message: string) => new EngineError('not_found', message);
export const conflict = (message: string) => new EngineError('conflict', message);
