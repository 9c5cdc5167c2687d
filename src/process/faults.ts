// What a transport fault means for an extension connection, in the phase it happens.
import { ErrorCode, ExtensionHostError } from '../errors.js';
import type { TransportFault } from '../transport/transport.js';
import type { ExitInfo, ProcessDiagnostic } from './types.js';

export interface FaultEnding {
  /** What the handshake fails with, or the connection ends with. */
  error: ExtensionHostError;
  /** Reported before it ends. */
  diagnostic?: { code: ProcessDiagnostic['code']; message: string } | undefined;
  reason: ExitInfo['reason'];
  /** The transport ends the connection itself (a close handshake under way): not forced. */
  closing?: true | undefined;
}

/**
 * `phase`: `hello` while the handshake waits, `running` after it, `other` while stopping or
 * closed. Undefined: the fault means nothing then (a closed stdin while stopping is expected).
 */
export function faultEnding(fault: TransportFault, phase: 'hello' | 'running' | 'other', who: { extension: string; logPath: string }): FaultEnding | undefined {
  const { extension: name, logPath } = who;
  const error = (code: ErrorCode, message: string, cause?: unknown) => new ExtensionHostError(code, message, { ...who, cause, exitCode: undefined, signal: undefined });
  switch (fault.kind) {
    case 'failed':
      return { error: error(ErrorCode.SPAWN_FAILED, `cannot start ${name}: ${fault.message}`, fault.cause), reason: 'exited' };
    case 'frame_too_large': {
      const message = `${name} sent a frame of more than ${fault.limit} bytes (${fault.bytes} seen); its read loop was closed and it is being stopped; see ${logPath}`;
      return { error: error(ErrorCode.FRAME_TOO_LARGE, message), diagnostic: { code: 'FRAME_TOO_LARGE', message }, reason: 'frame_too_large' };
    }
    case 'binary_message': {
      const what = `${name} sent a binary message (${fault.bytes} bytes); the protocol is one text message per frame`;
      if (phase === 'hello') return { error: error(ErrorCode.BAD_HELLO, `${what}: the first frame must be hello; see ${logPath}`), reason: 'exited', closing: true };
      if (phase !== 'running') return undefined;
      const message = `${what}: the connection was closed (1003) and it is being stopped; see ${logPath}`;
      return { error: error(ErrorCode.PROCESS_EXITED, message), diagnostic: { code: 'BINARY_MESSAGE', message }, reason: 'exited', closing: true };
    }
    case 'output_closed':
      if (phase === 'hello') return { error: error(ErrorCode.EXITED_BEFORE_HELLO, `${name} closed its stdout before sending hello; see ${logPath}`), reason: 'exited' };
      if (phase !== 'running') return undefined;
      return {
        error: error(ErrorCode.PROCESS_EXITED, `${name} closed its stdout`),
        diagnostic: { code: 'STDOUT_CLOSED', message: `${name} closed its stdout but kept running; it is being stopped; see ${logPath}` },
        reason: 'stdout_closed',
      };
    case 'input_closed':
      // It can answer nothing more: stopped, like one that closed its stdout.
      if (phase !== 'running') return undefined;
      return { error: error(ErrorCode.PROCESS_EXITED, `${name}'s stdin closed while it kept running; it is being stopped; see ${logPath}`), reason: 'stdin_blocked' };
  }
}
