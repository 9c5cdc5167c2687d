/** Protocol version sent in `hello_ack.protocol_version`. */
export const PROTOCOL_VERSION = 1;

/** Largest accepted frame (one line, without its LF): 4 MiB. */
export const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** Largest accepted `system_prompt` replacement, measured as its JSON encoding: 1 MiB. */
export const MAX_SYSTEM_PROMPT_BYTES = 1024 * 1024;

/** The longest delay a Node timer honours (2^31-1 ms, ~24.8 days); longer request deadlines mean none. */
export const MAX_TIMER_MS = 2_147_483_647;

/** Longest `progress.message` accepted (the SDKs send at most this many characters). */
export const MAX_PROGRESS_MESSAGE = 1000;

/** Tool names the model providers accept (OpenAI and Anthropic: 1 to 64 of `a-zA-Z0-9_-`). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Command names the host accepts: 1 to 64 letters (any script, with their combining marks), digits,
 * `_`, `-` and `:` (what zot's own extensions use). No whitespace, control, format (zero-width,
 * bidi) or other character: a name is shown to the user and typed by them.
 */
export const COMMAND_NAME = /^[\p{L}\p{M}\p{N}_:-]{1,64}$/u;
