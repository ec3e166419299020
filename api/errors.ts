/**
 * One error body everywhere: `{"code": "...", "reason": "...", "message": "..."}`, plus `details` naming each invalid
 * field for a 400; `reason` is the condition's code in the catalogue (engine/model/errors.ts).
 * Errors from the router (TRPCError), from Fastify (content type, body size, malformed JSON) and anything unexpected
 * all pass through `toErrorReply`.
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';
import { EngineError, ERRORS, type ErrorCode, isErrorCode } from '../engine/model/errors.js';
import { StorageFullError } from '../engine/store/store.js';
import { fieldErrors as issueErrors, type FieldError } from '../engine/validationMessages.js';
import { dependencyDown } from '../engine/model/unavailable.js';

export type { FieldError };

export interface ErrorBody {
  /** The coarse class clients have always read (`not_found`, `conflict`, `bad_request`, …): the catalogue's category. */
  code: string;
  /** The condition, a code of the catalogue (engine/model/errors.ts): `queue_not_found`, `pr_already_merged`, … */
  reason: ErrorCode;
  message: string;
  details?: FieldError[];
}

export interface ErrorReply {
  status: number;
  body: ErrorBody;
  /** For a 503 of a dependency down: when to try again, sent as `retry-after` (seconds). */
  retryAfterSeconds?: number;
}

/** The reply for a condition of the catalogue: its status, its category as `code`, and itself as `reason`. */
export function errorReply(reason: ErrorCode, message: string, details?: FieldError[]): ErrorReply {
  const { status, category: code } = ERRORS[reason];
  return { status, body: details === undefined ? { code, reason, message } : { code, reason, message, details } };
}

/** An error for a Fastify handler to throw: the error handler answers it with its catalogue entry. */
export class HttpError extends Error {
  readonly statusCode: number;

  constructor(
    readonly reason: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HttpError';
    this.statusCode = ERRORS[reason].status;
  }
}

/** Errors of other origins (tRPC, Fastify, plugins) carry a status only: the catalogue's code for it. */
const REASON_BY_STATUS: Partial<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'insufficient_scope',
  404: 'endpoint_not_found',
  405: 'method_not_allowed',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  503: 'unavailable',
  507: 'storage_full',
};

function reasonOfStatus(status: number): ErrorCode {
  return REASON_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
}

/** Each issue names its field and what the field must be (validationMessages.ts). */
function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => issueErrors(issue));
}

function validationReply(error: z.ZodError): ErrorReply {
  const details = fieldErrors(error);
  const fields = [...new Set(details.map((detail) => detail.field))].join(', ');
  return errorReply('invalid_field', `invalid request: ${fields}`, details);
}

/** Fastify's own errors carry a statusCode and an FST_ERR_* code. */
function isFastifyClientError(error: unknown): error is { statusCode: number; code?: string; message: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { statusCode?: unknown }).statusCode === 'number' &&
    (error as { statusCode: number }).statusCode >= 400 &&
    (error as { statusCode: number }).statusCode < 500
  );
}

const FASTIFY_ERRORS: Record<string, { reason: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { reason: 'payload_too_large', message: 'the request body is larger than 20 MiB' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { reason: 'unsupported_media_type', message: 'request bodies must be JSON (Content-Type: application/json)' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { reason: 'invalid_json', message: 'the request body is empty; send a JSON object' },
  FST_ERR_CTP_INVALID_JSON_BODY: { reason: 'invalid_json', message: 'the request body is not valid JSON' },
};

/** Maps any error to its status and body. `unexpected` is true for a 500: a bug, to be logged. */
export function toErrorReply(error: unknown): ErrorReply & { unexpected: boolean } {
  const down = dependencyDown(error);
  if (down !== undefined) {
    const reason = down.dependency === 'store' ? 'store_unavailable' : 'dependency_unavailable';
    const message = `${down.message}; try again in ${down.retryAfterSeconds} s`;
    return { ...errorReply(reason, message), retryAfterSeconds: down.retryAfterSeconds, unexpected: false };
  }
  const storageFull = error instanceof StorageFullError ? error : error instanceof TRPCError && error.cause instanceof StorageFullError ? error.cause : undefined;
  if (storageFull !== undefined) {
    return { ...errorReply('storage_full', 'the service is out of storage: nothing of this request was stored; reads still work'), unexpected: false };
  }
  const engineError = error instanceof EngineError ? error : error instanceof TRPCError && error.cause instanceof EngineError ? error.cause : undefined;
  if (engineError !== undefined) return { ...errorReply(engineError.code, engineError.message), unexpected: false };
  if (error instanceof HttpError) return { ...errorReply(error.reason, error.message), unexpected: false };
  if (error instanceof TRPCError) {
    if (error.code === 'BAD_REQUEST' && error.cause instanceof z.ZodError) {
      return { ...validationReply(error.cause), unexpected: false };
    }
    const status = getHTTPStatusCodeFromError(error);
    if (status < 500) return { ...errorReply(reasonOfStatus(status), error.message), unexpected: false };
  }
  if (error instanceof z.ZodError) return { ...validationReply(error), unexpected: false };
  if (isFastifyClientError(error)) {
    const known = error.code === undefined ? undefined : FASTIFY_ERRORS[error.code];
    if (known !== undefined) return { ...errorReply(known.reason, known.message), unexpected: false };
    const reason = isErrorCode(error.code) && ERRORS[error.code].status === error.statusCode ? error.code : reasonOfStatus(error.statusCode);
    return { ...errorReply(reason, error.message), unexpected: false };
  }
  return { ...errorReply('internal_error', 'internal error'), unexpected: true };
}
