/**
 * One error body everywhere: `{"code": "...", "message": "..."}`, plus `details` naming each invalid field for a 400.
 * Errors from the router (TRPCError), from Fastify (content type, body size, malformed JSON) and anything unexpected
 * all pass through `toErrorReply`.
 */
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { z } from 'zod';
import { StorageFullError } from '../engine/store/store.js';

export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorBody {
  code: string;
  message: string;
  details?: FieldError[];
}

export interface ErrorReply {
  status: number;
  body: ErrorBody;
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  501: 'not_implemented',
  507: 'storage_full',
  503: 'unavailable',
};

export function errorReply(status: number, message: string, details?: FieldError[]): ErrorReply {
  const code = CODE_BY_STATUS[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
  return { status, body: details === undefined ? { code, message } : { code, message, details } };
}

function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.length === 0 ? '(body)' : issue.path.map(String).join('.'),
    message: issue.message,
  }));
}

function validationReply(error: z.ZodError): ErrorReply {
  const details = fieldErrors(error);
  const fields = [...new Set(details.map((detail) => detail.field))].join(', ');
  return errorReply(400, `invalid request: ${fields}`, details);
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

const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'the request body is larger than 20 MiB',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'request bodies must be JSON (Content-Type: application/json)',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'the request body is empty; send a JSON object',
  FST_ERR_CTP_INVALID_JSON_BODY: 'the request body is not valid JSON',
};

/** Maps any error to its status and body. `unexpected` is true for a 500: a bug, to be logged. */
export function toErrorReply(error: unknown): ErrorReply & { unexpected: boolean } {
  const storageFull = error instanceof StorageFullError ? error : error instanceof TRPCError && error.cause instanceof StorageFullError ? error.cause : undefined;
  if (storageFull !== undefined) {
    return { ...errorReply(507, 'the service is out of storage: nothing of this request was stored; reads still work'), unexpected: false };
  }
  if (error instanceof TRPCError) {
    if (error.code === 'BAD_REQUEST' && error.cause instanceof z.ZodError) {
      return { ...validationReply(error.cause), unexpected: false };
    }
    const status = getHTTPStatusCodeFromError(error);
    if (status < 500 || status === 501) return { ...errorReply(status, error.message), unexpected: false };
  }
  if (error instanceof z.ZodError) return { ...validationReply(error), unexpected: false };
  if (isFastifyClientError(error)) {
    const message = (error.code !== undefined && FASTIFY_MESSAGES[error.code]) || error.message;
    return { ...errorReply(error.statusCode, message), unexpected: false };
  }
  return { ...errorReply(500, 'internal error'), unexpected: true };
}
