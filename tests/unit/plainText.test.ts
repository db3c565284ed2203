import { describe, expect, it } from '@jest/globals';
import { isPlainText } from '../../src/domain/plainText.js';

describe('isPlainText', () => {
  it('takes text of any script, emoji (a surrogate pair) and the empty string', () => {
    expect(isPlainText('')).toBe(true);
    expect(isPlainText('crm:42 ünï 日本 🙂 = / .')).toBe(true);
  });

  it.each([
    ['NUL', 'a\u0000b'],
    ['a tab', 'a\tb'],
    ['a line break', 'a\nb'],
    ['DEL', 'a\u007fb'],
    ['a lone high surrogate', 'a\ud83d'],
    ['a lone low surrogate', '\ude42b'],
  ])('refuses %s', (_case, value) => {
    expect(isPlainText(value)).toBe(false);
  });
});
