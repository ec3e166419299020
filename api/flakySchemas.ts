/** Request schemas of the flaky-test endpoints (spec 4.3 and the addendum's Flaky tests part). */
import { z } from 'zod';
import { anyCaseEnum, RepoSchema } from './schemas.js';

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

export const FlakyRequest = z.object({
  repo: RepoSchema,
  org_url_slug: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/, 'must be an organization slug'),
  page_query: z.object({
    page_size: z.number().int().min(1).max(100),
    page_token: z.string().max(4096).default(''),
  }),
});

const DateTime = z.iso.datetime({ offset: true });

export const ListFailingTestsInput = FlakyRequest.extend({ start_time: DateTime, end_time: DateTime }).superRefine(
  (body, ctx) => {
    const span = Date.parse(body.end_time) - Date.parse(body.start_time);
    if (span < 0) ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'end_time must not be before start_time' });
    if (span > SEVEN_DAYS_MS) {
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'start_time and end_time must be within 7 days of each other' });
    }
  },
);
export const ListUnhealthyTestsInput = FlakyRequest.extend({ status: anyCaseEnum(['FLAKY', 'BROKEN'], true) });
export const ListQuarantinedTestsInput = FlakyRequest;

