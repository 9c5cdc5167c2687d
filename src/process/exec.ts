import { access, constants } from 'node:fs/promises';

/** Why a path-based executable cannot be started, or undefined when it looks runnable. */
export async function checkExecutable(command: string): Promise<string | undefined> {
  try {
    await access(command, constants.F_OK);
  } catch {
    return `executable not found: ${command}`;
  }
  if (process.platform === 'win32') return undefined;
  try {
    await access(command, constants.X_OK);
  } catch {
    return `not executable (chmod +x?): ${command}`;
  }
  return undefined;
}
