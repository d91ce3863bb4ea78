import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ConfigError, parseConfig, type KarpenterDoctorConfig } from '../contracts/config';

/**
 * Reads the configuration from `-c config=<path>` (JSON with comments), or from the `karpenterDoctor`
 * context key (an object, or a JSON string when given on the command line), never both; without
 * either it fails, saying how to give one. Errors name the source, and for a file the line and
 * column of each problem.
 */
export function configFromContext(app: App): KarpenterDoctorConfig {
  const path = app.node.tryGetContext('config') as unknown;
  const inline = app.node.tryGetContext('karpenterDoctor') as unknown;
  const hasPath = typeof path === 'string' && path !== '';
  if (hasPath && inline !== undefined) {
    throw new ConfigError(
      'Two karpenter-doctor configurations: give either -c config=<file> or -c karpenterDoctor=…, not both',
    );
  }
  if (hasPath) {
    let text: string;
    try {
      text = readFileSync(resolve(path), 'utf8');
    } catch (error) {
      throw new ConfigError(`Cannot read the karpenter-doctor configuration ${path}: ${(error as Error).message}`);
    }
    return parseConfigFile(text, path);
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
  // cdk.json names no configuration, so that a deploy never takes the example's clusters by accident.
  throw new ConfigError(
    [
      'No karpenter-doctor configuration: pass -c config=<file.jsonc> (copy config/karpenter-doctor.example.jsonc and edit it),',
      "or the document itself: -c karpenterDoctor='{…}'.",
      'To synthesise the example: npx cdk synth -c config=config/karpenter-doctor.example.jsonc',
    ].join('\n'),
  );
}

/**
 * Parses a configuration file: JSON with comments and trailing commas (as in tsconfig.json), read by
 * jsonc-parser. A syntax error and every schema problem are reported as `<file>:<line>:<column>`.
 */
export function parseConfigFile(text: string, file: string): KarpenterDoctorConfig {
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0 || tree === undefined) {
    const problems = errors.map(
      (e) => `  ${file}:${lineColumn(text, e.offset)}: ${describeSyntax(printParseErrorCode(e.error))}`,
    );
    throw new ConfigError(
      `The karpenter-doctor configuration ${file} is not valid JSON with comments:\n${problems.join('\n') || '  (empty file)'}`,
    );
  }
  return parseConfig(getNodeValue(tree) as unknown, file, (path) => {
    // A missing key is reported where its object is.
    for (let depth = path.length; depth >= 0; depth--) {
      const node = findNodeAtLocation(tree, path.slice(0, depth) as Array<string | number>);
      if (node) return `${file}:${lineColumn(text, node.offset)}`;
    }
    return undefined;
  });
}

/** 1-based `line:column` of a character offset. */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - before.lastIndexOf('\n')}`;
}

const SYNTAX: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a key in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: 'expected the end of the file',
  InvalidCommentToken: 'invalid comment',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
};

const describeSyntax = (code: string): string => SYNTAX[code] ?? code;

/** The example configuration, synthesised when none is given (a deploy of it is refused: `guardExample`). */
export const EXAMPLE_CONFIG = 'config/karpenter-doctor.example.jsonc';

/** True when the app was given a configuration of its own (`-c config=` or `-c karpenterDoctor=`). */
export function hasOwnConfig(app: App): boolean {
  const path = app.node.tryGetContext('config') as unknown;
  return (typeof path === 'string' && path !== '') || app.node.tryGetContext('karpenterDoctor') !== undefined;
}
