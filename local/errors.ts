/** A start-up failure the embedded platform reports as one line, without a stack trace. */
export class LocalStartError extends Error {}
