/** The command line's own refusals (exit 2, with a pointer to --help): light, so that main.ts loads nothing else. */

/** A command line that does not say what to do. */
export class UsageError extends Error {}

/** An environment the service cannot start with. */
export class ConfigError extends Error {}
