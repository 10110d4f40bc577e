import { expect } from 'vitest';
import { ConfigError } from '../../src/config/index.js';

/** Runs `action`, which must throw a ConfigError, and returns that error. */
export function thrown(action: () => unknown): ConfigError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  return expect.fail('expected a ConfigError to be thrown');
}

/** The lines of a thrown error's message. */
export function messageLines(action: () => unknown): string[] {
  return thrown(action).message.split('\n');
}
