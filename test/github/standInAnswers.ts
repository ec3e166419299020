/** What the stand-in answers a request, and the two error answers every part of it gives. */
/** `githubWide`: an answer GitHub gives on any operation (a 404 for what is not there), not checked per operation. */
export type Answer = { status: number; body?: unknown; headers?: Record<string, string>; githubWide?: true };

export const NOT_FOUND: Answer = {
  status: 404,
  body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' },
};

/** GitHub's 422 for a request it understood and refuses. */
export const invalid = (message: string): Answer => ({
  status: 422,
  body: { message, documentation_url: 'https://docs.github.com/rest' },
});
