/** `text` with every secret value replaced by `***` (declared environment values, see host/security.ts). */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (out.includes(secret)) out = out.replaceAll(secret, '***');
  return out;
}
