// Rewrites only the top-level "enabled" value of a manifest's text; every other byte is kept.
import { parseJson } from '../manifest/index.js';

export type SetEnabledResult =
  | { ok: true; text: string; changed: boolean }
  | { ok: false; message: string };

interface Member {
  key: string;
  keyStart: number;
  keyEnd: number;
  valueStart: number;
  valueEnd: number;
}

/**
 * The manifest text with `"enabled": <enabled>`: an existing top-level `enabled` value is replaced in
 * place (every occurrence, as duplicate keys are possible); when absent, `enable` changes nothing
 * (the default is true) and `disable` appends the member after the last one, in the file's style.
 */
export function setEnabled(text: string, enabled: boolean): SetEnabledResult {
  const json = parseJson(text);
  if (!json.ok) return { ok: false, message: `line ${json.line}, column ${json.column}: ${json.message}` };
  if (json.value === null || typeof json.value !== 'object' || Array.isArray(json.value)) {
    return { ok: false, message: 'the manifest is not a JSON object' };
  }
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const { open, members } = topLevelMembers(text, bom);
  const literal = String(enabled);
  const existing = members.filter((m) => m.key === 'enabled');
  if (existing.length > 0) {
    let out = text;
    for (const m of [...existing].reverse()) out = out.slice(0, m.valueStart) + literal + out.slice(m.valueEnd);
    return { ok: true, text: out, changed: out !== text };
  }
  if (enabled) return { ok: true, text, changed: false };
  const last = members.at(-1);
  if (last === undefined) {
    return { ok: true, text: `${text.slice(0, open + 1)}"enabled": false${text.slice(open + 1)}`, changed: true };
  }
  // Indentation and colon spacing copied from the last member.
  const previous = members.at(-2);
  const before = previous === undefined ? text.slice(open + 1, last.keyStart) : text.slice(text.indexOf(',', previous.valueEnd) + 1, last.keyStart);
  const colon = text.slice(last.keyEnd, last.valueStart);
  const insert = `,${before}"enabled"${colon}false`;
  return { ok: true, text: text.slice(0, last.valueEnd) + insert + text.slice(last.valueEnd), changed: true };
}

/** Members of the top-level object of valid JSON `text`. */
function topLevelMembers(text: string, start: number): { open: number; members: Member[] } {
  let i = start;
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const skipString = () => {
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
  };
  const skipValue = () => {
    const c = text[i];
    if (c === '"') return skipString();
    if (c === '{' || c === '[') {
      let depth = 0;
      do {
        const d = text[i];
        if (d === '"') {
          skipString();
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') depth--;
        i++;
      } while (depth > 0);
      return;
    }
    while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
  };

  ws();
  const open = i;
  i++;
  const members: Member[] = [];
  for (;;) {
    ws();
    if (text[i] === '}') break;
    if (text[i] === ',') {
      i++;
      continue;
    }
    const keyStart = i;
    skipString();
    const keyEnd = i;
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string;
    ws();
    i++; // ':'
    ws();
    const valueStart = i;
    skipValue();
    members.push({ key, keyStart, keyEnd, valueStart, valueEnd: i });
  }
  return { open, members };
}
