/** Raised for invalid configuration; the message names the variable. */
export class ConfigError extends Error {}
