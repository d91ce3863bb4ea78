import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import { filterPatternProblems } from '../../contracts/filter-pattern';
import { defaultFilterPattern } from '../../lib/filter-pattern';

describe('filterPatternProblems', () => {
  // Patterns written by the CDK's own FilterPattern builder, and examples of the CloudWatch Logs syntax.
  it.each([
    ['the default pattern', defaultFilterPattern().logPatternString],
    ['anyTerm', FilterPattern.anyTerm('ERROR', 'Insufficient capacity', 'x509: certificate').logPatternString],
    ['allTerms', FilterPattern.allTerms('karpenter', 'failed').logPatternString],
    ['stringValue', FilterPattern.stringValue('$.level', '=', 'ERROR').logPatternString],
    [
      'any of JSON comparisons',
      FilterPattern.any(
        FilterPattern.stringValue('$.level', '=', 'ERROR'),
        FilterPattern.numberValue('$.status', '>=', 500),
      ).logPatternString,
    ],
    [
      'spaceDelimited',
      FilterPattern.spaceDelimited('ip', 'user', '...').whereString('user', '=', 'admin').logPatternString,
    ],
    ['everything', ''],
    ['terms with exclusion', 'ERROR -Retrying'],
    ['two regular expressions', '%Insufficient[A-Za-z]+% %Unable to .*%'],
    ['a regex in a JSON pattern', '{ $.message = %timeout% }'],
    ['a quoted brace', '"}" ?"{"'],
  ])('accepts %s', (_name, pattern) => {
    expect(filterPatternProblems(pattern)).toEqual([]);
  });

  it.each([
    ['x'.repeat(1025), 'is 1025 characters long; CloudWatch Logs allows at most 1,024'],
    ['?ERROR ?"Insufficient capacity', 'has a quoted term that is not closed (")'],
    ['%Insufficient.*', 'has a regular expression that is not closed (%…%)'],
    ['%a% %b% %c%', 'has 3 regular expressions; CloudWatch Logs allows at most 2 in one pattern'],
    ['%(Insufficient|Unable)%', 'has parentheses in a regular expression, which CloudWatch Logs does not support'],
    ['%Fehler–%', 'has a multi-byte character in a regular expression, which CloudWatch Logs does not support'],
    ['{ $.level = "error"', 'starts a JSON pattern with "{" but does not end with "}"'],
    ['$.level = "error" }', 'ends with "}" but does not start a JSON pattern with "{"'],
    ['{ level = "error" }', 'is a JSON pattern without a selector such as $.level'],
    ['{ ($.level = "error" }', 'has unbalanced "(" and ")"'],
    ['[ip, user', 'starts a space-delimited pattern with "[" but does not end with "]"'],
  ])('refuses %j: it %s', (pattern, problem) => {
    expect(filterPatternProblems(pattern)).toContain(problem);
  });
});
