import { stat } from 'node:fs/promises';
import path from 'node:path';

/** `theme.json`, else `themes/theme.json`, when it is a file. */
export async function findTheme(dir: string): Promise<string | undefined> {
  for (const candidate of [path.join(dir, 'theme.json'), path.join(dir, 'themes', 'theme.json')]) {
    const isFile = await stat(candidate).then(
      (s) => s.isFile(),
      () => false,
    );
    if (isFile) return candidate;
  }
  return undefined;
}
