// What one extension may register: a bound on the host's memory however many or however large
// the registration frames are (each frame alone is capped at 4 MiB, their number is not).

/** Commands plus tools one extension may register. */
export const MAX_REGISTRATIONS = 10_000;
/** Custom and lifecycle event names one extension may subscribe to. */
export const MAX_EVENT_NAMES = 1000;
/** Characters of names, descriptions and JSON schemas one extension's registrations may hold. */
export const MAX_REGISTRATION_CHARS = 16 * 1024 * 1024;
/** Longest diagnostic message kept; a longer one (it quotes what an extension sent) is cut. */
export const MAX_DIAGNOSTIC_CHARS = 2000;

/** Characters a registration holds: its name, description and (for a tool) its schema as JSON. */
export function registrationChars(name: string, description: string, schema?: Record<string, unknown>): number {
  let chars = name.length + description.length;
  if (schema !== undefined) {
    try {
      chars += JSON.stringify(schema).length;
    } catch {
      // Schemas come from a parsed frame: always encodable. Count nothing more if not.
    }
  }
  return chars;
}

/** `message`, cut to MAX_DIAGNOSTIC_CHARS. */
export function boundedMessage(message: string): string {
  return message.length <= MAX_DIAGNOSTIC_CHARS ? message : `${message.slice(0, MAX_DIAGNOSTIC_CHARS)}… (${message.length - MAX_DIAGNOSTIC_CHARS} more characters cut)`;
}
