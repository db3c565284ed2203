/** C0 control characters (NUL included) and DEL. */
const CONTROL = /[\u0000-\u001f\u007f]/; // eslint-disable-line no-control-regex
/** Half of a UTF-16 surrogate pair without its other half: not text, and not storable as UTF-8 unchanged. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `value` is one line of text that is stored and read back unchanged and shows alike in logs
 * and UIs: no control characters (line breaks and tabs included) and no lone surrogate.
 */
export function isPlainText(value: string): boolean {
  return !CONTROL.test(value) && !LONE_SURROGATE.test(value);
}
