import { describe, expect, it } from '@jest/globals';
import { LABEL_LIMITS, labelPairs, labelsOf, parseLabels, type Label } from '../../src/domain/labels.js';
import { BadUserInputError } from '../../src/errors/index.js';

/** The BadUserInputError `fn` throws. */
function refusal(fn: () => unknown): BadUserInputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(BadUserInputError);
    return error as BadUserInputError;
  }
  throw new Error('expected a BadUserInputError');
}

const many = (n: number): Label[] => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));

describe('parseLabels', () => {
  it('sorts by key, so that the same set is stored alike whatever its order', () => {
    expect(
      parseLabels([
        { key: 'team', value: 'payments' },
        { key: 'app.kubernetes.io/name', value: 'billing' },
        { key: 'env', value: '' },
      ]),
    ).toEqual([
      { key: 'app.kubernetes.io/name', value: 'billing' },
      { key: 'env', value: '' },
      { key: 'team', value: 'payments' },
    ]);
  });

  it('takes none for undefined, null and an empty list', () => {
    expect(parseLabels(undefined)).toEqual([]);
    expect(parseLabels(null)).toEqual([]);
    expect(parseLabels([])).toEqual([]);
  });

  it(`accepts ${LABEL_LIMITS.count} labels and refuses one more, naming the bound`, () => {
    expect(parseLabels(many(LABEL_LIMITS.count))).toHaveLength(LABEL_LIMITS.count);
    const error = refusal(() => parseLabels(many(LABEL_LIMITS.count + 1)));
    expect(error.message).toBe(`labels may have at most ${LABEL_LIMITS.count} entries`);
    expect(error.details).toEqual({ field: 'labels' });
  });

  it('names the field it was given (a filter)', () => {
    expect(refusal(() => parseLabels(many(LABEL_LIMITS.count + 1), 'filter.labels')).details).toEqual({ field: 'filter.labels' });
  });

  it.each([
    ['empty', ''],
    ['too long', 'k'.repeat(LABEL_LIMITS.keyLength + 1)],
    ['with =', 'a=b'],
    ['with a space', 'a b'],
    ['starting with a dot', '.a'],
    ['with a control character', 'a\u0000'],
    ['with a $', '$where'],
  ])('refuses a key %s', (_case, key) => {
    expect(refusal(() => parseLabels([{ key, value: 'v' }])).message).toMatch(/key .* must be 1 to 63 characters, letters, digits/);
  });

  it(`accepts a key of ${LABEL_LIMITS.keyLength} characters and dots, slashes, dashes and underscores after the first`, () => {
    expect(parseLabels([{ key: 'k'.repeat(LABEL_LIMITS.keyLength), value: 'v' }])).toHaveLength(1);
    expect(parseLabels([{ key: '9a._/-b', value: 'v' }])).toHaveLength(1);
  });

  it('refuses a key given twice', () => {
    expect(
      refusal(() =>
        parseLabels([
          { key: 'team', value: 'a' },
          { key: 'team', value: 'b' },
        ]),
      ).message,
    ).toBe('labels: key "team" is given more than once');
  });

  it.each([
    ['too long', 'v'.repeat(LABEL_LIMITS.valueLength + 1)],
    ['with a line break', 'a\nb'],
    ['with a lone surrogate', 'a\ud800'],
  ])('refuses a value %s, naming its key', (_case, value) => {
    expect(refusal(() => parseLabels([{ key: 'team', value }])).message).toBe(
      `labels: the value of "team" must be at most ${LABEL_LIMITS.valueLength} characters of text without control characters`,
    );
  });

  it('accepts a value with = and non-ASCII text', () => {
    expect(parseLabels([{ key: 'q', value: 'a=b=c ünï 🙂' }])).toEqual([{ key: 'q', value: 'a=b=c ünï 🙂' }]);
  });
});

describe('labelPairs and labelsOf', () => {
  it('store each label as key=value and read it back, a value with = included', () => {
    const labels = [
      { key: 'env', value: '' },
      { key: 'q', value: 'a=b' },
    ];
    expect(labelPairs(labels)).toEqual(['env=', 'q=a=b']);
    expect(labelsOf(labelPairs(labels))).toEqual(labels);
  });

  it('read a job stored before labels existed as having none', () => {
    expect(labelsOf(undefined)).toEqual([]);
  });
});
