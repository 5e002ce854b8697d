import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** Every TypeScript file under a folder, for the tests that read the code itself. */
export const typescriptFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? typescriptFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  )
