/** Quotes a value for a POSIX shell unless it is made only of characters that need no quoting. */
export function shellArg(value: string): string {
  if (/^[A-Za-z0-9._:/=@%+,-]+$/.test(value)) return value;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
