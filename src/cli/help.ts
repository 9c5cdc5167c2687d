import { GLOBAL_OPTIONS, type OptionSpecs } from './args.js';
import type { Command } from './context.js';

function optionLines(specs: OptionSpecs): string[] {
  const rows = Object.entries(specs).map(([name, spec]) => {
    const flag = `${spec.short === undefined ? '    ' : `-${spec.short}, `}--${name}${spec.value === undefined ? '' : ` <${spec.value}>`}`;
    return [flag, spec.multiple === true ? `${spec.description} (repeatable)` : spec.description] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`);
}

export function commandHelp(command: Command): string {
  const lines = [`usage: zot-ext ${command.name}${command.usage === '' ? '' : ` ${command.usage}`} [options]`, '', command.summary, '', command.description, ''];
  if (Object.keys(command.options).length > 0) lines.push('options:', ...optionLines(command.options), '');
  lines.push('global options:', ...optionLines(GLOBAL_OPTIONS));
  return lines.join('\n');
}

export function mainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => `${c.name} ${c.usage}`.length));
  return [
    'usage: zot-ext <command> [options]',
    '',
    'Manage, diagnose and try zot extensions without an agent.',
    '',
    'commands:',
    ...commands.map((c) => `  ${`${c.name} ${c.usage}`.padEnd(width)}  ${c.summary}`),
    '',
    'global options:',
    ...optionLines({ ...GLOBAL_OPTIONS, version: { type: 'boolean', short: 'v', description: 'print the version' } }),
    '',
    'exit codes: 0 ok, 1 an extension or the command failed, 2 usage error',
    'run zot-ext <command> --help for a command\'s options',
  ].join('\n');
}
