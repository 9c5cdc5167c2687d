// One log file per manifest name; the host writes it, `zot-ext logs` reads it. A name that is
// already file-name safe keeps `ext-<name>.log` (existing logs stay where users look for them); any
// other name gets its safe form plus `~` and a hash of the exact name. No safe name contains `~`, so
// the two kinds never meet, and two different unsafe names (`a b`, `a?b`) only share a file if their
// hashes collide (40 bits).
import { createRequire } from 'node:module';
import path from 'node:path';

type NodeCrypto = typeof import('node:crypto');

/**
 * node:crypto, loaded the first time a name needs a hash. Why lazily: loading it costs an embedder's
 * import and first start measurable time and memory (docs/performance.md), and most names are safe.
 */
function nodeCrypto(): NodeCrypto {
  const builtin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  // Node before 20.16 has no getBuiltinModule: a require() made anywhere finds a built-in module.
  return (builtin?.('node:crypto') as NodeCrypto | undefined) ?? (createRequire(path.resolve('log-path.js'))('node:crypto') as NodeCrypto);
}

const SAFE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_SAFE = 128;

/** The file-name part of an extension's log: never contains a separator or starts with `.`. */
export function safeLogName(name: string): string {
  if (name.length <= MAX_SAFE && SAFE.test(name)) return name;
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, MAX_SAFE);
  const hash = nodeCrypto().createHash('sha256').update(name, 'utf8').digest('hex').slice(0, 10);
  return `${cleaned}~${hash}`;
}

/** Where the host writes extension logs unless told otherwise (`logDir`): `<home>/logs`. */
export function defaultLogDir(home: string): string {
  return path.join(home, 'logs');
}

/** `<logDir>/ext-<name>.log`, unique per name and guaranteed to stay inside logDir. */
export function logPathFor(logDir: string, name: string): string {
  const dir = path.resolve(logDir);
  const file = path.join(dir, `ext-${safeLogName(name)}.log`);
  if (path.dirname(file) !== dir) throw new Error(`log path escapes ${dir}: ${file}`);
  return file;
}
