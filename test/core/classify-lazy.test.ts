import { classifyAll } from '../../lambdas/core/classify';
import * as matchers from '../../lambdas/core/substring-matcher';

// A delivery of healthy lines keeps no record to classify. Its batch must build neither the
// classifier's tables nor its automaton (about 40 ms of CPU on a cold start, `npm run bench -- cold`:
// "through a first batch without a finding"). Its own file, so that no other test has built them.
test('classifying no record builds neither the tables nor the automaton', () => {
  const { SubstringMatcher } = matchers;
  const build = jest.spyOn(SubstringMatcher.prototype as unknown as { build(): unknown }, 'build');
  const made = jest
    .spyOn(matchers, 'SubstringMatcher')
    .mockImplementation((...args: ConstructorParameters<typeof SubstringMatcher>) => new SubstringMatcher(...args));
  expect(classifyAll([])).toEqual([]);
  expect(made).not.toHaveBeenCalled();
  const matcher = new SubstringMatcher(['insufficient']);
  matcher.scanEach([], () => {
    throw new Error('no text to visit');
  });
  expect(build).not.toHaveBeenCalled();
  // The spies see what they watch: a scan builds the automaton, a classification the tables.
  expect(matcher.scan('Insufficient capacity').count).toBe(1);
  expect(build).toHaveBeenCalledTimes(1);
  made.mockClear();
  classifyAll([{ text: 'no rule here' } as Parameters<typeof classifyAll>[0][number]]);
  expect(made).toHaveBeenCalled();
});
