// What `zot-ext run --json` prints: one JSON object per line, each with a `type`. This file is the
// shape docs/cli.md documents; every key of a record is always present (null when it has no value).
import type { TraceStep } from '../../intercept/types.js';
import type { CommandAction } from '../../protocol/frames.js';
import type { ExtensionHostError } from '../../errors.js';
import type { CommandInfo, ToolContent, ToolInfo } from '../../host/types.js';

/** A host-side failure (timeout, abort, crash, malformed answer): its error code and message. */
export interface FailureRecord {
  code: string;
  message: string;
}

/** Fields of the records that answer an input line: the line, trimmed. */
interface LineRecord {
  input: string;
}

export type RunRecord =
  // What the host asks the agent to do (the callbacks), whenever it happens.
  | { type: 'prompt' | 'insert' | 'display'; extension: string; text: string; command: string }
  | { type: 'submit'; extension: string; text: string }
  | { type: 'note'; extension: string; level: string; message: string }
  | { type: 'notes_cleared'; extension: string }
  | { type: 'panel'; event: 'open' | 'render'; extension: string; panelId: string; title: string | undefined; lines: string[]; footer: string | undefined }
  | { type: 'panel'; event: 'close'; extension: string; panelId: string; by: 'extension' | 'exit' | 'user' }
  | { type: 'warning'; extension: string | undefined; code: string | undefined; message: string }
  | { type: 'progress'; extension: string; tool: string; requestId: string; message: string | undefined; progress: number | undefined; total: number | undefined }
  // The outcome of an input line.
  | (LineRecord & {
      type: 'command';
      name: string;
      args: string;
      handled: boolean;
      extension: string | undefined;
      action: CommandAction | undefined;
      text: string | undefined;
      error: string | undefined;
      failure: FailureRecord | undefined;
    })
  | (LineRecord & {
      type: 'tool';
      name: string;
      extension: string | undefined;
      isError: boolean;
      content: ToolContent[];
      activatedTools: string[];
      failure: FailureRecord | undefined;
    })
  | (LineRecord & { type: 'event'; event: string; sentTo: number })
  | (LineRecord & {
      type: 'intercept';
      event: 'tool_call' | 'turn_start' | 'assistant_message';
      block: boolean;
      blockedBy: string | undefined;
      reason: string | undefined;
      modified: boolean;
      /** tool_call: the args the tool would get. */
      args: Record<string, unknown> | undefined;
      /** assistant_message: the text the user would see. */
      text: string | undefined;
      trace: TraceStep[];
    })
  | (LineRecord & { type: 'system_prompt'; systemPrompt: string; changed: boolean })
  | (LineRecord & { type: 'commands'; commands: CommandInfo[] })
  | (LineRecord & { type: 'tools'; tools: ToolInfo[] })
  | (LineRecord & { type: 'help'; text: string })
  /** A failed line (after its outcome record, if it has one): one per failure, what the exit code counts. */
  | (LineRecord & { type: 'error'; message: string });

export function failureRecord(error: ExtensionHostError | undefined): FailureRecord | undefined {
  return error === undefined ? undefined : { code: error.code, message: error.message };
}

// C1 controls and DEL are valid in a JSON string but act on a terminal; U+2028/U+2029 end a line
// for some readers. Escaped, the value is the same and the line is safe to show.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u2028\u2029]/g;

/** One record as one line of JSON (absent values as null), with its LF. */
export function jsonLine(record: RunRecord): string {
  const json = JSON.stringify(record, (_key, value: unknown) => (value === undefined ? null : value));
  return `${json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}
