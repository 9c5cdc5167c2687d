/**
 * The guard's policy: a pure function from a tool call to a verdict. It knows nothing about the
 * SDK, the host or stdio, so it can be tested on its own (policy-chain.test.ts) as well as through
 * the extension (guard.test.ts).
 *
 * Shell commands are split into simple commands at `;`, `&`, `&&`, `||`, `|` and newlines; quotes are
 * not parsed. That errs on the side of caution: a quoted "rm -rf" inside an echo is refused too.
 */

/** Blocking rules, in the order they are checked. */
export const REASONS = {
  'rm-rf': 'refused by guard: "rm -rf" deletes recursively without asking; delete specific paths instead',
  'pipe-to-shell': 'refused by guard: piping a download into a shell runs code nobody reviewed; save the script and show it first',
  sudo: 'refused by guard: commands must not escalate privileges (sudo, doas, su)',
  'force-push': 'refused by guard: a force-push rewrites shared history; use --force-with-lease',
  'raw-disk': 'refused by guard: writing to a raw disk device or formatting one',
  'ssh-dir': 'refused by guard: ~/.ssh is off limits',
  'env-file': 'refused by guard: .env files hold secrets; the user edits them by hand',
} as const;

export type BlockRule = keyof typeof REASONS;
/** Every rule: the blocking ones plus the `ls` rewrite. */
export type Rule = BlockRule | 'ls-long';

export type Args = Record<string, unknown>;

export type Verdict =
  | { action: 'allow' }
  | { action: 'block'; rule: BlockRule; reason: string }
  | { action: 'rewrite'; rule: Rule; args: Args };

export interface ToolCall {
  toolName: string;
  args: Args;
}

const ALLOW: Verdict = { action: 'allow' };
/** Runs the command as another program: look at what follows. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nohup', 'time', 'command', 'exec', 'nice']);
const ESCALATION = new Set(['sudo', 'doas', 'su']);
const SHELLS = '(?:ba|z|da|k|fi)?sh';
const DOWNLOAD_PIPED_TO_SHELL = new RegExp(`\\b(?:curl|wget)\\b[^|;&\\n]*\\|\\s*(?:sudo\\s+)?${SHELLS}\\b`);
const SHELL_RUNS_DOWNLOAD = new RegExp(`\\b${SHELLS}\\b[^|;&\\n]*(?:<\\(|\\$\\()\\s*(?:curl|wget)\\b`);
const RAW_DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk)/;
const REDIRECT_TARGET = />{1,2}\|?\s*([^\s;&|<>()]+)/g;
/** A plain `ls` with nothing but path arguments, and nothing else on the line. */
const PLAIN_LS = /^\s*ls((?:\s+[^\s;&|<>`$()-][^\s;&|<>`$()]*)*)\s*$/;

function block(rule: BlockRule): Verdict {
  return { action: 'block', rule, reason: REASONS[rule] };
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

function stripQuotes(word: string): string {
  return word.replace(/^['"]+|['"]+$/g, '');
}

/** The simple commands of a command line, each as its words. */
function simpleCommands(command: string): string[][] {
  return command
    .split(/&&|\|\||[;&|\n]/)
    .map((part) => part.trim().split(/\s+/).filter((word) => word.length > 0))
    .filter((words) => words.length > 0);
}

/** The words of the program actually run: leading `VAR=value` and wrappers such as sudo removed. */
function unwrap(words: readonly string[]): string[] {
  let i = 0;
  while (i < words.length) {
    const word = words[i] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) i++;
    else if (WRAPPERS.has(basename(word))) {
      i++;
      while (i < words.length && (words[i] as string).startsWith('-')) i++; // the wrapper's own flags
    } else break;
  }
  return words.slice(i);
}

/** True when the command runs through sudo, doas or su, also behind `env`, `nohup` and the like. */
function escalates(words: readonly string[]): boolean {
  for (const word of words) {
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) continue;
    const name = basename(word);
    if (ESCALATION.has(name)) return true;
    if (!WRAPPERS.has(name) && !word.startsWith('-')) return false;
  }
  return false;
}

function isRecursiveForceRm(words: readonly string[]): boolean {
  if (basename(words[0] ?? '') !== 'rm') return false;
  const flags = words.slice(1).filter((word) => word.startsWith('-'));
  const short = flags.filter((flag) => !flag.startsWith('--')).join('');
  const recursive = /[rR]/.test(short) || flags.includes('--recursive');
  const force = short.includes('f') || flags.includes('--force');
  return recursive && force;
}

function isForcePush(words: readonly string[]): boolean {
  return basename(words[0] ?? '') === 'git' && words.includes('push') && (words.includes('--force') || words.includes('-f'));
}

function writesRawDisk(words: readonly string[]): boolean {
  const program = basename(words[0] ?? '');
  if (program === 'mkfs' || program.startsWith('mkfs.')) return true;
  return program === 'dd' && words.some((word) => word.startsWith('of=') && RAW_DEVICE.test(word.slice(3)));
}

function touchesSsh(path: string): boolean {
  return stripQuotes(path).split(/[\\/]+/).includes('.ssh');
}

function isEnvFile(path: string): boolean {
  const name = basename(stripQuotes(path));
  return /^\.env(?:\..+)?$/.test(name) && !/\.(?:example|sample|template)$/.test(name);
}

/** Paths a command line writes to: redirections, `tee` arguments, `cp`/`mv` destinations. */
function writeTargets(command: string, commands: readonly string[][]): string[] {
  const targets = [...command.matchAll(REDIRECT_TARGET)].map((match) => match[1] as string);
  for (const words of commands.map(unwrap)) {
    const program = basename(words[0] ?? '');
    const operands = words.slice(1).filter((word) => !word.startsWith('-'));
    if (program === 'tee') targets.push(...operands);
    if ((program === 'cp' || program === 'mv') && operands.length >= 2) targets.push(operands.at(-1) as string);
  }
  return targets;
}

function checkBash(args: Args): Verdict {
  const command = args.command;
  if (typeof command !== 'string') return ALLOW;
  const commands = simpleCommands(command);
  const programs = commands.map(unwrap);
  if (programs.some(isRecursiveForceRm)) return block('rm-rf');
  if (DOWNLOAD_PIPED_TO_SHELL.test(command) || SHELL_RUNS_DOWNLOAD.test(command)) return block('pipe-to-shell');
  if (commands.some(escalates)) return block('sudo');
  if (programs.some(isForcePush)) return block('force-push');
  const targets = writeTargets(command, commands);
  if (programs.some(writesRawDisk) || targets.some((target) => RAW_DEVICE.test(target))) return block('raw-disk');
  if (commands.some((words) => words.some(touchesSsh))) return block('ssh-dir');
  if (targets.some(isEnvFile)) return block('env-file');
  const ls = PLAIN_LS.exec(command);
  if (ls) return { action: 'rewrite', rule: 'ls-long', args: { ...args, command: `ls -la${ls[1] ?? ''}` } };
  return ALLOW;
}

/** read / write / edit: `~/.ssh` is off limits; `.env` files may be read but not written. */
function checkFile(toolName: string, args: Args): Verdict {
  const path = args.path ?? args.file_path;
  if (typeof path !== 'string') return ALLOW;
  if (touchesSsh(path)) return block('ssh-dir');
  if (toolName !== 'read' && isEnvFile(path)) return block('env-file');
  return ALLOW;
}

/** Decides one tool call. Tools other than bash, read, write and edit are always allowed. */
export function evaluate({ toolName, args }: ToolCall): Verdict {
  if (toolName === 'bash') return checkBash(args);
  if (toolName === 'read' || toolName === 'write' || toolName === 'edit') return checkFile(toolName, args);
  return ALLOW;
}

/**
 * The verdict as an interceptor decision. The shape is accepted both by the SDK's
 * `ext.intercept('tool_call', ...)` and by an `InterceptChain` interceptor's `toolCall`.
 */
export function toDecision(verdict: Verdict): { block: true; reason: string } | { modifiedArgs: Args } | undefined {
  switch (verdict.action) {
    case 'block':
      return { block: true, reason: verdict.reason };
    case 'rewrite':
      return { modifiedArgs: verdict.args };
    case 'allow':
      return undefined;
  }
}
