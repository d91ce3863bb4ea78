import type { Style } from '../../lambdas/core/findings/render-text';
import type { Severity } from '../../lambdas/core/model';

const SEVERITY_COLOURS: Record<Severity, string> = {
  critical: '\u001b[1;41;97m',
  high: '\u001b[1;31m',
  medium: '\u001b[33m',
  low: '\u001b[36m',
};
const RESET = '\u001b[0m';

/** ANSI styling, used only when stdout is a terminal and NO_COLOR is unset. */
export const terminalStyle: Style = {
  severity: (severity, text) => `${SEVERITY_COLOURS[severity]}${text}${RESET}`,
  bold: (text) => `\u001b[1m${text}${RESET}`,
  dim: (text) => `\u001b[2m${text}${RESET}`,
};
