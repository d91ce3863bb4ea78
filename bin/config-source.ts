import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { ConfigError, parseConfig, type KarpenterDoctorConfig } from '../contracts/config';

/**
 * Reads the configuration from `-c config=<path>` (a JSON file), or from the `karpenterDoctor`
 * context key (an object, or a JSON string when given on the command line). Errors name the source.
 */
export function configFromContext(app: App): KarpenterDoctorConfig {
  const path = app.node.tryGetContext('config') as unknown;
  const inline = app.node.tryGetContext('karpenterDoctor') as unknown;
  if (typeof path === 'string' && path !== '') {
    let text: string;
    try {
      text = readFileSync(resolve(path), 'utf8');
    } catch (error) {
      throw new ConfigError(`Cannot read the karpenter-doctor configuration ${path}: ${(error as Error).message}`);
    }
    let document: unknown;
    try {
      document = JSON.parse(stripJsonComments(text));
    } catch (error) {
      throw new ConfigError(
        `The karpenter-doctor configuration ${path} is not valid JSON: ${(error as Error).message}`,
      );
    }
    return parseConfig(document, path);
  }
  if (inline !== undefined) {
    let document = inline;
    if (typeof inline === 'string') {
      try {
        document = JSON.parse(inline);
      } catch (error) {
        throw new ConfigError(`The karpenterDoctor context value is not valid JSON: ${(error as Error).message}`);
      }
    }
    return parseConfig(document, 'context key karpenterDoctor');
  }
  throw new ConfigError(
    'No karpenter-doctor configuration: pass -c config=<file.json> (see config/karpenter-doctor.example.jsonc) or set the karpenterDoctor context key',
  );
}

/**
 * Removes `//` and `/* … *\/` comments and trailing commas outside strings, so the config file can
 * explain itself (JSON with comments, as in tsconfig.json). Line breaks are kept, so JSON errors
 * keep their line numbers.
 */
export function stripJsonComments(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const next = text[i + 1];
    if (inString) {
      out += char;
      if (char === '\\') {
        out += next ?? '';
        i++;
      } else if (char === '"') {
        inString = false;
      }
    } else if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const comment = text.slice(i, end === -1 ? text.length : end + 2);
      out += comment.replace(/[^\n]/g, ' ');
      i += comment.length - 1;
    } else {
      out += char;
    }
  }
  return withoutTrailingCommas(out);
}

function withoutTrailingCommas(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (inString) {
      if (char === '\\') {
        out += char + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === ',' && /^\s*[}\]]/.test(text.slice(i + 1, i + 200))) {
      out += ' ';
      continue;
    }
    out += char;
  }
  return out;
}
