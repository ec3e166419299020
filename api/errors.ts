/**
 * One error body everywhere: `{"code": "...", "reason": "...", "message": "..."}`, plus `details` naming each invalid
 * field for a 400; `reason` is the condition's code in the catalogue (engine/model/errors.ts).
 * Errors from the router (TRPCError), from Fastify (content type, body size, malformed JSON) and anything unexpected
 * all pass through `toErrorReply`.
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';
import {
  EngineError,
  ERRORS,
  errorMessage,
  type ErrorCode,
  isErrorCode,
  type MessageValues,
} from '../engine/model/errors.js';
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

/**
 * The reply for a condition of the catalogue: its status, its category as `code`, itself as `reason`, and its message
 * made by the catalogue from the values the raise site passes (engine/model/errors.ts, httpErrors.ts).
 */
export function errorReply<C extends ErrorCode>(reason: C, ...values: MessageValues<C>): ErrorReply {
  return replyWith(reason, errorMessage(reason, ...values));
}

/**
 * The reply with its message made already: an EngineError's (by the catalogue), or words from elsewhere that are
 * passed on (a host's refusal of a delivery, Fastify's and tRPC's own refusals).
 */
export function replyWith(reason: ErrorCode, message: string, details?: FieldError[]): ErrorReply {
  const { status, category: code } = ERRORS[reason];
  return { status, body: details === undefined ? { code, reason, message } : { code, reason, message, details } };
}

/** The reply for fields that fail their schema: each named in `details`. */
export function fieldsReply(details: FieldError[]): ErrorReply {
  const fields = [...new Set(details.map((detail) => detail.field))];
  return replyWith('invalid_field', errorMessage('invalid_field', { fields }), details);
}

/** An error for a Fastify handler to throw, its message made by the catalogue from `values`. */
export function httpError<C extends ErrorCode>(reason: C, ...values: MessageValues<C>): HttpError {
  return new HttpError(reason, errorMessage(reason, ...values));
}

/** An error for a Fastify handler to throw (`httpError` makes it): the error handler answers it with its catalogue entry. */
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
  return fieldsReply(fieldErrors(error));
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

const FASTIFY_ERRORS: Record<string, () => ErrorReply> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => errorReply('payload_too_large', { limit: '20 MiB' }),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => errorReply('unsupported_media_type'),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => errorReply('invalid_json', { empty: true }),
  FST_ERR_CTP_INVALID_JSON_BODY: () => errorReply('invalid_json', { empty: false }),
};

/** Maps any error to its status and body. `unexpected` is true for a 500: a bug, to be logged. */
export function toErrorReply(error: unknown): ErrorReply & { unexpected: boolean } {
  const down = dependencyDown(error);
  if (down !== undefined) {
    const reason = down.dependency === 'store' ? 'store_unavailable' : 'dependency_unavailable';
    const reply = errorReply(reason, { problem: down.message, retryAfterSeconds: down.retryAfterSeconds });
    return { ...reply, retryAfterSeconds: down.retryAfterSeconds, unexpected: false };
  }
  const storageFull =
    error instanceof StorageFullError
      ? error
      : error instanceof TRPCError && error.cause instanceof StorageFullError
        ? error.cause
        : undefined;
  if (storageFull !== undefined) {
    return { ...errorReply('storage_full'), unexpected: false };
  }
  const engineError =
    error instanceof EngineError
      ? error
      : error instanceof TRPCError && error.cause instanceof EngineError
        ? error.cause
        : undefined;
  if (engineError !== undefined) return { ...replyWith(engineError.code, engineError.message), unexpected: false };
  if (error instanceof HttpError) return { ...replyWith(error.reason, error.message), unexpected: false };
  if (error instanceof TRPCError) {
    if (error.code === 'BAD_REQUEST' && error.cause instanceof z.ZodError) {
      return { ...validationReply(error.cause), unexpected: false };
    }
    const status = getHTTPStatusCodeFromError(error);
    // tRPC's own refusals (an unknown procedure, a body it cannot parse): their words are passed on.
    if (status < 500) return { ...replyWith(reasonOfStatus(status), error.message), unexpected: false };
  }
  if (error instanceof z.ZodError) return { ...validationReply(error), unexpected: false };
  if (isFastifyClientError(error)) {
    const known = error.code === undefined ? undefined : FASTIFY_ERRORS[error.code];
    if (known !== undefined) return { ...known(), unexpected: false };
    // Fastify's and its plugins' other refusals: their words are passed on.
    const reason =
      isErrorCode(error.code) && ERRORS[error.code].status === error.statusCode
        ? error.code
        : reasonOfStatus(error.statusCode);
    return { ...replyWith(reason, error.message), unexpected: false };
  }
  return { ...errorReply('internal_error'), unexpected: true };
}
