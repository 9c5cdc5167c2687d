// Small command-line habits a newcomer expects: -v, a missing --cwd is a usage error, and a
// misspelt name gets a "did you mean".
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { runCli, useCliSandbox } from './cli.js';

const sandbox = useCliSandbox('zot-cli-usage-');
const { cli, source } = sandbox;

describe('command-line usage', { timeout: 30_000 }, () => {
  it('-v prints the version, as --version does', async () => {
    for (const flag of ['-v', '--version']) {
      const r = await runCli([flag]);
      expect({ flag, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ flag, code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
  });

  it('a --cwd that does not exist (or is a file) is a usage error, exit 2', async () => {
    const missing = path.join(sandbox.dir, 'no-such-project');
    for (const command of ['list', 'doctor']) {
      const r = await runCli([command, '--cwd', missing, '--home', sandbox.home]);
      expect(r.code, command).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`zot-ext: error: --cwd ${missing} does not exist; give the project directory\n`);
    }
    const file = path.join(sandbox.dir, 'file.txt');
    (await import('node:fs')).writeFileSync(file, 'x');
    const r = await runCli(['list', '--cwd', file, '--home', sandbox.home]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`zot-ext: error: --cwd ${file} is not a directory; give the project directory\n`);
  });

  it('disable / enable / remove of a misspelt name suggest the closest installed one', async () => {
    expect((await cli('install', source('extensions/weather'))).code).toBe(0);
    expect((await cli('install', source('extensions/hello-sh'))).code).toBe(0);
    for (const command of ['disable', 'enable', 'remove']) {
      const r = await cli(command, 'wether');
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`no extension named "wether"`);
      expect(r.stderr).toContain('did you mean "weather"?');
    }
    const far = await cli('disable', 'zzzzzz');
    expect(far.stderr).toContain('run zot-ext list to see the installed names');
  });
});
