// Shared wording of violation messages: virtual times in seconds with two decimals.

export const secs = (ms: number): string => `${(ms / 1000).toFixed(2)}s`;
