import fs from 'node:fs';

/** A secret's file holds a key, a token or a URL: anything larger is not one. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/**
 * Each secret variable may come from a file instead (`NAME_FILE=/run/secrets/name`, as compose's `secrets:` mount them): an
 * environment is read by every child process and shown by `docker inspect`, a file only by whoever may open it. The file's
 * text is the value, one trailing line break dropped. Setting both is a problem, as is a file that cannot be read; no
 * problem repeats what the file holds.
 */
export function withSecretFiles(
  env: Readonly<Record<string, string | undefined>>,
  secretVariables: Iterable<string>,
  readFile: (file: string) => Buffer = (file) => fs.readFileSync(file),
): { env: Record<string, string | undefined>; problems: string[] } {
  const resolved: Record<string, string | undefined> = { ...env };
  const problems: string[] = [];
  for (const variable of secretVariables) {
    const file = env[`${variable}_FILE`];
    if (file === undefined || file === '') continue;
    if (env[variable] !== undefined && env[variable] !== '') {
      problems.push(`${variable}: set ${variable} or ${variable}_FILE, not both`);
      continue;
    }
    let content: Buffer;
    try {
      content = readFile(file);
    } catch (error) {
      problems.push(`${variable}_FILE: ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      continue;
    }
    if (content.length > MAX_SECRET_FILE_BYTES) {
      problems.push(`${variable}_FILE: ${file} is larger than ${MAX_SECRET_FILE_BYTES} bytes: not a secret's file`);
      continue;
    }
    resolved[variable] = content.toString('utf8').replace(/\r?\n$/, '');
  }
  return { env: resolved, problems };
}

/** The secrets and their files' paths taken out of the process's environment once loaded: no child process inherits them. */
export function removeSecretsFromEnvironment(env: NodeJS.ProcessEnv, secretVariables: Iterable<string>): void {
  for (const variable of secretVariables) {
    delete env[variable];
    delete env[`${variable}_FILE`];
  }
}
