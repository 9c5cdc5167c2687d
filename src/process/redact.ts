// The one redaction of an extension's secrets (its declared environment values and its remote
// headers' `env:NAME` values, see host/security.ts) and of the credentials of any URL, applied to
// everything the host shows about it:
// its `[host]` log lines, its diagnostics, the warnings and errors that name it. It runs before any
// cut: text is redacted whole, then shortened, so that no prefix of a secret is left at a cut.
import { hasUrlCredentials, redactUrlsIn } from '../manifest/remote.js';

/** Shorter values are not treated as secrets (replacing every `a` of a message hides nothing). */
export const MIN_SECRET_LENGTH = 4;

const MASK = '***';

export class Redactor {
  /** The secrets as they appear in text: raw, and escaped inside a JSON string; longest first. */
  private readonly forms: readonly string[];

  constructor(secrets: readonly string[]) {
    const forms = new Set<string>();
    for (const secret of secrets) {
      if (secret.length < MIN_SECRET_LENGTH) continue;
      forms.add(secret);
      forms.add(JSON.stringify(secret).slice(1, -1));
    }
    this.forms = [...forms].sort((a, b) => b.length - a.length);
  }

  /** Whether `text` holds a secret or a URL with credentials. */
  finds(text: string): boolean {
    for (const form of this.forms) if (text.includes(form)) return true;
    return hasUrlCredentials(text);
  }

  /** `text` with every secret, and the user name and password of every URL, replaced by `***`. */
  redact(text: string): string {
    let out = text;
    for (const form of this.forms) if (out.includes(form)) out = out.replaceAll(form, MASK);
    return redactUrlsIn(out);
  }
}

/** An extension without secrets (URL credentials are still masked). */
export const NO_SECRETS = new Redactor([]);
