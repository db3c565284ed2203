import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** What `kairos login` stores. */
export interface CliConfig {
  url: string;
  token?: string;
  apiKey?: string;
}

/** $KAIROS_CONFIG, else $XDG_CONFIG_HOME/kairos/config.json, else ~/.config/kairos/config.json. */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.KAIROS_CONFIG) return env.KAIROS_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'kairos', 'config.json');
}

export function readConfig(path: string): CliConfig | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const parsed = JSON.parse(text) as Partial<CliConfig>;
  return typeof parsed.url === 'string' ? (parsed as CliConfig) : null;
}

/** Writes the config readable by its owner only (0600, in a 0700 folder): it holds a credential. */
export function writeConfig(path: string, config: CliConfig): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  // mode applies only when the file is created; an existing one is tightened too.
  chmodSync(path, 0o600);
}
